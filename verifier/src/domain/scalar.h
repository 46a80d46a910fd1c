// The scalar value domain: what the verifier knows about a 64-bit number in a
// register or a spilled stack slot. A reduced product of a tnum with signed
// and unsigned intervals on all 64 bits and on the low 32, kept consistent by
// one reduction after every operation (the reduction that Vishwanathan et al.,
// "Verifying the Verifier: eBPF Range Analysis Verification", CAV 2023, study).
#pragma once

#include <cstdint>

#include "domain/tnum.h"
#include "isa/ops.h"
#include "keel/isa.h"

namespace keel {

// Concretization: the 64-bit x with bits.contains(x), umin <= x <= umax,
// smin <= int64(x) <= smax, u32_min <= uint32(x) <= u32_max and
// s32_min <= int32(x) <= s32_max. The 32-bit bounds describe the low half,
// whatever the upper half holds.
struct Scalar {
  Tnum bits = Tnum::unknown();
  uint64_t umin = 0, umax = UINT64_MAX;
  int64_t smin = INT64_MIN, smax = INT64_MAX;
  uint32_t u32_min = 0, u32_max = UINT32_MAX;
  int32_t s32_min = INT32_MIN, s32_max = INT32_MAX;

  static constexpr Scalar unknown() { return {}; }
  // Inline and exact: every component is the one value (no reduce needed).
  static constexpr Scalar constant(uint64_t value) {
    const auto v32 = static_cast<uint32_t>(value);
    return {Tnum::constant(value), value, value, static_cast<int64_t>(value), static_cast<int64_t>(value),
            v32, v32, static_cast<int32_t>(v32), static_cast<int32_t>(v32)};
  }
  // Any value of `bytes` bytes (1, 2, 4; else any value at all),
  // zero-extended: from_urange(0, 2^(8 bytes) - 1) written out, which
  // narrow loads ask for often and from_urange would reduce each time
  // (scalar_test checks the two agree).
  static constexpr Scalar of_bytes(uint32_t bytes) {
    if (bytes >= 8) return unknown();
    const uint64_t max = (uint64_t{1} << (8 * bytes)) - 1;
    const auto max32 = static_cast<uint32_t>(max);
    const int32_t s32_max = bytes >= 4 ? INT32_MAX : static_cast<int32_t>(max32);
    return {Tnum{0, max}, 0, max, 0, static_cast<int64_t>(max), 0, max32, bytes >= 4 ? INT32_MIN : 0, s32_max};
  }
  // Values in [lo, hi] (unsigned, resp. signed); lo <= hi.
  static Scalar from_urange(uint64_t lo, uint64_t hi);
  static Scalar from_srange(int64_t lo, int64_t hi);
  static Scalar from_tnum(Tnum t);

