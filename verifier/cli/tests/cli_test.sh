#!/usr/bin/env bash
# Behaviour tests of the keel command-line tool, one CTest per case:
#   cli_test.sh KEEL DATA_DIR WORK_DIR CASE
# A case runs keel, then checks the exit status and the output.
set -u
KEEL=$1 DATA=$2 WORK=$3 CASE=$4
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

fail() { echo "FAIL ($CASE): $*"; echo "--- stdout"; cat out.txt 2>/dev/null; echo "--- stderr"; cat err.txt 2>/dev/null; exit 1; }

# expect RC CMD...: runs CMD with stdout/stderr in out.txt/err.txt; checks the status.
expect() {
  local want=$1; shift
  "$@" >out.txt 2>err.txt
  local got=$?
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want"
}
# stdout / stderr must match an extended regex.
stdout_has() { grep -Eq -- "$1" out.txt || fail "stdout lacks /$1/"; }
stderr_has() { grep -Eq -- "$1" err.txt || fail "stderr lacks /$1/"; }
# stdout is one JSON value `d` for which the Python expression $1 holds.
json_check() {
  python3 -c 'import json, sys; d = json.load(open("out.txt")); sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)' "$1" \
    || fail "JSON check failed: $1"
}
# A bad-input error: exit 2, one line on stderr, matching $1.
bad_input() {
  local pattern=$1; shift
  expect 2 "$@"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "'$*': expected one line on stderr"
  stderr_has "$pattern"
}

