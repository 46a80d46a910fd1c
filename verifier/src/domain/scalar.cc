// The scalar domain (scalar.h): interval transfer functions written once for
// a width of 32 or 64 bits, the tnum ones from tnum.h, and the reduction that
// makes the product consistent. Soundness arguments are next to each rule;
// every function is free of UB for all inputs (no shift >= 64, no signed
// overflow, no division by zero or INT_MIN / -1 in C++).
#include "domain/scalar.h"

#include "isa/semantics.h"

namespace keel {
namespace {

// The small helpers of the reduction and of the common transfer functions
// run several times per operation; inlined with a constant width they fold
// to a few instructions each (a call costs more than most of them).
#define KEEL_HOT [[gnu::always_inline]] inline

constexpr uint64_t kLow32 = 0xffff'ffffu;

// A width: 64 bits, or the low 32 bits held in 64-bit variables (unsigned
// values in [0, 2^32), signed values in [INT32_MIN, INT32_MAX]).
struct Wd {
  unsigned bits;
  uint64_t umax;
  int64_t smin, smax;
};
constexpr Wd k64{64, UINT64_MAX, INT64_MIN, INT64_MAX};
constexpr Wd k32{32, UINT32_MAX, INT32_MIN, INT32_MAX};

KEEL_HOT uint64_t trunc(Wd w, uint64_t x) { return x & w.umax; }
// The signed reading of a w-bit pattern, and back.
KEEL_HOT int64_t to_s(Wd w, uint64_t x) {
  return w.bits == 64 ? static_cast<int64_t>(x)
                      : static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(x)));
}
KEEL_HOT uint64_t to_u(Wd w, int64_t s) { return static_cast<uint64_t>(s) & w.umax; }

template <class T>
KEEL_HOT T min_of(T a, T b) { return a < b ? a : b; }
template <class T>
KEEL_HOT T max_of(T a, T b) { return a < b ? b : a; }

// The interval half of the domain at one width.
struct Range {
  uint64_t umin, umax;
  int64_t smin, smax;
};

KEEL_HOT Range full(Wd w) { return {0, w.umax, w.smin, w.smax}; }
KEEL_HOT Range exact(Wd w, uint64_t x) { return {trunc(w, x), trunc(w, x), to_s(w, x), to_s(w, x)}; }
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

// ---------------------------------------------------------------------------
// Reduction

// Signed <-> unsigned at one width, exactly: the set is U ∩ S where U is the
// unsigned interval and S the signed one read as at most two unsigned pieces
// ([smin, smax] crossing zero is [0, smax] ∪ [2^w + smin, 2^w - 1]). The
// intersection is at most two unsigned intervals, none crossing 2^(w-1)
// (S's pieces do not), so each is also a signed interval; their unsigned
// hull and their signed hull are the tightest intervals containing U ∩ S.
//
// Written out piece by piece (rather than as a loop over the pieces) because
// every reduction round runs it three times: with w a constant it folds to
// a few compares.
KEEL_HOT bool sync_sign(Wd w, Range& r) {
  if (r.umin > r.umax || r.smin > r.smax) return false;
  if (r.smin >= 0 || r.smax < 0) {  // one piece
    const uint64_t l = max_of(to_u(w, r.smin), r.umin), h = min_of(to_u(w, r.smax), r.umax);
    if (l > h) return false;
    r = {l, h, to_s(w, l), to_s(w, h)};
    return true;
  }
  // Piece 0 = U ∩ [0, smax] holds non-negative values, piece 1 = U ∩
  // [2^w + smin, 2^w - 1] negative ones, so when both are non-empty the
  // unsigned hull runs from piece 0 to piece 1 and the signed one back.
  const uint64_t l0 = r.umin, h0 = min_of(to_u(w, r.smax), r.umax);
  const uint64_t l1 = max_of(to_u(w, r.smin), r.umin), h1 = min_of(w.umax, r.umax);
  if (l0 <= h0 && l1 <= h1) {
    r = {l0, h1, to_s(w, l1), to_s(w, h0)};
  } else if (l0 <= h0) {
    r = {l0, h0, to_s(w, l0), to_s(w, h0)};
  } else if (l1 <= h1) {
    r = {l1, h1, to_s(w, l1), to_s(w, h1)};
  } else {
    return false;
  }
  return true;
}

