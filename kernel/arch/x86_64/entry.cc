// The first C++ the CPU runs (from boot.S, in 64-bit mode on the boot
// stack): install the exception tables, translate the multiboot information
// into the portable BootInfo, and hand over to kernel_main().
#include <cstdint>

#include "arch.h"
#include "arch/x86_64/boot_layout.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "boot.h"

namespace keel::x86 {
namespace {

uint32_t read_u32(uintptr_t address) {
  uint32_t value;
  __builtin_memcpy(&value, const_cast<const uint8_t*>(physical(address)), sizeof value);
  return value;
}

// Multiboot Specification 0.6.96 §3.3: `flags` at offset 0; bit 2 says
// `cmdline` (offset 16) holds the physical address of a C string. Multiboot
// addresses are 32-bit, so the identity map covers them.
const char* multiboot_cmdline(uint32_t magic, uint32_t info) {
  constexpr uint32_t kFlagCmdline = 1u << 2;
  if (magic != MULTIBOOT_BOOTLOADER_MAGIC || info == 0) return "";
  if ((read_u32(info) & kFlagCmdline) == 0) return "";
  const uint32_t cmdline = read_u32(info + 16);
  if (cmdline == 0) return "";
  return reinterpret_cast<const char*>(const_cast<const uint8_t*>(physical(cmdline)));
}

}  // namespace
}  // namespace keel::x86

extern "C" [[noreturn]] void keel_arch_entry(uint32_t magic, uint32_t info) {
  keel::x86::install_descriptor_tables();
  const keel::BootInfo boot_info{keel::x86::multiboot_cmdline(magic, info), {}};
  keel::kernel_main(boot_info);
}

namespace keel::arch {

const char* name() { return "x86_64"; }
void enable_interrupts() { asm volatile("sti" : : : "memory"); }
void disable_interrupts() { asm volatile("cli" : : : "memory"); }
void cpu_relax() { asm volatile("pause" : : : "memory"); }
// STI delays interrupt recognition by one instruction (SDM Vol. 2 STI), so
// an interrupt pending at `sti` wakes the `hlt` instead of being taken
// before it.
void wait_for_interrupt() { asm volatile("sti; hlt; cli" : : : "memory"); }

// boot.S maps exactly 0..4 GiB; the first byte after it is not present.
uintptr_t unmapped_address() { return uintptr_t{1} << 32; }

}  // namespace keel::arch
