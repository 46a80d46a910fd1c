// The scalar domain's shared pieces (internal to domain/): one width's
// limits, the interval pair at a width, and the small helpers every part
// of the domain uses. The domain is split along its seams: scalar_reduce.cc
// (the reduction that makes the product consistent), scalar.cc (the ALU
// transfer functions and the lattice operations), scalar_branch.cc (the
// refinement by a conditional jump).
#pragma once

#include <cstdint>

#include "domain/scalar.h"
#include "domain/tnum.h"

namespace keel::scalar_parts {

// The small helpers of the reduction and of the common transfer functions
// run several times per operation; inlined with a constant width they fold
// to a few instructions each (a call costs more than most of them).
#define KEEL_HOT [[gnu::always_inline]] inline

constexpr uint64_t kLow32 = 0xffff'ffffu;

// The limits of one width: 64 bits, or the low 32 bits held in 64-bit
// variables (unsigned values in [0, 2^32), signed values in [INT32_MIN,
// INT32_MAX]). The rules below are written once over it.
struct WidthLimits {
  unsigned bits;
  uint64_t umax;
  int64_t smin, smax;
};
constexpr WidthLimits k64{64, UINT64_MAX, INT64_MIN, INT64_MAX};
constexpr WidthLimits k32{32, UINT32_MAX, INT32_MIN, INT32_MAX};

KEEL_HOT uint64_t trunc(WidthLimits w, uint64_t x) { return x & w.umax; }
// The signed reading of a w-bit pattern, and back.
KEEL_HOT int64_t to_s(WidthLimits w, uint64_t x) {
  return w.bits == 64 ? static_cast<int64_t>(x)
                      : static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(x)));
}
KEEL_HOT uint64_t to_u(WidthLimits w, int64_t s) { return static_cast<uint64_t>(s) & w.umax; }

template <class T>
KEEL_HOT T min_of(T a, T b) { return a < b ? a : b; }
template <class T>
KEEL_HOT T max_of(T a, T b) { return a < b ? b : a; }

// The interval half of the domain at one width.
struct Range {
  uint64_t umin, umax;
  int64_t smin, smax;
};

KEEL_HOT Range full(WidthLimits w) { return {0, w.umax, w.smin, w.smax}; }
KEEL_HOT Range exact(WidthLimits w, uint64_t x) { return {trunc(w, x), trunc(w, x), to_s(w, x), to_s(w, x)}; }
KEEL_HOT Range meet(Range a, Range b) {
  return {max_of(a.umin, b.umin), min_of(a.umax, b.umax), max_of(a.smin, b.smin),
          min_of(a.smax, b.smax)};
}
// Number of values minus one; exact for both widths in uint64 arithmetic.
KEEL_HOT uint64_t uspan(Range r) { return r.umax - r.umin; }
KEEL_HOT uint64_t sspan(Range r) { return static_cast<uint64_t>(r.smax) - static_cast<uint64_t>(r.smin); }

KEEL_HOT Range r64(const Scalar& s) { return {s.umin, s.umax, s.smin, s.smax}; }
KEEL_HOT Range r32(const Scalar& s) { return {s.u32_min, s.u32_max, s.s32_min, s.s32_max}; }
KEEL_HOT void set64(Scalar& s, Range r) {
  s.umin = r.umin;
  s.umax = r.umax;
  s.smin = r.smin;
  s.smax = r.smax;
}
KEEL_HOT void set32(Scalar& s, Range r) {
  s.u32_min = static_cast<uint32_t>(r.umin);
  s.u32_max = static_cast<uint32_t>(r.umax);
  s.s32_min = static_cast<int32_t>(r.smin);
  s.s32_max = static_cast<int32_t>(r.smax);
}

// The low-word tnum t32 constrains only the low 32 bits.
KEEL_HOT Tnum widen_low(Tnum t32) { return {t32.value & kLow32, t32.mask | ~kLow32}; }

