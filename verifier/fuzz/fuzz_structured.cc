// fuzz_structured: the input's bytes are the choices of the structured
// program generator (gen/program_generator.h), so that libFuzzer's
// mutations move between realistic programs: a helper or context value,
// narrowed by branches, used as an offset into a map value, the stack or
// the packet, with spills, loops, calls and callbacks, privileged or not.
// Every program keel accepts runs through the guarded-run oracle
// (gen/oracle.h) on three edge-biased inputs, each twice with different
// never-written stack bytes. Properties: the generated program decodes; the
// oracle reports no trap, no run past Verdict::max_insns_executed, no
// saturated bound, no helper argument outside its prototype and no outcome
// that depends on unwritten stack.
#include <cstdint>
#include <cstdio>

#include "fuzz_check.h"
#include "keel/platform_linux.h"
#include "keel/verify.h"
#include "oracle.h"
#include "program_generator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  keel::fuzzgen::Choices choices(data, size);
  const keel::fuzzgen::GeneratedProgram p = keel::fuzzgen::generate(choices);
  const keel::ProgramType* type = keel::find_program_type(keel::linux_platform(), p.type);
  KEEL_FUZZ_CHECK(type != nullptr);
  keel::VerifyOptions options = keel::fuzzgen::verify_options(p.privileged);
  // As fuzz_verify: a low cap keeps every input well under libFuzzer's
  // 5 s timeout with ASan (a 40-instruction loop that counts down from
  // 2^31 took 9 ms to reject in a release build and over 5 s here).
  options.max_iterations = 1u << 13;
  const keel::fuzzgen::Judgement j =
      keel::fuzzgen::judge(p.bytes.data(), p.bytes.size(), *type, options, keel::fuzz::pick(data, size, 0x5eed), 3);
  KEEL_FUZZ_CHECK(j.decoded);
  if (j.finding.found()) {
    std::fprintf(stderr, "fuzz_structured: soundness finding (%s, %s): %s at pc %u: %s\n", p.type,
                 p.privileged ? "privileged" : "unprivileged", keel::fuzzgen::finding_kind_name(j.finding.kind),
                 j.finding.pc, j.finding.message.c_str());
    KEEL_FUZZ_CHECK(!j.finding.found());
  }
  return 0;
}
