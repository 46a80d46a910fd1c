// x86-64 CPU tables (GDT's TSS, IDT) and the interrupt vector plan. The
// exception stubs (isr.S) hand keel_arch_trap() a TrapFrame.
#pragma once

#include <cstdint>

namespace keel::x86 {

// Vector plan. 0-31 are the CPU exceptions (SDM Vol. 3A Table 6-1). The
// 8259 PICs are moved off them to 0x20-0x2F and masked (a masked PIC can
// still deliver spurious IRQ 7/15); the local APIC timer and the APIC's
// spurious vector follow (SDM Vol. 3A §11.9: spurious low nibble 0xF).
constexpr uint8_t kLegacyPicBase = 0x20;
constexpr uint8_t kTimerVector = 0x30;
constexpr uint8_t kApicSpuriousVector = 0xFF;

/// The stack a trap handler sees: pushed by trap_common (r15 lowest), then
/// the stub's vector and (possibly zero) error code, then the CPU's frame.
struct TrapFrame {
  uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
  uint64_t vector;
  uint64_t error_code;
  uint64_t rip, cs, rflags, rsp, ss;
};
static_assert(sizeof(TrapFrame) == 22 * 8, "isr.S pushes 15 + 2 words; the CPU 5");

/// Loads the TSS (with the IST stacks of docs/adr/0009) and the IDT. Called
/// first thing in 64-bit mode: from then on every exception prints a line.
void install_descriptor_tables();

/// [begin, end) of the unmapped page below the boot stack.
uintptr_t stack_guard_begin();
uintptr_t stack_guard_end();

/// The BIOS data area word at 0x40E (the EBDA's real-mode segment), saved
/// by boot.S before page 0 was left unmapped.
uint16_t bios_ebda_segment();

}  // namespace keel::x86
