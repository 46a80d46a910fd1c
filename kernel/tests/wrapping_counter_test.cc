// wrapping_counter.h: the 32-bit HPET path, which QEMU (64-bit HPET) never
// takes.
#include "wrapping_counter.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace keel {
namespace {

TEST(WrappingCounter, CountsUpWithoutWrapping) {
  WrappingCounter counter;
  EXPECT_EQ(counter.extend(0), 0u);
  EXPECT_EQ(counter.extend(5), 5u);
  EXPECT_EQ(counter.extend(5), 5u);  // an unchanged reading is not a wrap
  EXPECT_EQ(counter.extend(0xFFFF'FFFF), 0xFFFF'FFFFu);
}

TEST(WrappingCounter, CarriesIntoTheHighHalfAtEachWrap) {
  WrappingCounter counter;
  EXPECT_EQ(counter.extend(0xFFFF'FFF0), 0xFFFF'FFF0u);
  EXPECT_EQ(counter.extend(0x10), 0x1'0000'0010u);
  EXPECT_EQ(counter.extend(0x8000'0000), 0x1'8000'0000u);
  EXPECT_EQ(counter.extend(0x7FFF'FFFF), 0x2'7FFF'FFFFu);
  EXPECT_EQ(counter.extend(0), 0x3'0000'0000u);
}

TEST(WrappingCounter, IsMonotonicWhenReadOftenEnough) {
  WrappingCounter counter;
  uint64_t previous = 0;
  uint32_t raw = 0;
  for (int step = 0; step < 1000; ++step) {
    raw += 0x0123'4567u * 3;  // < 2^32 per step, wraps many times
    const uint64_t value = counter.extend(raw);
    ASSERT_GT(value, previous) << step;
    previous = value;
  }
}

// The documented limit: a gap of a whole wrap or more is invisible.
TEST(WrappingCounter, LosesAWrapWhenReadTooRarely) {
  WrappingCounter counter;
  EXPECT_EQ(counter.extend(10), 10u);
  EXPECT_EQ(counter.extend(20), 20u);  // really 2^32 + 20: undetectable
}

}  // namespace
}  // namespace keel