KEEL_HOT bool same(Range x, Range y) {
  return x.umin == y.umin && x.umax == y.umax && x.smin == y.smin && x.smax == y.smax;
}

// Values whose four intervals are one and the same [lo, hi] with 0 <= lo
// <= hi < 2^31 (small non-negative ranges: indices, lengths, masked bytes,
// and every constant below 2^31). There signed and unsigned orders agree at
// both widths and the low word is the value, so a round's sign syncs and
// 64 <-> 32 steps change nothing, bounds -> tnum is the one meet with
// range(lo, hi) (the other three tnums contain it), and tnum -> bounds
// moves lo and hi alike in all four intervals. small_round() is that round.
KEEL_HOT bool is_small(Range a, Range b) {
  return a.umin == static_cast<uint64_t>(a.smin) && a.umax == static_cast<uint64_t>(a.smax) && same(a, b) &&
         a.umin <= a.umax && a.umax <= 0x7fff'ffffu;
}

// is_small(r64(s), r32(s)), written as one test of all the equalities at
// once (the fast paths ask it of every operand).
KEEL_HOT bool is_small(const Scalar& s) {
  const uint64_t lo = s.umin, hi = s.umax;
  const uint64_t apart = (lo ^ static_cast<uint64_t>(s.smin)) | (hi ^ static_cast<uint64_t>(s.smax)) |
                         (lo ^ s.u32_min) | (hi ^ s.u32_max) | (lo ^ static_cast<uint64_t>(int64_t{s.s32_min})) |
                         (hi ^ static_cast<uint64_t>(int64_t{s.s32_max}));
  return apart == 0 && lo <= hi && hi <= 0x7fff'ffffu;
}

KEEL_HOT bool is_power_of_two(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

// For a tnum t with no value bit under its mask and lo, hi members of t:
// the meet with range(lo, hi) leaves t iff t has no unknown bit above the
// highest bit where lo and hi differ. (range(lo, hi) knows exactly the bits
// above that one, and there lo is a member, so they agree with t where t
// knows them: no conflict, and the meet's mask is t.mask & delta.) The
// same holds for the low word: widen_low(range(lo, hi)) of lo, hi < 2^32
// constrains only the low bits. msb(mask) <= msb(chi) is written without
// a bit scan: msb(chi) < msb(mask) iff chi < mask and chi < chi ^ mask.
KEEL_HOT bool mask_within(uint64_t mask, uint64_t chi) { return !(chi < mask && chi < (chi ^ mask)); }

// A small range [lo, hi] (0 <= lo <= hi < 2^31) with tnum t that the small
// round leaves as it is: lo and hi are members of t and t lies within
// range(lo, hi) (mask_within). Then small_round(t, lo, hi) meets t with
// range(lo, hi): that range knows the bits above the highest bit where lo
// and hi differ, as lo has them, and t knows them too (mask_within) with
// lo's values (lo is a member), so no bit conflicts and the meet is t
// (its mask t.mask & delta is t.mask, its value t's); the member searches
// return lo and hi themselves; no bound moves. So finish_small(t, lo, hi)
// is set_small(t, lo, hi): for a constant t that is lo == hi == t.value
// (both members), where finish_small's Scalar::constant(t.value) is the
// same value (below 2^31 its 32-bit reading is itself); otherwise the
// first small round stops small_rounds.
KEEL_HOT bool small_settled(Tnum t, uint64_t lo, uint64_t hi) {
  return t.contains(lo) && t.contains(hi) && mask_within(t.mask, lo ^ hi);
}

// One reduction round on a small range (see is_small): false when empty;
// else t, lo and hi are the round's results.
KEEL_HOT bool small_round(Tnum& t, uint64_t& lo, uint64_t& hi) {
  return tnum::intersect(t, tnum::range(lo, hi), t) && tnum::min_member_at_least(t, lo, lo) &&
         tnum::max_member_at_most(t, hi, hi) && lo <= hi;
}

// Up to `rounds` small rounds, stopping at the first that moves neither
// bound (the next would then change nothing: t already lies within
// range(lo, hi) and both bounds are members). False when empty.
KEEL_HOT bool small_rounds(Tnum& t, uint64_t& lo, uint64_t& hi, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    const uint64_t lo0 = lo, hi0 = hi;
    if (!small_round(t, lo, hi)) return false;
    if (lo == lo0 && hi == hi0) break;
  }
  return true;
}

