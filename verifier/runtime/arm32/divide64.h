// 64-bit division by shift and subtract, for 32-bit targets whose ISA has no
// 64-bit divide (ARMv7-M, ARMv8-M). Plain C++ with no division of its own,
// so that it is also tested on the host against the native operators
// (verifier/tests/divide64_test.cc). runtime.cc wraps it in the run-time ABI
// entry points GCC calls.
#pragma once

#include <cstdint>

namespace keel {

// Leading zeros of a non-zero value from the 32-bit count (a 64-bit
// __builtin_clzll could itself become a run-time call on these targets).
inline int clz64(uint64_t x) {
  const auto high = static_cast<uint32_t>(x >> 32);
  return high != 0 ? __builtin_clz(high) : 32 + __builtin_clz(static_cast<uint32_t>(x));
}

struct DivMod64 {
  uint64_t quotient;
  uint64_t remainder;
};

// n / d and n % d. A zero divisor gives quotient UINT64_MAX and remainder n
// (no trap: keel itself never divides by zero; RFC 9669 defines BPF's
// division by zero before it gets here).
inline DivMod64 udivmod64(uint64_t n, uint64_t d) {
  if (d == 0) return {UINT64_MAX, n};
  if (n < d) return {0, n};
  // Align d's top bit with n's, then one quotient bit per step: at most 64.
  const int shift = clz64(d) - clz64(n);
  uint64_t divisor = d << shift;
  uint64_t quotient = 0;
  uint64_t remainder = n;
  for (int i = shift; i >= 0; --i) {
    quotient <<= 1;
    if (remainder >= divisor) {
      remainder -= divisor;
      quotient |= 1;
    }
    divisor >>= 1;
  }
  return {quotient, remainder};
}

// Truncating signed division (C's / and %): the quotient's sign is the XOR
// of the operands' signs, the remainder's that of n. INT64_MIN / -1 wraps to
// INT64_MIN with remainder 0, as two's complement hardware gives it.
inline DivMod64 sdivmod64(int64_t n, int64_t d) {
  if (d == 0) return {UINT64_MAX, static_cast<uint64_t>(n)};
  const uint64_t un = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  const uint64_t ud = d < 0 ? 0 - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
  DivMod64 r = udivmod64(un, ud);
  if ((n < 0) != (d < 0)) r.quotient = 0 - r.quotient;
  if (n < 0) r.remainder = 0 - r.remainder;
  return r;
}

}  // namespace keel
