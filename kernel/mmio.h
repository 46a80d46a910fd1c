// Device registers are reached through these two helpers only, so every
// MMIO access in the kernel and the boards is a visible, volatile, 32-bit
// access (docs/conventions.md, "Boards"). 64-bit registers are read as halves
// (time/ticks.h read_split_counter for counters that may carry between them).
#pragma once

#include <cstdint>

namespace keel::mmio {

inline uint32_t read32(uintptr_t address) {
  return *reinterpret_cast<const volatile uint32_t*>(address);
}

inline void write32(uintptr_t address, uint32_t value) {
  *reinterpret_cast<volatile uint32_t*>(address) = value;
}

}  // namespace keel::mmio
