#include "dwt.h"

namespace keel::cortex_m {
namespace {

// System control space addresses (ARMv7-M ARM, C1.6.5 and C1.8.7).
constexpr uintptr_t kDemcr = 0xE000EDFC;      // Debug Exception and Monitor Control Register
constexpr uint32_t kDemcrTrcena = 1u << 24;   // enables the DWT and ITM
constexpr uintptr_t kDwtCtrl = 0xE0001000;    // DWT Control Register
constexpr uint32_t kDwtCtrlCyccntena = 1u << 0;
constexpr uintptr_t kDwtCyccnt = 0xE0001004;  // DWT Cycle Count Register

volatile uint32_t& reg(uintptr_t address) { return *reinterpret_cast<volatile uint32_t*>(address); }

}  // namespace

bool cycle_counter_start() {
  reg(kDemcr) = reg(kDemcr) | kDemcrTrcena;
  reg(kDwtCyccnt) = 0;
  reg(kDwtCtrl) = reg(kDwtCtrl) | kDwtCtrlCyccntena;
  const uint32_t before = cycle_count();
  // A short busy loop the compiler must keep: an empty asm per turn.
  for (int i = 0; i < 100; ++i) __asm__ volatile("" ::: "memory");
  return cycle_count() != before;
}

uint32_t cycle_count() { return reg(kDwtCyccnt); }

}  // namespace keel::cortex_m