  bool contains(uint64_t x) const {
    const auto x32 = static_cast<uint32_t>(x);
    const auto sx = static_cast<int64_t>(x);
    const auto sx32 = static_cast<int32_t>(x32);
    return bits.contains(x) && umin <= x && x <= umax && smin <= sx && sx <= smax && u32_min <= x32 &&
           x32 <= u32_max && s32_min <= sx32 && sx32 <= s32_max;
  }
  constexpr bool is_const() const { return bits.is_const(); }  // valid on a reduced value
  bool operator==(const Scalar&) const = default;
};

// Makes every component as tight as the others allow (bounds -> tnum,
// tnum -> bounds, 32 <-> 64 bits, signed <-> unsigned); false when the value
// is empty (bottom). Every operation below returns a reduced value.
[[nodiscard]] bool reduce(Scalar& s);

// Width (ALU64/JMP vs ALU/JMP32) and JmpOp are the ISA's (isa/ops.h).

// ALU operations (RFC 9669 §4.1). and/or/xor carry a prefix because the bare
// words are C++ operator tokens.
enum class AluOp : uint8_t {
  add, sub, mul, div, sdiv, mod, smod, bit_and, bit_or, bit_xor, lsh, rsh, arsh, mov
};

// dst OP src with RFC 9669 semantics: w32 computes on the low halves and
// zero-extends; division by zero gives 0, modulo by zero leaves dst; sdiv of
// INT_MIN by -1 wraps to INT_MIN; shift amounts are masked to 63 / 31.
Scalar alu(AluOp op, Width w, const Scalar& dst, const Scalar& src);
// alu() without its shortcuts (constant folding, small ranges): the general
// transfer functions, which give the same result more slowly. For the
// differential tests; the analysis calls alu().
Scalar alu_full(AluOp op, Width w, const Scalar& dst, const Scalar& src);
Scalar neg(Width w, const Scalar& dst);
// movsx64_{8,16,32} (w64) and movsx32_{8,16} (w32): sign-extends the low
// `from_bits` bits.
Scalar movsx(Width w, unsigned from_bits, const Scalar& src);
// Byte-order conversions (RFC 9669 §4.2) on keel's little-endian targets:
// to_le truncates to `bits` and zero-extends; to_be and bswap swap bytes.
Scalar to_le(unsigned bits, const Scalar& dst);
Scalar bswap(unsigned bits, const Scalar& dst);
inline Scalar to_be(unsigned bits, const Scalar& dst) { return bswap(bits, dst); }
// The low 32 bits, zero-extended (mov32, and every ALU32 result).
Scalar zext32(const Scalar& s);

// alu(op, w64, a, Scalar::constant(c)): an ALU64 operation with an
// immediate (c is the sign-extended imm), without building the constant
// where a is a small range and op is add or sub. Same result.
Scalar alu64_imm(AluOp op, const Scalar& a, uint64_t c);

// alu(op, w, a, Scalar::constant(c)) for op lsh, rsh or arsh: a shift by
// an immediate, without building the constant. Same result.
Scalar shift_imm(AluOp op, Width w, const Scalar& a, uint64_t c);

// Every ALU-class keel::Op (add64_imm ... bswap64). For `_imm` forms pass
// Scalar::constant of the sign-extended imm; unary ops ignore src.
Scalar alu(Op op, const Scalar& dst, const Scalar& src);

enum class Outcome : uint8_t { never, maybe, always };

// Narrows a and b to the values for which `a OP b` has outcome `taken`
// (compared in 64 bits or on the low 32). False when that outcome is
// impossible; a and b are then unspecified. a and b must be distinct
// objects (for `r1 OP r1` pass a copy).
[[nodiscard]] bool refine(JmpOp op, Width w, bool taken, Scalar& a, Scalar& b);
// refine() without its shortcut for two constants: the general rules, same
// result. For the differential tests; the analysis calls refine().
[[nodiscard]] bool refine_full(JmpOp op, Width w, bool taken, Scalar& a, Scalar& b);
// refine(op, w, taken, a, copy of Scalar::constant(c)), keeping only a: a
// compare with an immediate (c the sign-extended imm). Same result and
// the same false, without building and refining the constant's Scalar.
[[nodiscard]] bool refine_imm(JmpOp op, Width w, bool taken, Scalar& a, uint64_t c);
// refine(jeq, w64, true, a, copy of b), keeping only a: narrows a to the
// values of b (a copy learning what a branch proved of the register it
// copies). Faster where b lies within a (leq(b, a)), as it does when b is
// a refinement of a. False when no value is left.
[[nodiscard]] bool refine_equal(Scalar& a, const Scalar& b);
// Whether `a OP b` always, never or maybe holds.
Outcome evaluate(JmpOp op, Width w, const Scalar& a, const Scalar& b);
// (jmp_of and jump_uses_src, which read a keel::Op, are in isa/ops.h.)

// Least upper bound (reduced).
Scalar join(const Scalar& a, const Scalar& b);
// join() without its shortcut for two small ranges: the component-wise
// hull, reduced; same result. For the differential tests.
Scalar join_full(const Scalar& a, const Scalar& b);
// Whether join(v, v) == v (and so widen(v, v) == v, which keeps every
// bound and the tnum of v), decided by a few compares: true for a constant
// in Scalar::constant's form, the unknown value, and the small and
// wide-low values (scalar_parts.h) that their shortcuts give back
// unchanged; false otherwise (also where the join would be v too: then a
// caller just computes it).
bool joins_to_itself(const Scalar& v);
// For loop heads: keeps each bound of `prev` that `next` stays within and
// drops the others to the type's extreme; joins the tnums (finite height).
// Deliberately not reduced, so that a chain of widenings terminates: the
// next transfer function reduces.
Scalar widen(const Scalar& prev, const Scalar& next);
// Every component of a lies within b's (so a's values are b's values).
bool leq(const Scalar& a, const Scalar& b);

}  // namespace keel