KEEL_HOT void set_small(Scalar& s, Tnum t, uint64_t lo, uint64_t hi) {
  s.bits = t;
  s.umin = s.u32_min = static_cast<uint32_t>(lo);
  s.umax = s.u32_max = static_cast<uint32_t>(hi);
  s.smin = s.s32_min = static_cast<int32_t>(lo);
  s.smax = s.s32_max = static_cast<int32_t>(hi);
}

// "Wide low word" values: the upper word known zero, the low word unknown
// to the tnum, and one range [lo, hi] with lo < 2^31 <= hi < 2^32 as the
// 64-bit unsigned and signed bounds and the 32-bit unsigned ones; the
// 32-bit signed bounds are the full range (the low words run from lo
// through INT32_MAX and on through INT32_MIN to hi). A u32 load or a
// zero-extended unknown is one, so is such a value compared with a
// constant. Each is its own reduction: a round's sign syncs keep
// [lo, hi] at 64 bits and (two non-empty pieces) the full signed range at
// 32; 64 -> 32 and 32 -> 64 find every bound already in the other width's
// circle; range(lo, hi) is the tnum itself (lo and hi differ in bit 31, and
// hi < 2^32); every bound is a member; so the round reports `stable` and
// changes nothing. (scalar_test checks this against the rounds.)
KEEL_HOT bool is_wide_low(const Scalar& s) {
  if (s.bits.value != 0 || s.bits.mask != kLow32) return false;
  const uint64_t lo = s.umin, hi = s.umax;
  const uint64_t apart = (lo ^ static_cast<uint64_t>(s.smin)) | (hi ^ static_cast<uint64_t>(s.smax)) |
                         (lo ^ s.u32_min) | (hi ^ s.u32_max) |
                         (static_cast<uint32_t>(s.s32_min) ^ uint64_t{0x8000'0000u}) |
                         (static_cast<uint32_t>(s.s32_max) ^ uint64_t{0x7fff'ffffu});
  return apart == 0 && lo <= 0x7fff'ffffu && hi > 0x7fff'ffffu && hi <= kLow32;
}

KEEL_HOT Scalar wide_low(uint64_t lo, uint64_t hi) {
  Scalar s;
  s.bits = Tnum{0, kLow32};
  s.umin = lo;
  s.umax = hi;
  s.smin = static_cast<int64_t>(lo);
  s.smax = static_cast<int64_t>(hi);
  s.u32_min = static_cast<uint32_t>(lo);
  s.u32_max = static_cast<uint32_t>(hi);
  return s;
}

// A raw value that the reduction makes wide-low: the tnum of a word
// zero-extended ({0, 2^32 - 1}, as is_wide_low), the full 32-bit signed
// range, 64-bit unsigned bounds [p, q] with q < 2^32 and signed ones
// [p, q] or the full range, 32-bit unsigned ones [a, b] (a <= b), and
// lo = max(p, a) < 2^31 <= hi = min(q, b): a wide-low value refined by a
// 32-bit compare, a zero-extended word with a bound on it (make32), a
// right shift by 32. Its reduction is wide_low(lo, hi), a fixpoint; a
// wide-low value is the case p = a, q = b. Step by step through the first
// round: the 64-bit sign sync makes the signed bounds [p, q] (a full range
// loses its negative piece, which lies above q); the 32-bit one keeps
// [a, b] and the full signed range (a < 2^31 <= b: both pieces are
// non-empty); 64 -> 32 meets [a, b] with the circle [p, q] (no wrap, as
// q < 2^32), giving [lo, hi], and adds no signed bound (the circle
// passes INT32_MAX); 32 -> 64 moves p up to lo and q down to hi, at both
// signedness (their upper word is 0; the 32-bit signed circle is full);
// the value is not small (hi >= 2^31); range(lo, hi) is the tnum itself
// and the 32-bit meets are skipped (ends across 2^31, a crossing signed
// range); lo and hi are members, the low-word search is skipped (the low
// word is unknown). That is wide_low(lo, hi), its own reduction, so
// further rounds keep it; a value settled at once is it already.
// (scalar_test checks it against the reference reduction.)
KEEL_HOT bool to_wide_low(Scalar& s) {
  if (s.bits.value != 0 || s.bits.mask != kLow32) return false;
  if (s.s32_min != INT32_MIN || s.s32_max != INT32_MAX || s.umax > kLow32 || s.u32_min > s.u32_max) return false;
  const bool signed_as_unsigned = s.smin == static_cast<int64_t>(s.umin) && s.smax == static_cast<int64_t>(s.umax);
  if (!signed_as_unsigned && (s.smin != INT64_MIN || s.smax != INT64_MAX)) return false;
  const uint64_t lo = max_of(s.umin, uint64_t{s.u32_min}), hi = min_of(s.umax, uint64_t{s.u32_max});
  if (lo > 0x7fff'ffffu || hi <= 0x7fff'ffffu) return false;
  s = wide_low(lo, hi);
  return true;
}

// The values below 2^n for some n in [33, 63], and nothing else known: the
// tnum {0, M} with M = 2^n - 1, 64-bit unsigned bounds [0, M], signed ones
// [0, M] or the full range, and both 32-bit ranges full (every low word
// occurs). A right shift of an unknown by 1..31 gives it with the full
// signed range, a join of such values (or of values within them) with
// [0, M]. Its reduction is the value with signed bounds [0, M], a
// fixpoint; that one is its own reduction. Step by step through
// reduce_reporting: not constant, not unknown (M < 2^64 - 1), not
// wide-low, not made wide-low (mask != 2^32 - 1); not small (M >= 2^31).
// The first round: the 64-bit sign sync keeps [0, M] and takes a full
// signed range to [0, M] (its negative piece lies above M); the 32-bit one
// keeps the full ranges (both pieces non-empty); 64 -> 32 skips both
// circles (spans M >= 2^32) and 32 -> 64 both full circles; not small;
// bounds -> tnum meets t with range(0, M) = {0, M} = t twice and skips
// the 32-bit meets (ends across bit 31, a crossing signed range); every
// 64-bit bound is a member of t (all of [0, M] is), and the low-word
// search is skipped (cast32(t) knows no bit). The round changed no bound
// after its first sync and left t, so it reports `stable`. (A value with
// signed bounds [0, M] already is settled at once: the same checks.)
// (scalar_test checks it against the reference reduction.)
KEEL_HOT bool to_low_bits_unknown(Scalar& s) {
  const uint64_t m = s.bits.mask;
  if (s.bits.value != 0 || m <= kLow32 || m > uint64_t{INT64_MAX} || (m & (m + 1)) != 0) return false;
  if (s.umin != 0 || s.umax != m || s.u32_min != 0 || s.u32_max != kLow32 || s.s32_min != INT32_MIN ||
      s.s32_max != INT32_MAX)
    return false;
  const bool signed_as_unsigned = s.smin == 0 && s.smax == static_cast<int64_t>(m);
  if (!signed_as_unsigned && (s.smin != INT64_MIN || s.smax != INT64_MAX)) return false;
  s.smin = 0;
  s.smax = static_cast<int64_t>(m);
  return true;
}

// How a reduction ended: the value is empty; or the result is a fixpoint
// of the reduction round (a further round would leave every component as
// it is: the rounds stopped because one changed nothing, or would change
// nothing, or a shortcut gave such a value); or the rounds stopped at their
// limit, and another round might still narrow the result.
enum class Reduced : uint8_t { empty, fixpoint, stopped };

// The amounts a shift by b can take at width w: the ISA masks the amount
// to 63 / 31 at run time (RFC 9669 §4.1), so each is a member of b's tnum
// & (bits - 1), and within b's bounds when those are below the width
// (then masking changes nothing): the members k of `mask` with lo <= k <=
// hi.
struct ShiftAmounts {
  Tnum mask;
  uint64_t lo, hi;
};
KEEL_HOT ShiftAmounts shift_amounts(Width w, const Scalar& b) {
  const unsigned bits = w == Width::w64 ? 64 : 32;
  ShiftAmounts s{tnum::bit_and(b.bits, Tnum::constant(bits - 1)), 0, bits - 1};
  if (w == Width::w64 && b.umax < 64) {
    s.lo = b.umin;
    s.hi = b.umax;
  } else if (w == Width::w32 && b.u32_max < 32) {
    s.lo = b.u32_min;
    s.hi = b.u32_max;
  }
  return s;
}

// reduce()'s rounds (scalar_reduce.cc), out of line.
Reduced reduce_rounds(Scalar& s);
// For a value that is not small (is_small): a reduction round would leave
// it as it is (scalar_reduce.cc).
bool settled(const Scalar& s);

// An unknown word whose only knowledge is a 32-bit unsigned range [a, b]
// across 2^31 (a <= 2^31 - 1 < b): the tnum knows no bit, the 64-bit
// bounds and the 32-bit signed ones are full, as after a 32-bit compare
// of an unknown register (refine_full). Its reduction moves the 64-bit
// bounds to the nearest values whose low word lies in [a, b], and stops:
// umin = a, umax = (2^32 - 1) << 32 | b, smin = INT64_MIN | a, smax =
// INT64_MAX with the low word b. (For [a, b] = [0, 2^32 - 1] that is the
// unknown value, which reduce() returns as it is.) Otherwise, step by
// step: not constant, not unknown, not wide-low, not small, not settled
// (a 64-bit bound's low word lies outside [a, b]); the first
// round's sign syncs keep both widths (the signed ranges are full and
// both pieces are non-empty: umax is 2^64 - 1, and [a, b] crosses 2^31),
// 64 -> 32 has spans >= 2^32, 32 -> 64 moves each bound as above (the
// signed 32-bit circle is full and skipped), the 64-bit sign sync keeps
// them (a crossing signed range whose ends lie in [umin, umax]); every
// bounds -> tnum meet is skipped (ends across the top bit at 64 bits and
// across bit 31 at 32, crossing signed ranges) and so is tnum -> bounds
// (no bit known); the round reports `again` (32 -> 64 moved a bound) and
// the next finds the value settled. (scalar_test checks it against the
// reference reduction.)
KEEL_HOT bool low_word_range_only(Scalar& s) {
  if (s.bits.mask != ~uint64_t{0} || s.umin != 0 || s.umax != UINT64_MAX || s.smin != INT64_MIN ||
      s.smax != INT64_MAX || s.s32_min != INT32_MIN || s.s32_max != INT32_MAX)
    return false;
  const uint64_t a = s.u32_min, b = s.u32_max;
  if (a > 0x7fff'ffffu || b <= 0x7fff'ffffu) return false;
  s.umin = a;
  s.umax = (~uint64_t{0} << 32) | b;
  s.smin = static_cast<int64_t>((uint64_t{1} << 63) | a);
  s.smax = static_cast<int64_t>((uint64_t{0x7fff'ffffu} << 32) | b);
  return true;
}

// reduce() (scalar.h), inline here so that the domain's own callers keep
// its shortcuts inline as they did when the domain was one file; and how
// it ended. Each shortcut gives a fixpoint: a constant (every bound is the
// one value), the unknown value (nothing to narrow) and a wide-low value
// (its own reduction, see is_wide_low), to_wide_low's and
// to_low_bits_unknown's.
inline Reduced reduce_reporting(Scalar& s) {
  // A known tnum leaves one candidate: the value is that constant or empty
  // (the rounds would find the same, bound by bound).
  if (s.bits.is_const()) {
    if (!s.contains(s.bits.value)) return Reduced::empty;
    s = Scalar::constant(s.bits.value);
    return Reduced::fixpoint;
  }
  if (s == Scalar::unknown()) return Reduced::fixpoint;  // nothing to tighten
  if (is_wide_low(s)) return Reduced::fixpoint;           // its own reduction (is_wide_low)
  if (to_wide_low(s)) return Reduced::fixpoint;           // what the rounds make wide-low
  if (to_low_bits_unknown(s)) return Reduced::fixpoint;   // the values below 2^n
  return reduce_rounds(s);
}

inline bool reduce_inline(Scalar& s) { return reduce_reporting(s) != Reduced::empty; }

// The component-wise hull of a and b: join_full before its reduction.
KEEL_HOT Scalar hull(const Scalar& a, const Scalar& b) {
  Scalar r;
  r.bits = tnum::join(a.bits, b.bits);
  r.umin = min_of(a.umin, b.umin);
  r.umax = max_of(a.umax, b.umax);
  r.smin = min_of(a.smin, b.smin);
  r.smax = max_of(a.smax, b.smax);
  r.u32_min = min_of(a.u32_min, b.u32_min);
  r.u32_max = max_of(a.u32_max, b.u32_max);
  r.s32_min = min_of(a.s32_min, b.s32_min);
  r.s32_max = max_of(a.s32_max, b.s32_max);
  return r;
}

// Values whose tnum alone keeps them below 2^31 (t.umax() < 2^31) and
// whose four intervals each contain [L, H] = [t.value, t.umax()], the
// least and greatest members of t, so that they exclude no member: an
// ALU result whose tnum knows more than its interval rules (a mask, a
// shift, a byte swap), a value made from a tnum. Their reduction is the
// small range [L, H] with tnum t, a fixpoint: set_small(s, t, L, H).
// Proof, through reduce_inline: a constant t (L = H) gives
// Scalar::constant(L), which is that; the unknown and wide-low tnums are
// not below 2^31. In the rounds: the value's set is exactly t's members,
// all in [0, 2^31). Every step of a round is sound (it drops no member of
// the value's set), so after each step every interval still holds L and
// H, hence all of [L, H] (below 2^31 both orders agree at both widths,
// and the low word is the value), and every tnum meet gives some t'
// within t whose members include all of t's, which is t itself. So the
// round's tnum -> bounds step finds the least member >= each lower bound
// (<= L) and the greatest <= each upper bound (>= H): L and H at both
// widths (in the flipped 32-bit signed order too: the members are below
// 2^31, so flipping maps them above every lower bound's flip); a round
// that finds the value small after 32 -> 64 runs small_round instead, with
// bounds around [L, H] and the same outcome. The round ends with t and
// [L, H] everywhere; the next one is small (is_small), and its small
// rounds keep it: t lies within range(L, H) (L ^ H is t's mask, so
// range(L, H) knows exactly the bits t knows, with L's values) and L, H
// are members. A value small or settled to begin with is taken by those
// shortcuts, with the same answer (a settled value is one the round
// leaves as it is, so it is that result already).
// (scalar_test checks it against the reference reduction.)
KEEL_HOT bool tnum_bounds_low(const Scalar& s) {
  const uint64_t lo = s.bits.value, hi = s.bits.value | s.bits.mask;
  if (hi > 0x7fff'ffffu) return false;  // implied by s32_max >= hi below, but answers most values at once
  const auto slo = static_cast<int64_t>(lo), shi = static_cast<int64_t>(hi);
  return s.umin <= lo && s.umax >= hi && s.smin <= slo && s.smax >= shi && s.u32_min <= lo && s.u32_max >= hi &&
         s.s32_min <= slo && s.s32_max >= shi;
}

// reduce() of such a value (tnum_bounds_low), without the rounds.
KEEL_HOT Scalar tnum_low_result(Tnum t) {
  Scalar s;
  set_small(s, t, t.value, t.value | t.mask);
  return s;
}

// A reduction of a sound result never finds it empty; if a bug made it so,
// answer the top of the result's type rather than bottom (a fixpoint).
inline Scalar finish64(Scalar s) { return reduce_inline(s) ? s : Scalar::unknown(); }
inline Scalar finish64(Scalar s, bool& fixpoint) {
  const Reduced how = reduce_reporting(s);
  fixpoint = how != Reduced::stopped;
  return how == Reduced::empty ? Scalar::unknown() : s;
}

// finish64 of the small range whose four intervals are [lo, hi] (0 <= lo
// <= hi < 2^31) and whose tnum is t, without building the raw value: a
// constant tnum leaves that constant if lo <= it <= hi (reduce_inline's
// first case; for such bounds Scalar::contains is just that), and
// otherwise reduce_rounds finds the value small at once and runs its eight
// small rounds (reduce_small_range). Same steps, same result. The result
// is a fixpoint (see reduce_small_range: eight small rounds always end at
// one).
KEEL_HOT Scalar finish_small(Tnum t, uint64_t lo, uint64_t hi) {
  if (t.is_const()) return lo <= t.value && t.value <= hi ? Scalar::constant(t.value) : Scalar::unknown();
  if (!small_rounds(t, lo, hi, 8)) return Scalar::unknown();
  Scalar s;
  set_small(s, t, lo, hi);
  return s;
}

// finish64 of the raw value {t, a (64-bit), b (32-bit)} whose 64-bit
// unsigned bounds are [lo, hi] with lo <= hi < 2^31 and whose other three
// intervals are each [lo, hi] or their width's full range: a right shift by
// k >= 1 of a value below 2^(31+k) (unsigned bounds only), a left shift of
// a small range that stays below 2^31. Such a value is finish_small(t, lo,
// hi). All [lo, hi]: it is small, see finish_small. Otherwise it is not
// small, not unknown (hi < 2^31), not wide-low (that needs hi >= 2^31),
// and not settled (a full 64-bit signed range fails sign_settled, as
// 2^63 > hi; a full 32-bit one fails circle32_settled, as 2^32 - 1 > hi),
// so the first reduction round runs: the sign syncs take a full signed
// range to [lo, hi] (its negative piece is empty above hi) and keep a
// full 32-bit one (both pieces non-empty); 64 -> 32 meets the 32-bit
// bounds with the circle [lo, hi]; 32 -> 64 and the last sync change
// nothing; the round is then small_round(t, lo, hi) — the first round of
// finish_small — and stops (`stable`) exactly when small_rounds would, or
// goes on as reduce_small_range with the 7 rounds left. A constant t gives
// the same in both (Scalar::contains of the raw value is lo <= t <= hi).
// (scalar_test checks it against reduce() and the reference reduction.)
KEEL_HOT bool finish_low_range(Tnum t, Range a, Range b, Scalar& out) {
  const uint64_t lo = a.umin, hi = a.umax;
  if (lo > hi || hi > 0x7fff'ffffu) return false;
  const auto slo = static_cast<int64_t>(lo), shi = static_cast<int64_t>(hi);
  const bool s64_ok = (a.smin == slo && a.smax == shi) || (a.smin == INT64_MIN && a.smax == INT64_MAX);
  const bool low_ok = (b.umin == lo && b.umax == hi && b.smin == slo && b.smax == shi) ||
                      (b.umin == 0 && b.umax == kLow32 && b.smin == INT32_MIN && b.smax == INT32_MAX);
  if (!s64_ok || !low_ok) return false;
  out = finish_small(t, lo, hi);
  return true;
}

}  // namespace keel::scalar_parts
