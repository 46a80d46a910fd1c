// The TSS and the IDT. The TSS matters here only for its Interrupt Stack
// Table: #DF, #PF, NMI and #MC switch to stacks of their own, so that an
// overflow of the boot stack into its guard page is reported instead of
// escalating to a triple fault (docs/adr/0009).
#include "arch/x86_64/cpu.h"

#include "arch/x86_64/boot_layout.h"

extern "C" {
extern uint64_t keel_gdt[5];               // boot.S: null, code64, data, TSS (two slots)
extern const uint64_t keel_trap_stubs[256];  // isr.S
extern char __stack_guard[];               // kernel.ld
extern uint32_t keel_bios_ebda_segment;    // boot.S
}

namespace keel::x86 {
namespace {

// SDM Vol. 3A §8.7, Figure 8-11: the 64-bit TSS. Packed: RSP0 sits at
// offset 4, not 8.
struct [[gnu::packed]] TaskStateSegment {
  uint32_t reserved0;
  uint64_t rsp[3];
  uint64_t reserved1;
  uint64_t ist[7];  ///< ist[0] is IST1
  uint64_t reserved2;
  uint16_t reserved3;
  uint16_t io_map_base;
};
static_assert(sizeof(TaskStateSegment) == 104);

// SDM Vol. 3A §6.14.1, Figure 6-8: a 64-bit IDT gate descriptor.
struct InterruptGate {
  uint16_t offset_low;
  uint16_t selector;
  uint8_t ist;         ///< bits 2:0; 0 = stay on the current stack
  uint8_t type_attributes;
  uint16_t offset_middle;
  uint32_t offset_high;
  uint32_t reserved;
};
static_assert(sizeof(InterruptGate) == 16);

struct [[gnu::packed]] DescriptorTablePointer {
  uint16_t limit;
  uint64_t base;
};

// Which IST slot each special vector uses (1-based, as the gate encodes it).
constexpr uint8_t kIstDoubleFault = 1;
constexpr uint8_t kIstPageFault = 2;
constexpr uint8_t kIstNmiMachineCheck = 3;
constexpr uint8_t kVectorNmi = 2;
constexpr uint8_t kVectorDoubleFault = 8;
constexpr uint8_t kVectorPageFault = 14;
constexpr uint8_t kVectorMachineCheck = 18;

// P=1, DPL=0, type 0xE: 64-bit interrupt gate (IF cleared on entry).
constexpr uint8_t kInterruptGate = 0x8E;
// P=1, DPL=0, type 0x9: available 64-bit TSS (SDM Vol. 3A Table 3-2).
constexpr uint64_t kTssAvailable = 0x89;

constexpr uint64_t kIstStackSize = 8192;
alignas(16) uint8_t ist_stacks[3][kIstStackSize];

TaskStateSegment tss;
InterruptGate idt[256];

uint64_t stack_top(int slot) {
  return reinterpret_cast<uintptr_t>(&ist_stacks[slot][0]) + kIstStackSize;
}

void install_tss() {
  tss.ist[kIstDoubleFault - 1] = stack_top(0);
  tss.ist[kIstPageFault - 1] = stack_top(1);
  tss.ist[kIstNmiMachineCheck - 1] = stack_top(2);
  tss.io_map_base = sizeof(TaskStateSegment);  // no I/O permission bitmap

  // SDM Vol. 3A §8.2.3, Figure 8-4: the 16-byte system-segment descriptor.
  const uint64_t base = reinterpret_cast<uintptr_t>(&tss);
  const uint64_t limit = sizeof(TaskStateSegment) - 1;
  keel_gdt[GDT_TSS / 8] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | (kTssAvailable << 40) |
                          (((limit >> 16) & 0xF) << 48) | (((base >> 24) & 0xFF) << 56);
  keel_gdt[GDT_TSS / 8 + 1] = base >> 32;
  asm volatile("ltr %w0" : : "r"(uint16_t{GDT_TSS}) : "memory");
}

uint8_t ist_for(unsigned vector) {
  switch (vector) {
    case kVectorDoubleFault: return kIstDoubleFault;
    case kVectorPageFault: return kIstPageFault;
    case kVectorNmi:
    case kVectorMachineCheck: return kIstNmiMachineCheck;
    default: return 0;
  }
}

void install_idt() {
  for (unsigned vector = 0; vector < 256; ++vector) {
    const uint64_t stub = keel_trap_stubs[vector];
    idt[vector] = InterruptGate{static_cast<uint16_t>(stub), GDT_CODE64, ist_for(vector),
                                kInterruptGate, static_cast<uint16_t>(stub >> 16),
                                static_cast<uint32_t>(stub >> 32), 0};
  }
  const DescriptorTablePointer pointer{sizeof idt - 1, reinterpret_cast<uintptr_t>(&idt[0])};
  asm volatile("lidt %0" : : "m"(pointer) : "memory");
}

}  // namespace

void install_descriptor_tables() {
  install_tss();
  install_idt();
}

uintptr_t stack_guard_begin() { return reinterpret_cast<uintptr_t>(__stack_guard); }
uintptr_t stack_guard_end() { return stack_guard_begin() + PAGE_SIZE; }

uint16_t bios_ebda_segment() { return static_cast<uint16_t>(keel_bios_ebda_segment); }

}  // namespace keel::x86