case $CASE in
  help)
    expect 0 "$KEEL" --help; stdout_has '^Usage: keel'
    expect 0 "$KEEL" help; stdout_has '^Usage: keel'
    expect 0 "$KEEL" run --help; stdout_has '^Usage: keel' ;;
  no_args)
    expect 2 "$KEEL"; stderr_has '^Usage: keel' ;;
  unknown_command)
    bad_input "unknown command 'frobnicate'" "$KEEL" frobnicate ;;
  unknown_option)
    bad_input "unknown option '--bogus'" "$KEEL" run "$DATA/result.s" --bogus
    bad_input "unknown option '-x'" "$KEEL" asm "$DATA/result.s" -x
    bad_input "unknown option '--what'" "$KEEL" disasm --what x.bin ;;
  missing_argument)
    bad_input 'missing input file' "$KEEL" asm
    bad_input 'missing input file' "$KEEL" disasm
    bad_input 'missing input file' "$KEEL" run --guarded
    bad_input 'option -o needs a value' "$KEEL" asm "$DATA/result.s" -o
    bad_input 'option --mem needs a value' "$KEEL" run "$DATA/result.s" --mem
    bad_input 'no \.data files' "$KEEL" test-data ;;
  bad_option_value)
    bad_input '--budget wants a positive number' "$KEEL" run "$DATA/result.s" --budget abc
    bad_input '--budget wants a positive number' "$KEEL" run "$DATA/result.s" --budget -5
    bad_input '--mem wants hex bytes' "$KEEL" run "$DATA/result.s" --mem xyz
    bad_input '--mem wants hex bytes' "$KEEL" run "$DATA/result.s" --mem 123
    bad_input 'at most one of --mem and --mem-file' "$KEEL" run "$DATA/result.s" --mem 00 --mem-file "$DATA/result.s"
    bad_input 'no-such-file' "$KEEL" run "$DATA/result.s" --mem-file no-such-file ;;
  missing_file)
    bad_input 'nope\.bin: No such file' "$KEEL" run nope.bin
    bad_input 'nope\.s: No such file' "$KEEL" run nope.s
    bad_input 'nope\.bin: No such file' "$KEEL" disasm nope.bin
    bad_input 'nope\.s: No such file' "$KEEL" asm nope.s
    bad_input 'nope: no such file' "$KEEL" test-data nope
    bad_input 'is a directory' "$KEEL" run "$DATA" ;;
  empty_input)
    : >empty.bin; : >empty.s
    bad_input 'empty\.bin: empty program' "$KEEL" run empty.bin
    bad_input 'empty\.bin: empty program' "$KEEL" disasm empty.bin
    bad_input 'empty\.s: no instructions' "$KEEL" asm empty.s -o out.bin
    bad_input 'empty\.s: no instructions' "$KEEL" run empty.s ;;
  odd_length)
    printf 'abc' >odd.bin
    bad_input 'odd\.bin: length 3 is not a multiple of 8' "$KEEL" run odd.bin
    bad_input 'odd\.bin: length 3 is not a multiple of 8' "$KEEL" disasm odd.bin ;;
  elf_input)
    # A truncated ELF header: run does not take objects; disasm cannot load
    # it (bad input); verify rejects it with the load error (exit 1).
    printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000' >prog.o
    bad_input 'ELF objects are not supported yet by this command' "$KEEL" run prog.o
    bad_input 'prog\.o: truncated' "$KEEL" disasm prog.o
    expect 1 "$KEEL" verify prog.o; stdout_has '^FAIL prog\.o load: truncated'
    expect 1 "$KEEL" verify prog.o --json
    json_check "d['object'] == 'prog.o' and d['programs'][0]['verdict'] == 'reject' and d['programs'][0]['reason'] == 'truncated'"
    bad_input '--map is for raw programs' "$KEEL" verify prog.o --map m:array:4:4:1 ;;
  garbage_text)
    bad_input '^[^ ]*garbage\.s:1:[0-9]+: error: [a-z_ ]+$' "$KEEL" asm "$DATA/garbage.s" -o out.bin
    bad_input '^[^ ]*garbage\.s:1:[0-9]+: error: [a-z_ ]+$' "$KEEL" run "$DATA/garbage.s"
    [ ! -e out.bin ] || fail "asm wrote output despite the error"
    printf 'mov %%r0, 1\nadd %%r0, [%%r1]\nexit\n' >two.s
    bad_input '^two\.s:2:[0-9]+: error: ' "$KEEL" asm two.s
    printf 'mov %%r0, 1\nadd %%r0, [%%r1]\nexit\n' | "$KEEL" asm - -o out.bin 2>err.txt
    stderr_has '^<stdin>:2:[0-9]+: error: ' ;;
  decode_error)
    # Opcode 0xff does not exist (RFC 9669 §3): refused at load, exit 2.
    printf '\377\000\000\000\000\000\000\000\225\000\000\000\000\000\000\000' >bad.bin
    bad_input '^error: pc 0: unknown_opcode$' "$KEEL" run bad.bin
    # %r12 assembles (4-bit field) but is refused by the decoder.
    bad_input '^error: pc 1: bad_register$' "$KEEL" run "$DATA/bad-register.s" ;;
  roundtrip)
    expect 0 "$KEEL" asm "$DATA/roundtrip.s" -o a.bin
    expect 0 "$KEEL" disasm a.bin; stdout_has '^   0: mov %r0, 0$'
    "$KEEL" disasm --plain a.bin >plain.s 2>err.txt || fail "disasm --plain failed"
    "$KEEL" asm - -o b.bin <plain.s 2>err.txt || fail "asm of the disassembly failed"
    cmp a.bin b.bin || fail "asm -> disasm -> asm changed the bytes"
    # The documented pipeline, stdin to stdout included.
    "$KEEL" disasm --plain a.bin | "$KEEL" asm - -o - >c.bin || fail "pipeline failed"
    cmp a.bin c.bin || fail "pipeline changed the bytes" ;;
  asm_default_output)
    cp "$DATA/result.s" prog.s
    expect 0 "$KEEL" asm prog.s
    [ "$(wc -c <prog.bin)" -eq 24 ] || fail "prog.bin should hold 3 instructions"
    expect 0 "$KEEL" run prog.bin --mem '00 00 00 00 01 00 00 00'; stdout_has '^r0 = 0x9$' ;;
  run_result)
    expect 0 "$KEEL" run "$DATA/result.s" --mem '00 00 00 00 2a 00 00 00'; stdout_has '^r0 = 0x32$'
    expect 0 "$KEEL" run "$DATA/result.s" --mem 000000002a000000 --guarded; stdout_has '^r0 = 0x32$'
    printf '\000\000\000\000\001\001\000\000\000\000' >mem.bin
    expect 0 "$KEEL" run "$DATA/result.s" --mem-file mem.bin --guarded; stdout_has '^r0 = 0x10b$'
    expect 0 "$KEEL" run "$DATA/helper.s"; stdout_has '^r0 = 0x102030405$'
    expect 0 "$KEEL" run "$DATA/builtins.s"; stdout_has '^r0 = 0x2a2a2a2a2a2a2a2a$'
    expect 0 "$KEEL" run "$DATA/builtins.s" --guarded; stdout_has '^r0 = 0x2a2a2a2a2a2a2a2a$' ;;
  trap_guarded)
    expect 1 "$KEEL" run "$DATA/trap.s" --mem '01 02 03 04 05 06 07 08' --guarded
    stderr_has '^trap: out_of_bounds at pc 0 \(address 0x[0-9a-f]+\)$'
    expect 1 "$KEEL" run "$DATA/trap.s" --guarded
    stderr_has '^trap: (out_of_bounds|address_overflow) at pc 0' ;;
  budget)
    expect 1 "$KEEL" run "$DATA/loop.s" --budget 1000 --guarded
    stderr_has '^trap: budget_exhausted at pc [0-9]+$' ;;
  run_unsafe)
    # Fast mode checks no access: it runs only what the verifier accepts.
    expect 1 "$KEEL" run "$DATA/trap.s" --mem '01 02 03 04 05 06 07 08'
    stderr_has '^keel: the verifier rejected this program \(pc 0: .*\); run it with --guarded to execute it with every access checked$'
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "expected one line on stderr"
    expect 1 "$KEEL" run "$DATA/trap.s" --mem '01 02 03 04 05 06 07 08' --guarded
    stderr_has '^trap: out_of_bounds at pc 0 \(address 0x[0-9a-f]+\)$'
    # An endless loop has no proven bound: refused in fast mode too.
    expect 1 "$KEEL" run "$DATA/loop.s" --budget 1000
    stderr_has '^keel: the verifier rejected this program \(pc [0-9]+: ' ;;
  verify_accept)
    expect 0 "$KEEL" verify "$DATA/verify-ok.s" --type xdp
    stdout_has '^PASS [^ ]*verify-ok\.s type=xdp insns=2 max_insns=[0-9]+ stack=[0-9]+$'
    [ "$(wc -l <out.txt)" -eq 1 ] || fail "expected one line"
    "$KEEL" asm "$DATA/verify-ok.s" -o ok.bin 2>err.txt || fail "asm failed"
    expect 0 "$KEEL" verify ok.bin --type socket_filter --unprivileged --strict-alignment
    stdout_has '^PASS ok\.bin type=socket_filter insns=2 '
    expect 0 "$KEEL" verify ok.bin --type xdp --json
    json_check "d['verdict'] == 'accept' and d['type'] == 'xdp' and d['insns'] == 2 and d['pc'] is None and
      d['reason'] is None and isinstance(d['message'], str) and d['max_insns_executed'] == 2 and
      all(isinstance(d[k], int) for k in ('stack_depth', 'arena_bytes', 'verify_ns'))" ;;
  verify_reject)
    expect 1 "$KEEL" verify "$DATA/verify-ctx.s" --type socket_filter
    stdout_has '^FAIL [^ ]*verify-ctx\.s type=socket_filter insns=2 pc 0: r1 is the context pointer'
    grep -Eq '^    frame 0: r1=ctx' out.txt || fail "no abstract state under the FAIL line"
    expect 1 "$KEEL" verify "$DATA/verify-ctx.s" --type socket_filter --json
    json_check "d['verdict'] == 'reject' and d['pc'] == 0 and d['reason'] == 'ctx_bad_access' and
      d['message'].startswith('pc 0: ') and isinstance(d['verify_ns'], int)"
    # An unknown helper for the type is a rejection found by the decoder.
    printf 'call 9999\nexit\n' >helper.s
    expect 1 "$KEEL" verify helper.s --type xdp; stdout_has '^FAIL helper\.s type=xdp insns=2 pc 0: decode: unknown_helper \(helper 9999 is not one xdp offers\)$' ;;
  verify_maps)
    expect 1 "$KEEL" verify "$DATA/verify-map.s" --type socket_filter; stdout_has 'pc 3: .*not provided'
    expect 0 "$KEEL" verify "$DATA/verify-map.s" --type socket_filter --map counters:array:4:8:1
    expect 1 "$KEEL" verify "$DATA/verify-map.s" --type socket_filter --map counters:hash:4:4:16
    stdout_has 'pc 7: r0 is a pointer to map value of size 4'
    expect 1 "$KEEL" verify "$DATA/verify-map.s" --type socket_filter --map counters:hash:4:4:16 --json
    json_check "d['reason'] == 'map_value_out_of_bounds' and d['maps'] == ['counters']" ;;
  verify_bad_input)
    bad_input "unknown program type 'nosuch' \(one of: socket_filter, .*xdp" "$KEEL" verify "$DATA/verify-ok.s" --type nosuch
    bad_input 'missing --type T \(one of: socket_filter' "$KEEL" verify "$DATA/verify-ok.s"
    bad_input '--map wants KIND:TYPE:KEY:VALUE:ENTRIES' "$KEEL" verify "$DATA/verify-ok.s" --type xdp --map m:array:4:8
    bad_input '--map wants KIND:TYPE:KEY:VALUE:ENTRIES' "$KEEL" verify "$DATA/verify-ok.s" --type xdp --map m:tree:4:8:1
    bad_input '--map wants KIND:TYPE:KEY:VALUE:ENTRIES' "$KEEL" verify "$DATA/verify-ok.s" --type xdp --map m:array:4:x:1
    bad_input '--map wants KIND:TYPE:KEY:VALUE:ENTRIES' "$KEEL" verify "$DATA/verify-ok.s" --type xdp --map :array:4:8:1
    bad_input 'option --map needs a value' "$KEEL" verify "$DATA/verify-ok.s" --type xdp --map
    bad_input '--section and --function select programs of an ELF object' "$KEEL" verify "$DATA/verify-ok.s" --type xdp --section s
    bad_input 'missing input file' "$KEEL" verify --type xdp
    bad_input 'nope\.s: No such file' "$KEEL" verify nope.s --type xdp
    bad_input '^[^ ]*garbage\.s:1:[0-9]+: error: ' "$KEEL" verify "$DATA/garbage.s" --type xdp ;;
  cases_small)
    # maps.json is found beside the .jsonl.
    expect 0 "$KEEL" cases "$DATA/cases/small.jsonl"
    stdout_has '^FALSE-REJECT cli/3 a false reject: pc 0 ctx_bad_access: '
    stdout_has '^SKIPPED 1: prog_type:sk_skb$'
    ! grep -q '^FALSE-ACCEPT' out.txt || fail "unexpected false accept"
    [ "$(tail -n 2 out.txt | head -n 1)" = "false-accepts: 0, false-rejects: 1, skipped: 1" ] || fail "wrong counts line"
    [ "$(tail -n 1 out.txt)" = "4 passed, 1 failed" ] || fail "wrong summary line"
    expect 0 "$KEEL" cases "$DATA/cases/small.jsonl" --state
    grep -A1 '^FALSE-REJECT cli/3' out.txt | grep -Eq '^    frame 0: r1=ctx' || fail "no state under the FALSE-REJECT line"
    [ "$(tail -n 1 out.txt)" = "4 passed, 1 failed" ] || fail "wrong summary line with --state"
    expect 0 "$KEEL" cases "$DATA/cases/small.jsonl" --maps "$DATA/cases/maps.json" --json
    json_check "d['passed'] == 4 and d['failed'] == 1 and d['skipped'] == 1 and d['false_accepts'] == 0 and
      len(d['cases']) == 6 and d['cases'][3]['outcome'] == 'false_reject' and d['cases'][3]['reason'] == 'ctx_bad_access' and
      d['cases'][2]['outcome'] == 'agree' and d['cases'][4]['skip_reason'] == 'prog_type:sk_skb'" ;;
  cases_false_accept)
    expect 1 "$KEEL" cases "$DATA/cases/false-accept.jsonl"
    stdout_has '^FALSE-ACCEPT cli-fa/0 a false accept$'
    [ "$(tail -n 2 out.txt | head -n 1)" = "false-accepts: 1, false-rejects: 0, skipped: 0" ] || fail "wrong counts line"
    [ "$(tail -n 1 out.txt)" = "0 passed, 1 failed" ] || fail "wrong summary line"
    # A documented divergence is reported, not counted as a false accept.
    expect 0 "$KEEL" cases "$DATA/cases/false-accept.jsonl" --divergences "$DATA/cases/divergences.txt"
    stdout_has '^DIVERGENCE cli-fa/0 a false accept: the test says so$'
    [ "$(tail -n 2 out.txt | head -n 1)" = "false-accepts: 0, false-rejects: 0, skipped: 0" ] || fail "wrong counts line" ;;
  cases_all)
    # One line per case, in file order, with its verdict; the summary as without --all.
    expect 0 "$KEEL" cases "$DATA/cases/small.jsonl" --all
    [ "$(grep -c '^AGREE \|^FALSE-\|^SKIP ' out.txt)" -eq 6 ] || fail "not one line per case"
    stdout_has '^FALSE-REJECT cli/3 a false reject: reject pc 0 ctx_bad_access: '
    stdout_has '^SKIP [^ ]+ .*: prog_type:sk_skb$'
    stdout_has '^AGREE [^ ]+ .*: accept$'
    [ "$(tail -n 1 out.txt)" = "4 passed, 1 failed" ] || fail "wrong summary line with --all" ;;
  suite_pack)
    # The blob starts with its magic and version, and holds every file and case.
    expect 0 "$KEEL" suite-pack suite.blob --data "$DATA/pass.data" --data "$DATA/reload.data" \
      --cases "$DATA/cases/small.jsonl"
    [ "$(head -c 12 suite.blob | od -An -tx1 | tr -d ' \n')" = "4b45454c5355495401000000" ] || fail "bad blob header"
    grep -q 'pass.data' suite.blob && grep -q 'reload.data' suite.blob && grep -q 'cli/3' suite.blob \
      || fail "a file or case is missing from the blob"
    bad_input 'missing output file' "$KEEL" suite-pack
    bad_input 'nothing to pack' "$KEEL" suite-pack out.blob
    bad_input 'no such file or directory' "$KEEL" suite-pack out.blob --data nope
    bad_input 'cannot read' "$KEEL" suite-pack out.blob --cases nope.jsonl ;;
  cases_bad_input)
    bad_input 'missing input file' "$KEEL" cases
    bad_input 'nope\.jsonl: No such file' "$KEEL" cases nope.jsonl
    bad_input 'maps\.json: No such file' "$KEEL" cases "$DATA/cases/small.jsonl" --maps maps.json
    printf '{"id": 1,\n' >broken.jsonl; cp "$DATA/cases/maps.json" .
    bad_input 'cases: bad line' "$KEEL" cases broken.jsonl ;;
  test_data_verify)
    # A -- result program the verifier rejects still passes, reported apart.
    expect 0 "$KEEL" test-data "$DATA/verify-reject.data" "$DATA/pass.data"
    stdout_has '^VERIFY-REJECT .*/verify-reject\.data: pointer_arithmetic: pc 1: '
    [ "$(tail -n 2 out.txt | head -n 1)" = "verifier: 1 accepted, 1 rejected" ] || fail "wrong verifier line"
    [ "$(tail -n 1 out.txt)" = "2 passed, 0 failed" ] || fail "wrong summary line" ;;
  test_data_pass)
    # pyelf.data: keel's template ELF object, run (0x2a); pyelf-error.data:
    # an edited one, refused by the ELF loader for uBPF's reason; reload.data
    # is N/A, counted on its own line before the exact last line.
    expect 0 "$KEEL" test-data "$DATA/pass.data" "$DATA/load-error.data" "$DATA/run-error.data" "$DATA/pyelf.data" \
      "$DATA/pyelf-error.data" "$DATA/reload.data"
    stdout_has '^PASS .*/pass\.data$'
    stdout_has '^PASS .*/load-error\.data$'
    stdout_has '^PASS .*/run-error\.data$'
    stdout_has '^PASS .*/pyelf\.data$'
    stdout_has '^PASS .*/pyelf-error\.data$'
    stdout_has '^N/A .*/reload\.data: -- reload'
    [ "$(tail -n 1 out.txt)" = "5 passed, 0 failed" ] || fail "wrong summary line"
    [ "$(tail -n 2 out.txt | head -n 1)" = "skipped: 1 (see docs/conformance-exceptions.md)" ] || fail "wrong skipped line"
    [ "$(tail -n 3 out.txt | head -n 1)" = "verifier: 2 accepted, 0 rejected" ] || fail "wrong verifier line" ;;
  test_data_fail)
    expect 1 "$KEEL" test-data "$DATA/fail.data"
    stdout_has '^FAIL .*/fail\.data: guarded: r0 = 0x1, expected 0x2$'
    [ "$(tail -n 1 out.txt)" = "0 passed, 1 failed" ] || fail "wrong summary line"
    # A -- pyelf statement outside the grammar fails, naming its line.
    expect 1 "$KEEL" test-data "$DATA/pyelf-bad.data"
    stdout_has "^FAIL .*/pyelf-bad\.data: -- pyelf line 3: 'ehdr' has no field 'e_bogus': \`ehdr\.e_bogus = 1\`$"
    [ "$(tail -n 1 out.txt)" = "0 passed, 1 failed" ] || fail "wrong summary line for pyelf-bad" ;;
  compare_denied)
    # KEEL_COMPARE_DENY_BPF stands in for a machine that refuses bpf(2):
    # one line says so, keel's side is still shown, the exit status is 0.
    export KEEL_COMPARE_DENY_BPF=1
    expect 0 "$KEEL" compare "$DATA/verify-map.s" "$DATA/verify-ok.s" --type socket_filter --runs 1
    [ "$(grep -c 'not permitted' out.txt)" -eq 1 ] || fail "expected exactly one 'not permitted' line"
    stdout_has "^linux: bpf\(2\) not permitted here \(EPERM\): run as root or with CAP_BPF; keel's verdicts follow$"
    stdout_has '^verify-map\.s +socket_filter +n/a +reject +- '
    stdout_has '^    keel: pc 3: lddw names map 0, which is not provided$'
    stdout_has '^verify-ok\.s +socket_filter +n/a +accept +- '
    stdout_has '^2 programs: 0 agree, 0 disagree, 2 not compared$'
    expect 0 "$KEEL" compare "$DATA/verify-map.s" --type socket_filter --map counters:array:4:8:1 --json --runs 2
    json_check "d['linux_unavailable'].startswith('bpf(2) not permitted') and d['runs'] == 2 and
      len(d['programs']) == 1 and d['programs'][0]['keel_verdict'] == 'accept' and
      d['programs'][0]['linux_verdict'] == 'n/a' and d['programs'][0]['agree'] is None and
      d['programs'][0]['ratio'] is None and d['programs'][0]['keel_verify_ns'] > 0 and d['summary']['not_compared'] == 1" ;;
  compare_bad_input)
    bad_input 'missing input file' "$KEEL" compare --type xdp
    bad_input 'missing --type T \(one of: socket_filter' "$KEEL" compare "$DATA/verify-ok.s"
    bad_input "unknown program type 'nosuch'" "$KEEL" compare "$DATA/verify-ok.s" --type nosuch
    bad_input '--runs wants a number from 1 to 1000' "$KEEL" compare "$DATA/verify-ok.s" --type xdp --runs 0
    bad_input '--map wants KIND:TYPE:KEY:VALUE:ENTRIES' "$KEEL" compare "$DATA/verify-ok.s" --type xdp --map m:tree:4:8:1
    bad_input '--section and --function select programs of an ELF object' "$KEEL" compare "$DATA/verify-ok.s" --type xdp --section s
    bad_input "unknown option '--bogus'" "$KEEL" compare "$DATA/verify-ok.s" --bogus
    bad_input 'nope\.s: No such file' "$KEEL" compare nope.s --type xdp ;;
  compare_here)
    # Whatever this machine permits: exit 0, and either both verdicts
    # agreeing on an accepted program or the one 'not permitted' line.
    unset KEEL_COMPARE_DENY_BPF
    expect 0 "$KEEL" compare "$DATA/verify-map.s" --type socket_filter --map counters:array:4:8:1 --runs 1
    if ! grep -q 'not permitted' out.txt; then
      stdout_has '^verify-map\.s +socket_filter +accept +accept +yes +[0-9]+ +[0-9.]+ '
    fi ;;
  *)
    echo "unknown case $CASE"; exit 1 ;;
esac
exit 0
