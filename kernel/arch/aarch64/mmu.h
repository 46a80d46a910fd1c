// The stage-1 identity map for EL1 (docs/adr/0022): 4 KiB granule, 39-bit
// addresses from TTBR0_EL1, the board's regions in 2 MiB blocks, with two
// 4 KiB holes (page 0 and the kernel stack's guard page). Built and turned
// on by the arch entry before the kernel reads a clock.
#pragma once

#include <cstdint>

#include "arch/aarch64/platform.h"

namespace keel::aarch64::mmu {

enum class Status : uint8_t {
  ok,
  out_of_range,     ///< a region beyond the 39-bit address space or the CPU's PARange
  out_of_tables,    ///< more 1 GiB areas than the static table pool holds
  overlap,          ///< two regions share a 2 MiB block with different kinds
  hole_not_normal,  ///< the guard page is not in normal memory
};

const char* status_name(Status status);

/// Builds the tables for `map` with `guard_page` (4 KiB aligned) left
/// unmapped, and enables the MMU with data and instruction caches. On
/// failure the MMU stays off.
[[nodiscard]] Status enable(const MemoryMap& map, uintptr_t guard_page);

/// Is [address, address + size) mapped as `kind`? (After enable().)
bool mapped(uintptr_t address, uint64_t size, MemoryKind kind);

/// An address inside the 39-bit range that no board region covers (256 GiB).
uintptr_t unmapped_address();

}  // namespace keel::aarch64::mmu
