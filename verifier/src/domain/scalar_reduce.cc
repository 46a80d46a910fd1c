// The scalar domain's reduction (scalar.h reduce()): the steps that make
// the tnum, the 64-bit and the 32-bit intervals agree, each sound on its
// own, run in rounds until nothing changes.
#include "domain/scalar.h"

#include "domain/scalar_parts.h"

namespace keel {
namespace {

using namespace scalar_parts;

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
KEEL_HOT bool sync_sign(WidthLimits w, Range& r) {
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

// The remaining `rounds` rounds of reduce() on a small range. Two rounds
// always reach a fixpoint of the small round: after the first, lo and hi
// are members of t, and they lie in range(lo, hi), so the second meet
// keeps them members and moves neither bound; the loop then stops, and
// a third round would meet t with the same range(lo, hi) again and find
// the same members (the first round may already move no bound: then t
// lies within range(lo, hi) after it, and the same holds).
bool reduce_small_range(Scalar& s, int rounds) {
  uint64_t lo = s.umin, hi = s.umax;
  Tnum t = s.bits;
  if (!small_rounds(t, lo, hi, rounds)) return false;
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

// ---------------------------------------------------------------------------
// Settled values: the checks of a round without its work

// sync_sign(w, r) leaves r as it is: ordered bounds, and in the one-piece
// case the signed bounds read as unsigned are the unsigned ones (l = umin,
// h = umax); in the crossing case both signed ends lie within [umin, umax]
// (both pieces non-empty, l1 = to_u(smin), h0 = to_u(smax), h1 = umax as
// umax <= w.umax), so the result {umin, umax, smin, smax} is r again.
KEEL_HOT bool sign_settled(WidthLimits w, Range r) {
  if (r.umin > r.umax || r.smin > r.smax) return false;
  const uint64_t lo = to_u(w, r.smin), hi = to_u(w, r.smax);
  if (r.smin >= 0 || r.smax < 0) return lo == r.umin && hi == r.umax;
  return r.umin <= lo && lo <= r.umax && r.umin <= hi && hi <= r.umax;
}

// narrow_by_circle32(r32, lo64, span) leaves r32 as it is: each meet it
// would take already holds.
KEEL_HOT bool circle32_settled(Range r32, uint64_t lo64, uint64_t span) {
  if (span > kLow32) return true;
  const uint64_t lo = lo64 & kLow32, hi = (lo64 + span) & kLow32;
  if (lo <= hi && (r32.umin < lo || r32.umax > hi)) return false;
  const int64_t slo = to_s(k32, lo), shi = to_s(k32, hi);
  return slo > shi || (r32.smin >= slo && r32.smax <= shi);
}

// tighten_to_circle(r, a, b) leaves r as it is: every bound's low word is
// in the circle already (raise_to_low_set and lower_to_low_set keep it).
KEEL_HOT bool low_words_settled(Range r, uint32_t a, uint32_t b) {
  if (static_cast<uint32_t>(b - a) == 0xffff'ffffu) return true;
  return in_circle(static_cast<uint32_t>(r.umin), a, b) && in_circle(static_cast<uint32_t>(r.umax), a, b) &&
         in_circle(static_cast<uint32_t>(r.smin), a, b) && in_circle(static_cast<uint32_t>(r.smax), a, b);
}

// settled() below, inline in reduce_rounds.
KEEL_HOT bool settled_inline(const Scalar& s) {
  const Range a = r64(s), b = r32(s);
  const Tnum t = s.bits;
  if (!sign_settled(k64, a) || !sign_settled(k32, b)) return false;
  const uint64_t su = static_cast<uint64_t>(a.smin), sv = static_cast<uint64_t>(a.smax);
  const uint64_t s32u = to_u(k32, b.smin), s32v = to_u(k32, b.smax);
  const uint64_t mask32 = t.mask & kLow32, value32 = t.value & kLow32;
  if ((a.umin & ~t.mask) != t.value || (a.umax & ~t.mask) != t.value || (su & ~t.mask) != t.value ||
      (sv & ~t.mask) != t.value)
    return false;
  if ((b.umin & ~mask32) != value32 || (b.umax & ~mask32) != value32 || (s32u & ~mask32) != value32 ||
      (s32v & ~mask32) != value32)
    return false;
  if (!mask_within(t.mask, a.umin ^ a.umax) || !mask_within(mask32, b.umin ^ b.umax)) return false;
  return circle32_settled(b, a.umin, uspan(a)) && circle32_settled(b, su, sspan(a)) &&
         low_words_settled(a, static_cast<uint32_t>(b.umin), static_cast<uint32_t>(b.umax)) &&
         low_words_settled(a, static_cast<uint32_t>(b.smin), static_cast<uint32_t>(b.smax));
}

}  // namespace

// True when reduce_round(s) would change nothing and report `stable`, for
// a value that is not small (reduce_rounds asks is_small first; a small
// one takes small_round instead). Step by step: the sign syncs and
// 64 -> 32 leave a and b as they are (sign_settled, circle32_settled; the
// second k32 sync then sees the same b), so do 32 -> 64 and the k64 sync
// after it (low_words_settled; the bounds are ordered); every bound is a
// member of t, resp. of its low word (for the 32-bit signed bounds, x ^
// 2^31 is a member of the flipped tnum iff x is one of t32), so every
// member search returns the bound itself (and t has no value bit under
// its mask, or no bound would be a member); each bounds -> tnum meet
// leaves t (mask_within). One test per width covers both of its meets:
// after sign_settled the signed ends read as unsigned are the unsigned
// ones (one piece), or both intervals have ends differing in the top bit
// (crossing: umin <= to_u(smax) < 2^(w-1) <= to_u(smin) <= umax), where
// the round skips the meet and mask_within holds anyway.
// The round then writes back what it read, and a == a_early, b == b_mid.
// About half of the values reduced on the corpus are such (an ALU result
// or a join that is consistent already), and so is the value after most
// rounds that report `again`; the checks cost well under a round.
bool scalar_parts::settled(const Scalar& s) { return settled_inline(s); }

// Each round is sound on its own (every step only removes non-members), so
// stopping after a bounded number of rounds is sound; in practice the value
// is stable after one or two. At most 8 rounds, as first written; a value
// that becomes a small range finishes its remaining rounds on the shortcut.
// Out of line, so that reduce()'s shortcuts need no stack frame.
// The result is a fixpoint when a round was found to change nothing
// (settled, or `stable`: see reduce_round) and when at least two small
// rounds were left (reduce_small_range); only the round limit leaves a
// value that another round might narrow.
[[gnu::noinline]] scalar_parts::Reduced scalar_parts::reduce_rounds(Scalar& s) {
  for (int round = 0; round < 8; ++round) {
    if (is_small(s)) {
      if (!reduce_small_range(s, 8 - round)) return Reduced::empty;
      return round <= 6 ? Reduced::fixpoint : Reduced::stopped;
    }
    if (settled_inline(s)) return Reduced::fixpoint;  // the round would change nothing (settled)
    switch (reduce_round(s)) {
      case Round::empty: return Reduced::empty;
      case Round::stable: return Reduced::fixpoint;
      case Round::again: break;
    }
  }
  return Reduced::stopped;
}

bool reduce(Scalar& s) { return scalar_parts::reduce_inline(s); }

}  // namespace keel
