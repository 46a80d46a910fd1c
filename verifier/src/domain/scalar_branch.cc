// The scalar domain's refinement by a conditional jump (scalar.h refine,
// refine_full, evaluate): what `a OP b` taken or not taken says of a and b
// (RFC 9669 §4.3).
#include "domain/scalar.h"

#include "domain/scalar_parts.h"
#include "isa/semantics.h"

namespace keel {
namespace {

using namespace scalar_parts;

// ---------------------------------------------------------------------------
// Branches

// The conditions left after negating a not-taken branch and swapping
// operands so that the interesting one is on the left.
enum class Cond : uint8_t { eq, ne, ugt, uge, sgt, sge, set, nset };

// Removes c from an interval pair when it is an endpoint (the only removal
// an interval can express); false when the pair holds nothing else.
bool exclude(WidthLimits w, Range& r, uint64_t c) {
  const int64_t sc = to_s(w, c);
  if ((r.umin == c && r.umax == c) || (r.smin == sc && r.smax == sc)) return false;
  if (r.umin == c) ++r.umin;
  else if (r.umax == c) --r.umax;
  if (r.smin == sc) ++r.smin;
  else if (r.smax == sc) --r.smax;
  return true;
}

bool refine_cond(Cond c, WidthLimits w, Range& a, Tnum& ta, Range& b, Tnum& tb) {
  switch (c) {
    case Cond::eq: {
      a = b = meet(a, b);
      if (!tnum::intersect(ta, tb, ta)) return false;
      tb = ta;
      return true;
    }
    case Cond::ne:
      if (b.umin == b.umax && !exclude(w, a, b.umin)) return false;
      if (a.umin == a.umax && !exclude(w, b, a.umin)) return false;
      return true;
    case Cond::ugt:  // a > b: a >= b.umin + 1, b <= a.umax - 1
      if (b.umin == w.umax || a.umax == 0) return false;
      a.umin = max_of(a.umin, b.umin + 1);
      b.umax = min_of(b.umax, a.umax - 1);
      return true;
    case Cond::uge:
      a.umin = max_of(a.umin, b.umin);
      b.umax = min_of(b.umax, a.umax);
      return true;
    case Cond::sgt:
      if (b.smin == w.smax || a.smax == w.smin) return false;
      a.smin = max_of(a.smin, b.smin + 1);
      b.smax = min_of(b.smax, a.smax - 1);
      return true;
    case Cond::sge:
      a.smin = max_of(a.smin, b.smin);
      b.smax = min_of(b.smax, a.smax);
      return true;
    case Cond::set: {
      // Some bit is 1 in both: both are non-zero, and when only one bit can
      // be 1 in both, that bit is 1 in both.
      const uint64_t both = ta.umax() & tb.umax();
      if (both == 0) return false;
      if (is_power_of_two(both) &&
          (!tnum::intersect(ta, Tnum{both, ~both}, ta) || !tnum::intersect(tb, Tnum{both, ~both}, tb)))
        return false;
      a.umin = max_of(a.umin, uint64_t{1});
      b.umin = max_of(b.umin, uint64_t{1});
      return true;
    }
    case Cond::nset:
      // No bit is 1 in both: a known-1 bit of one is a known-0 bit of the other.
      return tnum::intersect(ta, Tnum{0, ~tb.value}, ta) && tnum::intersect(tb, Tnum{0, ~ta.value}, tb);
  }
  return true;
}

// Two constants as Scalar::constant makes them (a constant tnum alone is
// not enough: loose bounds beside it go the general way, as in alu()).
KEEL_HOT bool both_constants(const Scalar& a, const Scalar& b) {
  return a.bits.is_const() && b.bits.is_const() && a == Scalar::constant(a.bits.value) &&
         b == Scalar::constant(b.bits.value);
}

// The comparison itself (RFC 9669 §4.3): for two constants refinement is
// exact, so this is its answer (scalar_test checks it against refine_full).
KEEL_HOT bool compare(JmpOp op, Width w, uint64_t a, uint64_t b) { return sem::jump_taken(op, w, a, b); }

// The values x (unsigned, 64 bits) with `x OP c` (c_left: `c OP x`) taken
// or not, for OP one of jgt, jge, jlt, jle: [lo, hi], false when none.
KEEL_HOT bool unsigned_side(JmpOp op, bool taken, bool c_left, uint64_t c, uint64_t& lo, uint64_t& hi) {
  // Seen from x: c > x is x < c, and so on; not taken is the negation.
  bool greater = (op == JmpOp::jgt || op == JmpOp::jge) != c_left;
  bool strict = (op == JmpOp::jgt || op == JmpOp::jlt);
  if (!taken) {  // !(x > c) is x <= c, !(x >= c) is x < c
    greater = !greater;
    strict = !strict;
  }
  lo = 0;
  hi = UINT64_MAX;
  if (greater) {
    if (strict && c == UINT64_MAX) return false;
    lo = strict ? c + 1 : c;
  } else {
    if (strict && c == 0) return false;
    hi = strict ? c - 1 : c;
  }
  return true;
}

// An unsigned or equality 64-bit comparison of a small range with a
// non-constant tnum (see is_small) or a wide-low value (is_wide_low) with a
// constant in Scalar::constant's form, done directly; false when it is not
// that case (then nothing is touched). Otherwise `feasible` and the values
// are refine_full's (for jeq/jne see the two cases below; the argument for
// the result from [L, H] is the same):
// - refine_full moves one unsigned bound of the ranged side r (ugt/uge
//   after its swaps) and one of the constant's; the constant's reduction
//   finds it empty exactly when r's bound passes the other (c > r.umax - 1
//   for r > c, and so on), so both are non-empty iff r's refined interval
//   [L, H] = [r.umin, r.umax] ∩ {x | x OP c} is, and then the constant is
//   unchanged (its moved bound is c again);
// - r's reduction: the first round's sign syncs make [L, H] its 64-bit
//   bounds and 64 -> 32 its 32-bit unsigned ones (r's low word is its
//   value). When H < 2^31 the signed ones become [L, H] too, the round
//   finds the value small and runs small_round, and the remaining rounds
//   are small rounds (reduce_small_range): eight small rounds on (t, L, H)
//   in all, as finish_small runs them. When H >= 2^31 (only a wide-low r)
//   and L < 2^31, the result is wide-low again, its own reduction.
// (scalar_test checks all of it against refine_full.)
KEEL_HOT bool ranged_with_constant(JmpOp op, bool taken, bool c_left, Scalar& r, uint64_t c, bool& feasible);

KEEL_HOT bool refine_with_constant(JmpOp op, bool taken, Scalar& a, Scalar& b, bool& feasible) {
  const bool c_left = a.bits.is_const();
  Scalar& r = c_left ? b : a;
  const Scalar& k = c_left ? a : b;
  if (!k.bits.is_const() || !(k == Scalar::constant(k.bits.value))) return false;
  return ranged_with_constant(op, taken, c_left, r, k.bits.value, feasible);
}

// refine_with_constant past its test of the constant side (c, in
// Scalar::constant's form; on the left when c_left): false, touching
// nothing, where the ranged side r is not the case above.
KEEL_HOT bool ranged_with_constant(JmpOp op, bool taken, bool c_left, Scalar& r, uint64_t c, bool& feasible) {
  const bool equality = op == JmpOp::jeq || op == JmpOp::jne;
  if (!equality && op != JmpOp::jgt && op != JmpOp::jge && op != JmpOp::jlt && op != JmpOp::jle) return false;
  const bool small = is_small(r) && !r.bits.is_const();
  if (!small && !is_wide_low(r)) return false;
  uint64_t lo = r.umin, hi = r.umax;
  feasible = false;
  if (equality) {
    if ((op == JmpOp::jeq) == taken) {
      // Cond::eq: both become the meet, whose tnum is c (or none, when
      // r's tnum excludes c) and whose bounds admit c iff lo <= c <= hi:
      // both are then Scalar::constant(c), which is set_small of
      // (c, c, c) below, as small_rounds(t, c, c) finds when t has c.
      if (c < lo || c > hi) return true;
      lo = hi = c;
    } else {
      // Cond::ne: exclude() takes c off an end of r's 64-bit bounds (both
      // orders agree on r), nothing when c is inside, and finds r empty
      // when it is c alone; the constant is unchanged.
      if (lo == c && hi == c) return true;
      if (lo == c) ++lo;
      else if (hi == c) --hi;
    }
  } else {
    uint64_t clo = 0, chi = 0;
    if (!unsigned_side(op, taken, c_left, c, clo, chi)) return true;  // x > UINT64_MAX or x < 0
    lo = max_of(lo, clo);
    hi = min_of(hi, chi);
  }
  if (hi > 0x7fff'ffffu) {
    if (lo > 0x7fff'ffffu) return false;  // not wide-low any more: the general rules
    feasible = true;  // lo <= 2^31 - 1 < hi
    r = wide_low(lo, hi);
    return true;
  }
  Tnum t = r.bits;
  feasible = lo <= hi && small_rounds(t, lo, hi, 8);
  if (feasible) set_small(r, t, lo, hi);
  return true;
}

// refine() past its first shortcut, out of line so that the two-constant
// case stays a few compares without a stack frame.
[[gnu::noinline]] bool refine_ranged(JmpOp op, Width w, bool taken, Scalar& a, Scalar& b) {
  bool feasible = false;
  if (w == Width::w64 && refine_with_constant(op, taken, a, b, feasible)) return feasible;
  return refine_full(op, w, taken, a, b);
}

}  // namespace

bool refine(JmpOp op, Width w, bool taken, Scalar& a, Scalar& b) {
  if (both_constants(a, b)) return compare(op, w, a.bits.value, b.bits.value) == taken;  // a, b stay
  return refine_ranged(op, w, taken, a, b);
}

// refine(op, w, taken, a, b) with b = Scalar::constant(c) takes these
// steps: a constant tnum in a goes to refine() itself. Otherwise
// both_constants fails (a's tnum is not constant) and refine_ranged runs:
// at w64, refine_with_constant finds c_left false (a's tnum), r = a and the
// constant side b in constant form, and goes on as ranged_with_constant
// (op, taken, false, a, c), which either answers or declines without
// touching a; then, as at w32, refine_full(op, w, taken, a, b). So the
// calls below are refine()'s, and b is not needed after them. (scalar_test's
// ImmediateCompareMatchesRefine compares with refine().)
//
// The 64-bit equal side (jeq taken, jne not taken), where the shortcut
// above declines, has the answer a.contains(c), and a becomes Scalar::constant(c). Through
// refine(): two constants compare (a in constant form contains c iff it
// is c, and stays that constant); the small and wide-low shortcut keeps
// lo = hi = c when c lies in a's bounds and ends at Scalar::constant(c)
// when a's tnum has c, or declines; refine_full's Cond::eq meets every
// interval of a with c's single value and a's tnum with constant c (no
// meet when a's tnum lacks c: false), and the reduction of that constant
// tnum is Scalar::constant(c) if the met bounds hold c — exactly when a's
// bounds do — and empty otherwise; the constant side meets to the same.
//
// A 32-bit compare of a small range whose tnum lies below 2^31 (as every
// reduced small range's does: it lies within range(lo, hi)) is the 64-bit
// compare with the immediate's low word c32, answered by the same shortcut.
// Every member x of such an a is below 2^31, so x is its own low word and
// `x OP32 c` is `x OP64 c32` for the unsigned and equality ops. Step by
// step through refine_full at w32 (b = Scalar::constant(c), a's low word
// is its value, bounds [lo, hi] in all four intervals):
//  - ugt/uge (any side, taken or not): one 32-bit unsigned bound of a
//    moves, to L or H as unsigned_side gives from c32; b's reduction (a
//    constant tnum) is empty exactly when a's moved bound passes the
//    other, which is when [L, H] is empty, as ranged_with_constant finds.
//    a's reduction: not constant, unknown, wide-low, made wide-low (the
//    32-bit signed range [lo, hi] is not full) or below a power of two
//    (mask < 2^31); in the rounds either nothing moved (the value is small:
//    eight small rounds on (t, lo, hi)) or it is not small and not settled
//    (the 32-bit sign sync moves a bound), and the first round's 32-bit
//    sign sync makes [L, H] the 32-bit bounds, 64 -> 32 keeps them (the
//    circle [lo, hi] holds them), 32 -> 64 moves the 64-bit bounds to
//    [L, H] (each low word outside [L, H] lies below L, resp. above H,
//    in the same upper word 0); the value is small, the round runs
//    small_round(t, L, H) and reports `again`, and reduce_small_range runs
//    the other seven: eight small rounds on (t, L, H), the shortcut's.
//  - ne (exclude): c32 leaves an end of [lo, hi] in both 32-bit orders
//    alike (below 2^31 they agree; a c32 at or above 2^31 lies outside),
//    and makes a empty when it is a's only value; then as above.
//  - eq: the tnum meet is cast32(t) with c32, which exists iff t has c32
//    (t's upper word is known 0), and a's tnum becomes the constant c32;
//    its reduction is Scalar::constant(c32) when the met bounds admit it
//    (lo <= c32 <= hi) and empty otherwise: the shortcut's lo = hi = c32
//    and its small round on t.
// (scalar_test's Imm32CompareOfSmallMatchesRefineFull compares with
// refine_full.)
bool refine_imm(JmpOp op, Width w, bool taken, Scalar& a, uint64_t c) {
  const bool ranged = !a.bits.is_const();
  if (ranged && w == Width::w64) {
    bool feasible = false;
    if (ranged_with_constant(op, taken, false, a, c, feasible)) return feasible;
  } else if (ranged && (a.bits.value | a.bits.mask) <= 0x7fff'ffffu) {
    bool feasible = false;
    if (ranged_with_constant(op, taken, false, a, c & kLow32, feasible)) return feasible;
  }
  if (w == Width::w64 && (op == JmpOp::jeq || op == JmpOp::jne) && (op == JmpOp::jeq) == taken) {
    if (!a.contains(c)) return false;
    a = Scalar::constant(c);
    return true;
  }
  Scalar b = Scalar::constant(c);
  return ranged ? refine_full(op, w, taken, a, b) : refine(op, w, taken, a, b);
}

// Where b lies within a (leq(b, a): every bound of b within a's and b's
// tnum within a's), refine(jeq, w64, true, a, b') with b' a copy of b
// leaves a == reduce(b), or answers false exactly when reduce(b) finds b
// empty. Each path of refine():
//  - both constants in Scalar::constant's form: then b == a (a constant
//    tnum contains one value; b's bounds within a's single value are it),
//    the compare holds, a stays: reduce(b) is that constant again;
//  - refine_with_constant: the constant side k is in constant form. If k
//    is b, a is small or wide-low and b's value c is a member of a's tnum
//    within a's bounds (leq), so the equality branch keeps lo = hi = c: at
//    or above 2^31 that leaves the shortcut (refine_full below); under it,
//    the small rounds on a's tnum and [c, c] give a's tnum meet the
//    constant c, which is c, and set_small(c, c, c) is Scalar::constant(c),
//    what reduce(b) gives. If k is a, b is the constant a (as in the first
//    case) and a's form makes both constants, taken above;
//  - refine_full, jeq taken at w64: the meet of the 64-bit ranges is b's
//    (b's bounds within a's: each max of lower bounds and min of upper
//    ones is b's), the tnum meet is b's (b's tnum within a's, a well formed
//    tnum: b's known bits include a's, with the same values), the 32-bit
//    meet is b's; a and b' are then b's components, and both are reduced:
//    a == reduce(b), and the answer is false exactly when that is empty.
// So a = b and its reduction give the same. (scalar_test's
// RefineEqualMatchesRefine compares with refine(), also for raw b.)
// A b that joins_to_itself is its own reduction, non-empty: join(b, b) is
// the reduction of hull(b, b) = b (a constant, the unknown value and a
// wide-low value are reduce()'s first shortcuts; a small range with both
// bounds members of a tnum within range(lo, hi) takes one small round that
// changes nothing). The branch's refined value, which its copies meet, is
// mostly such a small range.
bool refine_equal(Scalar& a, const Scalar& b) {
  if (leq(b, a)) {
    a = b;
    return joins_to_itself(b) || reduce_inline(a);
  }
  Scalar other = b;
  return refine(JmpOp::jeq, Width::w64, true, a, other);
}

bool refine_full(JmpOp op, Width w, bool taken, Scalar& a, Scalar& b) {
  Scalar* x = &a;
  Scalar* y = &b;
  Cond c = Cond::eq;
  bool swap = false;
  // The not-taken side of each jump is the taken side of its negation.
  switch (op) {
    case JmpOp::jeq: c = taken ? Cond::eq : Cond::ne; break;
    case JmpOp::jne: c = taken ? Cond::ne : Cond::eq; break;
    case JmpOp::jgt: c = taken ? Cond::ugt : Cond::uge, swap = !taken; break;   // !(a > b) == b >= a
    case JmpOp::jge: c = taken ? Cond::uge : Cond::ugt, swap = !taken; break;
    case JmpOp::jlt: c = taken ? Cond::ugt : Cond::uge, swap = taken; break;    // a < b == b > a
    case JmpOp::jle: c = taken ? Cond::uge : Cond::ugt, swap = taken; break;
    case JmpOp::jsgt: c = taken ? Cond::sgt : Cond::sge, swap = !taken; break;
    case JmpOp::jsge: c = taken ? Cond::sge : Cond::sgt, swap = !taken; break;
    case JmpOp::jslt: c = taken ? Cond::sgt : Cond::sge, swap = taken; break;
    case JmpOp::jsle: c = taken ? Cond::sge : Cond::sgt, swap = taken; break;
    case JmpOp::jset: c = taken ? Cond::set : Cond::nset; break;
  }
  if (swap) {
    x = &b;
    y = &a;
  }
  if (w == Width::w64) {
    Range ra = r64(*x), rb = r64(*y);
    if (!refine_cond(c, k64, ra, x->bits, rb, y->bits)) return false;
    set64(*x, ra);
    set64(*y, rb);
    if (c == Cond::eq) {  // equal in 64 bits: equal low words too
      const Range m = meet(r32(*x), r32(*y));
      set32(*x, m);
      set32(*y, m);
    }
  } else {
    Range ra = r32(*x), rb = r32(*y);
    Tnum ta = tnum::cast32(x->bits), tb = tnum::cast32(y->bits);
    if (!refine_cond(c, k32, ra, ta, rb, tb)) return false;
    set32(*x, ra);
    set32(*y, rb);
    if (!tnum::intersect(x->bits, widen_low(ta), x->bits) || !tnum::intersect(y->bits, widen_low(tb), y->bits))
      return false;
    // An unknown register compared in 32 bits: its reduction, directly.
    return (low_word_range_only(*x) || reduce_inline(*x)) && (low_word_range_only(*y) || reduce_inline(*y));
  }
  return reduce_inline(*x) && reduce_inline(*y);
}

// Refinement is exact about emptiness only where it is precise, so an
// outcome it cannot rule out is "maybe" — never a wrong always/never.
Outcome evaluate(JmpOp op, Width w, const Scalar& a, const Scalar& b) {
  if (both_constants(a, b)) return compare(op, w, a.bits.value, b.bits.value) ? Outcome::always : Outcome::never;
  Scalar ta = a, tb = b, fa = a, fb = b;
  const bool can_take = refine(op, w, true, ta, tb);
  const bool can_fall = refine(op, w, false, fa, fb);
  if (!can_take) return Outcome::never;
  return can_fall ? Outcome::maybe : Outcome::always;
}

}  // namespace keel
