#!/usr/bin/env bash
# Behaviour tests of the keel command-line tool, one CTest per case:
#   cli_test.sh KEEL DATA_DIR WORK_DIR CASE KEEL_CORPUS
# A case runs keel (or keel-corpus, the test machinery: test-data, cases,
# suite-pack), then checks the exit status and the output.
set -u
KEEL=$1 DATA=$2 WORK=$3 CASE=$4 KC=$5
# fail, expect, stdout_has, stderr_has.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
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
    expect 0 "$KEEL" run --help; stdout_has '^Usage: keel run '
    expect 0 "$KC" --help; stdout_has '^Usage: keel-corpus'
    # The corpus commands are keel-corpus's: keel says where they went.
    bad_input "'cases' is a command of keel-corpus" "$KEEL" cases x.jsonl
    bad_input "'test-data' is a command of keel-corpus" "$KEEL" test-data x.data ;;
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
    bad_input 'no \.data files' "$KC" test-data ;;
  bad_option_value)
    bad_input '--budget wants a positive number' "$KEEL" run "$DATA/result.s" --budget abc
    bad_input '--budget wants a positive number' "$KEEL" run "$DATA/result.s" --budget -5
    bad_input '--mem wants hex bytes' "$KEEL" run "$DATA/result.s" --mem xyz
    bad_input '--mem wants hex bytes' "$KEEL" run "$DATA/result.s" --mem 123
    bad_input '--mem excludes --mem-file' "$KEEL" run "$DATA/result.s" --mem 00 --mem-file "$DATA/result.s"
    bad_input 'no-such-file' "$KEEL" run "$DATA/result.s" --mem-file no-such-file ;;
  missing_file)
    bad_input 'nope\.bin: No such file' "$KEEL" run nope.bin
    bad_input 'nope\.s: No such file' "$KEEL" run nope.s
    bad_input 'nope\.bin: No such file' "$KEEL" disasm nope.bin
    bad_input 'nope\.s: No such file' "$KEEL" asm nope.s
    bad_input 'nope: no such file' "$KC" test-data nope
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
    # it; verify could not check it: verdict "error", exit 2, not a rejection.
    printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000' >prog.o
    bad_input 'ELF objects are not supported yet by this command' "$KEEL" run prog.o
    bad_input 'prog\.o: truncated' "$KEEL" disasm prog.o
    expect 2 "$KEEL" verify prog.o; stdout_has '^ERROR prog\.o: truncated'
    expect 2 "$KEEL" verify prog.o --json
    json_check "d['file'] == 'prog.o' and d['verdict'] == 'error' and d['reason'] == 'truncated' and d['programs'] == []"
    bad_input '--map is for raw programs' "$KEEL" verify prog.o --map m:array:4:4:1 ;;
  garbage_text)
    bad_input '^[^ ]*garbage\.s:1:[0-9]+: error: unknown_mnemonic: expected an instruction mnemonic' "$KEEL" asm "$DATA/garbage.s" -o out.bin
    bad_input '^[^ ]*garbage\.s:1:[0-9]+: error: unknown_mnemonic: expected an instruction mnemonic' "$KEEL" run "$DATA/garbage.s"
    [ ! -e out.bin ] || fail "asm wrote output despite the error"
    printf 'mov %%r0, 1\nadd %%r0, [%%r1]\nexit\n' >two.s
    bad_input '^two\.s:2:[0-9]+: error: ' "$KEEL" asm two.s
    printf 'mov %%r0, 1\nadd %%r0, [%%r1]\nexit\n' | "$KEEL" asm - -o out.bin 2>err.txt
    stderr_has '^<stdin>:2:[0-9]+: error: ' ;;
  decode_error)
    # Opcode 0xff does not exist (RFC 9669 §3): refused at load, exit 2.
    printf '\377\000\000\000\000\000\000\000\225\000\000\000\000\000\000\000' >bad.bin
    bad_input '^error: pc 0: unknown_opcode$' "$KEEL" run bad.bin
    # %r12 does not assemble (RFC 9669 §2.3: r0..r10); as bytes (dst 12 in
    # the 4-bit field) the decoder refuses it.
    bad_input '^[^ ]*bad-register\.s:2:5: error: bad_register: expected a register %r0\.\.%r10$' "$KEEL" run "$DATA/bad-register.s"
    printf '\267\000\000\000\000\000\000\000\267\014\000\000\001\000\000\000\225\000\000\000\000\000\000\000' >bad-register.bin
    bad_input '^error: pc 1: bad_register$' "$KEEL" run bad-register.bin ;;
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
    json_check "d['verdict'] == 'accept' and d['file'] == 'ok.bin' and d['maps'] == [] and len(d['programs']) == 1"
    json_check "[(p['verdict'], p['type'], p['insns'], p['pc'], p['reason'], p['section'], p['source_file'])
      for p in d['programs']] == [('accept', 'xdp', 2, None, None, None, None)] and
      isinstance(d['programs'][0]['message'], str) and d['programs'][0]['max_insns_executed'] == 2 and
      all(isinstance(d['programs'][0][k], int) for k in ('stack_depth', 'arena_bytes', 'verify_ns'))" ;;
  verify_reject)
    expect 1 "$KEEL" verify "$DATA/verify-ctx.s" --type socket_filter
    stdout_has '^FAIL [^ ]*verify-ctx\.s type=socket_filter insns=2 pc 0: r1 is the context pointer'
    grep -Eq '^    frame 0: r1=ctx' out.txt || fail "no abstract state under the FAIL line"
    expect 1 "$KEEL" verify "$DATA/verify-ctx.s" --type socket_filter --json
    json_check "d['verdict'] == 'reject' and d['programs'][0]['verdict'] == 'reject' and
      d['programs'][0]['pc'] == 0 and d['programs'][0]['reason'] == 'ctx_bad_access' and
      d['programs'][0]['message'].startswith('pc 0: ') and isinstance(d['programs'][0]['verify_ns'], int) and
      d['programs'][0]['state'].startswith('frame 0')"
    # An unknown helper for the type is a rejection found by the decoder.
    printf 'call 9999\nexit\n' >helper.s
    expect 1 "$KEEL" verify helper.s --type xdp; stdout_has '^FAIL helper\.s type=xdp insns=2 pc 0: decode: unknown_helper \(helper 9999 is not one xdp offers\)$' ;;
  verify_maps)
    expect 1 "$KEEL" verify "$DATA/verify-map.s" --type socket_filter; stdout_has 'pc 3: .*not provided'
    expect 0 "$KEEL" verify "$DATA/verify-map.s" --type socket_filter --map counters:array:4:8:1
    expect 1 "$KEEL" verify "$DATA/verify-map.s" --type socket_filter --map counters:hash:4:4:16
    stdout_has 'pc 7: r0 is a pointer to map value of size 4'
    expect 1 "$KEEL" verify "$DATA/verify-map.s" --type socket_filter --map counters:hash:4:4:16 --json
    json_check "d['programs'][0]['reason'] == 'map_value_out_of_bounds' and d['maps'] == ['counters']" ;;
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
    expect 0 "$KC" cases "$DATA/cases/small.jsonl"
    stdout_has '^FALSE-REJECT cli/3 a false reject: pc 0 ctx_bad_access: '
    stdout_has '^SKIPPED 1: prog_type:flow_dissector$'
    ! grep -q '^FALSE-ACCEPT' out.txt || fail "unexpected false accept"
    [ "$(tail -n 2 out.txt | head -n 1)" = "false-accepts: 0, false-rejects: 1, skipped: 1" ] || fail "wrong counts line"
    [ "$(tail -n 1 out.txt)" = "4 passed, 1 failed" ] || fail "wrong summary line"
    expect 0 "$KC" cases "$DATA/cases/small.jsonl" --state
    grep -A1 '^FALSE-REJECT cli/3' out.txt | grep -Eq '^    frame 0: r1=ctx' || fail "no state under the FALSE-REJECT line"
    [ "$(tail -n 1 out.txt)" = "4 passed, 1 failed" ] || fail "wrong summary line with --state"
    expect 0 "$KC" cases "$DATA/cases/small.jsonl" --maps "$DATA/cases/maps.json" --json
    json_check "d['passed'] == 4 and d['failed'] == 1 and d['skipped'] == 1 and d['false_accepts'] == 0 and
      len(d['cases']) == 6 and d['cases'][3]['outcome'] == 'false_reject' and d['cases'][3]['reason'] == 'ctx_bad_access' and
      d['cases'][2]['outcome'] == 'agree' and d['cases'][4]['skip_reason'] == 'prog_type:flow_dissector'" ;;
  cases_false_accept)
    expect 1 "$KC" cases "$DATA/cases/false-accept.jsonl"
    stdout_has '^FALSE-ACCEPT cli-fa/0 a false accept$'
    [ "$(tail -n 2 out.txt | head -n 1)" = "false-accepts: 1, false-rejects: 0, skipped: 0" ] || fail "wrong counts line"
    [ "$(tail -n 1 out.txt)" = "0 passed, 1 failed" ] || fail "wrong summary line"
    # A documented divergence is reported, not counted as a false accept.
    expect 0 "$KC" cases "$DATA/cases/false-accept.jsonl" --divergences "$DATA/cases/divergences.txt"
    stdout_has '^DIVERGENCE cli-fa/0 a false accept: the test says so$'
    [ "$(tail -n 2 out.txt | head -n 1)" = "false-accepts: 0, false-rejects: 0, skipped: 0" ] || fail "wrong counts line" ;;
  cases_all)
    # One line per case, in file order, with its verdict; the summary as without --all.
    expect 0 "$KC" cases "$DATA/cases/small.jsonl" --all
    [ "$(grep -c '^AGREE \|^FALSE-\|^SKIP ' out.txt)" -eq 6 ] || fail "not one line per case"
    stdout_has '^FALSE-REJECT cli/3 a false reject: reject pc 0 ctx_bad_access: '
    stdout_has '^SKIP [^ ]+ .*: prog_type:flow_dissector$'
    stdout_has '^AGREE [^ ]+ .*: accept$'
    [ "$(tail -n 1 out.txt)" = "4 passed, 1 failed" ] || fail "wrong summary line with --all" ;;
  suite_pack)
    # The blob starts with its magic and version, and holds every file and case.
    expect 0 "$KC" suite-pack suite.blob --data "$DATA/pass.data" --data "$DATA/reload.data" \
      --cases "$DATA/cases/small.jsonl"
    [ "$(head -c 12 suite.blob | od -An -tx1 | tr -d ' \n')" = "4b45454c5355495401000000" ] || fail "bad blob header"
    grep -q 'pass.data' suite.blob && grep -q 'reload.data' suite.blob && grep -q 'cli/3' suite.blob \
      || fail "a file or case is missing from the blob"
    bad_input 'missing output file' "$KC" suite-pack
    bad_input 'nothing to pack' "$KC" suite-pack out.blob
    bad_input 'no such file or directory' "$KC" suite-pack out.blob --data nope
    bad_input 'cannot read' "$KC" suite-pack out.blob --cases nope.jsonl ;;
  cases_bad_input)
    bad_input 'missing input file' "$KC" cases
    bad_input 'nope\.jsonl: No such file' "$KC" cases nope.jsonl
    bad_input 'maps\.json: No such file' "$KC" cases "$DATA/cases/small.jsonl" --maps maps.json
    printf '{"id": 1,\n' >broken.jsonl; cp "$DATA/cases/maps.json" .
    bad_input 'cases: bad line' "$KC" cases broken.jsonl ;;
  test_data_verify)
    # A -- result program the verifier rejects still passes, reported apart.
    expect 0 "$KC" test-data "$DATA/verify-reject.data" "$DATA/pass.data"
    stdout_has '^VERIFY-REJECT .*/verify-reject\.data: pointer_arithmetic: pc 1: '
    [ "$(tail -n 2 out.txt | head -n 1)" = "verifier: 1 accepted, 1 rejected" ] || fail "wrong verifier line"
    [ "$(tail -n 1 out.txt)" = "2 passed, 0 failed" ] || fail "wrong summary line" ;;
  test_data_pass)
    # pyelf.data: keel's template ELF object, run (0x2a); pyelf-error.data:
    # an edited one, refused by the ELF loader for uBPF's reason; reload.data
    # is N/A, counted on its own line before the exact last line.
    expect 0 "$KC" test-data "$DATA/pass.data" "$DATA/load-error.data" "$DATA/run-error.data" "$DATA/pyelf.data" \
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
    expect 1 "$KC" test-data "$DATA/fail.data"
    stdout_has '^FAIL .*/fail\.data: guarded: r0 = 0x1, expected 0x2$'
    [ "$(tail -n 1 out.txt)" = "0 passed, 1 failed" ] || fail "wrong summary line"
    # A -- pyelf statement outside the grammar fails, naming its line.
    expect 1 "$KC" test-data "$DATA/pyelf-bad.data"
    stdout_has "^FAIL .*/pyelf-bad\.data: -- pyelf line 3: 'ehdr' has no field 'e_bogus': \`ehdr\.e_bogus = 1\`$"
    [ "$(tail -n 1 out.txt)" = "0 passed, 1 failed" ] || fail "wrong summary line for pyelf-bad" ;;
  compare_denied)
    # KEEL_COMPARE_DENY_BPF stands in for a machine that refuses bpf(2):
    # one line says so, keel's side is still shown, the exit status is
    # keel's (1: verify-map.s without its map is rejected).
    export KEEL_COMPARE_DENY_BPF=1
    expect 1 "$KEEL" compare "$DATA/verify-map.s" "$DATA/verify-ok.s" --type socket_filter --runs 1
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
  compare_btf)
    # Programs the kernel loads only with the object's BTF (a bpf_loop
    # callback's func_info, a spin lock's map BTF): compare loads them
    # through libbpf, so the kernel accepts both. Whatever keel says of
    # them (exit 0 or 1), the Linux side is the point here.
    [ -n "${KEEL_BPF_OBJECT_DIR:-}" ] || { echo "skipped: no BPF test objects (clang missing)"; exit 77; }
    unset KEEL_COMPARE_DENY_BPF
    "$KEEL" compare "$KEEL_BPF_OBJECT_DIR/btf_needed.bpf.o" --runs 1 --json >out.txt 2>err.txt; got=$?
    [ "$got" -le 1 ] || fail "compare exited $got"
    if python3 -c 'import json, sys; sys.exit(0 if json.load(open("out.txt"))["linux_unavailable"] else 1)'; then
      echo "skipped: bpf(2) is not permitted here, so the kernel side cannot be checked"; exit 77
    fi
    json_check "sorted((p['function'], p['linux_verdict'], p['linux_loader']) for p in d['programs']) ==
      [('locked_count', 'accept', 'libbpf'), ('loop_callback', 'accept', 'libbpf')]"
    json_check "all(p['agree'] is not None for p in d['programs'])"
    # Without the object's BTF (KEEL_COMPARE_DENY_BPF) nothing is compared,
    # never agreed on.
    expect 1 env KEEL_COMPARE_DENY_BPF=1 "$KEEL" compare "$KEEL_BPF_OBJECT_DIR/btf_needed.bpf.o" --runs 1 --json
    json_check "all(p['agree'] is None and p['linux_verdict'] == 'n/a' for p in d['programs'])" ;;
  compare_na)
    # What cannot reach the kernel's verifier is n/a with the reason, never
    # an agreement or a disagreement: a map with no inner map, a CO-RE
    # relocation keel cannot apply, an object keel cannot read.
    [ -n "${KEEL_BPF_OBJECT_DIR:-}" ] || { echo "skipped: no BPF test objects (clang missing)"; exit 77; }
    unset KEEL_COMPARE_DENY_BPF
    "$KEEL" compare "$KEEL_BPF_OBJECT_DIR/legacy_map_in_map.bpf.o" "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --runs 1 --no-btf --json \
      >out.txt 2>err.txt
    [ $? -eq 2 ] || fail "expected exit 2 (core.bpf.o's read_pid is unsupported by keel)"
    if python3 -c 'import json, sys; sys.exit(0 if json.load(open("out.txt"))["linux_unavailable"] else 1)'; then
      echo "skipped: bpf(2) is not permitted here, so the kernel side cannot be checked"; exit 77
    fi
    json_check "[(p['function'], p['linux_verdict'], p['agree']) for p in d['programs'] if p['function'] != 'no_core'] ==
      [('lookup_port', 'n/a', None), ('read_pid', 'n/a', None)] and
      all(p['linux_message'] for p in d['programs'] if p['linux_verdict'] == 'n/a') and
      d['summary']['not_compared'] == 2"
    "$KEEL" compare "$KEEL_BPF_OBJECT_DIR/legacy_map_in_map.bpf.o" --runs 1 >out.txt 2>err.txt
    stdout_has '^legacy_map_in_map\.bpf\.o:socket1/lookup_port +socket_filter +n/a +accept +- '
    stdout_has '^    linux: .*holds maps' ;;
  precision_zext)
    # keel is more precise than Linux here (docs/verifier/divergences.md):
    # the branch on w6 bounds its zero-extended copy r3 to [0, 7], so a
    # byte of an 8-byte map value at r3 is in bounds, and of a 7-byte one
    # not. Linux 6.18 refuses the first ("R0 max value is outside of the
    # allowed memory range"): an accept is no promise about a kernel.
    expect 0 "$KEEL" verify "$DATA/zext-mask.s" --type socket_filter --map m:array:4:8:1
    expect 1 "$KEEL" verify "$DATA/zext-mask.s" --type socket_filter --map m:array:4:7:1
    stdout_has 'pc 1[0-9]: ' ;;
  version)
    # --version and -V: CMake's project version, and the commit when built from git.
    expect 0 "$KEEL" --version; stdout_has '^keel [0-9]+\.[0-9]+\.[0-9]+( \([0-9a-f]+\))?$'
    cp out.txt long.txt
    expect 0 "$KEEL" -V; cmp -s out.txt long.txt || fail "-V and --version differ" ;;
  command_help)
    # `keel --help` holds the input limit and the exit-status table; every
    # command has its own --help with that table.
    expect 0 "$KEEL" --help; stdout_has 'at most 64 MiB'; stdout_has '^  2  usage error, or input that could not be checked'
    for command in asm disasm verify compare run; do
      expect 0 "$KEEL" "$command" --help; stdout_has "^Usage: keel $command "; stdout_has '^Exit status'
      grep -q '^  compare ' out.txt && [ "$command" != compare ] && fail "$command --help shows other commands"
      expect 0 "$KEEL" help "$command"; stdout_has "^Usage: keel $command "
    done
    for command in cases test-data suite-pack; do
      expect 0 "$KC" "$command" --help; stdout_has "^Usage: keel-corpus $command "; stdout_has '^Exit status'
      expect 0 "$KC" help "$command"; stdout_has "^Usage: keel-corpus $command "
    done
    expect 0 "$KC" --version; stdout_has '^keel-corpus [0-9]+\.[0-9]+\.[0-9]+' ;;
  unknown_option_lists)
    # An unknown option names the command's valid ones.
    bad_input "verify: unknown option '--jsn' \(valid: .*--type.*--default-type.*--json.*\)" "$KEEL" verify x.o --jsn
    bad_input "asm: unknown option '--out' \(valid: -o, --help\)" "$KEEL" asm x.s --out y
    bad_input "run: unknown option '--mme' \(valid: --mem, --mem-file, --guarded, --budget, --help\)" "$KEEL" run x.s --mme 00
    bad_input "compare: unknown option '--log' \(valid: .*--linux-log.*\)" "$KEEL" compare x.s --log
    bad_input "cases: unknown option '--sate' \(valid: .*--state.*\)" "$KC" cases x.jsonl --sate ;;
  input_empty_text)
    # Neither an object nor a program: said so, not "missing --type".
    : >empty.o; printf 'hello, this is not eBPF\n' >notes.txt; printf 'hello, w' >eight.txt
    bad_input 'empty\.o: empty file' "$KEEL" verify empty.o
    bad_input 'empty\.o: empty file' "$KEEL" verify empty.o --json
    bad_input 'notes\.txt: text, not an ELF object' "$KEEL" verify notes.txt
    bad_input 'eight\.txt: text, not an ELF object' "$KEEL" verify eight.txt
    bad_input 'empty\.o: empty program' "$KEEL" disasm empty.o
    bad_input 'empty\.o: empty program' "$KEEL" compare empty.o --type xdp ;;
  input_truncated_elf)
    # A valid ELF64 header whose section table lies past the end of the file.
    "$KEEL" asm "$DATA/verify-ok.s" -o ok.bin 2>err.txt || fail "asm failed"
    python3 - <<'PY' || fail "could not write cut.o"
