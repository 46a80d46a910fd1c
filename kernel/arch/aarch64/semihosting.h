// Arm semihosting ("Semihosting for AArch32 and AArch64" v2.0), the one
// call the kernel needs: SYS_EXIT, which QEMU turns into its own exit
// status (with -semihosting-config enable=on,target=native).
#pragma once

#include <cstdint>

namespace keel::aarch64::semihosting {

/// SYS_EXIT (0x18) with reason ADP_Stopped_ApplicationExit (0x20026) and
/// `status`; the A64 form passes both in a two-word block (§6.5.2), and
/// QEMU exits with `status`. Returns only when no semihosting host answered.
void exit(uint32_t status);

/// Is `address` the semihosting trap instruction (for traps.cc)?
bool is_trap(uint64_t address);

}  // namespace keel::aarch64::semihosting
