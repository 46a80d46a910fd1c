#include "conformance_case.h"

#include "conformance_helpers.h"
#include "support/text_writer.h"

namespace keel::suite {

ConformanceType::ConformanceType(uint32_t mem_size) {
  uint32_t count = 0;
  const HelperSlot* slots = conformance_helper_slots(count);
  type_ = make_conformance_type(mem_size, slots, count, field_);
}

VerifyOptions conformance_verify_options() {
  VerifyOptions options;
  options.privileged = true;
  options.reject_unreachable = false;
  return options;
}

DecodeOptions conformance_decode_options() {
  DecodeOptions options;
  options.helper_exists = conformance_helper_exists;
  return options;
}

void decode_error_text(const DecodeResult& result, char* text, size_t size) {
  TextWriter(text, size).put(decode_error_name(result.error)).put(" at pc ").decimal(result.pc).finish();
}

namespace {

// "trap: <status> at pc N (address 0x...)", as `keel run` prints a trap.
void put_trap(TextWriter& out, const RunResult& result) {
  out.put("trap: ").put(run_status_name(result.status)).put(" at pc ").decimal(result.pc);
  if (result.status == RunStatus::out_of_bounds || result.status == RunStatus::address_overflow)
    out.put(" (address ").hex(result.address).put(")");
}

RunResult execute(const Program& program, const uint8_t* mem, size_t mem_size, RunMode mode, uint64_t budget,
                  const ConformanceScratch& scratch) {
  // A fresh copy each run: the guarded run may have written to it.
  for (size_t i = 0; i < mem_size; ++i) scratch.mem_copy[i] = mem[i];
  const uint64_t base = mem_size == 0 ? 0 : reinterpret_cast<uintptr_t>(scratch.mem_copy);
  HelperMemory helper_memory;
  helper_memory.add(base, mem_size);
  helper_memory.add(reinterpret_cast<uintptr_t>(scratch.stack->bytes), sizeof scratch.stack->bytes);
  const HelperTable helpers = conformance_helper_table(helper_memory);
  const Region region{base, mem_size, true};
  RunOptions options;
  options.mode = mode;
  options.insn_budget = budget;
  options.helpers = &helpers;
  options.regions = mem_size == 0 ? nullptr : &region;
  options.region_count = mem_size == 0 ? 0 : 1;
  return run(program, base, mem_size, options, *scratch.stack);
}

}  // namespace

void check_conformance_result(const Program& program, const uint8_t* mem, size_t mem_size, uint64_t expected_r0,
                              uint64_t insn_budget, Arena& arena, const ConformanceScratch& scratch,
                              ConformanceOutcome& out) {
  out = ConformanceOutcome{};
  if (mem_size > scratch.mem_capacity || mem_size > UINT32_MAX) {
    TextWriter(out.why, sizeof out.why).put("-- mem of ").decimal(mem_size).put(" bytes is too large").finish();
    return;
  }
  // Guarded first: it cannot crash the runner if the program misbehaves.
  // The fast run stays unconditional: the corpus programs are known-good,
  // and the interpreter is measured apart from the verifier.
  constexpr RunMode kModes[] = {RunMode::guarded, RunMode::fast};
  for (const RunMode mode : kModes) {
    const char* name = mode == RunMode::guarded ? "guarded" : "fast";
    const RunResult result = execute(program, mem, mem_size, mode, insn_budget, scratch);
    TextWriter why(out.why, sizeof out.why);
    if (result.status != RunStatus::ok) {
      why.put(name).put(": ");
      put_trap(why, result);
      why.put(", expected r0 = ").hex(expected_r0).finish();
      return;
    }
    if (result.r0 != expected_r0) {
      why.put(name).put(": r0 = ").hex(result.r0).put(", expected ").hex(expected_r0).finish();
      return;
    }
    if (mode == RunMode::guarded) {
      const ConformanceType type(static_cast<uint32_t>(mem_size));
      const Verdict verdict = verify(program, type.type(), conformance_verify_options(), arena);
      out.verified = true;
      out.accepted = verdict.ok();
      if (!verdict.ok()) {
        TextWriter text(out.verify_why, sizeof out.verify_why);
        text.put(reason_name(verdict.reason)).put(": ");
        char message[512];
        describe(verdict, message, sizeof message);
        text.put(message).finish();
      }
    }
  }
  out.passed = true;
}

void check_conformance_file(const uint8_t* bytes, size_t size, const uint8_t* mem, size_t mem_size,
                            uint64_t expected_r0, uint64_t insn_budget, Arena& decode_arena, Arena& verify_arena,
                            const ConformanceScratch& scratch, ConformanceOutcome& out) {
  Program program;
  const DecodeResult decoded = decode(bytes, size, conformance_decode_options(), decode_arena, program);
  if (!decoded.ok()) {
    out = ConformanceOutcome{};
    TextWriter why(out.why, sizeof out.why);
    char text[64];
    decode_error_text(decoded, text, sizeof text);
    why.put("refused with ").put(text).finish();
    return;
  }
  check_conformance_result(program, mem, mem_size, expected_r0, insn_budget, verify_arena, scratch, out);
}

}  // namespace keel::suite
