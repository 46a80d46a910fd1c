// A GICv2 driver (Arm GIC Architecture Specification v2, IHI 0048B): the
// distributor (GICD) and the CPU interface (GICC), both memory-mapped at
// addresses the board supplies. Enough for one CPU taking private (PPI)
// and shared (SPI) interrupts as IRQs; the arch's exception path
// acknowledges and ends them (docs/adr/0021).
#pragma once

#include <cstdint>

namespace keel::aarch64::gic {

struct Bases {
  uintptr_t distributor;    ///< GICD: QEMU virt 0x08000000; BCM2712 0x107FFF9000
  uintptr_t cpu_interface;  ///< GICC: QEMU virt 0x08010000; BCM2712 0x107FFFA000
};

/// Checks that a GICv2 answers at `bases` (GICD_PIDR2.ArchRev = 2) and
/// enables the distributor and this CPU's interface with every interrupt
/// disabled. False (and nothing enabled) otherwise.
[[nodiscard]] bool init(Bases bases);
bool ready();
unsigned interrupt_lines();  ///< GICD_TYPER: 32 * (ITLinesNumber + 1)

/// Enables INTID `id` (16-31 PPI, 32+ SPI routed to CPU 0) at `priority`
/// (lower is more urgent; must be below the priority mask 0xF0). False
/// when it does not read back as enabled (a Group 0 INTID seen from
/// Non-secure state).
[[nodiscard]] bool enable(uint32_t id, uint8_t priority);
void disable(uint32_t id);

/// GICC_IAR: the highest-priority pending interrupt, now active. Its
/// INTID is bits 9:0; 1020-1023 mean none (spurious).
uint32_t acknowledge();
/// GICC_EOIR with the value acknowledge() returned.
void end_of_interrupt(uint32_t acknowledged);

constexpr uint32_t intid(uint32_t acknowledged) { return acknowledged & 0x3FF; }
constexpr bool is_spurious(uint32_t id) { return id >= 1020; }

}  // namespace keel::aarch64::gic
