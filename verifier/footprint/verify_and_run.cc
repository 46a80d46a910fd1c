// Link-only image: as verify_only.cc, and the verified program is then run
// by the fast interpreter (keel::run, no per-access checks), with its
// stack a static buffer (docs/performance/cortex-m.md).
#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/verify.h"
#include "program_type.h"

namespace {
alignas(16) uint8_t g_arena[size_t{KEEL_FOOTPRINT_ARENA_KIB} << 10];
keel::RunStack g_stack;
}  // namespace

extern "C" int keel_footprint_entry(const uint8_t* bytes, size_t size, uint8_t* ctx) {
  keel::Arena arena(g_arena, sizeof g_arena);
  keel::Program program;
  if (!keel::decode(bytes, size, keel::DecodeOptions{}, arena, program).ok()) return -1;
  if (!keel::verify(program, keel::footprint::kType, keel::VerifyOptions{}, arena).ok()) return -2;
  const keel::RunResult result =
      keel::run(program, reinterpret_cast<uintptr_t>(ctx), keel::footprint::kType.ctx_size, keel::RunOptions{}, g_stack);
  return result.status == keel::RunStatus::ok ? static_cast<int>(result.r0) : -3;
}
