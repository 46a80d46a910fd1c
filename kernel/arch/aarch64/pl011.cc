#include "arch/aarch64/pl011.h"

#include "mmio.h"

namespace keel::aarch64::pl011 {
namespace {

// DDI 0183G §3.2 (register offsets) and §3.3 (bits).
constexpr uintptr_t kUartdr = 0x000;
constexpr uintptr_t kUartfr = 0x018;
constexpr uint32_t kFrBusy = 1u << 3;
constexpr uint32_t kFrTxff = 1u << 5;
/// Register reads before giving up on the FIFO. One byte at 115200 baud
/// takes 87 us; a read of a device register takes well under 1 us on the
/// Cortex-A76 and under QEMU, so this waits longer than a byte's time on
/// hardware (tens of ms at the least) yet ends.
constexpr uint32_t kWaitLimit = 1'000'000;

bool wait_while(uintptr_t base, uint32_t flag) {
  for (uint32_t i = 0; i < kWaitLimit; ++i) {
    if ((mmio::read32(base + kUartfr) & flag) == 0) return true;
  }
  return false;
}

}  // namespace

bool put(uintptr_t base, char c) {
  if (!wait_while(base, kFrTxff)) return false;
  mmio::write32(base + kUartdr, static_cast<uint8_t>(c));
  return true;
}

void drain(uintptr_t base) { static_cast<void>(wait_while(base, kFrBusy)); }

}  // namespace keel::aarch64::pl011
