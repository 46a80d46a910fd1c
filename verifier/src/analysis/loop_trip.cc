// Why the bounds below hold.
//
// Offset space. A W-bit value seen through a view (unsigned, or signed: two's
// complement) is mapped to its distance from the view's smallest value,
// o in [0, X] with X = 2^W - 1 (unsigned: o = v; signed: o = v + 2^(W-1),
// i.e. the sign bit flipped). The map is a translation modulo 2^W, so the
// counter's arithmetic (v + step mod 2^W) is the same arithmetic on offsets,
// and `a < b` in the view is `o(a) < o(b)` on plain unsigned numbers.
// A decreasing counter is mirrored, o' = X - o: still compatible with
// modular addition once steps are negated, and it turns > / >= into < / <=.
// So only an increasing counter is reasoned about.
//
// Tested values. Let W_k be the value the exit test sees on the k-th run of
// the header (k = 0 first), as an integer: W_0 in [w0.lo, w0.hi] within
// [0, X] (the first tested value, reduced modulo 2^W), and, as long as no
// wrap happened, W_{k+1} - W_k = step_k + (offset_{k+1} - offset_k), in
// [e_lo, e_hi] with e_lo = step_min - (offset_max - offset_min), e_hi
// likewise. Requiring e_lo >= 1 makes the tested value strictly increase.
//
// `stay while W < B` (le is W < b + 1, and so on). By induction: if W_k is
// in [0, X] (no wrap so far) and the test stays, W_k <= B.hi - 1, hence
// W_{k+1} <= B.hi - 1 + e_hi <= X (the no-wrap condition checked below,
// "b_max + s_max - 1 <= max") and W_{k+1} > W_k >= 0: still no wrap. So
// W_k >= w0.lo + k * e_lo on every run that stays, which bounds the last
// staying k by (B.hi - 1 - w0.lo) / e_lo; the header runs at most once more.
//
// `stay while W != b`: needs e_lo = e_hi = 1, so W_k = W_0 + k (mod 2^W)
// and the test leaves when k = (b - W_0) mod 2^W. With b >= W_0 for every
// pair of values (the counter starts on the correct side), that is
// b - W_0 <= b.hi - w0.lo; otherwise the count may go round the whole ring
// and the test is refused, as Linux's bounded-loop users would expect.
//
// `stay while W == b`: two consecutive runs would both need W == b, but
// W_{k+1} - W_k is in [1, X], never 0 modulo 2^W: the header runs at most
// twice.
//
// 64-bit compare of a zero-extended 32-bit counter (`w1 += 1; if r1 < r2`):
// the counter lives modulo 2^32 but is compared as a 64-bit number in
// [0, 2^32 - 1]; the bound's 64-bit range is clamped to [-1, 2^32], which
// changes no comparison outcome against such a counter. A sign-extended
// counter (`r <<= 32; r s>>= 32`) is a number in [-2^31, 2^31 - 1], i.e. its
// s32 offset minus 2^31: with a signed compare the bound is clamped to
// [-2^31 - 1, 2^31] and moved by 2^31 likewise. (As unsigned 64-bit numbers
// sign-extended values are not in counter order: refused.)
#include "analysis/loop_trip.h"

