// Tristate numbers: see tnum.h. Written from the definitions and the CGO 2022
// paper's algorithms (Vishwanathan et al., "Sound, Precise, and Fast Abstract
// Interpretation with Tristate Numbers"); every function is free of UB for
// all inputs (no shift by >= 64, no signed overflow). The hot operations are
// inline in tnum.h; this file holds the loops and the rarely used ones.
#include "domain/tnum.h"

namespace keel::tnum {
namespace {

using detail::low_ones;

}  // namespace

// CGO 2022 §4 (our_mul): long multiplication that keeps the product of the
// known parts exact (acc_v) and accumulates, as a separate tnum, the partial
// products that involve unknown bits: for a known-1 bit of a, b's unknown
// bits shifted into place; for an unknown bit of a, every possibly-1 bit of
// b. The two sums are added once at the end. Sound (proved in the paper).
Tnum mul(Tnum a, Tnum b) {
  const uint64_t acc_v = a.value * b.value;
  Tnum acc_m = Tnum::constant(0);
  while (a.value != 0 || a.mask != 0) {
    if (a.value & 1)
      acc_m = add(acc_m, Tnum{0, b.mask});
    else if (a.mask & 1)
      acc_m = add(acc_m, Tnum{0, b.value | b.mask});
    a = rsh(a, 1);
    b = lsh(b, 1);
  }
  return add(Tnum::constant(acc_v), acc_m);
}

namespace {

// Joins f(a, k) over every k the masked amount can take (at most 64).
template <class F>
Tnum join_over_amounts(Tnum a, Tnum amount, F f) {
  const Tnum k = bit_and(amount, Tnum::constant(63));
  Tnum out = f(a, static_cast<unsigned>(k.value));
  // Enumerate the non-empty submasks of k.mask in increasing order.
  for (uint64_t s = (0 - k.mask) & k.mask; s != 0; s = (s - k.mask) & k.mask)
    out = join(out, f(a, static_cast<unsigned>(k.value | s)));
  return out;
}

}  // namespace

Tnum lsh(Tnum a, Tnum amount) {
  return join_over_amounts(a, amount, [](Tnum x, unsigned k) { return lsh(x, k); });
}
Tnum rsh(Tnum a, Tnum amount) {
  return join_over_amounts(a, amount, [](Tnum x, unsigned k) { return rsh(x, k); });
}
Tnum arsh(Tnum a, Tnum amount) {
  return join_over_amounts(a, amount, [](Tnum x, unsigned k) { return arsh(x, k); });
}

// The added upper bits all copy the state of bit `bits - 1`: exact.
Tnum sext(Tnum a, unsigned bits) {
  if (bits == 0 || bits >= 64) return a;
  const uint64_t low = low_ones(bits);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  if (a.mask & sign) return {a.value & low, (a.mask & low) | ~low};
  if (a.value & sign) return {a.value | ~low, a.mask & low};
  return {a.value & low, a.mask & low};
}

Tnum sext32(Tnum a, unsigned bits) { return cast32(sext(a, bits)); }

// A byte permutation moves known and unknown bits alike: exact.
Tnum bswap(Tnum a, unsigned bits) {
  switch (bits) {
    case 16:
      return {__builtin_bswap16(static_cast<uint16_t>(a.value)),
              __builtin_bswap16(static_cast<uint16_t>(a.mask))};
    case 32:
      return {__builtin_bswap32(static_cast<uint32_t>(a.value)),
              __builtin_bswap32(static_cast<uint32_t>(a.mask))};
    default:
      return {__builtin_bswap64(a.value), __builtin_bswap64(a.mask)};
  }
}

namespace detail {

// lower is not a member (the inline caller checked), so let p be the highest
// known bit where lower disagrees with the tnum. Every member >= lower must
// differ from lower at p or above. If the tnum has 1 at p (lower has 0), the
// least such member keeps lower's bits above p and is minimal below p. If it
// has 0 at p, some bit above p must go from 0 to 1; only unknown bits can,
// and the least member flips the lowest such bit q and is minimal below q.
bool min_member_above(Tnum a, uint64_t lower, uint64_t& out) {
  if (a.contains(lower)) {  // keeps the function correct on its own
    out = lower;
    return true;
  }
  const uint64_t diff = (lower ^ a.value) & ~a.mask;
  const unsigned p = 63u - static_cast<unsigned>(__builtin_clzll(diff));
  const uint64_t above_p = ~low_ones(p + 1);
  if (a.value & (uint64_t{1} << p)) {
    out = (lower & above_p) | (a.value & ~above_p);
    return true;
  }
  const uint64_t candidates = a.mask & ~lower & above_p;
  if (candidates == 0) return false;
  const unsigned q = static_cast<unsigned>(__builtin_ctzll(candidates));
  const uint64_t above_q = ~low_ones(q + 1);
  out = (lower & above_q) | (uint64_t{1} << q) | (a.value & low_ones(q));
  return true;
}

// Complementing every bit reverses the unsigned order; the complement of a
// tnum's members is the tnum with its known bits complemented.
bool max_member_below(Tnum a, uint64_t upper, uint64_t& out) {
  const Tnum flipped{~a.value & ~a.mask, a.mask};
  uint64_t x = 0;
  if (!min_member_above(flipped, ~upper, x)) return false;
  out = ~x;
  return true;
}

}  // namespace detail
}  // namespace keel::tnum
