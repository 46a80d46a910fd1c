#include "arch/x86_64/lapic.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "mmio.h"

namespace keel::x86::lapic {
namespace {

// SDM Vol. 3A Table 11-1 (register offsets), §11.4.4 (IA32_APIC_BASE).
constexpr uint32_t msr_apic_base = 0x1B;
constexpr uint64_t apic_base_enable = 1u << 11;
constexpr uint64_t apic_base_address_mask = 0x000F'FFFF'FFFF'F000;
constexpr uintptr_t reg_eoi = 0x0B0;
constexpr uintptr_t reg_spurious = 0x0F0;
constexpr uintptr_t reg_lvt_timer = 0x320;
constexpr uintptr_t reg_initial_count = 0x380;
constexpr uintptr_t reg_current_count = 0x390;
constexpr uintptr_t reg_divide = 0x3E0;

constexpr uint32_t spurious_apic_enable = 1u << 8;  // §11.9
constexpr uint32_t lvt_masked = 1u << 16;           // §11.5.1, Figure 11-8
constexpr uint32_t lvt_timer_periodic = 1u << 17;
constexpr uint32_t divide_by_16 = 0x3;              // Figure 11-10: 0b0011

// The identity map covers 0..4 GiB (boot.S); the APIC window (0xFEE00000
// after reset) lies in its uncached top gigabyte.
constexpr uint64_t mapped_limit = uint64_t{1} << 32;

uintptr_t base = 0;

uint32_t read(uintptr_t reg) { return mmio::read32(base + reg); }
void write(uintptr_t reg, uint32_t value) { mmio::write32(base + reg, value); }

}  // namespace

bool init() {
  if ((cpuid(1).edx & (1u << 9)) == 0) return false;  // CPUID.01H:EDX.APIC[bit 9]
  const uint64_t msr = read_msr(msr_apic_base);
  const uint64_t address = msr & apic_base_address_mask;
  if (address == 0 || address >= mapped_limit) return false;
  write_msr(msr_apic_base, msr | apic_base_enable);
  base = static_cast<uintptr_t>(address);
  write(reg_spurious, spurious_apic_enable | apic_spurious_vector);
  return true;
}

void start_masked(uint32_t initial_count) {
  write(reg_divide, divide_by_16);
  write(reg_lvt_timer, lvt_masked | timer_vector);
  write(reg_initial_count, initial_count);  // writing the count starts it
}

uint32_t current_count() { return read(reg_current_count); }

void start_periodic(uint32_t initial_count, uint8_t vector) {
  write(reg_divide, divide_by_16);
  write(reg_lvt_timer, lvt_timer_periodic | vector);
  write(reg_initial_count, initial_count);
}

void stop() {
  write(reg_lvt_timer, lvt_masked | timer_vector);
  write(reg_initial_count, 0);  // §11.5.4: a zero initial count stops the timer
}

void eoi() { write(reg_eoi, 0); }

}  // namespace keel::x86::lapic
