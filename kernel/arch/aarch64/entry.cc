// The first C++ the CPU runs (from boot.S, at EL1 on the kernel stack,
// MMU off): turn on the identity map, read the command line and the board
// facts from the device tree the loader passed, and hand over to
// kernel_main().
#include <cstdint>

#include "arch.h"
#include "arch/aarch64/mmu.h"
#include "arch/aarch64/platform.h"
#include "board.h"
#include "boot.h"
#include "console.h"
#include "devicetree_facts.h"
#include "fdt.h"

extern "C" char __stack_guard[];  // kernel.ld

namespace keel::aarch64 {
namespace {

unsigned entered_at = 0;

// The boot information the loader's device tree holds: /chosen/bootargs
// (what QEMU's -append puts there; "" when absent) and the board facts of
// the boot line (devicetree_facts.h). A loader that passed no tree (x0 = 0)
// gives neither; a tree that is there but unreadable, or whose facts are
// malformed, is reported, and the boot goes on without what it lacks.
BootInfo read_device_tree(uintptr_t address) {
  BootInfo info{"", {}};
  if (address == 0) return info;
  constexpr uint64_t kHeader = 40;
  const char* problem = nullptr;
  const char* part = "header";
  fdt::Blob blob;
  if (!mmu::mapped(address, kHeader, MemoryKind::normal)) {
    problem = "unmapped";
  } else {
    // Readable from `address` to the end of its region, at most 2 MiB.
    uint64_t limit = kHeader;
    while (limit < (uint64_t{2} << 20) && mmu::mapped(address, limit * 2, MemoryKind::normal)) {
      limit *= 2;
    }
    const fdt::Status opened = fdt::open(reinterpret_cast<const uint8_t*>(address), limit, blob);
    if (opened != fdt::Status::ok) {
      problem = fdt::status_name(opened);
    } else {
      part = "bootargs";
      fdt::Property bootargs;
      const fdt::Status found = fdt::find_property(blob, "/chosen", "bootargs", bootargs);
      const char* text = found == fdt::Status::ok ? fdt::as_string(bootargs) : nullptr;
      if (text != nullptr) {
        info.cmdline = text;
      } else if (found != fdt::Status::not_found) {
        problem = found == fdt::Status::ok ? "bootargs-not-a-string" : fdt::status_name(found);
      }
      if (problem == nullptr) {
        part = "facts";
        const fdt::Status read = fdt::read_board_facts(blob, info.facts);
        if (read != fdt::Status::ok) problem = fdt::status_name(read);
      }
    }
  }
  if (problem != nullptr) {
    board::uart_init();
    emit(Line("devicetree").hex("address", address).str("part", part).str("status", problem));
  }
  return info;
}

}  // namespace

unsigned entry_el() { return entered_at; }

}  // namespace keel::aarch64

extern "C" [[noreturn]] void keel_arch_entry(uintptr_t device_tree, uint64_t entry_el) {
  using namespace keel::aarch64;
  entered_at = static_cast<unsigned>(entry_el);
  const mmu::Status mapped =
      mmu::enable(board_memory_map(), reinterpret_cast<uintptr_t>(__stack_guard));
  if (mapped != mmu::Status::ok) {
    keel::board::uart_init();
    emit(keel::Line("mmu").str("status", mmu::status_name(mapped)));
    keel::finish(keel::board::ExitCode::fail);
  }
  keel::kernel_main(read_device_tree(device_tree));
}

namespace keel::arch {

const char* name() { return "aarch64"; }
// DAIF.I: IRQs (the only interrupts the kernel takes; FIQs stay masked).
void enable_interrupts() { asm volatile("msr daifclr, #2" : : : "memory"); }
void disable_interrupts() { asm volatile("msr daifset, #2" : : : "memory"); }
void cpu_relax() { asm volatile("yield" : : : "memory"); }
// WFI wakes on a pending IRQ even while PSTATE.I masks it (Arm ARM
// D1.16.2, "wake-up events"), and completes at once if one is already
// pending, so there is no window to miss it; unmasking then takes it.
void wait_for_interrupt() {
  asm volatile("wfi\n msr daifclr, #2\n isb\n msr daifset, #2" : : : "memory");
}

uintptr_t unmapped_address() { return aarch64::mmu::unmapped_address(); }

}  // namespace keel::arch
