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

KEEL_HOT bool is_power_of_two(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

// reduce()'s rounds (scalar_reduce.cc), out of line.
bool reduce_rounds(Scalar& s);

// reduce() (scalar.h), inline here so that the domain's own callers keep
// its shortcuts inline as they did when the domain was one file.
inline bool reduce_inline(Scalar& s) {
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

// A reduction of a sound result never finds it empty; if a bug made it so,
// answer the top of the result's type rather than bottom.
inline Scalar finish64(Scalar s) { return reduce_inline(s) ? s : Scalar::unknown(); }

}  // namespace keel::scalar_parts
