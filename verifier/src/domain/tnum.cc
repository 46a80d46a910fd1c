// Tristate numbers: see tnum.h. Written from the definitions and the CGO 2022
// paper's algorithms (Vishwanathan et al., "Sound, Precise, and Fast Abstract
// Interpretation with Tristate Numbers"); every function is free of UB for
// all inputs (no shift by >= 64, no signed overflow).
#include "domain/tnum.h"

namespace keel::tnum {
namespace {

constexpr uint64_t kSign = uint64_t{1} << 63;
constexpr uint64_t kLow32 = 0xffff'ffffu;

// Ones in bits [0, n) for n in [0, 64].
constexpr uint64_t low_ones(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

}  // namespace

Tnum range(uint64_t min, uint64_t max) {
  if (min > max) return Tnum::unknown();  // not a range; stay sound
  // Every bit above the highest bit where min and max differ is shared by
  // the whole range; every bit at or below it takes both values.
  const uint64_t chi = min ^ max;
  if (chi == 0) return Tnum::constant(min);
  const unsigned bits = 64u - static_cast<unsigned>(__builtin_clzll(chi));
  const uint64_t delta = low_ones(bits);
  return {min & ~delta, delta};
}

// CGO 2022 §3 (tnum_add): sv + sm is the sum with every unknown bit set to 1;
// the bits where it differs from sv are the bits a carry may reach. Optimal.
Tnum add(Tnum a, Tnum b) {
  const uint64_t sm = a.mask + b.mask;
  const uint64_t sv = a.value + b.value;
  const uint64_t sigma = sm + sv;
  const uint64_t chi = sigma ^ sv;
  const uint64_t mu = chi | a.mask | b.mask;
  return {sv & ~mu, mu};
}

// CGO 2022 §3 (tnum_sub): the extreme differences are (a with unknowns 1) -
// (b with unknowns 0) and the opposite; a borrow may reach any bit where they
// differ. Optimal.
Tnum sub(Tnum a, Tnum b) {
  const uint64_t dv = a.value - b.value;
  const uint64_t alpha = dv + a.mask;
  const uint64_t beta = dv - b.mask;
  const uint64_t chi = alpha ^ beta;
  const uint64_t mu = chi | a.mask | b.mask;
  return {dv & ~mu, mu};
}

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

Tnum neg(Tnum a) { return sub(Tnum::constant(0), a); }

// A result bit is known 1 when both are known 1, known 0 when either is.
Tnum bit_and(Tnum a, Tnum b) {
  const uint64_t alpha = a.value | a.mask;
  const uint64_t beta = b.value | b.mask;
  const uint64_t v = a.value & b.value;
  return {v, alpha & beta & ~v};
}

// Known 1 when either is known 1, known 0 when both are known 0.
Tnum bit_or(Tnum a, Tnum b) {
  const uint64_t v = a.value | b.value;
  const uint64_t mu = a.mask | b.mask;
  return {v, mu & ~v};
}

// Known exactly where both are known.
Tnum bit_xor(Tnum a, Tnum b) {
  const uint64_t v = a.value ^ b.value;
  const uint64_t mu = a.mask | b.mask;
  return {v & ~mu, mu};
}

// A shift moves each bit, known or not, to a fixed place: exact.
Tnum lsh(Tnum a, unsigned k) {
  if (k >= 64) return Tnum::constant(0);
  return {a.value << k, a.mask << k};
}

Tnum rsh(Tnum a, unsigned k) {
  if (k >= 64) return Tnum::constant(0);
  return {a.value >> k, a.mask >> k};
}

// Shifting value and mask arithmetically copies the sign bit's state (known
// 0, known 1 or unknown) into every vacated bit. C++20 defines >> of a
// negative value as arithmetic.
Tnum arsh(Tnum a, unsigned k) {
  if (k > 63) k = 63;
  return {static_cast<uint64_t>(static_cast<int64_t>(a.value) >> k),
          static_cast<uint64_t>(static_cast<int64_t>(a.mask) >> k)};
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

Tnum cast32(Tnum a) { return {a.value & kLow32, a.mask & kLow32}; }

// The new upper bits all copy the state of bit `bits - 1`: exact.
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

bool intersect(Tnum a, Tnum b, Tnum& out) {
  if ((a.value ^ b.value) & ~a.mask & ~b.mask) return false;  // a known bit disagrees
  const uint64_t mu = a.mask & b.mask;
  out = {(a.value | b.value) & ~mu, mu};
  return true;
}

// A bit stays known only when it is known, and equal, in both.
Tnum join(Tnum a, Tnum b) {
  const uint64_t mu = a.mask | b.mask | (a.value ^ b.value);
  return {a.value & ~mu, mu};
}

bool subset(Tnum a, Tnum b) {
  return (a.mask & ~b.mask) == 0 && (a.value & ~b.mask) == b.value;
}

// If lower is not a member, let p be the highest known bit where lower
// disagrees with the tnum. Every member >= lower must differ from lower at p
// or above. If the tnum has 1 at p (lower has 0), the least such member keeps
// lower's bits above p and is minimal below p. If it has 0 at p, some bit
// above p must go from 0 to 1; only unknown bits can, and the least member
// flips the lowest such bit q and is minimal below q.
bool min_member_at_least(Tnum a, uint64_t lower, uint64_t& out) {
  if (a.contains(lower)) {
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
bool max_member_at_most(Tnum a, uint64_t upper, uint64_t& out) {
  const Tnum flipped{~a.value & ~a.mask, a.mask};
  uint64_t x = 0;
  if (!min_member_at_least(flipped, ~upper, x)) return false;
  out = ~x;
  return true;
}

// Flipping bit 63 maps the signed order onto the unsigned order.
namespace {
Tnum flip_sign(Tnum a) { return {a.value ^ (kSign & ~a.mask), a.mask}; }
}  // namespace

bool smin_member_at_least(Tnum a, int64_t lower, int64_t& out) {
  uint64_t x = 0;
  if (!min_member_at_least(flip_sign(a), static_cast<uint64_t>(lower) ^ kSign, x)) return false;
  out = static_cast<int64_t>(x ^ kSign);
  return true;
}

bool smax_member_at_most(Tnum a, int64_t upper, int64_t& out) {
  uint64_t x = 0;
  if (!max_member_at_most(flip_sign(a), static_cast<uint64_t>(upper) ^ kSign, x)) return false;
  out = static_cast<int64_t>(x ^ kSign);
  return true;
}

}  // namespace keel::tnum
