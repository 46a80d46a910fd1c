#!/usr/bin/env bash
# The corpus test: every bpf_conformance and uBPF .data file through
# `keel-corpus test-data`. Passes only on a last line of exactly "N passed, 0 failed"
# (N/A files are counted on the "skipped: K" line before it) and exit 0.
# A missing corpus is a skip (exit 77, CTest SKIP_RETURN_CODE) — except
# under CI=true, where it is a failure.
#   corpus_test.sh KEEL_CORPUS CORPUS_DIR
set -u
KC=$1 CORPUS=$2
dirs=("$CORPUS/bpf_conformance/tests" "$CORPUS/ubpf/tests")
for dir in "${dirs[@]}"; do
  if [ ! -d "$dir" ]; then
    if [ "${CI:-}" = "true" ]; then
      echo "error: corpus not found ($dir) and CI=true"
      exit 1
    fi
    echo "skipped: corpus not found ($dir)"
    exit 77
  fi
done
out=$("$KC" test-data "${dirs[@]}")
status=$?
printf '%s\n' "$out"
summary=$(printf '%s\n' "$out" | tail -n 1)
if [ $status -eq 0 ] && [[ $summary =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
  exit 0
fi
echo "corpus test failed (exit $status): $summary"
exit 1
