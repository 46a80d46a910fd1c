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
    printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000' >prog.o
    bad_input 'ELF objects are not supported yet' "$KEEL" run prog.o
    bad_input 'ELF objects are not supported yet' "$KEEL" disasm prog.o ;;
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
    expect 0 "$KEEL" run "$DATA/helper.s"; stdout_has '^r0 = 0x102030405$' ;;
  trap_guarded)
    expect 1 "$KEEL" run "$DATA/trap.s" --mem '01 02 03 04 05 06 07 08' --guarded
    stderr_has '^trap: out_of_bounds at pc 0 \(address 0x[0-9a-f]+\)$'
    expect 1 "$KEEL" run "$DATA/trap.s" --guarded
    stderr_has '^trap: (out_of_bounds|address_overflow) at pc 0' ;;
  budget)
    expect 1 "$KEEL" run "$DATA/loop.s" --budget 1000
    stderr_has '^trap: budget_exhausted at pc [0-9]+$' ;;
  test_data_pass)
    expect 0 "$KEEL" test-data "$DATA/pass.data" "$DATA/load-error.data" "$DATA/run-error.data" "$DATA/pyelf.data"
    stdout_has '^PASS .*/pass\.data$'
    stdout_has '^PASS .*/load-error\.data$'
    stdout_has '^PASS .*/run-error\.data$'
    stdout_has '^N/A .*/pyelf\.data: -- pyelf'
    [ "$(tail -n 1 out.txt)" = "3 passed, 0 failed, 1 skipped" ] || fail "wrong summary line" ;;
  test_data_fail)
    expect 1 "$KEEL" test-data "$DATA/fail.data"
    stdout_has '^FAIL .*/fail\.data: guarded: r0 = 0x1, expected 0x2$'
    [ "$(tail -n 1 out.txt)" = "0 passed, 1 failed" ] || fail "wrong summary line" ;;
  *)
    echo "unknown case $CASE"; exit 1 ;;
esac
exit 0
