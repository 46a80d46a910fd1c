// What the AArch64 arch code needs from the board it runs on: the physical
// memory map the MMU identity-maps (docs/adr/0022) and the wiring of the
// periodic timer (docs/adr/0021). The board folder (boards/<name>/) defines
// both; the arch holds no address of its own, so the same code serves QEMU
// virt and the Raspberry Pi 5.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arch/aarch64/periodic_timer.h"

namespace keel::aarch64 {

enum class MemoryKind : uint8_t {
  normal,  ///< RAM: write-back cacheable, inner shareable, executable
  device,  ///< MMIO: Device-nGnRE, never executable
};

struct MemoryRegion {
  uint64_t base;  ///< physical address; mapped from its 2 MiB block down
  uint64_t size;  ///< bytes; mapped up to the end of its last 2 MiB block
  MemoryKind kind;
};

struct MemoryMap {
  const MemoryRegion* regions;
  size_t count;
};

/// Implemented by the board: every region the kernel touches. Anything
/// outside them faults, and so does page 0 (null pointers).
MemoryMap board_memory_map();

/// Implemented by the board: its GICv2 and the INTID of the EL1 physical
/// timer, which the arch's board_timer.cc starts the tick with.
periodic_timer::Wiring board_timer_wiring();

/// The exception level the loader entered the kernel at (1 or 2), recorded
/// by boot.S before it dropped to EL1.
unsigned entry_el();

}  // namespace keel::aarch64
