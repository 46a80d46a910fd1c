// The local APIC timer (SDM Vol. 3A §11.5.4): a down-counter at the APIC
// bus/core crystal rate divided by 16, reloaded in periodic mode. Its rate
// is not architecturally known, so boards calibrate it against their clock.
#pragma once

#include <cstdint>

namespace keel::x86::lapic {

/// Enables the local APIC (IA32_APIC_BASE and the spurious-vector register).
/// False if CPUID reports none or its registers lie outside the identity map.
[[nodiscard]] bool init();

/// Counts down from `initial_count` with the interrupt masked (calibration).
void start_masked(uint32_t initial_count);
uint32_t current_count();

/// Interrupts on `vector` every `initial_count` timer ticks.
void start_periodic(uint32_t initial_count, uint8_t vector);
void stop();

/// End of interrupt: the APIC delivers nothing of lower priority until then.
void eoi();

}  // namespace keel::x86::lapic
