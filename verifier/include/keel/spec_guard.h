// The speculative-execution hardening verify() computes for an unprivileged
// program and run() applies, one entry per instruction slot. Shared by the
// two stages, so it stands alone.
#pragma once

#include <cstdint>

namespace keel {

// Speculative-execution hardening of one instruction slot, which verify()
// writes for an unprivileged program and run() applies (docs/adr/0015):
// what Linux 6.1 patches into unprivileged programs, kept beside them.
struct SpecGuard {
  /// kGuardMask*: the scalar operand of this pointer +/- register, when outside [min, max] (which every
  /// architectural run stays inside), is replaced by `target`, so a mispredicted bounds check cannot
  /// move the pointer out of its object (Spectre v1; Linux's alu_limit masking).
  int64_t min = 0;
  int64_t max = 0;
  /// What a masked operand becomes: a value every analysed path proved safe here.
  int64_t target = 0;
  uint8_t flags = 0;
};
inline constexpr uint8_t kGuardMaskSrc = 1;  ///< mask the src register's value
inline constexpr uint8_t kGuardMaskDst = 2;  ///< mask the dst register's value (scalar dst += pointer src)
/// A speculation barrier after this stack store: a later load of the slot cannot speculatively read
/// the bytes the store replaced (Spectre v4; Linux's sanitize_stack_spill and nospec).
inline constexpr uint8_t kGuardBarrierAfter = 4;

}  // namespace keel
