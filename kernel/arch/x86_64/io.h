// x86 port I/O (SDM Vol. 2: IN, OUT). The COM1 UART, the 8259 PICs, the
// 8254 PIT and QEMU's isa-debug-exit live in I/O space, not in memory.
#pragma once

#include <cstdint>

namespace keel::x86 {

inline void out8(uint16_t port, uint8_t value) {
  asm volatile("outb %0, %1" : : "a"(value), "Nd"(port) : "memory");
}

inline void out32(uint16_t port, uint32_t value) {
  asm volatile("outl %0, %1" : : "a"(value), "Nd"(port) : "memory");
}

inline uint8_t in8(uint16_t port) {
  uint8_t value;
  asm volatile("inb %1, %0" : "=a"(value) : "Nd"(port) : "memory");
  return value;
}

inline uint64_t read_msr(uint32_t msr) {
  uint32_t low, high;
  asm volatile("rdmsr" : "=a"(low), "=d"(high) : "c"(msr));
  return (uint64_t{high} << 32) | low;
}

inline void write_msr(uint32_t msr, uint64_t value) {
  asm volatile("wrmsr"
               :
               : "c"(msr), "a"(static_cast<uint32_t>(value)),
                 "d"(static_cast<uint32_t>(value >> 32))
               : "memory");
}

/// The time-stamp counter (SDM Vol. 3B §18.17). `lfence` first so that
/// earlier instructions finish before the sample, as SDM Vol. 2 RDTSC advises.
inline uint64_t read_tsc() {
  uint32_t low, high;
  asm volatile("lfence; rdtsc" : "=a"(low), "=d"(high) : : "memory");
  return (uint64_t{high} << 32) | low;
}

struct CpuidResult { uint32_t eax, ebx, ecx, edx; };

inline CpuidResult cpuid(uint32_t leaf, uint32_t subleaf = 0) {
  CpuidResult r;
  asm volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
               : "a"(leaf), "c"(subleaf));
  return r;
}

/// The physical address as a pointer. Under the identity map a physical
/// address below 4 GiB (page 0 excepted) is its own virtual address; the
/// empty asm hides the constant from GCC, which otherwise warns
/// (-Warray-bounds) about reads from small fixed addresses.
inline const volatile uint8_t* physical(uintptr_t address) {
  asm("" : "+r"(address));
  return reinterpret_cast<const volatile uint8_t*>(address);
}

}  // namespace keel::x86
