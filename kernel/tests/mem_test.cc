// runtime/mem.cc against the C library's mem* on every small size,
// alignment and overlap: the kernel image exports these as memcpy & co.
#include "runtime/mem.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>

namespace keel::runtime {
namespace {

constexpr size_t kBufferSize = 64;

std::array<unsigned char, kBufferSize> pattern() {
  std::array<unsigned char, kBufferSize> bytes{};
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
  return bytes;
}

TEST(Mem, CopyMatchesMemcpyForEveryOffsetAndSize) {
  for (size_t from = 0; from < 8; ++from) {
    for (size_t to = 0; to < 8; ++to) {
      for (size_t size = 0; size + 8 <= kBufferSize; ++size) {
        const auto source = pattern();
        std::array<unsigned char, kBufferSize> expected{}, actual{};
        std::memcpy(expected.data() + to, source.data() + from, size);
        EXPECT_EQ(copy(actual.data() + to, source.data() + from, size), actual.data() + to);
        ASSERT_EQ(actual, expected) << "from " << from << " to " << to << " size " << size;
      }
    }
  }
}

TEST(Mem, MoveHandlesOverlapInBothDirections) {
  for (size_t from = 0; from < 24; ++from) {
    for (size_t to = 0; to < 24; ++to) {
      for (size_t size = 0; size + 24 <= kBufferSize; ++size) {
        auto expected = pattern();
        auto actual = pattern();
        std::memmove(expected.data() + to, expected.data() + from, size);
        EXPECT_EQ(move(actual.data() + to, actual.data() + from, size), actual.data() + to);
        ASSERT_EQ(actual, expected) << "from " << from << " to " << to << " size " << size;
      }
    }
  }
}

TEST(Mem, FillUsesTheLowByteOfValue) {
  std::array<unsigned char, 16> bytes{};
  EXPECT_EQ(fill(bytes.data() + 3, 0x1AB, 10), bytes.data() + 3);
  for (size_t i = 0; i < bytes.size(); ++i) {
    EXPECT_EQ(bytes[i], (i >= 3 && i < 13) ? 0xAB : 0) << i;
  }
}

TEST(Mem, CompareHasTheSignOfTheFirstDifferenceAsUnsignedBytes) {
  const unsigned char a[] = {1, 2, 3, 0x80};
  const unsigned char b[] = {1, 2, 4, 0x00};
  const unsigned char c[] = {1, 2, 3, 0x7F};
  EXPECT_EQ(compare(a, a, 4), 0);
  EXPECT_EQ(compare(a, b, 0), 0);
  EXPECT_LT(compare(a, b, 4), 0);
  EXPECT_GT(compare(b, a, 4), 0);
  EXPECT_GT(compare(a, c, 4), 0);  // 0x80 > 0x7F: bytes compare unsigned
  EXPECT_EQ(compare(a, b, 2), 0);
}

}  // namespace
}  // namespace keel::runtime
