// Interrupt dispatch: the IRQ vector acknowledges the GIC, runs the handler
// attached to the INTID, and ends the interrupt. An IRQ with no handler is
// a fault (it would otherwise fire again for ever).
#pragma once

#include <cstdint>

namespace keel::aarch64::irq {

using Handler = void (*)();

/// False when `intid` already has a handler or the table (4 entries) is full.
[[nodiscard]] bool attach(uint32_t intid, Handler handler);
void detach(uint32_t intid);

/// Called by the IRQ vector (traps.cc). Returns false for an interrupt
/// with no handler, which has been ended but not handled.
[[nodiscard]] bool dispatch(uint32_t& intid);

}  // namespace keel::aarch64::irq
