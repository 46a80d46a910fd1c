// The concrete semantics of the ALU operations and jump conditions (RFC 9669
// §4.1, §4.3), defined once: the interpreter runs them, the analysis folds
// constants with them (analysis/constants.h) and the scalar domain computes
// exact results on constants with them (domain/scalar_alu.cc), so the
// verifier's idea of `dst OP src` and the interpreter's cannot disagree
// (docs/adr/0044). constexpr and dependency-free: the freestanding core
// and the interpreter's hot loop inline them.
#pragma once

#include <cstdint>

#include "isa/ops.h"

namespace keel::sem {

// ---- ALU semantics (RFC 9669 §4.1), 64-bit on uint64_t and 32-bit on
// uint32_t so that wrap-around is the defined unsigned kind. The 32-bit
// forms return uint32_t, and the caller's assignment to a 64-bit register
// zero-extends, as §4.1 requires of every 32-bit ALU result.

constexpr uint64_t alu64_add(uint64_t a, uint64_t b) { return a + b; }
constexpr uint64_t alu64_sub(uint64_t a, uint64_t b) { return a - b; }
constexpr uint64_t alu64_mul(uint64_t a, uint64_t b) { return a * b; }
// §4.1: division by zero yields 0 (it would be UB in C++).
constexpr uint64_t alu64_div(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
// §4.1: signed division truncates; INT64_MIN / -1 overflows in C++, so -1 is
// computed as unsigned negation, which leaves INT64_MIN unchanged as the RFC
// (and Linux) expects.
constexpr uint64_t alu64_sdiv(uint64_t a, uint64_t b) {
  if (b == 0) return 0;
  if (static_cast<int64_t>(b) == -1) return 0 - a;
  return static_cast<uint64_t>(static_cast<int64_t>(a) / static_cast<int64_t>(b));
}
constexpr uint64_t alu64_or(uint64_t a, uint64_t b) { return a | b; }
constexpr uint64_t alu64_and(uint64_t a, uint64_t b) { return a & b; }
// §4.1: shift amounts are masked to the operand width.
constexpr uint64_t alu64_lsh(uint64_t a, uint64_t b) { return a << (b & 63); }
constexpr uint64_t alu64_rsh(uint64_t a, uint64_t b) { return a >> (b & 63); }
// §4.1: modulo by zero leaves dst unchanged.
constexpr uint64_t alu64_mod(uint64_t a, uint64_t b) { return b == 0 ? a : a % b; }
// §4.1: the result takes the sign of the dividend (C++ % truncates the same
// way); x % -1 is 0 for every x, and computing it avoids INT64_MIN % -1 (UB).
constexpr uint64_t alu64_smod(uint64_t a, uint64_t b) {
  if (b == 0) return a;
  if (static_cast<int64_t>(b) == -1) return 0;
  return static_cast<uint64_t>(static_cast<int64_t>(a) % static_cast<int64_t>(b));
}
constexpr uint64_t alu64_xor(uint64_t a, uint64_t b) { return a ^ b; }
constexpr uint64_t alu64_mov(uint64_t, uint64_t b) { return b; }
// C++20 defines >> of a negative signed value as arithmetic.
constexpr uint64_t alu64_arsh(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>(static_cast<int64_t>(a) >> (b & 63));
}

constexpr uint32_t alu32_add(uint32_t a, uint32_t b) { return a + b; }
constexpr uint32_t alu32_sub(uint32_t a, uint32_t b) { return a - b; }
constexpr uint32_t alu32_mul(uint32_t a, uint32_t b) { return a * b; }
constexpr uint32_t alu32_div(uint32_t a, uint32_t b) { return b == 0 ? 0 : a / b; }
constexpr uint32_t alu32_sdiv(uint32_t a, uint32_t b) {
  if (b == 0) return 0;
  if (static_cast<int32_t>(b) == -1) return 0u - a;
  return static_cast<uint32_t>(static_cast<int32_t>(a) / static_cast<int32_t>(b));
}
constexpr uint32_t alu32_or(uint32_t a, uint32_t b) { return a | b; }
constexpr uint32_t alu32_and(uint32_t a, uint32_t b) { return a & b; }
constexpr uint32_t alu32_lsh(uint32_t a, uint32_t b) { return a << (b & 31); }
constexpr uint32_t alu32_rsh(uint32_t a, uint32_t b) { return a >> (b & 31); }
constexpr uint32_t alu32_mod(uint32_t a, uint32_t b) { return b == 0 ? a : a % b; }
constexpr uint32_t alu32_smod(uint32_t a, uint32_t b) {
  if (b == 0) return a;
  if (static_cast<int32_t>(b) == -1) return 0;
  return static_cast<uint32_t>(static_cast<int32_t>(a) % static_cast<int32_t>(b));
}
constexpr uint32_t alu32_xor(uint32_t a, uint32_t b) { return a ^ b; }
constexpr uint32_t alu32_mov(uint32_t, uint32_t b) { return b; }
constexpr uint32_t alu32_arsh(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31));
}

