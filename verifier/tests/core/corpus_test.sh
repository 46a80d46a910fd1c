#!/usr/bin/env bash
# core.corpus: every object of keel's CO-RE corpus is accepted by
#   keel verify OBJ --btf BTF
# with its relocations applied (a "CO-RE: N relocations" line, N > 0).
#   corpus_test.sh KEEL BTF OBJECT...
#   corpus_test.sh --missing WHY      (the corpus could not be built here)
set -u
if [ "$1" = --missing ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "error: CO-RE corpus not built: $2, and CI=true"
    exit 1
  fi
  echo "skipped: CO-RE corpus not built: $2"
  exit 77
fi
KEEL=$1 BTF=$2
shift 2
[ $# -ge 10 ] || { echo "FAIL: $# objects, the corpus has at least 10"; exit 1; }
failed=0 programs=0
for object in "$@"; do
  out=$("$KEEL" verify "$object" --btf "$BTF" 2>&1)
  status=$?
  name=$(basename "$object")
  if [ $status -ne 0 ] || printf '%s\n' "$out" | grep -qv -E '^(PASS |CO-RE: )'; then
    echo "FAIL $name (exit $status):"
    printf '%s\n' "$out" | sed 's/^/    /'
    failed=$((failed + 1))
    continue
  fi
  if ! printf '%s\n' "$out" | grep -Eq "^CO-RE: [1-9][0-9]* relocations? against $BTF"; then
    echo "FAIL $name: no CO-RE relocation applied"
    failed=$((failed + 1))
    continue
  fi
  count=$(printf '%s\n' "$out" | grep -c '^PASS ')
  programs=$((programs + count))
  echo "ok   $name: $count programs, $(printf '%s\n' "$out" | grep '^CO-RE: ')"
done
echo "$# objects, $programs programs, $failed failed"
[ $failed -eq 0 ]
