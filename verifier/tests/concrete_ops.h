// Concrete semantics of the ALU and jump operations (RFC 9669 §4.1, §4.2,
// §4.3), written independently of the domain: the oracle the domain tests
// (tnum_test, scalar_test, domain_exhaustive_test) check abstract results
// against.
#pragma once

#include <cstdint>

#include "domain/scalar.h"

namespace keel::testing {

inline uint64_t alu_ref(AluOp op, Width w, uint64_t a, uint64_t b) {
  if (w == Width::w32) {
    const auto x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
    const auto sx = static_cast<int32_t>(x), sy = static_cast<int32_t>(y);
    switch (op) {
      case AluOp::add: return uint32_t(x + y);
      case AluOp::sub: return uint32_t(x - y);
      case AluOp::mul: return uint32_t(x * y);
      case AluOp::div: return y == 0 ? 0 : x / y;
      case AluOp::sdiv: return y == 0 ? 0 : (sx == INT32_MIN && sy == -1) ? x : static_cast<uint32_t>(sx / sy);
      case AluOp::mod: return y == 0 ? x : x % y;
      case AluOp::smod: return y == 0 ? x : (sx == INT32_MIN && sy == -1) ? 0 : static_cast<uint32_t>(sx % sy);
      case AluOp::bit_and: return x & y;
      case AluOp::bit_or: return x | y;
      case AluOp::bit_xor: return x ^ y;
      case AluOp::lsh: return uint32_t(x << (y & 31));
      case AluOp::rsh: return x >> (y & 31);
      case AluOp::arsh: return static_cast<uint32_t>(sx >> (y & 31));
      case AluOp::mov: return y;
    }
    return 0;
  }
  const auto sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  switch (op) {
    case AluOp::add: return a + b;
    case AluOp::sub: return a - b;
    case AluOp::mul: return a * b;
    case AluOp::div: return b == 0 ? 0 : a / b;
    case AluOp::sdiv: return b == 0 ? 0 : (sa == INT64_MIN && sb == -1) ? a : static_cast<uint64_t>(sa / sb);
    case AluOp::mod: return b == 0 ? a : a % b;
    case AluOp::smod: return b == 0 ? a : (sa == INT64_MIN && sb == -1) ? 0 : static_cast<uint64_t>(sa % sb);
    case AluOp::bit_and: return a & b;
    case AluOp::bit_or: return a | b;
    case AluOp::bit_xor: return a ^ b;
    case AluOp::lsh: return a << (b & 63);
    case AluOp::rsh: return a >> (b & 63);
    case AluOp::arsh: return static_cast<uint64_t>(sa >> (b & 63));
    case AluOp::mov: return b;
  }
  return 0;
}

inline bool jmp_ref(JmpOp op, Width w, uint64_t a, uint64_t b) {
  if (w == Width::w32) {
    a &= 0xffff'ffffu;
    b &= 0xffff'ffffu;
  }
  const int64_t sa = w == Width::w32 ? static_cast<int32_t>(static_cast<uint32_t>(a)) : static_cast<int64_t>(a);
  const int64_t sb = w == Width::w32 ? static_cast<int32_t>(static_cast<uint32_t>(b)) : static_cast<int64_t>(b);
  switch (op) {
    case JmpOp::jeq: return a == b;
    case JmpOp::jne: return a != b;
    case JmpOp::jgt: return a > b;
    case JmpOp::jge: return a >= b;
    case JmpOp::jlt: return a < b;
    case JmpOp::jle: return a <= b;
    case JmpOp::jsgt: return sa > sb;
    case JmpOp::jsge: return sa >= sb;
    case JmpOp::jslt: return sa < sb;
    case JmpOp::jsle: return sa <= sb;
    case JmpOp::jset: return (a & b) != 0;
  }
  return false;
}

// Sign-extends the low `bits` (8, 16 or 32) to 64.
inline uint64_t sext_ref(uint64_t x, unsigned bits) {
  switch (bits) {
    case 8: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(x)));
    case 16: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(x)));
    default: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(x)));
  }
}

// The low `bits` bits with their bytes reversed (bswap16/32/64).
inline uint64_t bswap_ref(uint64_t x, unsigned bits) {
  uint64_t out = 0;
  for (unsigned i = 0; i < bits / 8; ++i) out |= ((x >> (8 * i)) & 0xff) << (bits - 8 - 8 * i);
  return out;
}

}  // namespace keel::testing
