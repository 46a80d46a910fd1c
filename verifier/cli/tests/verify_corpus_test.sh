#!/usr/bin/env bash
# Corpus tests of `keel-corpus cases` and `keel verify` on ELF objects:
#   verify_corpus_test.sh KEEL CORPUS_DIR DATA_DIR MODE KEEL_CORPUS
#   cases: the portable Linux selftests; must finish with no false accept
#          beyond the documented divergences (DATA/linux-divergences.txt).
#   elf:   ebpf-samples objects: an accepted program, a rejection with its
#          source line, a load error, disasm.
# A missing corpus is a skip (exit 77) — except under CI=true, a failure.
set -u
KEEL=$1 CORPUS=$2 DATA=$3 MODE=$4 KC=$5
case $MODE in
  cases) need=$CORPUS/linux-verifier/linux-6.1-dev-portable.jsonl ;;
  elf) need=$CORPUS/ebpf-samples/linux/sockex1_kern.o ;;
  *) echo "unknown mode $MODE"; exit 1 ;;
esac
if [ ! -e "$need" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "error: corpus not found ($need) and CI=true"
    exit 1
  fi
  echo "skipped: corpus not found ($need)"
  exit 77
fi
fail() { echo "FAIL ($MODE): $*"; printf '%s\n' "$out"; exit 1; }

if [ "$MODE" = cases ]; then
  out=$("$KC" cases "$need" --divergences "$DATA/linux-divergences.txt")
  status=$?
  printf '%s\n' "$out" | tail -n 3
  [ $status -eq 0 ] || fail "exit $status"
  counts=$(printf '%s\n' "$out" | tail -n 2 | head -n 1)
  [[ $counts =~ ^false-accepts:\ 0,\ false-rejects:\ [0-9]+,\ skipped:\ [0-9]+$ ]] || fail "false accepts: $counts"
  [[ $(printf '%s\n' "$out" | tail -n 1) =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] || fail "bad summary line"
  ! printf '%s\n' "$out" | grep -q '^FALSE-ACCEPT' || fail "FALSE-ACCEPT lines"
  exit 0
fi

samples=$CORPUS/ebpf-samples
out=$("$KEEL" verify "$samples/linux/sockex1_kern.o"); status=$?
[ $status -eq 0 ] || fail "sockex1_kern.o: exit $status"
[[ $out =~ ^PASS\ socket1\ type=socket_filter\ insns=[0-9]+\ max_insns=[0-9]+\ stack=[0-9]+$ ]] || fail "sockex1 line"
out=$("$KEEL" verify "$samples/linux/sockex1_kern.o" --section socket1 --json); status=$?
[ $status -eq 0 ] || fail "--json: exit $status"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["programs"]
assert len(p) == 1 and p[0]["section"] == "socket1" and p[0]["verdict"] == "accept" and p[0]["type"] == "socket_filter"
assert d["verdict"] == "accept" and d["file"].endswith("sockex1_kern.o") and isinstance(d["maps"], list)
for key in ("function", "insns", "pc", "reason", "message", "source_file", "source_line", "source_text", "state",
            "max_insns_executed", "arena_bytes", "verify_ns"):
    assert key in p[0], key
' || fail "JSON shape"
# A deliberately bad program: map pointer arithmetic, named by its source line.
out=$("$KEEL" verify "$samples/build/badmapptr.o" --type socket_filter); status=$?
[ $status -eq 1 ] || fail "badmapptr.o: exit $status"
[[ $out =~ ^FAIL\ test/test_repro\ type=socket_filter\ insns=[0-9]+\ pc\ [0-9]+:\ .*badmapptr\.c:[0-9]+ ]] || fail "badmapptr line"
printf '%s\n' "$out" | grep -q '^    .*bpf_map_lookup_elem(map + 1' || fail "no source text"
out=$("$KEEL" verify "$samples/build/badmapptr.o" --type socket_filter --json); status=$?
printf '%s' "$out" | python3 -c '
import json, sys
p = json.load(sys.stdin)["programs"][0]
assert p["verdict"] == "reject" and p["reason"] == "pointer_arithmetic"
assert p["source_file"].endswith("badmapptr.c") and isinstance(p["source_line"], int) and p["source_line"] > 0
' || fail "badmapptr JSON"
# Malformed objects: an error (exit 2), never a verdict or a crash.
out=$("$KEEL" verify "$samples/invalid/badsymsize.o"); status=$?
[ $status -eq 2 ] || fail "badsymsize.o: exit $status"
[[ $out =~ ^ERROR\ .*badsymsize\.o:\  ]] || fail "badsymsize line"
# A section name keel does not know: unsupported (exit 2), and
# --default-type types it (--type would retype every section).
out=$("$KEEL" verify "$samples/build/bounded_loop.o"); status=$?
[ $status -eq 2 ] || fail "bounded_loop.o: exit $status"
[[ $out =~ ^UNSUPPORTED\ test/test_bounded_loop\ .*unknown\ program\ type ]] || fail "unknown type line"
out=$("$KEEL" verify "$samples/build/bounded_loop.o" --default-type socket_filter); status=$?
[ $status -eq 0 ] || fail "--default-type: exit $status"
[[ $out =~ ^PASS\ test/test_bounded_loop\ type=socket_filter ]] || fail "--default-type line"
out=$("$KEEL" verify "$samples/linux/sockex1_kern.o" --default-type xdp); status=$?
[[ $out =~ ^PASS\ socket1\ type=socket_filter ]] || fail "--default-type must not retype a known section"
out=$("$KEEL" verify "$samples/linux/sockex1_kern.o" --section nope 2>&1); status=$?
[ $status -eq 2 ] || fail "--section nope: exit $status"
out=$("$KEEL" disasm "$samples/linux/sockex1_kern.o"); status=$?
[ $status -eq 0 ] || fail "disasm: exit $status"
[ "$(printf '%s\n' "$out" | head -n 2)" = $'socket1:\n   0: mov %r6, %r1' ] || fail "disasm listing"
plain=$("$KEEL" disasm "$samples/linux/sockex1_kern.o" --section socket1 --plain) || fail "disasm --plain"
out=$plain
printf '%s\n' "$plain" | "$KEEL" asm - -o - >/dev/null || fail "disasm --plain does not assemble"
echo "ok"
exit 0
