# Shared by the keel tool's shell tests (cli_test.sh, diag_test.sh):
# run keel, check its exit status and its output. The caller sets CASE and
# works in a directory of its own (out.txt and err.txt are written there).

fail() { echo "FAIL ($CASE): $*"; echo "--- stdout"; cat out.txt 2>/dev/null; echo "--- stderr"; cat err.txt 2>/dev/null; exit 1; }

# expect RC CMD...: runs CMD with stdout/stderr in out.txt/err.txt; checks the status.
expect() {
  local want=$1; shift
  "$@" >out.txt 2>err.txt
  local got=$?
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want"
}
# stdout / stderr must match an extended regex (stdout_lacks: must not).
stdout_has() { grep -Eq -- "$1" out.txt || fail "stdout lacks /$1/"; }
stdout_lacks() { ! grep -Eq -- "$1" out.txt || fail "stdout has /$1/"; }
stderr_has() { grep -Eq -- "$1" err.txt || fail "stderr lacks /$1/"; }