import struct
h = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
h += struct.pack("<HHIQQQIHHHHHH", 1, 247, 1, 0, 0, 4096, 0, 64, 0, 0, 64, 8, 1)
open("cut.o", "wb").write(h)
PY
    expect 2 "$KEEL" verify cut.o; stdout_has '^ERROR cut\.o: bad_section_table'
    expect 2 "$KEEL" verify cut.o --json
    json_check "d['verdict'] == 'error' and d['reason'] == 'bad_section_table' and d['programs'] == []"
    bad_input 'cut\.o: bad_section_table' "$KEEL" disasm cut.o
    export KEEL_COMPARE_DENY_BPF=1
    expect 2 "$KEEL" compare cut.o --runs 1 --json
    json_check "d['programs'][0]['keel_verdict'] == 'error'"
    # Every prefix of a real object is an error, never a verdict or a crash.
    [ -n "${KEEL_BPF_OBJECT_DIR:-}" ] || exit 0
    size=$(wc -c <"$KEEL_BPF_OBJECT_DIR/maps.bpf.o")
    for cut in 0 4 16 63 64 200 1000 $((size / 2)) $((size - 1)); do
      head -c "$cut" "$KEEL_BPF_OBJECT_DIR/maps.bpf.o" >part.o
      "$KEEL" verify part.o --json >out.txt 2>err.txt; got=$?
      [ "$got" -eq 2 ] || fail "a $cut-byte prefix of maps.bpf.o exited $got"
    done ;;
  input_elf32)
    # An ELF32 object (EI_CLASS 1): keel loads only ELF64 eBPF objects.
    python3 - <<'PY' || fail "could not write elf32.o"