// ---- Jump conditions (RFC 9669 §4.3): JMP compares 64 bits, JMP32 the low 32.
#define KEEL_JMP_CONDITIONS(T, S, width)                                    \
  constexpr bool jmp##width##_jeq(T a, T b) { return a == b; }              \
  constexpr bool jmp##width##_jgt(T a, T b) { return a > b; }               \
  constexpr bool jmp##width##_jge(T a, T b) { return a >= b; }              \
  constexpr bool jmp##width##_jset(T a, T b) { return (a & b) != 0; }       \
  constexpr bool jmp##width##_jne(T a, T b) { return a != b; }              \
  constexpr bool jmp##width##_jsgt(T a, T b) { return S(a) > S(b); }        \
  constexpr bool jmp##width##_jsge(T a, T b) { return S(a) >= S(b); }       \
  constexpr bool jmp##width##_jlt(T a, T b) { return a < b; }               \
  constexpr bool jmp##width##_jle(T a, T b) { return a <= b; }              \
  constexpr bool jmp##width##_jslt(T a, T b) { return S(a) < S(b); }        \
  constexpr bool jmp##width##_jsle(T a, T b) { return S(a) <= S(b); }
KEEL_JMP_CONDITIONS(uint64_t, static_cast<int64_t>, 64)
KEEL_JMP_CONDITIONS(uint32_t, static_cast<int32_t>, 32)
#undef KEEL_JMP_CONDITIONS

// ---- By operation, for callers that hold an Alu or JmpOp rather than a name.

// dst OP src for a binary ALU operation (add .. arsh); the 32-bit forms
// compute on the low halves and zero-extend. `op` must be binary
// (is_binary_alu); anything else gives 0.
[[gnu::always_inline]] constexpr uint64_t alu(Alu op, Width w, uint64_t a, uint64_t b) {
  if (w == Width::w32) {
    const auto x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
    switch (op) {
#define KEEL_SEM_CASE(name, alu_op) \
  case Alu::alu_op: return alu32_##name(x, y);
      KEEL_SEM_CASE(add, add) KEEL_SEM_CASE(sub, sub) KEEL_SEM_CASE(mul, mul) KEEL_SEM_CASE(div, div)
      KEEL_SEM_CASE(sdiv, sdiv) KEEL_SEM_CASE(or, bor) KEEL_SEM_CASE(and, band) KEEL_SEM_CASE(lsh, lsh)
      KEEL_SEM_CASE(rsh, rsh) KEEL_SEM_CASE(mod, mod) KEEL_SEM_CASE(smod, smod) KEEL_SEM_CASE(xor, bxor)
      KEEL_SEM_CASE(mov, mov) KEEL_SEM_CASE(arsh, arsh)
#undef KEEL_SEM_CASE
      default: return 0;
    }
  }
  switch (op) {
#define KEEL_SEM_CASE(name, alu_op) \
  case Alu::alu_op: return alu64_##name(a, b);
    KEEL_SEM_CASE(add, add) KEEL_SEM_CASE(sub, sub) KEEL_SEM_CASE(mul, mul) KEEL_SEM_CASE(div, div)
    KEEL_SEM_CASE(sdiv, sdiv) KEEL_SEM_CASE(or, bor) KEEL_SEM_CASE(and, band) KEEL_SEM_CASE(lsh, lsh)
    KEEL_SEM_CASE(rsh, rsh) KEEL_SEM_CASE(mod, mod) KEEL_SEM_CASE(smod, smod) KEEL_SEM_CASE(xor, bxor)
    KEEL_SEM_CASE(mov, mov) KEEL_SEM_CASE(arsh, arsh)
#undef KEEL_SEM_CASE
    default: return 0;
  }
}

// Whether the jump `if a OP b` is taken; w32 compares the low halves.
[[gnu::always_inline]] constexpr bool jump_taken(JmpOp op, Width w, uint64_t a, uint64_t b) {
  if (w == Width::w32) {
    const auto x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
    switch (op) {
#define KEEL_SEM_CASE(name) \
  case JmpOp::name: return jmp32_##name(x, y);
      KEEL_JMP_OPS(KEEL_SEM_CASE)
#undef KEEL_SEM_CASE
    }
    return false;
  }
  switch (op) {
#define KEEL_SEM_CASE(name) \
  case JmpOp::name: return jmp64_##name(a, b);
    KEEL_JMP_OPS(KEEL_SEM_CASE)
#undef KEEL_SEM_CASE
  }
  return false;
}

// The corner cases the RFC pins down, checked at compile time.
static_assert(alu(Alu::div, Width::w64, 7, 0) == 0 && alu(Alu::mod, Width::w64, 7, 0) == 7);
static_assert(alu(Alu::sdiv, Width::w64, uint64_t{1} << 63, ~uint64_t{0}) == uint64_t{1} << 63);
static_assert(alu(Alu::sdiv, Width::w32, 0x8000'0000u, 0xffff'ffffu) == 0x8000'0000u);
static_assert(alu(Alu::smod, Width::w64, uint64_t{1} << 63, ~uint64_t{0}) == 0);
static_assert(alu(Alu::add, Width::w32, 0xffff'ffffu, 1) == 0 && alu(Alu::lsh, Width::w64, 1, 65) == 2);
static_assert(alu(Alu::arsh, Width::w32, 0x8000'0000u, 31) == 0xffff'ffffu);
static_assert(jump_taken(JmpOp::jslt, Width::w32, 0xffff'ffffu, 0) && !jump_taken(JmpOp::jlt, Width::w32, 0xffff'ffffu, 0));
static_assert(jump_taken(JmpOp::jeq, Width::w32, uint64_t{1} << 32, 0) && !jump_taken(JmpOp::jeq, Width::w64, uint64_t{1} << 32, 0));

}  // namespace keel::sem