// The low 32 bits of the values lo, lo+1, ..., lo+span (mod 2^32) when span
// < 2^32 form the circular interval [lo, hi]: an unsigned interval when it
// does not pass 2^32-1 -> 0 (lo <= hi) and a signed one when it does not pass
// INT32_MAX -> INT32_MIN (int32(lo) <= int32(hi)).
KEEL_HOT void narrow_by_circle32(Range& r32, uint64_t lo64, uint64_t span) {
  if (span > kLow32) return;
  const uint64_t lo = lo64 & kLow32, hi = (lo64 + span) & kLow32;
  if (lo <= hi) r32 = meet(r32, Range{lo, hi, r32.smin, r32.smax});
  if (to_s(k32, lo) <= to_s(k32, hi)) r32 = meet(r32, Range{r32.umin, r32.umax, to_s(k32, lo), to_s(k32, hi)});
}

KEEL_HOT bool in_circle(uint32_t x, uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(x - a) <= static_cast<uint32_t>(b - a);
}

// The least x' >= x (unsigned or, if `is_signed`, signed order) whose low 32
// bits lie in the circular interval [a, b]. Both orders compare the upper
// word first (signed or unsigned) and the low word unsigned, so: if x's low
// word is outside, walking up from it the first member is a — in the same
// upper word when a is above it, else in the next one.
KEEL_HOT bool raise_to_low_set(uint64_t& x, uint32_t a, uint32_t b, bool is_signed) {
  const uint32_t low = static_cast<uint32_t>(x), high = static_cast<uint32_t>(x >> 32);
  if (in_circle(low, a, b)) return true;
  if (a > low) {
    x = (uint64_t{high} << 32) | a;
    return true;
  }
  if (high == (is_signed ? 0x7fff'ffffu : 0xffff'ffffu)) return false;
  x = (uint64_t{static_cast<uint32_t>(high + 1)} << 32) | a;
  return true;
}

