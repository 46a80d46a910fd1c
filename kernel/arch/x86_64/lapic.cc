#include "arch/x86_64/lapic.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "mmio.h"

namespace keel::x86::lapic {
namespace {

// SDM Vol. 3A Table 11-1 (register offsets), §11.4.4 (IA32_APIC_BASE).
constexpr uint32_t kMsrApicBase = 0x1B;
constexpr uint64_t kApicBaseEnable = 1u << 11;
constexpr uint64_t kApicBaseAddressMask = 0x000F'FFFF'FFFF'F000;
constexpr uintptr_t kRegEoi = 0x0B0;
constexpr uintptr_t kRegSpurious = 0x0F0;
constexpr uintptr_t kRegLvtTimer = 0x320;
constexpr uintptr_t kRegInitialCount = 0x380;
constexpr uintptr_t kRegCurrentCount = 0x390;
constexpr uintptr_t kRegDivide = 0x3E0;

constexpr uint32_t kSpuriousApicEnable = 1u << 8;  // §11.9
constexpr uint32_t kLvtMasked = 1u << 16;           // §11.5.1, Figure 11-8
constexpr uint32_t kLvtTimerPeriodic = 1u << 17;
constexpr uint32_t kDivideBy16 = 0x3;              // Figure 11-10: 0b0011

// The identity map covers 0..4 GiB (boot.S); the APIC window (0xFEE00000
// after reset) lies in its uncached top gigabyte.
constexpr uint64_t kMappedLimit = uint64_t{1} << 32;

uintptr_t base = 0;

uint32_t read(uintptr_t reg) { return mmio::read32(base + reg); }
void write(uintptr_t reg, uint32_t value) { mmio::write32(base + reg, value); }

}  // namespace

bool init() {
  if ((cpuid(1).edx & (1u << 9)) == 0) return false;  // CPUID.01H:EDX.APIC[bit 9]
  const uint64_t msr = read_msr(kMsrApicBase);
  const uint64_t address = msr & kApicBaseAddressMask;
  if (address == 0 || address >= kMappedLimit) return false;
  write_msr(kMsrApicBase, msr | kApicBaseEnable);
  base = static_cast<uintptr_t>(address);
  write(kRegSpurious, kSpuriousApicEnable | kApicSpuriousVector);
  return true;
}

void start_masked(uint32_t initial_count) {
  write(kRegDivide, kDivideBy16);
  write(kRegLvtTimer, kLvtMasked | kTimerVector);
  write(kRegInitialCount, initial_count);  // writing the count starts it
}

uint32_t current_count() { return read(kRegCurrentCount); }

void start_periodic(uint32_t initial_count, uint8_t vector) {
  write(kRegDivide, kDivideBy16);
  write(kRegLvtTimer, kLvtTimerPeriodic | vector);
  write(kRegInitialCount, initial_count);
}

void stop() {
  write(kRegLvtTimer, kLvtMasked | kTimerVector);
  write(kRegInitialCount, 0);  // §11.5.4: a zero initial count stops the timer
}

void eoi() { write(kRegEoi, 0); }

}  // namespace keel::x86::lapic
