// What the exception vectors (vectors.S) hand to keel_arch_exception().
#pragma once

#include <cstdint>

namespace keel::aarch64 {

/// vectors.S's save area, lowest address first.
struct ExceptionFrame {
  uint64_t x[31];  ///< x0-x30
  uint64_t elr;    ///< ELR_EL1: where the exception struck (or returns to)
  uint64_t spsr;   ///< SPSR_EL1
  uint64_t esr;    ///< ESR_EL1: the syndrome (exception class in bits 31:26)
  uint64_t far;    ///< FAR_EL1: the faulting address, for aborts
  uint64_t padding;  ///< keeps the frame a multiple of 16 bytes (SP alignment)
};
static_assert(sizeof(ExceptionFrame) == 36 * 8, "vectors.S FRAME_SIZE");

/// The vector's index in the table: group (current EL SP0, current EL
/// SPx, lower EL AArch64, lower EL AArch32) * 4 + type.
enum class VectorType : uint8_t { synchronous = 0, irq = 1, fiq = 2, serror = 3 };

}  // namespace keel::aarch64
