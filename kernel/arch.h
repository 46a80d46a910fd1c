// What the portable kernel needs from the CPU architecture
// (kernel/arch/<isa>/): interrupt masking, a polite spin, and facts the
// self-tests use. The arch entry (boot stub, exception vectors) runs before
// kernel_main() and is not called from portable code.
#pragma once

#include <cstdint>

namespace keel::arch {

const char* name();  ///< "x86_64", "aarch64"; arch= in the boot line

void enable_interrupts();
void disable_interrupts();
void cpu_relax();  ///< one spin-wait iteration (x86 `pause`)
/// Called with interrupts disabled: enables them and sleeps until one
/// arrives, without a window in which it could be missed (x86 `sti; hlt`);
/// returns after its handler ran, with interrupts disabled again.
void wait_for_interrupt();

/// An address the arch left unmapped, so that touching it faults (the
/// page-fault self-test).
uintptr_t unmapped_address();

}  // namespace keel::arch
