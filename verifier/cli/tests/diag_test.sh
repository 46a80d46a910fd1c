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
  *)
    echo "unknown case $CASE"; exit 2 ;;
esac
exit 0
