#include "arch/aarch64/gic_v2.h"

#include "mmio.h"

namespace keel::aarch64::gic {
namespace {

// IHI 0048B §4.1.2 Table 4-1 (distributor) and §4.1.3 Table 4-2 (CPU
// interface) register offsets; §4.3.14 GICD_ICPIDR2 at 0xFE8.
constexpr uintptr_t kGicdCtlr = 0x000;
constexpr uintptr_t kGicdTyper = 0x004;
constexpr uintptr_t kGicdIsenabler = 0x100;
constexpr uintptr_t kGicdIcenabler = 0x180;
constexpr uintptr_t kGicdIcpendr = 0x280;
constexpr uintptr_t kGicdIpriorityr = 0x400;
constexpr uintptr_t kGicdItargetsr = 0x800;
constexpr uintptr_t kGicdPidr2 = 0xFE8;
constexpr uintptr_t kGiccCtlr = 0x000;
constexpr uintptr_t kGiccPmr = 0x004;
constexpr uintptr_t kGiccBpr = 0x008;
constexpr uintptr_t kGiccIar = 0x00C;
constexpr uintptr_t kGiccEoir = 0x010;

// GICD_CTLR / GICC_CTLR bit 0: forwarding enabled. Without the Security
// Extensions (QEMU virt, secure=off) it is the only group; a Non-secure
// access to a GIC-400 that has them sees bit 0 as EnableGrp1, the group
// the firmware leaves Non-secure interrupts in.
constexpr uint32_t kEnableBit = 1;
constexpr uint32_t kPriorityMask = 0xF0;  // GICC_PMR: forward priorities 0x00-0xEF

Bases active{};
unsigned lines = 0;

uint32_t gicd(uintptr_t offset) { return mmio::read32(active.distributor + offset); }
void gicd(uintptr_t offset, uint32_t value) { mmio::write32(active.distributor + offset, value); }
void gicc(uintptr_t offset, uint32_t value) { mmio::write32(active.cpu_interface + offset, value); }

// GICD_IPRIORITYR and GICD_ITARGETSR hold one byte per INTID; read-modify-
// write the word (mmio.h has 32-bit accesses only; byte accesses are also
// allowed by §4.3.11, word accesses everywhere).
void set_byte(uintptr_t base, uint32_t id, uint8_t value) {
  const uintptr_t word = base + (id / 4) * 4;
  const unsigned shift = (id % 4) * 8;
  const uint32_t old = gicd(word);
  gicd(word, (old & ~(0xFFu << shift)) | (uint32_t{value} << shift));
}

}  // namespace

bool init(Bases bases) {
  active = bases;
  // ICPIDR2 bits 7:4, ArchRev: 0x2 for GICv2 (QEMU's GICv2 and the GIC-400
  // both read 0x2B).
  if (((gicd(kGicdPidr2) >> 4) & 0xF) != 2) {
    active = Bases{};
    return false;
  }
  lines = 32 * ((gicd(kGicdTyper) & 0x1F) + 1);
  gicd(kGicdCtlr, 0);
  for (unsigned id = 0; id < lines; id += 32) {
    gicd(kGicdIcenabler + id / 8, 0xFFFF'FFFF);
    gicd(kGicdIcpendr + id / 8, 0xFFFF'FFFF);
  }
  gicc(kGiccPmr, kPriorityMask);
  gicc(kGiccBpr, 0);  // all priority bits are group priority: no sub-priority
  gicc(kGiccCtlr, kEnableBit);
  gicd(kGicdCtlr, kEnableBit);
  return true;
}

bool ready() { return active.distributor != 0; }
unsigned interrupt_lines() { return lines; }

bool enable(uint32_t id, uint8_t priority) {
  if (!ready() || id >= lines || priority >= kPriorityMask) return false;
  set_byte(kGicdIpriorityr, id, priority);
  // SPIs go to CPU interface 0 (bit 0 of the byte); SGI/PPI target bytes
  // are read-only (§4.3.12).
  if (id >= 32) set_byte(kGicdItargetsr, id, 0x01);
  const uintptr_t isenabler = kGicdIsenabler + (id / 32) * 4;
  gicd(isenabler, 1u << (id % 32));
  // Read back: on a GIC with the Security Extensions (the GIC-400) a
  // Non-secure access to a Group 0 interrupt is RAZ/WI (§4.3.5), so an
  // INTID the firmware left in Group 0 stays off; say so instead of
  // waiting for a tick that cannot come.
  return (gicd(isenabler) & (1u << (id % 32))) != 0;
}

void disable(uint32_t id) {
  if (!ready() || id >= lines) return;
  gicd(kGicdIcenabler + (id / 32) * 4, 1u << (id % 32));
}

uint32_t acknowledge() { return mmio::read32(active.cpu_interface + kGiccIar); }

void end_of_interrupt(uint32_t acknowledged) { gicc(kGiccEoir, acknowledged); }

}  // namespace keel::aarch64::gic
