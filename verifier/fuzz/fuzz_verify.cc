// fuzz_verify: any bytes -> keel::decode -> keel::verify as socket_filter
// and as xdp, with an array map and a hash map, in a large and a small
// arena; every accepted program then runs through the guarded-run oracle
// (gen/oracle.h) on three edge-biased inputs. Properties: no crash or UB; a
// defined Reason; describe() renders like snprintf; a small arena gives the
// same verdict or out_of_memory. The soundness oracle: an accepted program
// never traps, never runs more instructions than
// Verdict::max_insns_executed, passes its helpers only what their
// prototypes allow, and gives the same outcome whatever the never-written
// stack bytes hold. Such a failure is a verifier finding: the message names
// the type, the kind and the pc.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

#include "fuzz_check.h"
#include "keel/decode.h"
#include "keel/platform_linux.h"
#include "keel/verify.h"
#include "oracle.h"

namespace {

using keel::Reason;

constexpr uint32_t kMaxInsns = 4096;
constexpr size_t kLargeArena = 32u << 20;
constexpr size_t kSmallArena = 16u << 10;

void check_describe(const keel::Verdict& v) {
  char large[512];
  const size_t length = keel::describe(v, large, sizeof large);
  KEEL_FUZZ_CHECK(length < sizeof large && std::strlen(large) == length);
  for (const size_t size : {size_t{0}, size_t{1}, size_t{9}, length, length + 1}) {
    std::unique_ptr<char[]> buffer(new char[size == 0 ? 1 : size]);
    buffer[0] = 'x';
    KEEL_FUZZ_CHECK(keel::describe(v, buffer.get(), size) == length);
    if (size == 0) {
      KEEL_FUZZ_CHECK(buffer[0] == 'x');
      continue;
    }
    const size_t written = std::strlen(buffer.get());
    KEEL_FUZZ_CHECK(written == (length < size ? length : size - 1) && std::memcmp(buffer.get(), large, written) == 0);
  }
}

keel::Verdict verify_checked(const keel::Program& program, const keel::ProgramType& type, uint8_t* memory,
                             size_t bytes) {
  keel::Arena arena(memory, bytes);
  keel::VerifyOptions options;
  options.maps = keel::fuzzgen::kMaps;
  options.map_count = keel::fuzzgen::kMapCount;
  // A low cap keeps every input fast under the fuzzer's instrumentation, so
  // a future input that needs many visits shows up as too_complex here and
  // as a finding in a longer run rather than as a libFuzzer timeout. (The
  // pointer-loop inputs that once took 2^20 visits now settle in a few:
  // verify_test's VerifyCost.PointerSteppingLoopReachesItsFixpointQuickly.)
  options.max_iterations = 1u << 13;
  const keel::Verdict v = keel::verify(program, type, options, arena);
  KEEL_FUZZ_CHECK(v.reason <= Reason::out_of_memory);
  KEEL_FUZZ_CHECK(std::strcmp(keel::reason_name(v.reason), "invalid") != 0);
  KEEL_FUZZ_CHECK(v.ok() || v.reason == Reason::out_of_memory || v.pc < program.count);
  if (v.ok()) KEEL_FUZZ_CHECK(v.stack_depth <= keel::kStackSize * keel::kMaxCallDepth);
  check_describe(v);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  keel::DecodeOptions decode_options;
  decode_options.max_insns = kMaxInsns;
  std::unique_ptr<uint8_t[]> decode_memory(new uint8_t[kMaxInsns * 20 + 64]);
  keel::Arena decode_arena(decode_memory.get(), kMaxInsns * 20 + 64);
  keel::Program program;
  if (!keel::decode(data, size, decode_options, decode_arena, program).ok()) return 0;

  static uint8_t large_arena[kLargeArena];  // a global: ASan guards its ends
  const keel::Platform& platform = keel::linux_platform();
  for (const char* name : {"socket_filter", "xdp"}) {
    const keel::ProgramType* type = keel::find_program_type(platform, name);
    KEEL_FUZZ_CHECK(type != nullptr);
    const keel::Verdict large = verify_checked(program, *type, large_arena, kLargeArena);
    {
      std::unique_ptr<uint8_t[]> small_arena(new uint8_t[kSmallArena]);
      const keel::Verdict small = verify_checked(program, *type, small_arena.get(), kSmallArena);
      KEEL_FUZZ_CHECK(small.reason == Reason::out_of_memory ||
                      (small.reason == large.reason && small.pc == large.pc));
    }
    if (!large.ok()) continue;
    const uint64_t seed = keel::fuzz::pick(data, size, 0x5eed);
    const keel::fuzzgen::Finding f = keel::fuzzgen::run_accepted(program, *type, large, seed, 3, false);
    if (f.found()) {
      std::fprintf(stderr, "fuzz_verify: soundness finding (type %s): %s at pc %u: %s\n", type->name,
                   keel::fuzzgen::finding_kind_name(f.kind), f.pc, f.message.c_str());
      KEEL_FUZZ_CHECK(!f.found());
    }
  }
  return 0;
}