import struct
h = b"\x7fELF" + bytes([1, 1, 1, 0]) + bytes(8)
h += struct.pack("<HHIIIIIHHHHHH", 1, 247, 1, 0, 0, 0, 0, 52, 0, 0, 40, 0, 0)
open("elf32.o", "wb").write(h + bytes(64))
PY
    expect 2 "$KEEL" verify elf32.o --json
    json_check "d['verdict'] == 'error' and d['reason'] == 'bad_header' and d['programs'] == []"
    expect 2 "$KEEL" verify elf32.o; stdout_has '^ERROR elf32\.o: bad_header' ;;
  input_non_bpf_elf)
    # A host executable and a host relocatable object are not eBPF objects.
    expect 2 "$KEEL" verify /bin/ls --json
    json_check "d['verdict'] == 'error' and d['reason'] == 'not_relocatable' and d['programs'] == []"
    bad_input 'not_relocatable' "$KEEL" disasm /bin/ls
    if command -v cc >/dev/null; then
      printf 'int f(void) { return 0; }\n' | cc -x c -c -o host.o - || fail "cc failed"
      expect 2 "$KEEL" verify host.o --json
      json_check "d['verdict'] == 'error' and d['reason'] == 'wrong_machine'"
    fi ;;
  input_directory)
    for command in asm disasm run; do bad_input "$DATA: is a directory" "$KEEL" $command "$DATA"; done
    bad_input "$DATA: is a directory" "$KEEL" verify "$DATA" --type xdp
    bad_input "is a directory" "$KC" cases "$DATA" ;;
  input_fifo)
    # A FIFO with no writer would block a reader forever: refused before any read.
    mkfifo pipe.o || fail "mkfifo failed"
    for command in asm disasm run; do bad_input 'pipe\.o: not a regular file' timeout 10 "$KEEL" $command pipe.o; done
    bad_input 'pipe\.o: not a regular file' timeout 10 "$KEEL" verify pipe.o --type xdp
    bad_input 'pipe\.o: not a regular file' timeout 10 "$KEEL" compare pipe.o --type xdp
    bad_input 'pipe\.o: not a regular file' timeout 10 "$KC" cases pipe.o
    bad_input 'pipe\.o: not a regular file or a directory' timeout 10 "$KC" test-data pipe.o ;;
  input_device)
    # /dev/zero never ends: refused at once, not read.
    for command in asm disasm run; do bad_input '/dev/zero: not a regular file' timeout 10 "$KEEL" $command /dev/zero; done
    bad_input '/dev/zero: not a regular file' timeout 10 "$KEEL" verify /dev/zero --type xdp
    bad_input '/dev/zero: not a regular file' timeout 10 "$KEEL" verify /dev/zero
    bad_input '/dev/zero: not a regular file' timeout 10 "$KEEL" run "$DATA/result.s" --mem-file /dev/zero ;;
  input_oversized)
    # Sparse files just over and at the 64 MiB limit: the first is refused
    # from its size before a byte is read, the second read (and rejected).
    truncate -s $((64 * 1024 * 1024 + 1)) big.o big.bin big.s || fail "truncate failed"
    bad_input "big\.o: larger than keel's input limit of 64 MiB" "$KEEL" verify big.o
    bad_input "big\.bin: larger than keel's input limit of 64 MiB" "$KEEL" disasm big.bin
    bad_input "big\.s: larger than keel's input limit of 64 MiB" "$KEEL" asm big.s
    bad_input "big\.bin: larger than keel's input limit of 64 MiB" "$KEEL" run big.bin
    bad_input "big\.o: larger than keel's input limit of 64 MiB" "$KEEL" compare big.o
    # stdin has no size: bounded while it is read.
    head -c $((64 * 1024 * 1024 + 8)) /dev/zero | "$KEEL" disasm - >out.txt 2>err.txt; got=$?
    [ "$got" -eq 2 ] || fail "oversized stdin: exit $got"
    stderr_has "<stdin>: larger than keel's input limit of 64 MiB" ;;
  write_error)
    # /dev/full: every command's output error is exit 2, never a lost write.
    full() {
      local want_line=$1; shift
      "$@" >/dev/full 2>err.txt; local got=$?
      [ "$got" -eq 2 ] || fail "'$* >/dev/full' exited $got, expected 2"
      grep -q "$want_line" err.txt || fail "'$* >/dev/full': stderr lacks '$want_line'"
    }
    full 'cannot write to stdout' "$KEEL" verify "$DATA/verify-ok.s" --type xdp
    full 'cannot write to stdout' "$KEEL" verify "$DATA/verify-ok.s" --type xdp --json
    full 'cannot write to stdout' "$KEEL" verify "$DATA/verify-ctx.s" --type socket_filter
    "$KEEL" asm "$DATA/verify-ok.s" -o ok.bin 2>err.txt || fail "asm failed"
    full 'cannot write to stdout' "$KEEL" disasm ok.bin
    full 'stdout' "$KEEL" asm "$DATA/verify-ok.s" -o -
    full 'cannot write to stdout' "$KEEL" run "$DATA/result.s" --mem '00 00 00 00 2a 00 00 00'
    full 'cannot write to stdout' "$KC" cases "$DATA/cases/small.jsonl"
    full 'cannot write to stdout' "$KC" test-data "$DATA/pass.data"
    full 'cannot write to stdout' env KEEL_COMPARE_DENY_BPF=1 "$KEEL" compare "$DATA/verify-ok.s" --type xdp --runs 1
    full 'cannot write to stdout' "$KEEL" --help
    full 'cannot write to stdout' "$KEEL" --version ;;
  unsupported)
    # core.bpf.o: read_pid needs a CO-RE relocation (--no-btf: no kernel
    # BTF), no_core is checkable: one "unsupported" entry, one verdict, exit 2.
    [ -n "${KEEL_BPF_OBJECT_DIR:-}" ] || { echo "skipped: no BPF test objects (clang missing)"; exit 77; }
    expect 2 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --no-btf --json
    json_check "d['verdict'] == 'unsupported' and sorted((p['function'], p['verdict'], p['reason']) for p in d['programs'])
      == [('no_core', 'accept', None), ('read_pid', 'unsupported', 'unsupported_core_relocation')]"
    expect 2 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --no-btf
    stdout_has '^UNSUPPORTED kprobe/do_exit/read_pid insns=[0-9]+ unsupported_core_relocation: '
    stdout_has '^CO-RE: no kernel BTF given '
    stdout_has '^PASS kprobe/do_fork/no_core '
    expect 0 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --function no_core
    # A program type keel does not model: the same object with no_core's
    # section renamed from kprobe/ to fentry/ (same length, every copy).
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); open("fentry.o", "wb").write(d.replace(b"kprobe/do_fork", b"fentry/do_fork"))' \
      "$KEEL_BPF_OBJECT_DIR/core.bpf.o" || fail "could not write fentry.o"
    expect 2 "$KEEL" verify fentry.o --function no_core --no-btf --json
    json_check "[(p['verdict'], p['reason']) for p in d['programs']] == [('unsupported', 'unsupported_program_type')] and
      d['verdict'] == 'unsupported' and '--btf' in d['programs'][0]['message']"
    # --btf must name the kernel's BTF.
    bad_input "not BTF \\(no 0xeb9f magic" "$KEEL" verify fentry.o --btf "$KEEL_BPF_OBJECT_DIR/core.bpf.o" ;;
  core_btf)
    # --btf FILE: core.bpf.o's read_pid reads task_like.pid with CO-RE. Two
    # kernel BTFs written here: one where task_like has pid first (the
    # load's offset moves to 0, accepted), one without task_like (the load
    # is poisoned, reachable, rejected naming the relocation).
    [ -n "${KEEL_BPF_OBJECT_DIR:-}" ] || { echo "skipped: no BPF test objects (clang missing)"; exit 77; }
    python3 - <<'PY' || fail "could not write the BTF files"