// The mirror image: the greatest x' <= x whose low word lies in [a, b].
KEEL_HOT bool lower_to_low_set(uint64_t& x, uint32_t a, uint32_t b, bool is_signed) {
  const uint32_t low = static_cast<uint32_t>(x), high = static_cast<uint32_t>(x >> 32);
  if (in_circle(low, a, b)) return true;
  if (b < low) {
    x = (uint64_t{high} << 32) | b;
    return true;
  }
  if (high == (is_signed ? 0x8000'0000u : 0u)) return false;
  x = (uint64_t{static_cast<uint32_t>(high - 1)} << 32) | b;
  return true;
}

// Moves each 64-bit bound to the nearest value whose low word is allowed by
// the 32-bit bounds (each of which is a circular interval of low words).
// A full circle (the 32-bit bounds of an unknown low word) allows every low
// word, so it is skipped: the common case costs two compares.
KEEL_HOT bool tighten_to_circle(Range& r, uint32_t a, uint32_t b) {
  if (static_cast<uint32_t>(b - a) == 0xffff'ffffu) return true;
  uint64_t smin = static_cast<uint64_t>(r.smin), smax = static_cast<uint64_t>(r.smax);
  if (!raise_to_low_set(r.umin, a, b, false) || !lower_to_low_set(r.umax, a, b, false) ||
      !raise_to_low_set(smin, a, b, true) || !lower_to_low_set(smax, a, b, true))
    return false;
  r.smin = static_cast<int64_t>(smin);
  r.smax = static_cast<int64_t>(smax);
  return true;
}

KEEL_HOT bool tighten64_from32(Range& r, Range r32) {
  return tighten_to_circle(r, static_cast<uint32_t>(r32.umin), static_cast<uint32_t>(r32.umax)) &&
         tighten_to_circle(r, static_cast<uint32_t>(r32.smin), static_cast<uint32_t>(r32.smax)) &&
         r.umin <= r.umax && r.smin <= r.smax;
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

// False when empty; else t, lo and hi are the round's results.
KEEL_HOT bool small_round(Tnum& t, uint64_t& lo, uint64_t& hi) {
  return tnum::intersect(t, tnum::range(lo, hi), t) && tnum::min_member_at_least(t, lo, lo) &&
         tnum::max_member_at_most(t, hi, hi) && lo <= hi;
}

KEEL_HOT void set_small(Scalar& s, Tnum t, uint64_t lo, uint64_t hi) {
  s.bits = t;
  s.umin = s.u32_min = static_cast<uint32_t>(lo);
  s.umax = s.u32_max = static_cast<uint32_t>(hi);
  s.smin = s.s32_min = static_cast<int32_t>(lo);
  s.smax = s.s32_max = static_cast<int32_t>(hi);
}

// The remaining `rounds` rounds of reduce() on a small range.
bool reduce_small_range(Scalar& s, int rounds) {
  uint64_t lo = s.umin, hi = s.umax;
  Tnum t = s.bits;
  for (int round = 0; round < rounds; ++round) {
    const uint64_t lo0 = lo, hi0 = hi;
    if (!small_round(t, lo, hi)) return false;
    if (lo == lo0 && hi == hi0) break;
  }
  set_small(s, t, lo, hi);
  return true;
}

enum class Round : uint8_t { empty, stable, again };

// One round: sign sync, 64 -> 32, 32 -> 64, bounds -> tnum, tnum -> bounds.
// Every step is idempotent and reads only what the steps before it wrote,
// except two "late" steps whose output earlier steps read: 32 -> 64
// (tighten64_from32 and its sign sync) and tnum -> bounds. When neither
// changed anything, a second round would see every step's input unchanged
// and change nothing, so the round reports `stable` and reduce() stops
// without running it (the result is the one the full loop reaches).
KEEL_HOT Round reduce_round(Scalar& s) {
  Range a = r64(s), b = r32(s);
  if (!sync_sign(k64, a) || !sync_sign(k32, b)) return Round::empty;
  // 64 -> 32 from each 64-bit interval, then 32 -> 64.
  narrow_by_circle32(b, a.umin, uspan(a));
  narrow_by_circle32(b, static_cast<uint64_t>(a.smin), sspan(a));
  if (!sync_sign(k32, b)) return Round::empty;
  const Range a_early = a;
  if (!tighten64_from32(a, b) || !sync_sign(k64, a)) return Round::empty;
  if (is_small(a, b)) {  // the rest of the round is small_round()
    uint64_t lo = a.umin, hi = a.umax;
    Tnum t = s.bits;
    if (!small_round(t, lo, hi)) return Round::empty;
    set_small(s, t, lo, hi);
    return lo == a.umin && hi == a.umax && same(a, a_early) ? Round::stable : Round::again;
  }

  // Bounds -> tnum: the meet with the smallest tnum of each interval. One
  // whose ends differ in the width's top bit has every bit unknown, and so
  // has a signed interval that crosses zero (its negative part has the top
  // bits 1 and ends at all-ones, its non-negative part has them 0: their
  // join knows no bit); meeting with an unknown tnum changes nothing, so
  // those meets are skipped.
  Tnum t = s.bits;
  if ((a.umin ^ a.umax) >> 63 == 0 && !tnum::intersect(t, tnum::range(a.umin, a.umax), t)) return Round::empty;
  if ((a.smin >= 0 || a.smax < 0) &&
      !tnum::intersect(t, tnum::range(to_u(k64, a.smin), to_u(k64, a.smax)), t))
    return Round::empty;
  if ((b.umin ^ b.umax) >> 31 == 0 && !tnum::intersect(t, widen_low(tnum::range(b.umin, b.umax)), t))
    return Round::empty;
  if ((b.smin >= 0 || b.smax < 0) &&
      !tnum::intersect(t, widen_low(tnum::range(to_u(k32, b.smin), to_u(k32, b.smax))), t))
    return Round::empty;

  // Tnum -> bounds: each bound moves to the nearest member of the tnum.
  // (Skipped at a width where the tnum knows no bit: every bound is a
  // member, and the bounds are ordered since the sign syncs.)
  const Range b_mid = b;
  if (t.mask != ~uint64_t{0}) {
    if (!tnum::min_member_at_least(t, a.umin, a.umin) || !tnum::max_member_at_most(t, a.umax, a.umax) ||
        !tnum::smin_member_at_least(t, a.smin, a.smin) || !tnum::smax_member_at_most(t, a.smax, a.smax))
      return Round::empty;
    if (a.umin > a.umax || a.smin > a.smax) return Round::empty;
  }
  // The low word: the cast tnum has upper bits known 0, so its members (and
  // the bounds found) stay below 2^32. Flipping bit 31 maps the 32-bit
  // signed order onto the unsigned one.
  const Tnum t32 = tnum::cast32(t);
  if (t32.mask != kLow32) {
    const uint64_t s31 = uint64_t{1} << 31;
    const Tnum t32f{t32.value ^ (s31 & ~t32.mask), t32.mask};
    uint64_t slo = 0, shi = 0;
    if (!tnum::min_member_at_least(t32, b.umin, b.umin) || !tnum::max_member_at_most(t32, b.umax, b.umax) ||
        !tnum::min_member_at_least(t32f, to_u(k32, b.smin) ^ s31, slo) ||
        !tnum::max_member_at_most(t32f, to_u(k32, b.smax) ^ s31, shi))
      return Round::empty;
    b.smin = to_s(k32, slo ^ s31);
    b.smax = to_s(k32, shi ^ s31);
    if (b.umin > b.umax || b.smin > b.smax) return Round::empty;
  }

  s.bits = t;
  set64(s, a);
  set32(s, b);
  return same(a, a_early) && same(b, b_mid) ? Round::stable : Round::again;
}

// Each round is sound on its own (every step only removes non-members), so
// stopping after a bounded number of rounds is sound; in practice the value
// is stable after one or two. At most 8 rounds, as first written; a value
// that becomes a small range finishes its remaining rounds on the shortcut.
// Out of line, so that reduce()'s shortcuts need no stack frame.
[[gnu::noinline]] bool reduce_rounds(Scalar& s) {
  for (int round = 0; round < 8; ++round) {
    if (is_small(r64(s), r32(s))) return reduce_small_range(s, 8 - round);
    switch (reduce_round(s)) {
      case Round::empty: return false;
      case Round::stable: return true;
      case Round::again: break;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Interval transfer functions at width w. Each returns an interval pair that
// contains every result; the tnum half is computed separately and reduce()
// combines them.

// The values lo, lo+1, ..., lo+span (mod 2^w) with span < 2^w: an unsigned
// interval unless they pass 2^w-1 -> 0, a signed one unless they pass the
// signed maximum.
KEEL_HOT Range circle(Wd w, uint64_t lo, uint64_t span) {
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
KEEL_HOT Range add_r(Wd w, Range a, Range b) {
  Range r = full(w);
  uint64_t span = 0;
  if (!__builtin_add_overflow(uspan(a), uspan(b), &span)) r = meet(r, circle(w, a.umin + b.umin, span));
  if (!__builtin_add_overflow(sspan(a), sspan(b), &span))
    r = meet(r, circle(w, to_u(w, a.smin) + to_u(w, b.smin), span));
  return r;
}

// a - b lies in the circle from a.min - b.max of the same length.
KEEL_HOT Range sub_r(Wd w, Range a, Range b) {
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
Range mul_r(Wd w, Range a, Range b) {
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
Range div_r(Wd w, Range a, Range b) {
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
Range sdiv_r(Wd w, Range a, Range b) {
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
Range mod_r(Wd w, Range a, Range b) {
  Range r = full(w);
  r.umax = b.umin == 0 ? a.umax : min_of(a.umax, b.umax - 1);
  return r;
}

// Signed remainder: |r| <= |a|, |r| < |d| and r has the sign of a (or is
// 0). M is the largest |d| over the possible non-zero divisors; |INT_MIN|
// is computed in unsigned arithmetic. d = 0 leaves a.
// FIXME: r == a when |a| < min |d| is not used (mod uses the unsigned one).
Range smod_r(Wd w, Range a, Range b) {
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
KEEL_HOT Range and_r(Wd w, Range a, Range b) {
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
KEEL_HOT Range or_r(Wd w, Range a, Range b) {
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
KEEL_HOT Range lsh_r(Wd w, Range a, unsigned k) {
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

KEEL_HOT Range rsh_r(Wd w, Range a, unsigned k) {
  if (k == 0) return a;
  Range r = full(w);
  r.umin = a.umin >> k;
  r.umax = a.umax >> k;
  return r;
}

// Values of a 32-bit width are kept sign-extended in int64, so an int64
// arithmetic shift is the 32-bit one.
KEEL_HOT Range arsh_r(Wd w, Range a, unsigned k) {
  if (k == 0) return a;
  Range r = full(w);
  r.smin = a.smin >> k;
  r.smax = a.smax >> k;
  return r;
}

// ---------------------------------------------------------------------------
// Assembling results

// A reduction of a sound result never finds it empty; if a bug made it so,
// answer the top of the result's type rather than bottom.
Scalar finish64(Scalar s) { return reduce(s) ? s : Scalar::unknown(); }

Scalar make64(Tnum t, Range a, Range b) {
  Scalar s;
  s.bits = t;
  set64(s, a);
  set32(s, b);
  return finish64(s);
}

// An ALU32 result: the low word is t / b, the upper word is zero.
Scalar make32(Tnum t, Range b) {
  Scalar s;
  s.bits = tnum::cast32(t);
  set32(s, b);
  // The upper word is zero, so the 64-bit bounds are [0, 2^32 - 1] — or,
  // when the low word is a small range (see is_small), that range: the
  // first reduction round would move them there (tighten64_from32) and
  // continue as small_round(), so starting there gives the same result.
  const Range low = r32(s);
  set64(s, is_small(low, low) ? low : Range{0, kLow32, 0, static_cast<int64_t>(kLow32)});
  if (reduce(s)) return s;
  s = Scalar::unknown();
  s.bits = Tnum{0, kLow32};
  s.umax = kLow32;
  s.smin = 0;
  s.smax = static_cast<int64_t>(kLow32);
  return s;
}

bool is_power_of_two(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

Scalar shift_const(AluOp op, Width w, const Scalar& a, unsigned k) {
  if (w == Width::w64) {
    switch (op) {
      case AluOp::lsh:
        return make64(tnum::lsh(a.bits, k), lsh_r(k64, r64(a), k),
                      k < 32 ? lsh_r(k32, r32(a), k) : exact(k32, 0));
      case AluOp::rsh:
        return make64(tnum::rsh(a.bits, k), rsh_r(k64, r64(a), k), k == 0 ? r32(a) : full(k32));
      default:
        return make64(tnum::arsh(a.bits, k), arsh_r(k64, r64(a), k), k == 0 ? r32(a) : full(k32));
    }
  }
  switch (op) {
    case AluOp::lsh:
      return make32(tnum::lsh(tnum::cast32(a.bits), k), lsh_r(k32, r32(a), k));
    case AluOp::rsh:
      return make32(tnum::rsh(tnum::cast32(a.bits), k), rsh_r(k32, r32(a), k));
    default:
      return make32(tnum::arsh(tnum::sext(a.bits, 32), k), arsh_r(k32, r32(a), k));
  }
}

// The ISA masks the amount to 63 / 31 at run time (RFC 9669 §4.1), so the
// result is the join over every amount k the masked src can take: a member
// of src's tnum & mask, and within src's bounds when those are below the
// width (then masking changes nothing).
Scalar shift(AluOp op, Width w, const Scalar& a, const Scalar& b) {
  const unsigned bits = w == Width::w64 ? 64 : 32;
  const Tnum amount = tnum::bit_and(b.bits, Tnum::constant(bits - 1));
  uint64_t lo = 0, hi = bits - 1;
  if (w == Width::w64 && b.umax < 64) {
    lo = b.umin;
    hi = b.umax;
  } else if (w == Width::w32 && b.u32_max < 32) {
    lo = b.u32_min;
    hi = b.u32_max;
  }
  Scalar out;
  bool any = false;
  uint64_t s = 0;
  do {
    const uint64_t k = amount.value | s;
    if (k >= lo && k <= hi) {
      const Scalar r = shift_const(op, w, a, static_cast<unsigned>(k));
      out = any ? join(out, r) : r;
      any = true;
    }
    s = (s - amount.mask) & amount.mask;  // next submask of the unknown bits
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
// result is make64 of it, without the general interval rules. (scalar_test
// checks it against alu_full.)
KEEL_HOT bool small_alu64(AluOp op, const Scalar& a, const Scalar& b, Scalar& out) {
  if (op != AluOp::add && op != AluOp::sub && op != AluOp::bit_and) return false;
  if (!is_small(r64(a), r32(a)) || !is_small(r64(b), r32(b))) return false;
  uint64_t lo = 0, hi = 0;
  Tnum t;
  switch (op) {
    case AluOp::add:
      lo = a.umin + b.umin;
      hi = a.umax + b.umax;
      t = tnum::add(a.bits, b.bits);
      break;
    case AluOp::sub:
      if (a.umin < b.umax) return false;  // may be negative
      lo = a.umin - b.umax;
      hi = a.umax - b.umin;
      t = tnum::sub(a.bits, b.bits);
      break;
    default:
      hi = min_of(a.umax, b.umax);
      t = tnum::bit_and(a.bits, b.bits);
      break;
  }
  if (hi > 0x7fff'ffffu) return false;
  const Range r{lo, hi, static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
  out = make64(t, r, r);
  return true;
}

// ---------------------------------------------------------------------------
// Branches

// The conditions left after negating a not-taken branch and swapping
// operands so that the interesting one is on the left.
enum class Cond : uint8_t { eq, ne, ugt, uge, sgt, sge, set, nset };

// Removes c from an interval pair when it is an endpoint (the only removal
// an interval can express); false when the pair holds nothing else.
bool exclude(Wd w, Range& r, uint64_t c) {
  const int64_t sc = to_s(w, c);
  if ((r.umin == c && r.umax == c) || (r.smin == sc && r.smax == sc)) return false;
  if (r.umin == c) ++r.umin;
  else if (r.umax == c) --r.umax;
  if (r.smin == sc) ++r.smin;
  else if (r.smax == sc) --r.smax;
  return true;
}

bool refine_cond(Cond c, Wd w, Range& a, Tnum& ta, Range& b, Tnum& tb) {
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

}  // namespace

// ---------------------------------------------------------------------------
// Public API

Scalar Scalar::from_urange(uint64_t lo, uint64_t hi) {
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
  return finish64(s);
}

bool reduce(Scalar& s) {
  // A known tnum leaves one candidate: the value is that constant or empty
  // (the rounds would find the same, bound by bound).
  if (s.bits.is_const()) {
    if (!s.contains(s.bits.value)) return false;
    s = Scalar::constant(s.bits.value);
    return true;
  }
  if (s == Scalar::unknown()) return true;  // nothing to tighten
  return reduce_rounds(s);
}

Scalar alu(AluOp op, Width w, const Scalar& dst, const Scalar& src) {
  uint64_t folded = 0;
  if (dst.bits.is_const() && src.bits.is_const() && fold(op, w, dst.bits.value, src.bits.value, folded) &&
      dst == Scalar::constant(dst.bits.value) && src == Scalar::constant(src.bits.value))
    return Scalar::constant(folded);
  if (w == Width::w64) {
    if (op == AluOp::mov) return src;  // as alu64 does, without its set-up
    Scalar small;
    if (small_alu64(op, dst, src, small)) return small;
  }
  return alu_full(op, w, dst, src);
}

Scalar alu_full(AluOp op, Width w, const Scalar& dst, const Scalar& src) {
  return w == Width::w64 ? alu64(op, dst, src) : alu32(op, dst, src);
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

bool refine(JmpOp op, Width w, bool taken, Scalar& a, Scalar& b) {
  if (both_constants(a, b)) return compare(op, w, a.bits.value, b.bits.value) == taken;  // a, b stay
  return refine_full(op, w, taken, a, b);
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
  }
  return reduce(*x) && reduce(*y);
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

Scalar join(const Scalar& a, const Scalar& b) {
  Scalar r;
  r.bits = tnum::join(a.bits, b.bits);
  set64(r, Range{min_of(a.umin, b.umin), max_of(a.umax, b.umax), min_of(a.smin, b.smin), max_of(a.smax, b.smax)});
  r.u32_min = min_of(a.u32_min, b.u32_min);
  r.u32_max = max_of(a.u32_max, b.u32_max);
  r.s32_min = min_of(a.s32_min, b.s32_min);
  r.s32_max = max_of(a.s32_max, b.s32_max);
  return finish64(r);
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
