// The scalar domain (scalar.h): interval transfer functions written once for
// a width of 32 or 64 bits, the tnum ones from tnum.h, and the lattice
// operations (the reduction is scalar_reduce.cc, the refinement by a branch
// scalar_branch.cc). Soundness arguments are next to each rule;
// every function is free of UB for all inputs (no shift >= 64, no signed
// overflow, no division by zero or INT_MIN / -1 in C++).
#include "domain/scalar.h"

#include "domain/scalar_parts.h"
#include "isa/semantics.h"

namespace keel {
namespace {

using namespace scalar_parts;

// ---------------------------------------------------------------------------
// Interval transfer functions at width w. Each returns an interval pair that
// contains every result; the tnum half is computed separately and reduce()
// combines them.

// The values lo, lo+1, ..., lo+span (mod 2^w) with span < 2^w: an unsigned
// interval unless they pass 2^w-1 -> 0, a signed one unless they pass the
// signed maximum.
KEEL_HOT Range circle(WidthLimits w, uint64_t lo, uint64_t span) {
  Range r = full(w);
  if (span > w.umax) return r;
  lo = trunc(w, lo);
  if (lo <= w.umax - span) {
    r.umin = lo;
    r.umax = lo + span;
  }
  const int64_t slo = to_s(w, lo);
  if (span <= static_cast<uint64_t>(w.smax) - static_cast<uint64_t>(slo)) {
    r.smin = slo;
    r.smax = to_s(w, trunc(w, lo + span));
  }
  return r;
}

// a + b lies in the circle from a.umin + b.umin of length uspan(a) + uspan(b)
// (and likewise from the signed minima) whenever that length is < 2^w; so a
// sum that wraps as a whole stays precise, and a sum that may or may not
// wrap loses the bound (Linux's rule, generalized to both orders).
KEEL_HOT Range add_r(WidthLimits w, Range a, Range b) {
  Range r = full(w);
  uint64_t span = 0;
  if (!__builtin_add_overflow(uspan(a), uspan(b), &span)) r = meet(r, circle(w, a.umin + b.umin, span));
  if (!__builtin_add_overflow(sspan(a), sspan(b), &span))
    r = meet(r, circle(w, to_u(w, a.smin) + to_u(w, b.smin), span));
  return r;
}

// a - b lies in the circle from a.min - b.max of the same length.
KEEL_HOT Range sub_r(WidthLimits w, Range a, Range b) {
  Range r = full(w);
  uint64_t span = 0;
  if (!__builtin_add_overflow(uspan(a), uspan(b), &span)) r = meet(r, circle(w, a.umin - b.umax, span));
  if (!__builtin_add_overflow(sspan(a), sspan(b), &span))
    r = meet(r, circle(w, to_u(w, a.smin) - to_u(w, b.smax), span));
  return r;
}

// Unsigned: monotone when umax * umax does not wrap. Signed: the product is
// bilinear, so its extremes are at the four corners when none wraps.
// FIXME: a product that may wrap loses its bounds (the tnum remains), as in
// Linux; a wrapped-interval rule like add's could keep some.
Range mul_r(WidthLimits w, Range a, Range b) {
  Range r = full(w);
  uint64_t hi = 0;
  if (!__builtin_mul_overflow(a.umax, b.umax, &hi) && hi <= w.umax) {
    r.umin = a.umin * b.umin;
    r.umax = hi;
  }
  const int64_t xs[2] = {a.smin, a.smax}, ys[2] = {b.smin, b.smax};
  int64_t lo = INT64_MAX, top = INT64_MIN;
  for (int64_t x : xs) {
    for (int64_t y : ys) {
      int64_t p = 0;
      if (__builtin_mul_overflow(x, y, &p) || p < w.smin || p > w.smax) return r;
      lo = min_of(lo, p);
      top = max_of(top, p);
    }
  }
  r.smin = lo;
  r.smax = top;
  return r;
}

// Unsigned division: a / d decreases in d and increases in a; d = 0 gives 0
// (RFC 9669 §4.1).
Range div_r(WidthLimits w, Range a, Range b) {
  if (b.umax == 0) return exact(w, 0);
  Range r = full(w);
  r.umin = b.umin == 0 ? 0 : a.umin / b.umax;
  r.umax = a.umax / (b.umin == 0 ? 1 : b.umin);
  return r;
}

// Signed division truncates toward zero. For divisors of one sign the
// quotient is monotone in each operand separately, so its extremes over a
// box are at the corners; split the divisor at zero (d = 0 gives 0). The one
// wrapping case, INT_MIN / -1 = INT_MIN (RFC 9669 §4.1), is split off: the
// box becomes {INT_MIN} x (divisors without -1), the rest of a x the
// divisors, and the single result INT_MIN.
Range sdiv_r(WidthLimits w, Range a, Range b) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  auto include = [&](int64_t q) {
    lo = min_of(lo, q);
    hi = max_of(hi, q);
  };
  // Corners of [a1, a2] x [d1, d2]; callers keep 0 and (INT_MIN, -1) out.
  auto corners = [&](int64_t a1, int64_t a2, int64_t d1, int64_t d2) {
    if (a1 > a2 || d1 > d2) return;
    const int64_t xs[2] = {a1, a2}, ds[2] = {d1, d2};
    for (int64_t x : xs)
      for (int64_t d : ds) include(x / d);
  };
  auto divisors = [&](int64_t a1, int64_t a2) {
    if (b.smin <= -1) corners(a1, a2, b.smin, min_of(b.smax, int64_t{-1}));
    if (b.smax >= 1) corners(a1, a2, max_of(b.smin, int64_t{1}), b.smax);
  };
  const bool wraps = a.smin == w.smin && b.smin <= -1 && b.smax >= -1;
  if (wraps) {
    include(w.smin);  // INT_MIN / -1
    if (b.smin <= -2) corners(a.smin, a.smin, b.smin, min_of(b.smax, int64_t{-2}));
    if (b.smax >= 1) corners(a.smin, a.smin, max_of(b.smin, int64_t{1}), b.smax);
    if (a.smax > a.smin) divisors(a.smin + 1, a.smax);
  } else {
    divisors(a.smin, a.smax);
  }
  if (b.smin <= 0 && b.smax >= 0) include(0);
  Range r = full(w);
  r.smin = lo;
  r.smax = hi;
  return r;
}

// a % d <= a and < d; d = 0 leaves a (callers handle b = {0} and a < b).
Range mod_r(WidthLimits w, Range a, Range b) {
  Range r = full(w);
  r.umax = b.umin == 0 ? a.umax : min_of(a.umax, b.umax - 1);
  return r;
}

// Signed remainder: |r| <= |a|, |r| < |d| and r has the sign of a (or is
// 0). M is the largest |d| over the possible non-zero divisors; |INT_MIN|
// is computed in unsigned arithmetic. d = 0 leaves a.
// FIXME: r == a when |a| < min |d| is not used (mod uses the unsigned one).
Range smod_r(WidthLimits w, Range a, Range b) {
  uint64_t m = 0;
  if (b.smin < 0) m = 0 - static_cast<uint64_t>(b.smin);
  if (b.smax > 0) m = max_of(m, static_cast<uint64_t>(b.smax));
  const int64_t lim = static_cast<int64_t>(m - 1);  // m >= 1: b is not {0}; m - 1 <= smax
  Range r = full(w);
  r.smin = a.smin >= 0 ? 0 : max_of(a.smin, -lim);
  r.smax = a.smax <= 0 ? 0 : min_of(a.smax, lim);
  if (b.smin <= 0 && b.smax >= 0) {
    r.smin = min_of(r.smin, a.smin);
    r.smax = max_of(r.smax, a.smax);
  }
  return r;
}

// x & y <= min(x, y) unsigned. Signed: a non-negative operand bounds the
// result to [0, it]; two negative ones give a negative result <= both.
KEEL_HOT Range and_r(WidthLimits w, Range a, Range b) {
  Range r = full(w);
  r.umax = min_of(a.umax, b.umax);
  if (a.smin >= 0 || b.smin >= 0) {
    r.smin = 0;
    r.smax = min_of(a.smin >= 0 ? a.smax : w.smax, b.smin >= 0 ? b.smax : w.smax);
  } else if (a.smax < 0 && b.smax < 0) {
    r.smax = min_of(a.smax, b.smax);
  }
  return r;
}

// x | y >= max(x, y) unsigned. A negative operand makes the result negative
// and (same half, so same order) >= it; two non-negative ones give a result
// >= both.
KEEL_HOT Range or_r(WidthLimits w, Range a, Range b) {
  Range r = full(w);
  r.umin = max_of(a.umin, b.umin);
  if (a.smax < 0 || b.smax < 0) {
    r.smax = -1;
    r.smin = max_of(a.smax < 0 ? a.smin : w.smin, b.smax < 0 ? b.smin : w.smin);
  } else if (a.smin >= 0 && b.smin >= 0) {
    r.smin = max_of(a.smin, b.smin);
  }
  return r;
}

// Shifts by a constant k < w.bits: monotone, so the bounds shift too unless
// a bit falls off the top (lsh) — checked against the width's limits.
KEEL_HOT Range lsh_r(WidthLimits w, Range a, unsigned k) {
  Range r = full(w);
  if (a.umax <= (w.umax >> k)) {
    r.umin = a.umin << k;
    r.umax = a.umax << k;
  }
  if (a.smin >= (w.smin >> k) && a.smax <= (w.smax >> k)) {
    r.smin = static_cast<int64_t>(static_cast<uint64_t>(a.smin) << k);
    r.smax = static_cast<int64_t>(static_cast<uint64_t>(a.smax) << k);
  }
  return r;
}

KEEL_HOT Range rsh_r(WidthLimits w, Range a, unsigned k) {
  if (k == 0) return a;
  Range r = full(w);
  r.umin = a.umin >> k;
  r.umax = a.umax >> k;
  return r;
}

// Values of a 32-bit width are kept sign-extended in int64, so an int64
// arithmetic shift is the 32-bit one.
KEEL_HOT Range arsh_r(WidthLimits w, Range a, unsigned k) {
  if (k == 0) return a;
  Range r = full(w);
  r.smin = a.smin >> k;
  r.smax = a.smax >> k;
  return r;
}

// ---------------------------------------------------------------------------
// Assembling results

// The reduced value {t, a (64-bit), b (32-bit)}; `fixpoint` tells whether
// it is a fixpoint of the reduction round (finish_small's results are).
Scalar make64(Tnum t, Range a, Range b, bool& fixpoint) {
  Scalar s;
  fixpoint = true;
  if (finish_low_range(t, a, b, s)) return s;  // a result below 2^31: no rounds
  s.bits = t;
  set64(s, a);
  set32(s, b);
  if (tnum_bounds_low(s)) return tnum_low_result(t);  // its reduction, directly
  return finish64(s, fixpoint);
}

Scalar make64(Tnum t, Range a, Range b) {
  bool fixpoint = false;
  return make64(t, a, b, fixpoint);
}

// An ALU32 result: the low word is t / b, the upper word is zero. The
// answer to an empty reduction is wide_low(0, 2^32 - 1), a fixpoint.
Scalar make32(Tnum t, Range b, bool& fixpoint) {
  Scalar s;
  s.bits = tnum::cast32(t);
  set32(s, b);
  // The upper word is zero, so the 64-bit bounds are [0, 2^32 - 1] — or,
  // when the low word is a small range (see is_small), that range: the
  // first reduction round would move them there (tighten64_from32) and
  // continue as small_round(), so starting there gives the same result.
  const Range low = r32(s);
  set64(s, is_small(low, low) ? low : Range{0, kLow32, 0, static_cast<int64_t>(kLow32)});
  fixpoint = true;
  if (tnum_bounds_low(s)) return tnum_low_result(s.bits);  // its reduction, directly
  const Reduced how = reduce_reporting(s);
  fixpoint = how != Reduced::stopped;
  if (how != Reduced::empty) return s;
  return wide_low(0, kLow32);
}

Scalar make32(Tnum t, Range b) {
  bool fixpoint = false;
  return make32(t, b, fixpoint);
}

// A 64-bit left shift by k of a small range a (is_small) that the small
// round leaves as it is (small_settled(t, lo, hi), as every reduced small
// range: see joins_to_itself), without make64: `r <<= 32` of an index or
// a masked byte. lsh_r keeps [lo << k, hi << k] at 64 bits, unsigned and
// signed, when hi << k <= INT64_MAX (then no bit falls off either way).
//  - hi << k < 2^31 (so k < 32): lsh_r(k32) keeps [lo << k, hi << k] too,
//    finish_low_range takes the raw value: finish_small(t << k, lo << k,
//    hi << k). Shifting loses no bit of a member, so lo << k and hi << k
//    are members of t << k, and the highest bit where they differ and
//    t's highest unknown bit both move up by k: small_settled holds
//    again, and the result is set_small of them.
//  - k >= 32, lo < hi: the raw value R = {t << k, [lo << k, hi << k] at 64
//    bits, the 32-bit bounds exact(0)} is its own reduction. make64: not a
//    low range (hi << k >= 2^32), not tnum_bounds_low (t << k has a member
//    >= 2^32); reduce_reporting: t << k is not constant (lo, hi are two
//    members of t), not unknown, its mask's low word is 0 (not wide-low,
//    not to_wide_low), its mask is even (not to_low_bits_unknown); in
//    reduce_rounds not small (hi << k != 0 = u32_max), and settled():
//    every 64-bit ordering is that of [lo << k, hi << k] >= 0, the 32-bit
//    one [0, 0]; each bound is a member as above (and 0 of the low word,
//    which t << k knows to be 0); mask_within as above (and 0 for the low
//    word); the 64-bit spans are >= 2^32 (both circle tests pass); every
//    64-bit bound has the low word 0, inside the circle [0, 0]. So the
//    reduction returns R unchanged and reports a fixpoint.
// (scalar_test's ShiftOfSmallRangeMatchesTheReduction compares both with
// the reference reduction of the raw value.)
KEEL_HOT bool lsh64_small(const Scalar& a, unsigned k, Scalar& out) {
  const uint64_t lo = a.umin, hi = a.umax;
  if (!is_small(a) || hi > (uint64_t{INT64_MAX} >> k) || !small_settled(a.bits, lo, hi)) return false;
  const Tnum t = tnum::lsh(a.bits, k);
  if (k < 32 && (hi << k) <= 0x7fff'ffffu) {
    set_small(out, t, lo << k, hi << k);
    return true;
  }
  if (k < 32 || lo == hi) return false;
  out.bits = t;
  out.umin = lo << k;
  out.umax = hi << k;
  out.smin = static_cast<int64_t>(lo << k);
  out.smax = static_cast<int64_t>(hi << k);
  out.u32_min = out.u32_max = 0;
  out.s32_min = out.s32_max = 0;
  return true;
}

// `x <<= 32` of a value whose low word the tnum does not know (the unknown
// value, a zero-extended word) and whose bounds lsh_r drops: the tnum
// t << 32 is {0, 2^64 - 2^32}, the signed bounds are full (a.smin <
// INT32_MIN or a.smax > INT32_MAX), the unsigned ones full (a.umax >=
// 2^32) or [0, 2^64 - 2^32] (a's were [0, 2^32 - 1]), the 32-bit bounds
// [0, 0]. The reduction of that raw value R is Z = {t, unsigned [0, 2^64
// - 2^32], signed [INT64_MIN, 2^63 - 2^32], 32-bit [0, 0]}, a fixpoint:
// make64 finds no low range and no tnum_bounds_low (umax >= 2^31);
// reduce_reporting: t is not constant, not unknown, not {0, 2^32 - 1},
// its mask is above INT64_MAX (not to_low_bits_unknown); reduce_rounds:
// not small, not settled (umax = 2^64 - 1, resp. smax = INT64_MAX, is no
// member of t). Round one: the 64-bit sync keeps a full R and makes the
// other {0, 2^64 - 2^32, INT64_MIN, INT64_MAX} (two non-empty pieces); the
// spans are >= 2^32 (no 64 -> 32); 32 -> 64 with the circle [0, 0] moves
// umax and smax down to the nearest value with low word 0 (2^64 - 2^32,
// 2^63 - 2^32) and keeps 0 and INT64_MIN; the sync after it keeps that;
// not small; the 64-bit meets are skipped (ends across the top bit, a
// crossing signed range), the 32-bit ones meet t with {0, 2^64 - 2^32},
// which is t; every bound is a member of t, the 32-bit ones of cast32(t)
// = 0: that is Z, reported `again`. Round two finds Z settled (the same
// checks: every bound a member, mask_within, spans >= 2^32, every 64-bit
// low word 0 in the circle [0, 0]) and stops with a fixpoint.
// (ShiftOfSmallRangeMatchesTheReduction compares with the reference
// reduction of R.)
KEEL_HOT bool lsh64_low_word_by_32(const Scalar& a, unsigned k, Scalar& out) {
  if (k != 32 || (a.bits.mask & kLow32) != kLow32 || (a.bits.value & kLow32) != 0) return false;
  if (a.smin >= INT32_MIN && a.smax <= INT32_MAX) return false;
  if (a.umax <= kLow32 && (a.umin != 0 || a.umax != kLow32)) return false;
  out.bits = Tnum{0, ~kLow32};
  out.umin = 0;
  out.umax = ~kLow32;
  out.smin = INT64_MIN;
  out.smax = static_cast<int64_t>(uint64_t{0x7fff'ffffu} << 32);
  out.u32_min = out.u32_max = 0;
  out.s32_min = out.s32_max = 0;
  return true;
}

// A 64-bit right shift by k whose result lies below 2^31: for k >= 1, of
// any a with lo = a.umin >> k <= hi = a.umax >> k < 2^31 (rsh_r's unsigned
// bounds; its signed ones and the 32-bit ones are full); for k = 0, of a
// small range a (the ranges are a's own, all [lo, hi]). make64's
// finish_low_range takes both: the result is finish_small(t >> k, lo,
// hi), and when small_settled holds, set_small(t >> k, lo, hi) -- the
// value `(x << 32) >> 32` and `x >> 4` give a small index or byte, and
// a shift by a register that holds 0.
// (scalar_test's ShiftOfSmallRangeMatchesTheReduction compares it with
// the reference reduction of the raw value.)
KEEL_HOT bool rsh64_low(const Scalar& a, unsigned k, Scalar& out) {
  const uint64_t lo = a.umin >> k, hi = a.umax >> k;
  if (k == 0 ? !is_small(a) : (lo > hi || hi > 0x7fff'ffffu)) return false;
  const Tnum t = tnum::rsh(a.bits, k);
  if (small_settled(t, lo, hi)) {
    set_small(out, t, lo, hi);
  } else {
    out = finish_small(t, lo, hi);
  }
  return true;
}

// A 64-bit right shift by k in [1, 32] of a value whose tnum is unknown
// and whose unsigned bounds are full (the unknown value, and any value
// known only by signed or 32-bit bounds, which rsh_r and the full 32-bit
// result drop): the raw value is R = {t = {0, M}, unsigned [0, M],
// signed and 32-bit bounds full} with M = 2^(64-k) - 1. make64: no low
// range (M >= 2^32 - 1), no tnum_bounds_low; reduce_reporting: t is not
// constant, not unknown; for k = 32 (t = {0, 2^32 - 1}) not wide-low
// (smin != umin) but to_wide_low's: lo = max(0, 0), hi = min(M, 2^32 - 1)
// -> wide_low(0, 2^32 - 1); for k < 32 not wide-low (mask > 2^32 - 1) and
// to_low_bits_unknown's: the signed bounds become [0, M]. Both are
// reported fixpoints. (scalar_test's ShiftOfSmallRangeMatchesTheReduction
// compares it with the reference reduction of R.)
KEEL_HOT bool rsh64_of_unknown(const Scalar& a, unsigned k, Scalar& out) {
  if (k == 0 || k > 32 || a.bits.value != 0 || a.bits.mask != ~uint64_t{0} || a.umin != 0 || a.umax != UINT64_MAX)
    return false;
  if (k == 32) {
    out = wide_low(0, kLow32);
    return true;
  }
  const uint64_t m = UINT64_MAX >> k;
  out = Scalar::unknown();
  out.bits = Tnum{0, m};
  out.umax = m;
  out.smin = 0;
  out.smax = static_cast<int64_t>(m);
  return true;
}

// A 64-bit arithmetic right shift by k >= 1 whose tnum comes out unknown
// (`(x << 32) s>> 32`, the sign extension of a low word): the raw value
// is R = {unknown, unsigned bounds full, signed [S1, S2] = [a.smin >> k,
// a.smax >> k], 32-bit bounds full}. When S1 < 0 <= S2 and either S2 - S1
// >= 2^32 or [S1, S2] = [INT32_MIN, INT32_MAX], R is its own reduction:
// make64 finds no low range and no tnum_bounds_low (umax = 2^64 - 1);
// reduce_reporting returns R itself if it is the unknown value, and
// otherwise finds no constant, no wide-low value (mask 2^64 - 1), nor
// to_low_bits_unknown's (mask > INT64_MAX); in reduce_rounds R is not
// small, and settled(): the signed interval crosses zero with both ends
// in [0, 2^64 - 1], the 32-bit ones are full; every bound is a member of
// the unknown tnum, mask_within holds for a full mask; the unsigned
// circle spans >= 2^32, the signed one too, or it is [0x80000000,
// 0x7fffffff] at 32 bits, which wraps unsigned (skipped) and is the full
// signed range; the 32-bit circles are full (low_words_settled). So R
// comes back unchanged, a fixpoint. (ShiftOfSmallRangeMatchesTheReduction
// compares with the reference reduction of R.)
KEEL_HOT bool arsh64_to_unknown_bits(const Scalar& a, unsigned k, Scalar& out) {
  if (k == 0 || tnum::arsh(a.bits, k) != Tnum::unknown()) return false;
  const int64_t lo = a.smin >> k, hi = a.smax >> k;
  if (lo >= 0 || hi < 0) return false;
  if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) <= kLow32 && (lo != INT32_MIN || hi != INT32_MAX))
    return false;
  out = Scalar::unknown();
  out.smin = lo;
  out.smax = hi;
  return true;
}

KEEL_HOT Scalar shift_const(AluOp op, Width w, const Scalar& a, unsigned k, bool& fixpoint) {
  if (w == Width::w64) {
    Scalar r;
    switch (op) {
      case AluOp::lsh:
        if (lsh64_small(a, k, r) || lsh64_low_word_by_32(a, k, r)) {
          fixpoint = true;  // as make64 reports for finish_small and for R (above)
          return r;
        }
        return make64(tnum::lsh(a.bits, k), lsh_r(k64, r64(a), k),
                      k < 32 ? lsh_r(k32, r32(a), k) : exact(k32, 0), fixpoint);
      case AluOp::rsh:
        if (rsh64_low(a, k, r) || rsh64_of_unknown(a, k, r)) {
          fixpoint = true;  // as make64 reports them (above)
          return r;
        }
        return make64(tnum::rsh(a.bits, k), rsh_r(k64, r64(a), k), k == 0 ? r32(a) : full(k32), fixpoint);
      default:
        if (arsh64_to_unknown_bits(a, k, r)) {
          fixpoint = true;  // as make64 reports it (above)
          return r;
        }
        return make64(tnum::arsh(a.bits, k), arsh_r(k64, r64(a), k), k == 0 ? r32(a) : full(k32), fixpoint);
    }
  }
  switch (op) {
    case AluOp::lsh:
      return make32(tnum::lsh(tnum::cast32(a.bits), k), lsh_r(k32, r32(a), k), fixpoint);
    case AluOp::rsh:
      return make32(tnum::rsh(tnum::cast32(a.bits), k), rsh_r(k32, r32(a), k), fixpoint);
    default:
      return make32(tnum::arsh(tnum::sext(a.bits, 32), k), arsh_r(k32, r32(a), k), fixpoint);
  }
}

// Whether r = shift_const(rsh, w64, a, k) for k >= 1 lies within `out`
// component by component (then hull(out, r) == out), told without
// computing r, for an `a` with a member x (shift() checks
// a.contains(a.umin) or a.contains(a.umax)) and an `out` that is a
// fixpoint of the reduction round (a hull of fixpoints, see shift()).
// r is make64 of the raw value R = {t = tnum::rsh(a.bits, k), unsigned
// [a.umin >> k, a.umax >> k] = [lo, hi], signed and 32-bit bounds full};
// x >> k is a member of R (tnum::rsh is exact, >> is monotone), so R is
// not empty, and the reduction, which never drops a member, does not find
// it empty: r is R reduced, not the answer to an empty value. Every path
// of make64 only narrows R's components, and so keeps r.bits within t
// (each tnum step intersects; a constant result is a member of t;
// tnum_low_result, wide_low keep t) and r's unsigned bounds within
// [lo, hi]. Its signed bounds lie within [lo, hi] too: hi < 2^63, so
// every path that sets them from the others sets them inside [lo, hi]
// (finish_small, tnum_low_result, wide_low, to_low_bits_unknown, a
// constant), the shortcuts that would keep R's full signed range do not
// apply (R is not unknown, is_wide_low needs smin == umin, settled's
// sign_settled needs umin <= 2^63 <= umax), and the rounds' first 64-bit
// sign sync makes them [lo, hi] (the negative piece is empty above hi),
// after which every step narrows. The 32-bit bounds are within `out`'s
// when those are full. So the tests below imply r.bits within out.bits,
// whose tnum join is then out.bits (out.bits is well formed), and every
// bound of r within out's: hull(out, r) == out.
// In shift()'s loop that is the step's result either way: the hull
// branch gives out; the join branch gives finish64(out), and reduce()
// keeps the fixpoint out (see the proof in shift()'s comment). A skipped
// r that would not have been a fixpoint only turns the loop to join(),
// which on the later fixpoints out and r' is their hull again (a hull of
// fixpoints is one), so the loop's result does not depend on it.
// (scalar_test's ShiftByARangeMatchesOneJoinAfterAnother compares with
// joins of alu_full by one amount at a time.)
KEEL_HOT bool rsh_dominated(const Scalar& a, unsigned k, const Scalar& out) {
  const uint64_t lo = a.umin >> k, hi = a.umax >> k;
  return out.u32_min == 0 && out.u32_max == UINT32_MAX && out.s32_min == INT32_MIN && out.s32_max == INT32_MAX &&
         out.umin <= lo && out.umax >= hi && out.smin <= static_cast<int64_t>(lo) &&
         out.smax >= static_cast<int64_t>(hi) && tnum::subset(tnum::rsh(a.bits, k), out.bits);
}

// The result is the join over every amount k the masked src can take
// (shift_amounts).
//
// The join is taken one amount after another, join(join(r0, r1), r2) ...,
// and each join() reduces the hull it builds. While every operand is a
// fixpoint of the reduction round (make64 and make32 say so), that reduction has
// nothing to do: the hull of two fixpoints is a fixpoint again, so
// join(a, b) == hull(a, b), and the running join is the plain hull of the
// results so far. Proof that hull(a, b) is a fixpoint, step by step
// through the round (each step only narrows, so a round that leaves a
// value as it is leaves it as it is at every step; so a and b pass every
// step unchanged, and each component of h = hull(a, b) is a's or b's):
//  - sign sync, per width: a fixpoint has one-piece intervals with equal
//    signed and unsigned ends, or a signed interval crossing zero whose
//    ends, read unsigned, lie in [umin, umax]. The hull of two one-piece
//    intervals of one sign is one-piece too; of opposite signs it crosses
//    zero, its signed ends being the non-negative operand's umax and the
//    negative one's umin (read signed), both within h's [umin, umax]; one
//    that involves a crossing operand crosses, and its signed ends are an
//    operand's ends, within that operand's and so h's [umin, umax]. In
//    each case the sync keeps h.
//  - 64 -> 32: the low words of h's 64-bit interval (span < 2^32) form a
//    circle C containing each operand's circle C_a. Where C does not wrap
//    (in the unsigned, resp. signed 32-bit order) and C_a does not either,
//    a's 32-bit bounds lie in C_a (a is a fixpoint), so in C; where C_a
//    wraps, C holds both ends of the order and is the full range. A span
//    >= 2^32 in h leaves the step out, as it does for a.
//  - 32 -> 64: each 64-bit bound of h is an operand's, whose low word lies
//    in that operand's 32-bit intervals, which lie within h's.
//  - bounds -> tnum: where h's interval allows the meet (ends with the same
//    top bit, resp. a signed interval not crossing zero), so do a's and
//    b's; their tnums lie within range(a's ends) and range(b's ends), both
//    within range(h's ends), and so does their tnum join h.bits.
//  - tnum -> bounds: each bound of h is an operand's, a member of that
//    operand's tnum (low word), which lies within h.bits.
// And reduce() keeps a fixpoint h: a constant tnum has every bound a
// member, so h is Scalar::constant of it; the unknown and wide-low
// shortcuts return h (to_wide_low gives what the rounds give); the small
// rounds and the general rounds change nothing. A result that may not be a fixpoint (a reduction stopped by
// its round limit) sends the rest of the loop through join(), as before.
// scalar_test checks the result against the one-join-after-another loop
// and the hull against join_full.
//
// A 64-bit right shift skips the amounts whose result could not widen the
// hull so far (rsh_dominated below).
//
// A constant dst (in Scalar::constant's form) shifted by several amounts
// (shift_constant_by_amounts below) takes the same loop with each
// shift_const result written directly as the constant it is.
KEEL_HOT Scalar shift_constant_by_amounts(AluOp op, Width w, uint64_t c, ShiftAmounts amounts);

Scalar shift(AluOp op, Width w, const Scalar& a, const Scalar& b) {
  const auto [amount, lo, hi] = shift_amounts(w, b);
  if (amount.mask == 0) {  // one candidate amount: the loop below runs once and returns its result
    bool fixpoint = false;
    if (amount.value >= lo && amount.value <= hi)
      return shift_const(op, w, a, static_cast<unsigned>(amount.value), fixpoint);
    return w == Width::w64 ? Scalar::unknown() : zext32(Scalar::unknown());
  }
  if (a.bits.is_const() && a == Scalar::constant(a.bits.value))
    return shift_constant_by_amounts(op, w, a.bits.value, {amount, lo, hi});
  Scalar out;
  bool any = false;
  bool fixpoints = true;  // out is the hull of fixpoints so far
  // For rsh_dominated: a's values are not none (a has a member).
  const bool rsh64 = op == AluOp::rsh && w == Width::w64 && (a.contains(a.umin) || a.contains(a.umax));
  uint64_t s = 0;
  do {
    const uint64_t k = amount.value | s;
    if (k >= lo && k <= hi) {
      if (rsh64 && any && fixpoints && k >= 1 && rsh_dominated(a, static_cast<unsigned>(k), out)) {
        s = (s - amount.mask) & amount.mask;
        continue;  // hull(out, r) and join(out, r) would be out (rsh_dominated)
      }
      bool fixpoint = false;
      const Scalar r = shift_const(op, w, a, static_cast<unsigned>(k), fixpoint);
      if (!any) {
        out = r;
        fixpoints = fixpoint;
      } else if (fixpoints && fixpoint) {
        out = hull(out, r);
      } else {
        out = join(out, r);
        fixpoints = false;
      }
      any = true;
    }
    s = (s - amount.mask) & amount.mask;  // next submask of the unknown bits
  } while (s != 0);
  if (any) return out;
  return w == Width::w64 ? Scalar::unknown() : zext32(Scalar::unknown());
}

// shift() of the constant c (in Scalar::constant's form) by the amounts
// `amounts` allows, when there may be several (a shift by one amount goes
// through shift_const, which ConstantFoldingMatchesTransferFunctions
// checks against the folded constant). Same result as shift()'s loop, step
// by step: the same amounts in the same order; for each, shift_const(op,
// w, constant(c), k) is Scalar::constant(c OP k) as RFC 9669 §4.1 computes
// it (sem::alu; the claim alu()'s constant folding rests on, as alu_full
// of two constants is that one shift_const), and make64 / make32 report
// every result whose tnum is constant a fixpoint (finish_small,
// tnum_low_result and reduce_reporting's first case all say so, and the
// answer to an empty one is a fixpoint too); so shift()'s loop takes the
// hull branch at every step, as this one does, and the loops agree.
// (scalar_test's ShiftByARangeMatchesOneJoinAfterAnother compares both
// with joins of alu_full by one amount at a time.)
KEEL_HOT Scalar shift_constant_by_amounts(AluOp op, Width w, uint64_t c, ShiftAmounts amounts) {
  const Alu isa_op = op == AluOp::lsh ? Alu::lsh : op == AluOp::rsh ? Alu::rsh : Alu::arsh;
  Scalar out;
  bool any = false;
  uint64_t s = 0;
  do {
    const uint64_t k = amounts.mask.value | s;
    if (k >= amounts.lo && k <= amounts.hi) {
      const Scalar r = Scalar::constant(sem::alu(isa_op, w, c, k));
      out = any ? hull(out, r) : r;
      any = true;
    }
    s = (s - amounts.mask.mask) & amounts.mask.mask;  // next submask of the unknown bits
  } while (s != 0);
  if (any) return out;
  return w == Width::w64 ? Scalar::unknown() : zext32(Scalar::unknown());
}

Scalar alu64(AluOp op, const Scalar& a, const Scalar& b) {
  const Range A = r64(a), B = r64(b), A32 = r32(a), B32 = r32(b);
  // add, sub, mul and the bitwise ops compute the low word from the low
  // words alone, so the 32-bit bounds of the result come from the operands'.
  switch (op) {
    case AluOp::mov:
      return b;
    case AluOp::add:
      return make64(tnum::add(a.bits, b.bits), add_r(k64, A, B), add_r(k32, A32, B32));
    case AluOp::sub:
      return make64(tnum::sub(a.bits, b.bits), sub_r(k64, A, B), sub_r(k32, A32, B32));
    case AluOp::mul:
      return make64(tnum::mul(a.bits, b.bits), mul_r(k64, A, B), mul_r(k32, A32, B32));
    case AluOp::bit_and:
      return make64(tnum::bit_and(a.bits, b.bits), and_r(k64, A, B), and_r(k32, A32, B32));
    case AluOp::bit_or:
      return make64(tnum::bit_or(a.bits, b.bits), or_r(k64, A, B), or_r(k32, A32, B32));
    case AluOp::bit_xor:  // FIXME: bounds only from the tnum (as Linux)
      return make64(tnum::bit_xor(a.bits, b.bits), full(k64), full(k32));
    // FIXME: the 32-bit bounds of a 64-bit quotient or remainder come only
    // from its 64-bit bounds (when they span < 2^32) and the tnum.
    case AluOp::div:
      return make64(Tnum::unknown(), div_r(k64, A, B), full(k32));
    case AluOp::sdiv:
      return make64(Tnum::unknown(), sdiv_r(k64, A, B), full(k32));
    case AluOp::mod: {
      if (B.umax == 0 || A.umax < B.umin) return a;  // dst unchanged, or dst % src == dst
      // x % 2^n == x & (2^n - 1): keeps the low bits exactly.
      const Tnum t = b.is_const() && is_power_of_two(B.umin) ? tnum::bit_and(a.bits, Tnum::constant(B.umin - 1))
                                                              : Tnum::unknown();
      return make64(t, mod_r(k64, A, B), full(k32));
    }
    case AluOp::smod:
      if (B.smin == 0 && B.smax == 0) return a;
      return make64(Tnum::unknown(), smod_r(k64, A, B), full(k32));
    case AluOp::lsh:
    case AluOp::rsh:
    case AluOp::arsh:
      return shift(op, Width::w64, a, b);
  }
  return Scalar::unknown();
}

// ALU32: the same rules on the low words (sdiv/smod read them as int32,
// arsh sign-extends bit 31), and the result is zero-extended.
Scalar alu32(AluOp op, const Scalar& a, const Scalar& b) {
  const Range A = r32(a), B = r32(b);
  const Tnum ta = tnum::cast32(a.bits), tb = tnum::cast32(b.bits);
  switch (op) {
    case AluOp::mov:
      return zext32(b);
    case AluOp::add:
      return make32(tnum::add(ta, tb), add_r(k32, A, B));
    case AluOp::sub:
      return make32(tnum::sub(ta, tb), sub_r(k32, A, B));
    case AluOp::mul:
      return make32(tnum::mul(ta, tb), mul_r(k32, A, B));
    case AluOp::bit_and:
      return make32(tnum::bit_and(ta, tb), and_r(k32, A, B));
    case AluOp::bit_or:
      return make32(tnum::bit_or(ta, tb), or_r(k32, A, B));
    case AluOp::bit_xor:
      return make32(tnum::bit_xor(ta, tb), full(k32));
    case AluOp::div:
      return make32(Tnum::unknown(), div_r(k32, A, B));
    case AluOp::sdiv:
      return make32(Tnum::unknown(), sdiv_r(k32, A, B));
    case AluOp::mod: {
      if (B.umax == 0 || A.umax < B.umin) return zext32(a);
      const Tnum t = tb.is_const() && is_power_of_two(B.umin) ? tnum::bit_and(ta, Tnum::constant(B.umin - 1))
                                                               : Tnum::unknown();
      return make32(t, mod_r(k32, A, B));
    }
    case AluOp::smod:
      if (B.smin == 0 && B.smax == 0) return zext32(a);
      return make32(Tnum::unknown(), smod_r(k32, A, B));
    case AluOp::lsh:
    case AluOp::rsh:
    case AluOp::arsh:
      return shift(op, Width::w32, a, b);
  }
  return zext32(Scalar::unknown());
}

// Constant folding: the concrete result of dst OP src (RFC 9669 §4.1) for
// the operations whose transfer functions are exact on constants, so that
// folding is only a shortcut (scalar_test checks it against alu_full).
// mod and smod are not folded: their interval rules give a range even for
// constants (see the FIXMEs at mod_r and smod_r), and folding them would
// change results, not only speed.
KEEL_HOT bool fold(AluOp op, Width w, uint64_t a, uint64_t b, uint64_t& out) {
  Alu isa_op;
  switch (op) {
    case AluOp::add: isa_op = Alu::add; break;
    case AluOp::sub: isa_op = Alu::sub; break;
    case AluOp::mul: isa_op = Alu::mul; break;
    case AluOp::div: isa_op = Alu::div; break;
    case AluOp::sdiv: isa_op = Alu::sdiv; break;
    case AluOp::bit_and: isa_op = Alu::band; break;
    case AluOp::bit_or: isa_op = Alu::bor; break;
    case AluOp::bit_xor: isa_op = Alu::bxor; break;
    case AluOp::lsh: isa_op = Alu::lsh; break;
    case AluOp::rsh: isa_op = Alu::rsh; break;
    case AluOp::arsh: isa_op = Alu::arsh; break;
    case AluOp::mov: isa_op = Alu::mov; break;
    default: return false;  // mod, smod (above)
  }
  out = sem::alu(isa_op, w, a, b);
  return true;
}

// add, sub and and of two small ranges (see is_small) whose result is one
// too: add_r, sub_r and and_r then give that plain interval at both widths
// and in both orders (no sum can wrap, every value is below 2^31), so the
// result is make64 of it, without the general interval rules — and
// make64 of a small range is finish_small. (scalar_test checks it against
// alu_full.)
//
// bit_or of two small ranges: or_r gives [L, the width's maximum] at both
// widths and in both orders, L = max(a.umin, b.umin) (both operands are
// non-negative), so make64 finds no low range and asks tnum_bounds_low:
// with t = a.bits | b.bits below 2^31 and L <= t.value, every interval
// holds [t.value, t.umax()], and the result is tnum_low_result(t).
// (SmallRangeAluMatchesTransferFunctions checks it against alu_full.)
//
// At w32 the same, with alu32's tnum cast32(op(cast32(a.bits),
// cast32(b.bits))) (make32 casts it again, which changes nothing): a
// small operand's 32-bit bounds are its 64-bit ones, so add_r, sub_r
// and and_r at k32 give the same [lo, hi], and make32 sets the 64-bit
// bounds to that small low word: the raw value is the small range
// [lo, hi] with tnum t, which make32 reduces (tnum_low_result when
// tnum_bounds_low holds, which is that reduction, else reduce_reporting:
// a constant t or reduce_rounds' small rounds, as finish_small does) —
// except that an empty value becomes wide_low(0, 2^32 - 1) there and the
// unknown value in finish_small, which gives the unknown value for empty
// values only (its other results lie below 2^31). For bit_or, or_r at k32
// gives [L, 2^32 - 1] unsigned and [L, INT32_MAX] signed; make32 sets the
// 64-bit bounds [0, 2^32 - 1] (the low word is not small), and
// tnum_bounds_low holds under the same test: tnum_low_result(t).
KEEL_HOT bool small_alu(AluOp op, Width w, const Scalar& a, const Scalar& b, Scalar& out) {
  if (op != AluOp::add && op != AluOp::sub && op != AluOp::bit_and && op != AluOp::bit_or) return false;
  if (!is_small(a) || !is_small(b)) return false;
  const bool w32 = w == Width::w32;
  const Tnum ta = w32 ? tnum::cast32(a.bits) : a.bits, tb = w32 ? tnum::cast32(b.bits) : b.bits;
  uint64_t lo = 0, hi = 0;
  Tnum t;
  switch (op) {
    case AluOp::bit_or:
      t = tnum::bit_or(ta, tb);
      if (w32) t = tnum::cast32(t);
      if ((t.value | t.mask) > 0x7fff'ffffu || max_of(a.umin, b.umin) > t.value) return false;
      out = tnum_low_result(t);
      return true;
    case AluOp::add:
      lo = a.umin + b.umin;
      hi = a.umax + b.umax;
      t = tnum::add(ta, tb);
      break;
    case AluOp::sub:
      if (a.umin < b.umax) return false;  // may be negative
      lo = a.umin - b.umax;
      hi = a.umax - b.umin;
      t = tnum::sub(ta, tb);
      break;
    default:
      hi = min_of(a.umax, b.umax);
      t = tnum::bit_and(ta, tb);
      break;
  }
  if (hi > 0x7fff'ffffu) return false;
  if (w32) t = tnum::cast32(t);
  out = finish_small(t, lo, hi);
  if (w32 && out.umax > kLow32) out = wide_low(0, kLow32);  // finish_small found it empty (above)
  return true;
}

}  // namespace


// ---------------------------------------------------------------------------
// Public API

// A range below 2^32 (a load of 1, 2 or 4 bytes, a length) comes out of
// the reduction without the rounds: the first round's sign sync makes the
// signed 64-bit bounds [lo, hi] (the negative piece is empty), 64 -> 32
// makes the low word's unsigned bounds [lo, hi]; below 2^31 the signed
// ones follow, the value is small, and the rest is finish_small of the
// unknown tnum; across 2^31 the low word's signed bounds stay full, the
// tnum becomes range(lo, hi) = the low word unknown, and the value is
// wide-low (is_wide_low), its own reduction. (scalar_test checks both
// against the full reduction.)
Scalar Scalar::from_urange(uint64_t lo, uint64_t hi) {
  if (lo <= hi && lo <= 0x7fff'ffffu) {
    if (hi <= 0x7fff'ffffu) return finish_small(Tnum::unknown(), lo, hi);
    if (hi <= kLow32) return wide_low(lo, hi);
  }
  Scalar s;
  s.umin = lo;
  s.umax = hi;
  return finish64(s);
}

Scalar Scalar::from_srange(int64_t lo, int64_t hi) {
  Scalar s;
  s.smin = lo;
  s.smax = hi;
  return finish64(s);
}

Scalar Scalar::from_tnum(Tnum t) {
  Scalar s;
  s.bits = t;
  if (tnum_bounds_low(s)) return tnum_low_result(t);  // its reduction, directly
  return finish64(s);
}

Scalar alu(AluOp op, Width w, const Scalar& dst, const Scalar& src) {
  uint64_t folded = 0;
  if (dst.bits.is_const() && src.bits.is_const() && fold(op, w, dst.bits.value, src.bits.value, folded) &&
      dst == Scalar::constant(dst.bits.value) && src == Scalar::constant(src.bits.value))
    return Scalar::constant(folded);
  // alu64 and alu32 hand shifts to shift() before any other work.
  if (op == AluOp::lsh || op == AluOp::rsh || op == AluOp::arsh) return shift(op, w, dst, src);
  if (w == Width::w64 && op == AluOp::mov) return src;  // as alu64 does, without its set-up
  Scalar small;
  if (small_alu(op, w, dst, src, small)) return small;
  return alu_full(op, w, dst, src);
}

Scalar alu_full(AluOp op, Width w, const Scalar& dst, const Scalar& src) {
  return w == Width::w64 ? alu64(op, dst, src) : alu32(op, dst, src);
}

// A small range a (is_small) with a non-constant tnum, plus or minus a
// constant c < 2^31 whose result [lo, hi] stays in [0, 2^31): alu() takes
// no fold (a's tnum is not constant) and hands it to small_alu, which
// gives finish_small(t, lo, hi) with t = a.bits +/- c (tnum::add, sub).
// When t has lo and hi as members (it does when a's bounds are members of
// a's tnum, as in every reduced small range: the tnum sum of members is a
// member), finish_small's first small round intersects t with
// range(lo, hi) (no known bit disagrees: both hold lo), the meet keeps lo
// and hi as members (a tnum meet holds exactly the common members), so
// the member searches return lo and hi; neither bound moved, the rounds
// stop, and the result is set_small of that meet and [lo, hi]. A constant
// t cannot occur (its mask includes a's). (scalar_test's
// ImmediateAddSubMatchesAlu compares it with alu() and alu_full.)
namespace {
KEEL_HOT bool small_imm64(bool add, const Scalar& a, uint64_t c, Scalar& out) {
  if (c > 0x7fff'ffffu || a.bits.is_const() || !is_small(a) || (!add && a.umin < c)) return false;
  const uint64_t lo = add ? a.umin + c : a.umin - c, hi = add ? a.umax + c : a.umax - c;
  const Tnum t = add ? tnum::add(a.bits, Tnum::constant(c)) : tnum::sub(a.bits, Tnum::constant(c));
  Tnum m;
  if (hi > 0x7fff'ffffu || !t.contains(lo) || !t.contains(hi) || !tnum::intersect(t, tnum::range(lo, hi), m))
    return false;
  set_small(out, m, lo, hi);
  return true;
}
}  // namespace

Scalar alu64_imm(AluOp op, const Scalar& a, uint64_t c) {
  Scalar out;
  if ((op == AluOp::add || op == AluOp::sub) && small_imm64(op == AluOp::add, a, c, out)) return out;
  return alu(op, Width::w64, a, Scalar::constant(c));
}

// alu() with src = Scalar::constant(c): its fold (src is in constant
// form, so only dst's form is asked), then shift(), where shift_amounts
// of a constant c has the one candidate c & (bits - 1): its tnum is that
// constant, and [lo, hi] is [c, c] when c (resp. its low word) is below
// the width, else [0, bits - 1]; either way the candidate lies inside,
// and shift() returns shift_const of it. (scalar_test's
// ShiftByAnImmediateMatchesAlu compares it with alu().)
Scalar shift_imm(AluOp op, Width w, const Scalar& a, uint64_t c) {
  uint64_t folded = 0;
  if (a.bits.is_const() && fold(op, w, a.bits.value, c, folded) && a == Scalar::constant(a.bits.value))
    return Scalar::constant(folded);
  bool fixpoint = false;
  return shift_const(op, w, a, static_cast<unsigned>(c & (w == Width::w64 ? 63 : 31)), fixpoint);
}

Scalar neg(Width w, const Scalar& dst) { return alu(AluOp::sub, w, Scalar::constant(0), dst); }

Scalar zext32(const Scalar& s) { return make32(s.bits, r32(s)); }

// The tnum sign-extends exactly. The bounds do too when the low `from_bits`
// bits, read as signed, are known to lie in a range: for 32 that is the s32
// range; for 8 and 16, an s32 range that fits in the narrower signed type
// (then the low word is that small signed number already).
Scalar movsx(Width w, unsigned from_bits, const Scalar& src) {
  if (from_bits != 8 && from_bits != 16) from_bits = 32;
  Scalar r;
  r.bits = tnum::sext(src.bits, from_bits);
  const int64_t lim = int64_t{1} << (from_bits - 1);
  r.smin = -lim;
  r.smax = lim - 1;
  if (from_bits == 32 || (src.s32_min >= -lim && src.s32_max < lim)) {
    r.smin = src.s32_min;
    r.smax = src.s32_max;
    r.s32_min = src.s32_min;
    r.s32_max = src.s32_max;
  }
  r = finish64(r);
  return w == Width::w64 ? r : zext32(r);
}

Scalar to_le(unsigned bits, const Scalar& dst) {
  if (bits >= 64) return dst;
  const Scalar z = zext32(dst);
  if (bits == 32 || z.umax <= 0xffff) return z;
  // FIXME: a wider value's low half gets bounds only from the tnum.
  return Scalar::from_tnum(Tnum{dst.bits.value & 0xffff, dst.bits.mask & 0xffff});
}

// A byte permutation: exact on the tnum; the bounds follow from it.
// FIXME: bounds are only what the swapped tnum implies (as in Linux).
Scalar bswap(unsigned bits, const Scalar& dst) { return Scalar::from_tnum(tnum::bswap(dst.bits, bits)); }

Scalar alu(Op op, const Scalar& dst, const Scalar& src) {
  switch (op) {
#define KEEL_DOMAIN_ALU(name, alu_op)                          \
  case Op::name##64_imm:                                       \
  case Op::name##64_reg:                                       \
    return alu(AluOp::alu_op, Width::w64, dst, src);           \
  case Op::name##32_imm:                                       \
  case Op::name##32_reg:                                       \
    return alu(AluOp::alu_op, Width::w32, dst, src);
    KEEL_DOMAIN_ALU(add, add)
    KEEL_DOMAIN_ALU(sub, sub)
    KEEL_DOMAIN_ALU(mul, mul)
    KEEL_DOMAIN_ALU(div, div)
    KEEL_DOMAIN_ALU(sdiv, sdiv)
    KEEL_DOMAIN_ALU(or, bit_or)
    KEEL_DOMAIN_ALU(and, bit_and)
    KEEL_DOMAIN_ALU(lsh, lsh)
    KEEL_DOMAIN_ALU(rsh, rsh)
    KEEL_DOMAIN_ALU(mod, mod)
    KEEL_DOMAIN_ALU(smod, smod)
    KEEL_DOMAIN_ALU(xor, bit_xor)
    KEEL_DOMAIN_ALU(mov, mov)
    KEEL_DOMAIN_ALU(arsh, arsh)
#undef KEEL_DOMAIN_ALU
    case Op::neg64: return neg(Width::w64, dst);
    case Op::neg32: return neg(Width::w32, dst);
    case Op::movsx64_8: return movsx(Width::w64, 8, src);
    case Op::movsx64_16: return movsx(Width::w64, 16, src);
    case Op::movsx64_32: return movsx(Width::w64, 32, src);
    case Op::movsx32_8: return movsx(Width::w32, 8, src);
    case Op::movsx32_16: return movsx(Width::w32, 16, src);
    case Op::le16: return to_le(16, dst);
    case Op::le32: return to_le(32, dst);
    case Op::le64: return to_le(64, dst);
    case Op::be16: return to_be(16, dst);
    case Op::be32: return to_be(32, dst);
    case Op::be64: return to_be(64, dst);
    case Op::bswap16: return bswap(16, dst);
    case Op::bswap32: return bswap(32, dst);
    case Op::bswap64: return bswap(64, dst);
    default: return Scalar::unknown();  // not an ALU operation
  }
}

// The join of two small ranges (see is_small) is the small range of their
// hull: every one of join_full's component-wise bounds is min(lo) or
// max(hi), so its raw value is the small range [min lo, max hi] with the
// joined tnum, and finish64 of that is finish_small. (scalar_test checks it
// against join_full.)
Scalar join(const Scalar& a, const Scalar& b) {
  if (is_small(a) && is_small(b))
    return finish_small(tnum::join(a.bits, b.bits), min_of(a.umin, b.umin), max_of(a.umax, b.umax));
  return join_full(a, b);
}

Scalar join_full(const Scalar& a, const Scalar& b) { return finish64(hull(a, b)); }

// join(v, v): a constant or the unknown value reduce to themselves
// (reduce_inline's first two cases); a wide-low value too (its third);
// a small range goes to finish_small(v.bits, lo, hi), which for a
// non-constant tnum within range(lo, hi) that has lo and hi as members
// stops after one small round that changes nothing, and so rebuilds v.
bool joins_to_itself(const Scalar& v) {
  if (v.bits.is_const()) return v == Scalar::constant(v.bits.value);
  if (v == Scalar::unknown() || is_wide_low(v)) return true;
  return is_small(v) && tnum::subset(v.bits, tnum::range(v.umin, v.umax)) && v.bits.contains(v.umin) &&
         v.bits.contains(v.umax);
}

Scalar widen(const Scalar& prev, const Scalar& next) {
  Scalar r;  // every bound starts at its extreme
  r.bits = tnum::join(prev.bits, next.bits);
  if (next.umin >= prev.umin) r.umin = prev.umin;
  if (next.umax <= prev.umax) r.umax = prev.umax;
  if (next.smin >= prev.smin) r.smin = prev.smin;
  if (next.smax <= prev.smax) r.smax = prev.smax;
  if (next.u32_min >= prev.u32_min) r.u32_min = prev.u32_min;
  if (next.u32_max <= prev.u32_max) r.u32_max = prev.u32_max;
  if (next.s32_min >= prev.s32_min) r.s32_min = prev.s32_min;
  if (next.s32_max <= prev.s32_max) r.s32_max = prev.s32_max;
  return r;
}

bool leq(const Scalar& a, const Scalar& b) {
  return tnum::subset(a.bits, b.bits) && a.umin >= b.umin && a.umax <= b.umax && a.smin >= b.smin &&
         a.smax <= b.smax && a.u32_min >= b.u32_min && a.u32_max <= b.u32_max && a.s32_min >= b.s32_min &&
         a.s32_max <= b.s32_max;
}

}  // namespace keel
