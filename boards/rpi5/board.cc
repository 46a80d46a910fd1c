// The Raspberry Pi 5 (BCM2712): the memory map the MMU maps, the GIC-400
// and timer wiring, the debug UART, and the way out (PSCI SYSTEM_OFF over
// `smc` to TF-A's BL31). The clock and the tick are the arch's
// (board_clock.cc, board_timer.cc). Addresses: TF-A's plat/rpi/rpi5
// (include/rpi_hw.h: the PL011 and the GIC-400 at 0x10_0000_0000 + offset)
// (docs/adr/0034, docs/adr/0035). Nothing here has run on a Pi 5 yet
// (docs/adr/0036).
#include "arch/aarch64/pl011.h"
#include "arch/aarch64/platform.h"
#include "arch/aarch64/psci.h"
#include "board.h"

namespace keel::aarch64 {
namespace {

// RAM from 0: the first GiB, which every Pi 5 has (the 1 GiB model holds
// no more, the others hold more above it). The kernel needs its image at
// 0x80000 and the device tree, which the firmware is expected to place in
// low RAM (not yet seen on a board: docs/adr/0036; config.txt's
// device_tree_address= can place it); the rest of the RAM (the device
// tree's /memory, printed in the boot line) is not mapped. Page 0 stays a hole (docs/adr/0022); TF-A's BL31 below 0x80000
// is mapped but never touched.
constexpr MemoryRegion kRegions[] = {
    {0x0, 1ull << 30, MemoryKind::normal},                    // low RAM
    {0x10'7D00'1000, 0x1000, MemoryKind::device},             // UART10, the debug UART's PL011
    {0x10'7FFF'8000, 0x8000, MemoryKind::device},             // GIC-400: GICD at +0x1000, GICC at +0x2000
};

}  // namespace

MemoryMap board_memory_map() { return MemoryMap{kRegions, sizeof kRegions / sizeof kRegions[0]}; }

// GIC-400 distributor 0x10_7FFF_9000, CPU interface 0x10_7FFF_A000. The
// Non-secure EL1 physical timer (the core's nCNTPNSIRQ) reaches the
// GIC-400 as PPI 14, INTID 30 (GIC-400 TRM, Arm DDI 0471, PPI inputs;
// IHI 0048B §2.2.1: PPIs are INTIDs 16-31), as on QEMU virt.
periodic_timer::Wiring board_timer_wiring() { return {{0x10'7FFF'9000, 0x10'7FFF'A000}, 30}; }

}  // namespace keel::aarch64

namespace keel::board {
namespace {

// UART10, on the 3-pin debug connector: a PL011 the firmware has set to
// 115200 8N1 (enable_uart=1). Its input clock is not known for sure, so
// the baud rate is left as the firmware set it.
constexpr uintptr_t kUartBase = 0x10'7D00'1000;
// Set when the UART stopped draining: later bytes are dropped at once
// rather than each waiting out pl011::put's bound.
bool uart_stuck = false;

}  // namespace

const char* name() { return "rpi5"; }
bool emulated() { return false; }

void uart_init() {}

void uart_put(char c) {
  if (uart_stuck) return;
  if (!aarch64::pl011::put(kUartBase, c)) uart_stuck = true;
}

// No harness reads an exit status from a board: the `keel done` line is
// the result. The last bytes leave the UART before the power goes.
void exit(ExitCode) {
  if (!uart_stuck) aarch64::pl011::drain(kUartBase);
  // The firmware enters at EL2 with TF-A at EL3 answering PSCI over `smc`
  // (the device tree's /psci method = "smc").
  aarch64::psci::system_off(aarch64::psci::Conduit::smc);
  for (;;) asm volatile("msr daifset, #0xf\n wfi");
}

}  // namespace keel::board
