// Facts about the machine that the loader hands over and the boot line
// prints (`keel boot ... model=... revision=... memory_bytes=...`), so that
// a capture says which board and how much memory it ran on. Filled by the
// arch entry (AArch64: from the device tree, devicetree_facts.h); empty
// where the boot protocol carries none.
#pragma once

#include <cstdint>

namespace keel {

struct BoardFacts {
  const char* model = nullptr;  ///< the device tree's /model; nullptr when unknown
  uint64_t memory_bytes = 0;    ///< RAM the loader describes; 0 when unknown
  bool has_revision = false;
  uint32_t revision = 0;        ///< the board revision code (Raspberry Pi firmware)
};

}  // namespace keel
