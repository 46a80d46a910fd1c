// The kernel's helper implementations for the interpreter (keel::HelperFn),
// indexed by the ids of programs/keel_helpers.h. What they need from the
// kernel (the clock, the UART) comes in through HelperContext, so the same
// code runs in the kernel and in the host tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bpf/maps.h"
#include "keel/interp.h"

namespace keel::bpf {

struct HelperContext {
  const char* program = nullptr;  ///< the running program's name (for keel_trace)
  /// The board clock in ns (ktime_get_ns).
  uint64_t (*now_ns)(void* user) = nullptr;
  /// Writes one `keel trace` line: the tag is `length` bytes, not NUL-terminated.
  void (*trace)(void* user, const char* program, const char* tag, size_t length, uint64_t value) = nullptr;
  void* user = nullptr;  ///< passed to now_ns and trace
  const ArrayMap* maps = nullptr;  ///< every map a program may name (a sanity check on r1)
  uint32_t map_count = 0;
};

/// The table for RunOptions::helpers; `context` must outlive the runs.
HelperTable helper_table(HelperContext& context);

/// Linux's errno values, as the map helpers return them negated.
inline constexpr uint64_t kEinval = 22, kE2big = 7, kEexist = 17, kEnoent = 2;

}  // namespace keel::bpf