import struct
def btf(types, strings):
    t = b"".join(types)
    return struct.pack("<HBBIIIII", 0xeb9f, 1, 0, 24, 0, len(t), len(t), len(strings)) + t + strings
strings = b"\0int\0task_like\0pid\0state\0other\0"
int_t = struct.pack("<IIII", 1, 1 << 24, 4, (1 << 24) | 32)  # [1] int, signed, 32 bits
task = struct.pack("<III", 5, (4 << 24) | 2, 8) + struct.pack("<III", 15, 1, 0) + struct.pack("<III", 19, 1, 32)
other = struct.pack("<III", 25, (4 << 24) | 1, 4) + struct.pack("<III", 15, 1, 0)
open("moved.btf", "wb").write(btf([int_t, task], strings))
open("absent.btf", "wb").write(btf([int_t, other], strings))
PY
    expect 0 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --function read_pid --btf moved.btf
    stdout_has '^PASS kprobe/do_exit/read_pid '
    stdout_has '^CO-RE: 1 relocation against moved.btf$'
    expect 1 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --function read_pid --btf absent.btf
    stdout_has '^FAIL kprobe/do_exit/read_pid .*bpf_core_poison: CO-RE relocation #0 \(field byte offset\) of .task_like. field .pid.'
    stdout_has '^CO-RE: 1 relocation against absent.btf, 1 poisoned \(bpf_core_poison\)$'
    expect 1 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --function read_pid --btf absent.btf --json
    json_check "d['programs'][0]['reason'] == 'unknown_helper' and 'bpf_core_poison' in d['programs'][0]['message']
      and d['kernel_btf'] == 'absent.btf'"
    expect 2 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --no-btf --json
    json_check "d['kernel_btf'] is None"
    expect 2 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --btf "$DATA/verify-ok.s"
    stderr_has 'not BTF'
    expect 2 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --btf nope.btf
    expect 2 "$KEEL" verify "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --btf moved.btf --no-btf
    expect 2 "$KEEL" verify "$DATA/verify-ok.s" --type xdp --btf moved.btf
    stderr_has 'for ELF objects'
    export KEEL_COMPARE_DENY_BPF=1
    expect 0 "$KEEL" compare "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --function read_pid --btf moved.btf --runs 1
    stdout_has '^kernel BTF for CO-RE: moved.btf$' ;;
  exit_codes)
    # The exit-status table, command by command: 0 / 1 / 2.
    "$KEEL" asm "$DATA/verify-ok.s" -o ok.bin 2>err.txt || fail "asm failed"
    expect 0 "$KEEL" asm "$DATA/verify-ok.s" -o a.bin
    expect 2 "$KEEL" asm "$DATA/garbage.s" -o a.bin
    expect 0 "$KEEL" disasm ok.bin
    expect 2 "$KEEL" disasm "$DATA/garbage.s"
    expect 0 "$KEEL" verify ok.bin --type xdp
    expect 1 "$KEEL" verify "$DATA/verify-ctx.s" --type socket_filter
    expect 2 "$KEEL" verify ok.bin
    export KEEL_COMPARE_DENY_BPF=1
    expect 0 "$KEEL" compare ok.bin --type xdp --runs 1
    expect 1 "$KEEL" compare "$DATA/verify-ctx.s" --type socket_filter --runs 1
    expect 2 "$KEEL" compare /bin/ls --runs 1; stdout_has '^ls +\? +n/a +error '
    if [ -n "${KEEL_BPF_OBJECT_DIR:-}" ]; then
      # A rejection and an unchecked program in one run: 2 wins.
      expect 2 "$KEEL" compare "$DATA/verify-ctx.s" "$KEEL_BPF_OBJECT_DIR/core.bpf.o" --type socket_filter --runs 1 \
        --no-btf --json
      json_check "sorted(p['keel_verdict'] for p in d['programs']) == ['accept', 'reject', 'unsupported']"
    fi
    expect 0 "$KEEL" run "$DATA/result.s" --mem '00 00 00 00 2a 00 00 00'
    expect 1 "$KEEL" run "$DATA/trap.s" --mem '01 02 03 04 05 06 07 08' --guarded
    expect 2 "$KEEL" run "$DATA/garbage.s"
    expect 0 "$KC" cases "$DATA/cases/small.jsonl"
    expect 1 "$KC" cases "$DATA/cases/false-accept.jsonl"
    expect 2 "$KC" cases nope.jsonl
    expect 0 "$KC" test-data "$DATA/pass.data"
    expect 1 "$KC" test-data "$DATA/fail.data"
    expect 2 "$KC" test-data nope.data
    expect 0 "$KC" suite-pack s.blob --data "$DATA/pass.data"
    expect 2 "$KC" suite-pack s.blob ;;
  *)
    echo "unknown case $CASE"; exit 1 ;;
esac
exit 0
