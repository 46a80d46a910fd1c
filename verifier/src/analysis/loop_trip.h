// Trip-count arithmetic for one exit test of a loop: given how the induction
// register moves, what the test compares it with and which outcome keeps
// the loop going, a sound bound on how often the loop header runs.
// loop_bounds.cc finds the test and the numbers; this file is only numbers.
// docs/verifier/design.md, "Loops".
#pragma once

#include <cstdint>

#include "domain/scalar.h"

namespace keel {

// The relation `tested OP bound` under which the loop goes on (the exit
// branch's condition, negated when the taken edge is the exit).
enum class StayRel : uint8_t { lt, le, gt, ge, eq, ne };

// The StayRel of a conditional jump whose taken edge stays in the loop
// (`taken_stays`) or leaves it; false for jset, whose test bounds nothing.
[[nodiscard]] bool stay_relation(JmpOp jmp, bool taken_stays, StayRel& rel, bool& is_signed);

// Deltas (steps, test offsets) larger than this in magnitude are not tracked
// by the symbolic pass, so the arithmetic below never overflows int64.
inline constexpr int64_t kMaxLoopDelta = int64_t{1} << 48;

// How the upper half of a 64-bit tested value follows from its low half:
// `none` when all 64 bits are tracked.
enum class Ext32 : uint8_t { none, zero, sign };

struct TripTest {
  StayRel stay = StayRel::lt;
  bool is_signed = false;       // for lt/le/gt/ge; eq/ne are tried in both views
  Width compare = Width::w64;   // JMP (64-bit) or JMP32
  /// For a 64-bit compare of a counter only the low 32 bits describe (add32 /
  /// mov32 on the path): the tested value is that half zero- or sign-extended.
  Ext32 ext32 = Ext32::none;
  Scalar initial;               // the induction register when the header is entered from outside
  Scalar bound;                 // the loop-invariant other operand
  int64_t step_min = 0, step_max = 0;  // induction register at the next header minus at this one
  int64_t test_min = 0, test_max = 0;  // tested value minus the induction register at the header
};

// Sets `trips` to an upper bound on the header's executions per entry into
// the loop (>= 1; saturates at UINT64_MAX) and returns true, or returns false
// when the test does not bound the loop.
[[nodiscard]] bool trip_bound(const TripTest& test, uint64_t& trips);

}  // namespace keel
