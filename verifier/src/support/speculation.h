// The two things run() does for an unprivileged program's hardening
// (keel/spec_guard.h, ADR 0015): replace an operand outside its proven range
// without a branch the CPU could mispredict, and stop speculation after a
// store. The barrier is per ISA, the one place the core names one: each
// target keel builds for needs its instruction here, and an unknown one is
// a build error rather than a silent no-op.
#pragma once

#include <cstdint>

namespace keel {

// `value` when it lies in [min, max] (signed), else `target`. The range test
// is one unsigned compare, and the empty asm hides the mask's origin from
// the optimizer so that it stays data flow and never becomes a branch.
inline uint64_t clamp_speculative(uint64_t value, int64_t min, int64_t max, int64_t target) {
  const uint64_t inside = value - static_cast<uint64_t>(min) <= static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  uint64_t mask = 0 - inside;
  __asm__("" : "+r"(mask));
  return (value & mask) | (static_cast<uint64_t>(target) & ~mask);
}

// A speculative store bypass barrier, as Linux's JITs emit for BPF_NOSPEC:
// lfence on x86 (Intel's SSB guidance), dsb nsh + isb on Arm without FEAT_SB
// (the Cortex-A76 of the Pi 5 has none), dsb + isb on 32-bit Arm (M profile).
inline void speculation_barrier() {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile("lfence" ::: "memory");
#elif defined(__aarch64__)
  __asm__ volatile("dsb nsh\n\tisb" ::: "memory");
#elif defined(__arm__)
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#else
#error "keel: no speculation barrier for this ISA (support/speculation.h)"
#endif
}

}  // namespace keel
