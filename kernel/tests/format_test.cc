// runtime/format.cc: bases, padding, the extremes, and the all-or-nothing
// rule when the buffer is too small.
#include "runtime/format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace keel::runtime {
namespace {

std::string unsigned_text(uint64_t value, unsigned base = 10, size_t min_digits = 1) {
  char buffer[80];
  return std::string(buffer, format_unsigned(buffer, sizeof buffer, value, base, min_digits));
}

std::string signed_text(int64_t value) {
  char buffer[32];
  return std::string(buffer, format_signed(buffer, sizeof buffer, value));
}

TEST(Format, Decimal) {
  EXPECT_EQ(unsigned_text(0), "0");
  EXPECT_EQ(unsigned_text(7), "7");
  EXPECT_EQ(unsigned_text(10000000), "10000000");
  EXPECT_EQ(unsigned_text(UINT64_MAX), "18446744073709551615");
}

TEST(Format, OtherBases) {
  EXPECT_EQ(unsigned_text(0xfed00000, 16), "fed00000");
  EXPECT_EQ(unsigned_text(UINT64_MAX, 16), "ffffffffffffffff");
  EXPECT_EQ(unsigned_text(5, 2), "101");
  EXPECT_EQ(unsigned_text(UINT64_MAX, 2), std::string(64, '1'));
  EXPECT_EQ(unsigned_text(8, 8), "10");
}

TEST(Format, ZeroPadding) {
  EXPECT_EQ(unsigned_text(0, 10, 6), "000000");
  EXPECT_EQ(unsigned_text(42, 10, 6), "000042");
  EXPECT_EQ(unsigned_text(1234567, 10, 6), "1234567");  // never cut
}

TEST(Format, Signed) {
  EXPECT_EQ(signed_text(0), "0");
  EXPECT_EQ(signed_text(-1), "-1");
  EXPECT_EQ(signed_text(std::numeric_limits<int64_t>::max()), "9223372036854775807");
  EXPECT_EQ(signed_text(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
}

TEST(Format, TooSmallWritesNothing) {
  char buffer[4] = {'x', 'x', 'x', 'x'};
  EXPECT_EQ(format_unsigned(buffer, 3, 1234), 0u);
  EXPECT_EQ(format_signed(buffer, 3, -123), 0u);
  EXPECT_EQ(format_signed(buffer, 1, -1), 0u);
  EXPECT_EQ(std::string(buffer, 4), "xxxx");
  EXPECT_EQ(format_unsigned(buffer, 4, 1234), 4u);
  EXPECT_EQ(std::string(buffer, 4), "1234");
}

TEST(Format, RejectsBadArguments) {
  char buffer[80];
  EXPECT_EQ(format_unsigned(buffer, sizeof buffer, 5, 1), 0u);
  EXPECT_EQ(format_unsigned(buffer, sizeof buffer, 5, 17), 0u);
  EXPECT_EQ(format_unsigned(buffer, sizeof buffer, 5, 10, 65), 0u);
}

}  // namespace
}  // namespace keel::runtime
