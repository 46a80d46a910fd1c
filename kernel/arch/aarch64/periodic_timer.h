// The periodic tick from the EL1 physical timer (CNTP) through the GIC
// (docs/adr/0021): every period the compare value moves on by a fixed
// number of counter ticks, so ticks stay in phase with the counter; a
// tick that comes more than a period late is dropped and counted, not
// caught up. Each tick calls keel::on_tick().
#pragma once

#include <cstdint>

#include "arch/aarch64/gic_v2.h"
#include "time/ticks.h"

namespace keel::aarch64::periodic_timer {

struct Wiring {
  gic::Bases gic;  ///< the board's GIC
  uint32_t intid;  ///< the timer's INTID: 30 (PPI 14) on QEMU virt and the BCM2712
};

/// False when the GIC does not answer, the INTID cannot be enabled, or
/// `period_ns` is shorter than one counter tick.
[[nodiscard]] bool start(const Wiring& wiring, const TickConverter& clock, uint64_t period_ns);
void stop();

uint64_t counts_per_tick();  ///< counter ticks per period (0 before start)
uint64_t missed();           ///< ticks dropped because the handler ran a period or more late
uint32_t intid();

}  // namespace keel::aarch64::periodic_timer
