// QEMU's AArch64 `virt` machine: the memory map the MMU maps, the GIC and
// timer wiring, the PL011 UART, and the way out (semihosting, else PSCI
// SYSTEM_OFF). The clock and the tick are the arch's (board_clock.cc,
// board_timer.cc). Addresses: QEMU 7.2 hw/arm/virt.c, base_memmap[].
#include "arch/aarch64/pl011.h"
#include "arch/aarch64/platform.h"
#include "arch/aarch64/psci.h"
#include "arch/aarch64/semihosting.h"
#include "board.h"

namespace keel::aarch64 {
namespace {

// RAM starts at 1 GiB; scripts/qemu-virt and the tests give QEMU -m 128M
// (the kernel uses its image and the device tree QEMU puts in RAM).
constexpr MemoryRegion kRegions[] = {
    {0x4000'0000, 128u << 20, MemoryKind::normal},  // RAM
    {0x0800'0000, 0x2'0000, MemoryKind::device},    // GICv2: distributor + CPU interface
    {0x0900'0000, 0x1000, MemoryKind::device},      // PL011 UART0
};

}  // namespace

MemoryMap board_memory_map() { return MemoryMap{kRegions, sizeof kRegions / sizeof kRegions[0]}; }

// VIRT_GIC_DIST 0x08000000, VIRT_GIC_CPU 0x08010000; the non-secure EL1
// physical timer is PPI 14 (ARCH_TIMER_NS_EL1_IRQ), INTID 16 + 14 = 30
// (IHI 0048B §2.2.1: PPIs are INTIDs 16-31).
periodic_timer::Wiring board_timer_wiring() { return {{0x0800'0000, 0x0801'0000}, 30}; }

}  // namespace keel::aarch64

namespace keel::board {
namespace {

// UART0, a PL011 that QEMU sets up itself.
constexpr uintptr_t kUartBase = 0x0900'0000;

// Exit statuses as on qemu-x86 (boards/qemu-x86/board.cc): ok 33, fail 35,
// fault 37, so that no other way out (PSCI SYSTEM_OFF exits QEMU with 0,
// a semihosting call that is not an application exit with 1) looks like
// one of them; scripts/qemu-virt maps them back to 0, 1, 2.
constexpr uint32_t exit_status(ExitCode code) { return 33 + 2 * static_cast<uint32_t>(code); }

}  // namespace

const char* name() { return "qemu-virt"; }
bool emulated() { return true; }

void uart_init() {}

void uart_put(char c) { static_cast<void>(aarch64::pl011::put(kUartBase, c)); }

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
