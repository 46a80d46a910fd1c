// The helper functions the conformance suites' own runners define, so that
// `keel run`, `keel test-data` and the bare-metal runner (runner/) can
// execute their `call N` programs. This is test-runner data, not part of
// the core's platform; freestanding, so that the runner image links it.
#pragma once

#include <cstdint>

#include "keel/interp.h"
#include "keel/platform.h"

namespace keel::suite {

// Memory a helper may read or write through a pointer argument: the ranges
// the runner handed the program (its input buffer and its stack). The
// helpers check their pointers against it, so that a wrong pointer ends in
// a helper failure rather than a crash of the tool.
struct HelperMemory {
  struct Range {
    uint64_t base;
    uint64_t size;
  };
  static constexpr int kMaxRanges = 4;
  Range ranges[kMaxRanges] = {};
  int count = 0;

  void add(uint64_t base, uint64_t size);
  // Bytes available from `address` to the end of the range holding it (0: none).
  uint64_t available(uint64_t address) const;
};

// The table, with `memory` as its user data.
HelperTable conformance_helper_table(HelperMemory& memory);

// DecodeOptions::helper_exists for the same table (context unused).
bool conformance_helper_exists(const void* context, int32_t id);

// LoadOptions::extern_helper for objects that call these helpers by name
// (uBPF's tests/elf/*.data; its runner registers them under the same
// names): the id, or -1 when no helper has that name. Context unused.
int32_t conformance_helper_id(const void* context, const char* name);

// The same helpers as the verifier sees them (sorted by id), for the
// "conformance" program type: every used argument ArgKind::anything (the
// helpers check their pointers themselves), an integer result.
const HelperSlot* conformance_helper_slots(uint32_t& count);

}  // namespace keel::suite
