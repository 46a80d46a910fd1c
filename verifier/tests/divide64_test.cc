// The 64-bit division the core brings for 32-bit Arm
// (verifier/runtime/arm32/divide64.h), checked on the host against the
// native operators: edges, every power of two, and random operands. On the
// target, mcu-test's suites (the conformance division and modulo cases)
// exercise it through the run-time ABI shims.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "../runtime/arm32/divide64.h"

namespace keel {
namespace {

std::vector<uint64_t> edges() {
  std::vector<uint64_t> v = {0, 1, 2, 3, 7, 10, 255, 256, 0xffffffffu, 0x100000000u, 0x100000001u,
                             UINT64_MAX, UINT64_MAX - 1, uint64_t{1} << 63, (uint64_t{1} << 63) - 1,
                             (uint64_t{1} << 63) + 1};
  for (int i = 0; i < 64; ++i) {
    v.push_back(uint64_t{1} << i);
    v.push_back((uint64_t{1} << i) - 1);
  }
  return v;
}

void check(uint64_t n, uint64_t d) {
  const DivMod64 u = udivmod64(n, d);
  if (d == 0) {
    EXPECT_EQ(u.quotient, UINT64_MAX);
    EXPECT_EQ(u.remainder, n);
  } else {
    ASSERT_EQ(u.quotient, n / d) << n << " / " << d;
    ASSERT_EQ(u.remainder, n % d) << n << " % " << d;
  }
  const auto sn = static_cast<int64_t>(n), sd = static_cast<int64_t>(d);
  const DivMod64 s = sdivmod64(sn, sd);
  if (sd == 0) {
    EXPECT_EQ(s.remainder, n);
  } else if (sn == INT64_MIN && sd == -1) {
    EXPECT_EQ(s.quotient, n);  // wraps, as the hardware does
    EXPECT_EQ(s.remainder, 0u);
  } else {
    ASSERT_EQ(static_cast<int64_t>(s.quotient), sn / sd) << sn << " / " << sd;
    ASSERT_EQ(static_cast<int64_t>(s.remainder), sn % sd) << sn << " % " << sd;
  }
}

TEST(Divide64, Edges) {
  const std::vector<uint64_t> v = edges();
  for (uint64_t n : v) {
    for (uint64_t d : v) check(n, d);
  }
}

TEST(Divide64, Random) {
  std::mt19937_64 random(20261201);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t n = random() >> (random() % 64);
    const uint64_t d = random() >> (random() % 64);
    check(n, d);
  }
}

TEST(Divide64, CountLeadingZeros) {
  for (int i = 0; i < 64; ++i) EXPECT_EQ(clz64(uint64_t{1} << i), 63 - i);
  EXPECT_EQ(clz64(UINT64_MAX), 0);
}

}  // namespace
}  // namespace keel
