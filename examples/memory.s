# memory.s: reads the input buffer, uses the stack, returns a 64-bit value.
#
# keel run passes the buffer given with --mem: r1 points to it and r2 holds
# its length (the bpf_conformance convention). r10 is the read-only frame
# pointer; the program's 512-byte stack lies below it.
#
#   keel run examples/memory.s --mem '01 00 00 00 02 00 00 00'
#
# reads the two little-endian words 1 and 2, stores them on the stack in
# swapped order and reads them back as one doubleword: r0 = 0x100000002.
# With a buffer shorter than 8 bytes it returns 0 without reading it; a
# program that read past the buffer anyway would trap in --guarded mode.
mov %r0, 0
jlt %r2, 8, done
ldxw %r3, [%r1+0]
ldxw %r4, [%r1+4]
# Stack slot [r10-8, r10): low word at the lower address (little-endian).
stxw [%r10-8], %r4
stxw [%r10-4], %r3
ldxdw %r0, [%r10-8]
done:
exit
