#!/usr/bin/env bash
# Diagnostics of the keel tool (issue 16), one CTest per case:
#   diag_test.sh KEEL WORK_DIR CASE
# The cases read the project's BPF objects (verifier/tests/bpf, built when
# clang is found; KEEL_BPF_OBJECT_DIR) and skip (77) without them.
set -u
KEEL=$1 WORK=$2 CASE=$3
# fail, expect, stdout_has, stdout_lacks, stderr_has.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
[ -n "${KEEL_BPF_OBJECT_DIR:-}" ] && [ -f "$KEEL_BPF_OBJECT_DIR/diagnostics.bpf.o" ] ||
  { echo "skipped: the project's BPF objects were not built (no clang)"; exit 77; }
OBJ=$KEEL_BPF_OBJECT_DIR/diagnostics.bpf.o

case $CASE in
  helper_names)
    # Helpers by the name the source calls them, with their id.
    expect 1 "$KEEL" verify "$OBJ" --function spin
    stdout_has 'helper bpf_spin_lock \(93\) uses argument kinds keel does not model'
    # A helper the type lacks: named, with the type (raw program).
    printf 'call 23\nmov %%r0, 0\nexit\n' >redirect.s
    expect 1 "$KEEL" verify redirect.s --type socket_filter
    stdout_has 'helper bpf_redirect \(23\) is not one socket_filter offers' ;;
  return_range)
    expect 1 "$KEEL" verify "$OBJ" --function verdict_range
    stdout_has 'r0 at exit is a scalar in \[0, 7\], outside what the program type allows: a scalar in \[0, 1\]' ;;
  object_state)
    # A .o rejection shows the registers at the rejected pc, as .s ones do.
    expect 1 "$KEEL" verify "$OBJ" --function overrun
    stdout_has 'pointer to map value of size 4'
    stdout_has '^    frame 0: .*r0=map_value\(map [0-9]+\)\+0\+\[0,7\]' ;;
  leak_lines)
    # The acquiring line and the exit path that leaks, not the closing brace.
    expect 1 "$KEEL" verify "$OBJ" --function leak
    stdout_has 'acquired at pc 12 .*; acquired at [^ ]*diagnostics\.bpf\.c:49; leaks on the exit path through line 51, [^ ]*diagnostics\.bpf\.c:51$'
    stdout_has '^    if \(skb->len > 100\)$'
    expect 1 "$KEEL" verify "$OBJ" --function leak --json
    python3 -c 'import json,sys; p=json.load(open("out.txt"))["programs"][0]; sys.exit(0 if p["source_line"]==51 and "acquired at" in p["message"] else 1)' ||
      fail "JSON source_line is not the leaking path's line" ;;
  log_trace)
    # --log: the path to the rejection, each instruction under its state.
    expect 1 "$KEEL" verify "$OBJ" --function overrun --log
    stdout_has '^    path to the rejection, [0-9]+ instructions, each under the state entering it, from the entry:$'
    stdout_has '^          ; frame 0: r1=ctx\+0 r10=stack\(fp0\)\+0$'
    stdout_has '^       0: mov %r6, %r1$'
    # The last line is the rejected instruction, under the state the message describes.
    tail -1 out.txt | grep -Eq '^      17: ldxb %r7, \[%r0\]$' || fail "the trace does not end at the rejected pc"
    # The leak's trace follows the path that keeps the reference (through
    # the jgt at 16 to the exit), not the one that releases it.
    expect 1 "$KEEL" verify "$OBJ" --function leak --log
    grep -E '^ +[0-9]+: ' out.txt | awk '{print $1}' | tr '\n' ' ' >pcs.txt
    grep -q '^0: 1: .* 12: 13: 14: 15: 16: 20: 21: $' pcs.txt || fail "leak path: $(cat pcs.txt)"
    # A long path is cut, and says so.
    { echo 'mov %r0, 0'; for i in $(seq 1 600); do echo 'add %r0, 1'; done; echo 'ldxw %r0, [%r0]'; echo 'exit'; } >long.s
    expect 1 "$KEEL" verify long.s --type socket_filter --log
    stdout_has 'path to the rejection, 500 instructions, each under the state entering it \(trace cut: the path.s earlier instructions are not shown\):$'
    tail -1 out.txt | grep -Eq '^     601: ldxw %r0, \[%r0\]$' || fail "the cut trace does not end at the rejected pc"
    # Without --log, no trace.
    expect 1 "$KEEL" verify "$OBJ" --function overrun
    stdout_lacks 'path to the rejection' ;;
  llvm_syntax)
    # --syntax llvm reads as llvm-objdump -d does, instruction for
    # instruction, on the code sections of the project's objects and of one
    # built here for BPF v3 (32-bit jumps, atomics, byte swaps, signed
    # shifts); the jump labels llvm-objdump adds (<LBB0_2>) are left out.
    command -v llvm-objdump >/dev/null && command -v llvm-objcopy >/dev/null && command -v clang >/dev/null ||
      { echo "skipped: llvm-objdump, llvm-objcopy or clang missing"; exit 77; }
    cat >v3.c <<'C'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
