#!/usr/bin/env bash
# Diagnostics of the keel tool (issue 16), one CTest per case:
#   diag_test.sh KEEL WORK_DIR CASE
# The cases read the project's BPF objects (verifier/tests/bpf, built when
# clang is found; KEEL_BPF_OBJECT_DIR) and skip (77) without them.
set -u
KEEL=$1 WORK=$2 CASE=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
[ -n "${KEEL_BPF_OBJECT_DIR:-}" ] && [ -f "$KEEL_BPF_OBJECT_DIR/diagnostics.bpf.o" ] ||
  { echo "skipped: the project's BPF objects were not built (no clang)"; exit 77; }
OBJ=$KEEL_BPF_OBJECT_DIR/diagnostics.bpf.o

fail() { echo "FAIL ($CASE): $*"; echo "--- stdout"; cat out.txt 2>/dev/null; echo "--- stderr"; cat err.txt 2>/dev/null; exit 1; }
expect() {
  local want=$1; shift
  "$@" >out.txt 2>err.txt
  local got=$?
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want"
}
# stdout must match (grep -E) / must not match.
stdout_has() { grep -Eq -- "$1" out.txt || fail "stdout lacks /$1/"; }
stdout_lacks() { ! grep -Eq -- "$1" out.txt || fail "stdout has /$1/"; }
stderr_has() { grep -Eq -- "$1" err.txt || fail "stderr lacks /$1/"; }

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
  *)
    echo "unknown case $CASE"; exit 2 ;;
esac
exit 0
