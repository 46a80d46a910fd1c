// Link-only image: what flash the verifier needs when firmware calls only
// decode() and verify() (docs/performance/cortex-m.md). Linked with
// --gc-sections and no start-up code, so its sections hold exactly the
// core code and data reachable from keel_footprint_entry, plus the mem*
// routines and libgcc helpers they call (docs/adr/0026). Never run: the
// entry's arguments would come from the firmware.
#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/decode.h"
#include "keel/verify.h"
#include "program_type.h"

namespace {
alignas(16) uint8_t g_arena[size_t{KEEL_FOOTPRINT_ARENA_KIB} << 10];
}  // namespace

extern "C" int keel_footprint_entry(const uint8_t* bytes, size_t size) {
  keel::Arena arena(g_arena, sizeof g_arena);
  keel::Program program;
  if (!keel::decode(bytes, size, keel::DecodeOptions{}, arena, program).ok()) return -1;
  return static_cast<int>(keel::verify(program, keel::footprint::kType, keel::VerifyOptions{}, arena).reason);
}
