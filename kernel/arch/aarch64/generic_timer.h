// The Arm generic timer (Arm ARM DDI 0487 D11): the system counter
// (CNTPCT_EL0, at CNTFRQ_EL0 Hz) and the EL1 physical timer (CNTP_*_EL0),
// which asserts its interrupt while CNTPCT >= CNTP_CVAL and it is enabled
// and unmasked. At EL1 these are reachable because the firmware, or
// boot.S when entered at EL2, set CNTHCTL_EL2.EL1PCTEN/EL1PCEN.
#pragma once

#include <cstdint>

namespace keel::aarch64::generic_timer {

/// CNTFRQ_EL0: what the firmware (or QEMU) programmed; 0 if it did not.
inline uint64_t frequency() {
  uint64_t value;
  asm volatile("mrs %0, cntfrq_el0" : "=r"(value));
  return value & 0xFFFF'FFFF;  // bits 63:32 are RES0
}

/// CNTPCT_EL0, after an ISB so that the read is not taken early
/// (D11.2.2: reads of CNTPCT may occur out of order).
inline uint64_t counter() {
  uint64_t value;
  asm volatile("isb\n mrs %0, cntpct_el0" : "=r"(value) : : "memory");
  return value;
}

// CNTP_CTL_EL0: ENABLE bit 0, IMASK bit 1, ISTATUS bit 2 (read-only).
constexpr uint64_t kControlEnable = 1;
constexpr uint64_t kControlMask = 2;

/// Fires (level) when the counter reaches `compare`, until it is moved on.
inline void arm_at(uint64_t compare) {
  asm volatile("msr cntp_cval_el0, %0\n msr cntp_ctl_el0, %1\n isb"
               : : "r"(compare), "r"(kControlEnable) : "memory");
}

inline uint64_t compare_value() {
  uint64_t value;
  asm volatile("mrs %0, cntp_cval_el0" : "=r"(value));
  return value;
}

inline void set_compare(uint64_t compare) {
  asm volatile("msr cntp_cval_el0, %0\n isb" : : "r"(compare) : "memory");
}

/// Disabled and masked: the interrupt line drops.
inline void stop() {
  asm volatile("msr cntp_ctl_el0, %0\n isb" : : "r"(kControlMask) : "memory");
}

}  // namespace keel::aarch64::generic_timer
