# hello.s: sums 1..10 in a counted loop and returns the sum (r0 = 55).
#
# Syntax of the bpf_conformance suite: `%r` registers, `mnemonic dst, src`,
# labels ending in `:`, jump targets by label or relative offset (`+2`).
# Assemble: keel asm examples/hello.s -o hello.bin
# Run:      keel run hello.bin          (prints r0 = 0x37)
#
# r0 is the running sum (and the return value), r1 the counter.
mov %r0, 0
mov %r1, 1
loop:
add %r0, %r1
add %r1, 1
# Back edge, taken while the counter is at most 10: 10 iterations, so the
# loop's trip count is bounded by a constant (what a verifier must prove).
jle %r1, 10, loop
exit
