// Bit counts over 64-bit masks, inline: __builtin_popcountll is a libgcc
// call on x86-64 without POPCNT and on Cortex-M, and the freestanding core
// links no libgcc.
#pragma once

#include <cstdint>

namespace keel::bits {

// The number of set bits of x (a sum over 2-, 4- then 8-bit fields, the
// bytes then added by one multiplication).
constexpr uint32_t count(uint64_t x) {
  constexpr uint64_t kOdd = 0x5555555555555555u;
  constexpr uint64_t kPairs = 0x3333333333333333u;
  constexpr uint64_t kNibbles = 0x0f0f0f0f0f0f0f0fu;
  constexpr uint64_t kBytes = 0x0101010101010101u;
  const uint64_t twos = x - ((x >> 1) & kOdd);
  const uint64_t fours = (twos & kPairs) + ((twos >> 2) & kPairs);
  const uint64_t eights = (fours + (fours >> 4)) & kNibbles;
  return static_cast<uint32_t>((eights * kBytes) >> 56);
}
static_assert(count(0) == 0 && count(~uint64_t{0}) == 64 && count(0x8000000000000001u) == 2 && count(0xf0) == 4);

// The bits below bit n (n < 64).
constexpr uint64_t below(uint32_t n) { return (uint64_t{1} << n) - 1; }
static_assert(below(0) == 0 && below(63) == ~(uint64_t{1} << 63));

}  // namespace keel::bits
