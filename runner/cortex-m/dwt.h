// The Cortex-M cycle counter, where the machine implements it: the Data
// Watchpoint and Trace unit's CYCCNT (Arm ARMv7-M Architecture Reference
// Manual, C1.8; ARMv8-M, B15). Optional in both architectures, and QEMU's
// MPS2 machines leave the DWT unimplemented (reads as zero), so the
// counter is probed before any figure is printed.
#pragma once

#include <cstdint>

namespace keel::cortex_m {

// Enables the counter (DEMCR.TRCENA, then DWT_CTRL.CYCCNTENA) and reports
// whether it advances across a short busy loop.
bool cycle_counter_start();

// CYCCNT now; meaningful only when cycle_counter_start() returned true.
uint32_t cycle_count();

}  // namespace keel::cortex_m
