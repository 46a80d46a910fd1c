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

// The smallest tnum containing every x with min <= x <= max (unsigned).
Tnum range(uint64_t min, uint64_t max);

// Arithmetic modulo 2^64. add, sub, bit_and, bit_or, bit_xor are optimal
// (the smallest tnum containing every concrete result); mul is sound.
Tnum add(Tnum a, Tnum b);
Tnum sub(Tnum a, Tnum b);
Tnum mul(Tnum a, Tnum b);
Tnum neg(Tnum a);
Tnum bit_and(Tnum a, Tnum b);
Tnum bit_or(Tnum a, Tnum b);
Tnum bit_xor(Tnum a, Tnum b);

// Shifts by a constant. Amounts >= 64 shift every bit out (lsh/rsh give 0,
// arsh gives the sign fill): mathematical shifts, not the ISA's masked ones.
Tnum lsh(Tnum a, unsigned k);
Tnum rsh(Tnum a, unsigned k);
Tnum arsh(Tnum a, unsigned k);
// Shifts by an unknown amount with the ISA's run-time masking (amount & 63,
// RFC 9669 §4.1): the join over every possible masked amount.
Tnum lsh(Tnum a, Tnum amount);
Tnum rsh(Tnum a, Tnum amount);
Tnum arsh(Tnum a, Tnum amount);

// The low 32 bits, zero-extended (the 32-bit subregister view).
Tnum cast32(Tnum a);
// Sign-extends the low `bits` bits (8, 16 or 32) to 64 bits.
Tnum sext(Tnum a, unsigned bits);
// Sign-extends the low `bits` bits (8 or 16) to 32 bits, then zero-extends.
Tnum sext32(Tnum a, unsigned bits);
// Reverses the order of the low `bits` / 8 bytes (16, 32 or 64); the
// result's upper bits are zero.
Tnum bswap(Tnum a, unsigned bits);

// Meet: false when a and b share no member (a known bit disagrees).
[[nodiscard]] bool intersect(Tnum a, Tnum b, Tnum& out);
// Join: the smallest tnum containing every member of a and of b.
Tnum join(Tnum a, Tnum b);
// Every member of a is a member of b.
bool subset(Tnum a, Tnum b);

// The smallest member x >= lower (resp. the largest x <= upper), unsigned;
// false when there is none. The signed variants order members as int64.
[[nodiscard]] bool min_member_at_least(Tnum a, uint64_t lower, uint64_t& out);
[[nodiscard]] bool max_member_at_most(Tnum a, uint64_t upper, uint64_t& out);
[[nodiscard]] bool smin_member_at_least(Tnum a, int64_t lower, int64_t& out);
[[nodiscard]] bool smax_member_at_most(Tnum a, int64_t upper, int64_t& out);

}  // namespace tnum
}  // namespace keel
