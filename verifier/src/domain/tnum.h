// Tristate numbers (tnums): a 64-bit value in which every bit is known 0,
// known 1 or unknown. The bit-level half of the scalar domain (scalar.h);
// arithmetic follows Vishwanathan, Shachnai, Narayana, Nagarakatte, "Sound,
// Precise, and Fast Abstract Interpretation with Tristate Numbers", CGO 2022.
#pragma once

#include <cstdint>

namespace keel {

// Concretization: { x | (x & ~mask) == value }. Invariant: value & mask == 0
// (an unknown bit has value 0), so there is no empty tnum; emptiness is
// reported by tnum::intersect instead.
struct Tnum {
  uint64_t value = 0;  // the known bits (0 where unknown)
  uint64_t mask = 0;   // 1 = unknown bit

  static constexpr Tnum constant(uint64_t v) { return {v, 0}; }
  static constexpr Tnum unknown() { return {0, ~uint64_t{0}}; }

  constexpr bool is_const() const { return mask == 0; }
  constexpr bool contains(uint64_t x) const { return (x & ~mask) == value; }
  constexpr uint64_t umin() const { return value; }         // smallest member, unsigned
  constexpr uint64_t umax() const { return value | mask; }  // largest member, unsigned
  constexpr bool operator==(const Tnum&) const = default;
};

namespace tnum {

// The hot operations (everything reduce() and the common transfer functions
// call) are defined inline below: the verifier's budget is a few ns per
// instruction, and a call per tnum step costs more than the step itself.

// The smallest tnum containing every x with min <= x <= max (unsigned).
constexpr Tnum range(uint64_t min, uint64_t max);

// Arithmetic modulo 2^64. add, sub, bit_and, bit_or, bit_xor are optimal
// (the smallest tnum containing every concrete result); mul is sound.
constexpr Tnum add(Tnum a, Tnum b);
constexpr Tnum sub(Tnum a, Tnum b);
Tnum mul(Tnum a, Tnum b);
constexpr Tnum neg(Tnum a);
constexpr Tnum bit_and(Tnum a, Tnum b);
constexpr Tnum bit_or(Tnum a, Tnum b);
constexpr Tnum bit_xor(Tnum a, Tnum b);

// Shifts by a constant. Amounts >= 64 shift every bit out (lsh/rsh give 0,
// arsh gives the sign fill): mathematical shifts, not the ISA's masked ones.
constexpr Tnum lsh(Tnum a, unsigned k);
constexpr Tnum rsh(Tnum a, unsigned k);
constexpr Tnum arsh(Tnum a, unsigned k);
// Shifts by an unknown amount with the ISA's run-time masking (amount & 63,
// RFC 9669 §4.1): the join over every possible masked amount.
Tnum lsh(Tnum a, Tnum amount);
Tnum rsh(Tnum a, Tnum amount);
Tnum arsh(Tnum a, Tnum amount);

// The low 32 bits, zero-extended (the 32-bit subregister view).
constexpr Tnum cast32(Tnum a);
// Sign-extends the low `bits` bits (8, 16 or 32) to 64 bits.
Tnum sext(Tnum a, unsigned bits);
// Sign-extends the low `bits` bits (8 or 16) to 32 bits, then zero-extends.
Tnum sext32(Tnum a, unsigned bits);
// Reverses the order of the low `bits` / 8 bytes (16, 32 or 64); the
// result's upper bits are zero.
Tnum bswap(Tnum a, unsigned bits);

// Meet: false when a and b share no member (a known bit disagrees).
[[nodiscard]] constexpr bool intersect(Tnum a, Tnum b, Tnum& out);
// Join: the smallest tnum containing every member of a and of b.
constexpr Tnum join(Tnum a, Tnum b);
// Every member of a is a member of b.
constexpr bool subset(Tnum a, Tnum b);

// The smallest member x >= lower (resp. the largest x <= upper), unsigned;
// false when there is none. The signed variants order members as int64.
// Inline for the common case (the bound is a member already); the search
// proper is in tnum.cc.
[[nodiscard]] inline bool min_member_at_least(Tnum a, uint64_t lower, uint64_t& out);
[[nodiscard]] inline bool max_member_at_most(Tnum a, uint64_t upper, uint64_t& out);
[[nodiscard]] inline bool smin_member_at_least(Tnum a, int64_t lower, int64_t& out);
[[nodiscard]] inline bool smax_member_at_most(Tnum a, int64_t upper, int64_t& out);

// ---------------------------------------------------------------------------
// Inline definitions. Every one is free of UB for all inputs (no shift by
// >= 64, no signed overflow); the soundness arguments are the CGO 2022
// paper's, section by section.

namespace detail {
constexpr uint64_t kSign = uint64_t{1} << 63;
// Ones in bits [0, n) for n in [0, 64].
constexpr uint64_t low_ones(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }
// Flipping bit 63 maps the signed order onto the unsigned order.
constexpr Tnum flip_sign(Tnum a) { return {a.value ^ (kSign & ~a.mask), a.mask}; }
// The searches proper, for a bound that is not a member (tnum.cc).
bool min_member_above(Tnum a, uint64_t lower, uint64_t& out);
bool max_member_below(Tnum a, uint64_t upper, uint64_t& out);
}  // namespace detail

constexpr Tnum range(uint64_t min, uint64_t max) {
  if (min > max) return Tnum::unknown();  // not a range; stay sound
  // Every bit above the highest bit where min and max differ is shared by
  // the whole range; every bit at or below it takes both values.
  const uint64_t chi = min ^ max;
  if (chi == 0) return Tnum::constant(min);
  const unsigned bits = 64u - static_cast<unsigned>(__builtin_clzll(chi));
  const uint64_t delta = detail::low_ones(bits);
  return {min & ~delta, delta};
}

// CGO 2022 §3 (tnum_add): sv + sm is the sum with every unknown bit set to 1;
// the bits where it differs from sv are the bits a carry may reach. Optimal.
constexpr Tnum add(Tnum a, Tnum b) {
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
constexpr Tnum sub(Tnum a, Tnum b) {
  const uint64_t dv = a.value - b.value;
  const uint64_t alpha = dv + a.mask;
  const uint64_t beta = dv - b.mask;
  const uint64_t chi = alpha ^ beta;
  const uint64_t mu = chi | a.mask | b.mask;
  return {dv & ~mu, mu};
}

constexpr Tnum neg(Tnum a) { return sub(Tnum::constant(0), a); }

// A result bit is known 1 when both are known 1, known 0 when either is.
constexpr Tnum bit_and(Tnum a, Tnum b) {
  const uint64_t alpha = a.value | a.mask;
  const uint64_t beta = b.value | b.mask;
  const uint64_t v = a.value & b.value;
  return {v, alpha & beta & ~v};
}

// Known 1 when either is known 1, known 0 when both are known 0.
constexpr Tnum bit_or(Tnum a, Tnum b) {
  const uint64_t v = a.value | b.value;
  const uint64_t mu = a.mask | b.mask;
  return {v, mu & ~v};
}

// Known exactly where both are known.
constexpr Tnum bit_xor(Tnum a, Tnum b) {
  const uint64_t v = a.value ^ b.value;
  const uint64_t mu = a.mask | b.mask;
  return {v & ~mu, mu};
}

// A shift moves each bit, known or not, to a fixed place: exact.
constexpr Tnum lsh(Tnum a, unsigned k) {
  if (k >= 64) return Tnum::constant(0);
  return {a.value << k, a.mask << k};
}

constexpr Tnum rsh(Tnum a, unsigned k) {
  if (k >= 64) return Tnum::constant(0);
  return {a.value >> k, a.mask >> k};
}

// Shifting value and mask arithmetically copies the sign bit's state (known
// 0, known 1 or unknown) into every vacated bit. C++20 defines >> of a
// negative value as arithmetic.
constexpr Tnum arsh(Tnum a, unsigned k) {
  if (k > 63) k = 63;
  return {static_cast<uint64_t>(static_cast<int64_t>(a.value) >> k),
          static_cast<uint64_t>(static_cast<int64_t>(a.mask) >> k)};
}

constexpr Tnum cast32(Tnum a) { return {a.value & 0xffff'ffffu, a.mask & 0xffff'ffffu}; }

constexpr bool intersect(Tnum a, Tnum b, Tnum& out) {
  if ((a.value ^ b.value) & ~a.mask & ~b.mask) return false;  // a known bit disagrees
  const uint64_t mu = a.mask & b.mask;
  out = {(a.value | b.value) & ~mu, mu};
  return true;
}

// A bit stays known only when it is known, and equal, in both.
constexpr Tnum join(Tnum a, Tnum b) {
  const uint64_t mu = a.mask | b.mask | (a.value ^ b.value);
  return {a.value & ~mu, mu};
}

constexpr bool subset(Tnum a, Tnum b) { return (a.mask & ~b.mask) == 0 && (a.value & ~b.mask) == b.value; }

inline bool min_member_at_least(Tnum a, uint64_t lower, uint64_t& out) {
  if (a.contains(lower)) {
    out = lower;
    return true;
  }
  return detail::min_member_above(a, lower, out);
}

inline bool max_member_at_most(Tnum a, uint64_t upper, uint64_t& out) {
  if (a.contains(upper)) {
    out = upper;
    return true;
  }
  return detail::max_member_below(a, upper, out);
}

inline bool smin_member_at_least(Tnum a, int64_t lower, int64_t& out) {
  const auto u = static_cast<uint64_t>(lower);
  if (a.contains(u)) {
    out = lower;
    return true;
  }
  uint64_t x = 0;
  if (!detail::min_member_above(detail::flip_sign(a), u ^ detail::kSign, x)) return false;
  out = static_cast<int64_t>(x ^ detail::kSign);
  return true;
}

inline bool smax_member_at_most(Tnum a, int64_t upper, int64_t& out) {
  const auto u = static_cast<uint64_t>(upper);
  if (a.contains(u)) {
    out = upper;
    return true;
  }
  uint64_t x = 0;
  if (!detail::max_member_below(detail::flip_sign(a), u ^ detail::kSign, x)) return false;
  out = static_cast<int64_t>(x ^ detail::kSign);
  return true;
}

}  // namespace tnum
}  // namespace keel
