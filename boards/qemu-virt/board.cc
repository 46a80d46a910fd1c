// QEMU's AArch64 `virt` machine: the memory map the MMU maps, the PL011
// UART, and the way out (semihosting, else PSCI SYSTEM_OFF). The clock is
// in clock.cc, the periodic timer in timer.cc. Addresses: QEMU 7.2
// hw/arm/virt.c, base_memmap[].
#include "arch/aarch64/platform.h"
#include "arch/aarch64/psci.h"
#include "arch/aarch64/semihosting.h"
#include "board.h"
#include "mmio.h"

namespace keel::aarch64 {
namespace {

// RAM starts at 1 GiB; scripts/qemu-virt and the tests give QEMU -m 128M
// (the kernel uses its image and the device tree QEMU puts in RAM).
constexpr MemoryRegion regions[] = {
    {0x4000'0000, 128u << 20, MemoryKind::normal},  // RAM
    {0x0800'0000, 0x2'0000, MemoryKind::device},    // GICv2: distributor + CPU interface
    {0x0900'0000, 0x1000, MemoryKind::device},      // PL011 UART0
};

}  // namespace

MemoryMap board_memory_map() { return MemoryMap{regions, sizeof regions / sizeof regions[0]}; }

}  // namespace keel::aarch64

namespace keel::board {
namespace {

// PL011 TRM (Arm DDI 0183G) §3.2: UARTDR at 0x000, UARTFR at 0x018 with
// TXFF (transmit FIFO full) at bit 5. QEMU's PL011 needs no set-up; on
// hardware the firmware has set the baud rate, which is left alone.
constexpr uintptr_t uart_base = 0x0900'0000;
constexpr uintptr_t uart_dr = 0x000;
constexpr uintptr_t uart_fr = 0x018;
constexpr uint32_t fr_txff = 1u << 5;

// Exit statuses as on qemu-x86 (boards/qemu-x86/board.cc): ok 33, fail 35,
// fault 37, so that no other way out (PSCI SYSTEM_OFF exits QEMU with 0,
// a semihosting call that is not an application exit with 1) looks like
// one of them; scripts/qemu-virt maps them back to 0, 1, 2.
constexpr uint32_t exit_status(ExitCode code) { return 33 + 2 * static_cast<uint32_t>(code); }

}  // namespace

const char* name() { return "qemu-virt"; }
bool emulated() { return true; }

void uart_init() {}

void uart_put(char c) {
  while ((mmio::read32(uart_base + uart_fr) & fr_txff) != 0) {
  }
  mmio::write32(uart_base + uart_dr, static_cast<uint8_t>(c));
}

void exit(ExitCode code) {
  aarch64::semihosting::exit(exit_status(code));
  // No semihosting (QEMU without -semihosting-config): power off. QEMU's
  // PSCI answers `hvc` when it entered the kernel at EL1 and `smc` when at
  // EL2 (hw/arm/virt.c: psci_conduit), and exits with status 0.
  aarch64::psci::system_off(aarch64::entry_el() == 2 ? aarch64::psci::Conduit::smc
                                                     : aarch64::psci::Conduit::hvc);
  for (;;) asm volatile("msr daifset, #0xf\n wfi");
}

}  // namespace keel::board