__u64 counter = 0;
__u32 small = 0;
SEC("xdp")
int v3(struct xdp_md* ctx) {
  __u32 len = ctx->data_end - ctx->data;
  __s32 s = (__s32)len - 100;
  __u64 old = __sync_fetch_and_add(&counter, len);
  __sync_fetch_and_add(&small, 1);
  __sync_fetch_and_or(&counter, 4);
  __sync_fetch_and_xor(&small, 3);
  __u64 swapped = __sync_lock_test_and_set(&counter, old);
  __sync_val_compare_and_swap(&small, 5, len);
  if (s < -5) return bpf_htons(len) >> 3;
  if ((__s64)swapped > 7 && (len & 8)) return (__s32)(len << 4) >> 2;
  return -(int)len % 3 ? XDP_PASS : XDP_DROP;
}
char LICENSE[] SEC("license") = "GPL";
C
    clang -O2 -g -target bpf -mcpu=v3 -I/usr/include/$(gcc -dumpmachine 2>/dev/null) -c v3.c -o v3.o 2>err.txt ||
      fail "clang could not build the v3 object"
    compared=0
    for obj in "$KEEL_BPF_OBJECT_DIR"/*.bpf.o v3.o; do
      for section in $(llvm-readelf -S -W "$obj" | awk '/\] / { for (i = 1; i <= NF; i++) if ($i == "PROGBITS" && $(i+5) ~ /X/) print $(i-1) }'); do
        llvm-objcopy -O binary --only-section="$section" "$obj" section.bin || fail "objcopy $obj $section"
        [ -s section.bin ] || continue
        llvm-objdump -d --no-show-raw-insn --section="$section" "$obj" | sed -nE 's/^ +([0-9]+):\t(.*)$/\1: \2/p' >want.txt
        "$KEEL" disasm --syntax llvm section.bin | sed -nE 's/^ *([0-9]+): (.*)$/\1: \2/p' | sed -E 's/ <[^>]*>$//' >got.txt
        # What LLVM 14 cannot decode (`<unknown>`: 32-bit mod, xor, cmpxchg) is left out on both sides.
        grep -E ': <unknown>$' want.txt | cut -d: -f1 | sed 's/.*/^&:/' >unknown.txt
        sed -i -E 's/ <LBB[^>]*>$//' want.txt
        if [ -s unknown.txt ]; then
          grep -v -f unknown.txt want.txt >w.txt; mv w.txt want.txt
          grep -v -f unknown.txt got.txt >g.txt; mv g.txt got.txt
        fi
        diff want.txt got.txt >diff.txt || fail "$obj section $section: llvm-objdump (<) and keel (>) differ: $(head -6 diff.txt)"
        compared=$((compared + $(wc -l <want.txt)))
      done
    done
    [ "$compared" -gt 500 ] || fail "only $compared instructions compared"
    echo "compared $compared instructions with llvm-objdump"
    # The v3 object holds the instruction kinds this case is for.
    "$KEEL" disasm --syntax llvm v3.o >out.txt || fail "disasm v3.o"
    stdout_has 'if w[0-9]+ s> -?[0-9]+ goto'
    stdout_has '= atomic_fetch_add\(\(u64 \*\)\(r[0-9]+ \+ 0\), r[0-9]+\)'
    stdout_has '= cmpxchg32_32\(r[0-9]+ \+ 0, w0, w[0-9]+\)'
    stdout_has 'r[0-9]+ = be(16|32|64) r[0-9]+'
    stdout_has 'lock \*\(u32 \*\)\(r[0-9]+ \+ 0\) \^= w[0-9]+'
    stdout_has 'lock \*\(u64 \*\)\(r[0-9]+ \+ 0\) \|= r[0-9]+' ;;
  disasm_names)
    # Maps, global variables, helpers and jump targets by name.
    expect 0 "$KEEL" disasm "$OBJ" --function overrun
    stdout_has '^tc/overrun:$'
    stdout_lacks '^overrun:$'  # the heading names it
    stdout_has '^   5: lddw %r1, small$'
    stdout_has '^   7: call bpf_map_lookup_elem$'
    stdout_has '^   8: jeq %r0, 0, \.L18$'
    stdout_has '^   9: lddw %r1, hits$'
    stdout_has '^\.L18:$'
    stdout_lacks 'map_fd|map_value'
    expect 0 "$KEEL" disasm "$OBJ" --function calls
    stdout_has '^   1: call local twice$'
    stdout_has '^twice:$'
    expect 0 "$KEEL" disasm "$OBJ" --function calls --syntax llvm
    stdout_has '^   1: call 24 <twice>$'
    stdout_has '^  15: r1 = hits ll$'
    stdout_has '^  22: if r0 s> 100 goto \+1 <\.L24>$'
    # --plain keeps the numbers: it is what assembles back.
    expect 0 "$KEEL" disasm "$OBJ" --function overrun --plain
    stdout_has '^lddw %r1, map_fd [0-9]+$'
    stdout_has '^call 1$'
    stdout_has '^jeq %r0, 0, \+9$'
    "$KEEL" asm out.txt -o overrun.bin 2>err.txt || fail "the --plain listing does not assemble"
    expect 2 "$KEEL" disasm "$OBJ" --plain -S
    stderr_has 'without -S or --syntax llvm'
    expect 2 "$KEEL" disasm "$OBJ" --syntax intel
    stderr_has '--syntax wants conformance or llvm' ;;
  disasm_source)
    # -S: each source line (BTF line info) once, above its first instruction.
    expect 0 "$KEEL" disasm "$OBJ" --function verdict_range -S
    stdout_has '^; diagnostics\.bpf\.c:43: int verdict_range\(struct __sk_buff\* skb\) \{ return skb->len & 7; \}$'
    [ "$(grep -c '^; diagnostics\.bpf\.c:43:' out.txt)" -eq 1 ] || fail "line 43 printed more than once"
    expect 0 "$KEEL" disasm "$OBJ" --function leak -S
    grep -n '' out.txt | grep -A1 ':; diagnostics\.bpf\.c:53: ' | tail -1 | grep -Eq '^[0-9]+: +[0-9]+: mov %r1, %r0$' ||
      fail "line 53 is not above its first instruction" ;;
  disasm_function)
    # --function finds a subprogram too: its slots in the program linking it.
    expect 0 "$KEEL" disasm "$OBJ" --function twice
    stdout_has '^twice \(in xdp/calls\):$'
    stdout_has '^  26: mov %r0, %r1$'
    stdout_has '^  28: exit$'
    [ "$(grep -cE '^ *[0-9]+: ' out.txt)" -eq 3 ] || fail "twice has 3 instructions"
    expect 2 "$KEEL" disasm "$OBJ" --function nowhere
    stderr_has "no program matches --function 'nowhere'" ;;
  *)
    echo "unknown case $CASE"; exit 2 ;;
esac
exit 0
