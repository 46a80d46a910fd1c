# What every board's boot tests share (included by boards/<name>/CMakeLists.txt):
#
#   KEEL_SERVICE_LINES  --line/--no-line arguments for the BPF service's
#     lines (kernel/service.cc) for the embedded programs (kernel/programs,
#     expectations in manifest.cc): every step of every program, the unsafe
#     one rejected with its reason, the run-once results, and the tick
#     program's runs. Exact values (insns, max_insns, pc) are the
#     semantic-consistency test's business; here the shape and the verdicts.
#   keel_semantic_consistency_test(NAME UART_LOG FIXTURE): the same bytes,
#     the same verdict (docs/design.md): the host pipeline (keel-kernel-check,
#     host_check.cmake) against a boot's `keel load/verify/reject` lines,
#     field by field but for the timings. FIXTURE is the boot test that
#     writes UART_LOG (FIXTURES_SETUP).
set(n "[0-9]+")
set(KEEL_SERVICE_LINES
  --line "keel load prog=tick_counter insns=${n} type=keel_tick"
  --line "keel verify prog=tick_counter insns=${n} verdict=accept max_insns=${n} stack=${n} verify_ns=${n} arena_bytes=${n} emulated=1"
  --line "keel admit prog=tick_counter hook=tick budget=4096 max_insns=${n} status=ok"
  --line "keel attach prog=tick_counter hook=tick"
  --line "keel run prog=tick_counter runs=2[0-9] ns_per_run_median=${n} ns_per_insn=${n}\\.[0-9]{6} insns_median=${n} errors=0 mode=fast emulated=1 status=ok"
  --line "keel map prog=tick_counter map=tick_stats words=2[0-9],${n}"
  --line "keel map prog=tick_counter map=tick_hist words=${n}(,${n}){15}"
  --line "keel load prog=helpers_demo insns=${n} type=keel_test"
  --line "keel verify prog=helpers_demo insns=${n} verdict=accept max_insns=${n} stack=${n} verify_ns=${n} arena_bytes=${n} emulated=1"
  --line "keel admit prog=helpers_demo hook=once budget=1000000 max_insns=${n} status=ok"
  --line "keel attach prog=helpers_demo hook=once"
  --line "keel trace prog=helpers_demo tag=helpers_demo value=42"
  --line "keel trace prog=helpers_demo tag=elapsed_ns value=${n}"
  --line "keel run prog=helpers_demo runs=1 r0=0 insns=${n} ns=${n} mode=guarded emulated=1 status=ok"
  --line "keel load prog=bounded_loop insns=${n} type=keel_test"
  --line "keel verify prog=bounded_loop insns=${n} verdict=accept max_insns=${n} stack=${n} verify_ns=${n} arena_bytes=${n} emulated=1"
  --line "keel admit prog=bounded_loop hook=once budget=1000000 max_insns=${n} status=ok"
  --line "keel attach prog=bounded_loop hook=once"
  --line "keel run prog=bounded_loop runs=1 r0=560 insns=${n} ns=${n} mode=guarded emulated=1 status=ok"
  --line "keel load prog=unsafe_oob insns=${n} type=keel_test"
  --line "keel verify prog=unsafe_oob insns=${n} verdict=reject stage=verify pc=${n} reason=map_value_out_of_bounds verify_ns=${n} arena_bytes=${n} emulated=1"
  --line "keel reject prog=unsafe_oob pc=${n} reason=map_value_out_of_bounds"
  --line "keel arena name=program capacity=${n} peak=${n}"
  --line "keel arena name=verify capacity=${n} peak=${n}"
  --line "keel arena name=maps capacity=${n} peak=${n} maps=${n}"
  --no-line "keel (expect|link) .*"
  --no-line "keel (admit|attach|run) .*status=(over-budget|hook-full|fail).*"
  --no-line "keel (admit|attach|run) prog=unsafe_oob .*")

function(keel_semantic_consistency_test name uart_log fixture)
  add_test(NAME ${name}
           COMMAND ${PROJECT_SOURCE_DIR}/kernel/tests/compare-verdicts --check ${KEEL_KERNEL_CHECK}
                   --uart ${uart_log} ${KEEL_KERNEL_BPF_OBJECTS})
  set_tests_properties(${name} PROPERTIES LABELS qemu FIXTURES_REQUIRED ${fixture})
endfunction()