namespace keel {

namespace {

struct Range {
  uint64_t lo, hi;
};

constexpr uint64_t kSign64 = uint64_t{1} << 63;
constexpr uint64_t kSign32 = uint64_t{1} << 31;

uint64_t as_u64(int64_t v) { return static_cast<uint64_t>(v); }
uint64_t magnitude(int64_t v) { return v < 0 ? as_u64(-v) : as_u64(v); }  // |v| <= kMaxLoopDelta here

// Offset-space range of `s` under a view. An inconsistent (unreduced, empty)
// range claims nothing, so it becomes the whole ring.
Range offsets(const Scalar& s, Width w, bool is_signed) {
  Range r;
  if (w == Width::w64) {
    r = is_signed ? Range{as_u64(s.smin) ^ kSign64, as_u64(s.smax) ^ kSign64} : Range{s.umin, s.umax};
  } else {
    r = is_signed ? Range{uint64_t{static_cast<uint32_t>(s.s32_min)} ^ kSign32,
                          uint64_t{static_cast<uint32_t>(s.s32_max)} ^ kSign32}
                  : Range{s.u32_min, s.u32_max};
  }
  if (r.lo > r.hi) r = {0, w == Width::w64 ? UINT64_MAX : UINT32_MAX};
  return r;
}

Range mirror(Range r, uint64_t max) { return {max - r.hi, max - r.lo}; }

// c + d as an integer: -1 below 0, 0 within [0, max], +1 above max; `out` is
// (c + d) mod (max + 1). Needs c <= max and |d| <= max, so at most one wrap.
int place(uint64_t c, int64_t d, uint64_t max, uint64_t& out) {
  out = (c + as_u64(d)) & max;  // max + 1 is a power of two dividing 2^64
  if (d < 0) return c < magnitude(d) ? -1 : 0;
  return c > max - as_u64(d) ? 1 : 0;
}

// The first tested value, reduced modulo 2^W: one interval when both ends
// wrap alike, else the whole ring.
Range first_tested(Range c0, int64_t d_lo, int64_t d_hi, uint64_t max) {
  Range w0;
  const int lo_side = place(c0.lo, d_lo, max, w0.lo);
  const int hi_side = place(c0.hi, d_hi, max, w0.hi);
  if (lo_side != hi_side) return {0, max};
  return w0;
}

uint64_t plus_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

// The bound of `stay while W < B` (offsets, after mirroring), for the
// ordered relations; false when some bound value lets the test stay forever
// or the relation points the wrong way for the counter's direction.
bool strict_bound(const TripTest& t, bool up, uint64_t max, Range& out) {
  const StayRel rel = t.stay;
  if (up != (rel == StayRel::lt || rel == StayRel::le)) return false;
  if (t.ext32 == Ext32::none || t.compare == Width::w32) {
    const Range b = offsets(t.bound, t.compare, t.is_signed);
    switch (rel) {
      case StayRel::lt: out = b; return true;
      case StayRel::le:
        if (b.hi == max) return false;  // W <= max always holds
        out = {b.lo + 1, b.hi + 1};
        return true;
      case StayRel::gt: out = mirror(b, max); return true;
      case StayRel::ge:
        if (b.lo == 0) return false;  // W >= 0 always holds
        out = {max - b.hi + 1, max - b.lo + 1};
        return true;
      default: return false;
    }
  }
  // Extended 32-bit counter, 64-bit compare: max = 2^32 - 1, and the
  // bound, in the counter's offsets and clamped to [-1, 2^32], fits int64.
  const int64_t top = static_cast<int64_t>(max);
  const int64_t shift = t.ext32 == Ext32::sign ? int64_t{1} << 31 : 0;  // offset = value + shift
  auto clamp = [top, shift](int64_t v) {
    return v < -1 - shift ? -1 : v > top + 1 - shift ? top + 1 : v + shift;
  };
  int64_t lo, hi;
  if (t.is_signed) {
    lo = clamp(t.bound.smin);
    hi = clamp(t.bound.smax);
  } else if (t.ext32 == Ext32::zero) {
    lo = t.bound.umin > max ? top + 1 : static_cast<int64_t>(t.bound.umin);
    hi = t.bound.umax > max ? top + 1 : static_cast<int64_t>(t.bound.umax);
  } else {
    return false;  // unsigned compare of a sign-extended value
  }
  if (lo > hi) {
    lo = -1;
    hi = top + 1;
  }
  int64_t out_lo, out_hi;
  switch (rel) {
    case StayRel::lt:  // b > max: stays forever; b < 0 never stays, as b = 0
      if (hi > top) return false;
      out_lo = lo < 0 ? 0 : lo;
      out_hi = hi < 0 ? 0 : hi;
      break;
    case StayRel::le:
      if (hi >= top) return false;
      out_lo = lo + 1;
      out_hi = hi + 1;
      break;
    case StayRel::gt:  // b < 0: stays forever; b > max never stays, as b = max
      if (lo < 0) return false;
      out_lo = top - (hi > top ? top : hi);
      out_hi = top - lo;
      break;
    case StayRel::ge:
      if (lo <= 0) return false;
      out_lo = top + 1 - hi;
      out_hi = top + 1 - lo;
      break;
    default: return false;
  }
  out = {static_cast<uint64_t>(out_lo), static_cast<uint64_t>(out_hi)};
  return true;
}

}  // namespace

bool trip_bound(const TripTest& t, uint64_t& trips) {
  const bool extended = t.compare == Width::w64 && t.ext32 != Ext32::none;
  const bool ring64 = t.compare == Width::w64 && !extended;
  const uint64_t max = ring64 ? UINT64_MAX : UINT32_MAX;
  const int64_t limits[] = {t.step_min, t.step_max, t.test_min, t.test_max};
  for (int64_t v : limits) {
    if (magnitude(v) > static_cast<uint64_t>(kMaxLoopDelta)) return false;
  }
  if (t.step_min > t.step_max || t.test_min > t.test_max) return false;
  if (magnitude(t.test_min) > max || magnitude(t.test_max) > max) return false;  // place() needs |d| <= max
  const bool up = t.step_min >= 1;
  if (!up && t.step_max > -1) return false;  // a path where the counter stands still or turns back
  // Mirror a decreasing counter: negate its deltas (offsets are mirrored below).
  const int64_t s_lo = up ? t.step_min : -t.step_max, s_hi = up ? t.step_max : -t.step_min;
  const int64_t d_lo = up ? t.test_min : -t.test_max, d_hi = up ? t.test_max : -t.test_min;
  const int64_t e_lo = s_lo - (d_hi - d_lo), e_hi = s_hi + (d_hi - d_lo);
  if (e_lo < 1) return false;  // the tested value might not move forward every iteration

  // The counter's view: the compare's, except that an extended 32-bit
  // counter is its low half, read unsigned (zero-extended) or signed.
  auto counter = [&](bool is_signed) {
    const Range c0 = extended ? offsets(t.initial, Width::w32, t.ext32 == Ext32::sign)
                              : offsets(t.initial, t.compare, is_signed);
    return first_tested(up ? c0 : mirror(c0, max), d_lo, d_hi, max);
  };

  switch (t.stay) {
    case StayRel::eq:
      if (as_u64(e_hi) > max) return false;  // a step of 2^W would repeat the tested value
      trips = 2;
      return true;
    case StayRel::ne: {
      if (e_lo != 1 || e_hi != 1) return false;  // a larger or varying step can jump over b
      bool found = false;
      trips = UINT64_MAX;
      for (int view = 0; view < 2; ++view) {  // equality has no signedness: either view may prove it
        const bool is_signed = view == 1;
        Range b;
        if (t.ext32 == Ext32::zero && t.compare == Width::w64) {
          // b must be within the counter's values, else it is never equal.
          if (is_signed || t.bound.umin > t.bound.umax || t.bound.umax > max) continue;
          b = {t.bound.umin, t.bound.umax};
        } else if (t.ext32 == Ext32::sign && t.compare == Width::w64) {
          constexpr int64_t kHalf = int64_t{1} << 31;
          if (!is_signed || t.bound.smin > t.bound.smax || t.bound.smin < -kHalf || t.bound.smax >= kHalf) continue;
          b = {static_cast<uint64_t>(t.bound.smin + kHalf), static_cast<uint64_t>(t.bound.smax + kHalf)};
        } else {
          b = offsets(t.bound, t.compare, is_signed);
        }
        if (!up) b = mirror(b, max);
        const Range w0 = counter(is_signed);
        if (b.lo < w0.hi) continue;  // the counter may start past b and go round the ring
        const uint64_t n = plus_sat(b.hi - w0.lo, 1);
        if (!found || n < trips) trips = n;
        found = true;
      }
      return found;
    }
    default: {
      Range b;
      if (!strict_bound(t, up, max, b)) return false;
      const Range w0 = counter(t.is_signed);
      if (b.hi == 0 || b.hi - 1 < w0.lo) {  // the first test already leaves
        trips = 1;
        return true;
      }
      if (as_u64(e_hi) > max || b.hi - 1 > max - as_u64(e_hi)) return false;  // may wrap past the bound
      const uint64_t last_stay = (b.hi - 1 - w0.lo) / as_u64(e_lo);
      trips = plus_sat(last_stay, 2);
      return true;
    }
  }
}

bool stay_relation(JmpOp jmp, bool taken_stays, StayRel& rel, bool& is_signed) {
  is_signed = jmp == JmpOp::jsgt || jmp == JmpOp::jsge || jmp == JmpOp::jslt || jmp == JmpOp::jsle;
  switch (jmp) {
    case JmpOp::jeq: rel = taken_stays ? StayRel::eq : StayRel::ne; return true;
    case JmpOp::jne: rel = taken_stays ? StayRel::ne : StayRel::eq; return true;
    case JmpOp::jgt:
    case JmpOp::jsgt: rel = taken_stays ? StayRel::gt : StayRel::le; return true;
    case JmpOp::jge:
    case JmpOp::jsge: rel = taken_stays ? StayRel::ge : StayRel::lt; return true;
    case JmpOp::jlt:
    case JmpOp::jslt: rel = taken_stays ? StayRel::lt : StayRel::ge; return true;
    case JmpOp::jle:
    case JmpOp::jsle: rel = taken_stays ? StayRel::le : StayRel::gt; return true;
    case JmpOp::jset: return false;
  }
  return false;
}

}  // namespace keel
