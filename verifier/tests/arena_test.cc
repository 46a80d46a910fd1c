// Tests for keel::Arena (include/keel/arena.h, src/support/arena.cc) and
// keel::carve (src/support/carve.h).
#include "keel/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "support/carve.h"

namespace keel {
namespace {

bool all_bytes(const void* memory, size_t size, uint8_t value) {
  const auto* p = static_cast<const uint8_t*>(memory);
  for (size_t i = 0; i < size; ++i) {
    if (p[i] != value) return false;
  }
  return true;
}

TEST(Arena, AllocationsAreZeroedWhateverWasThereBefore) {
  std::vector<uint8_t> memory(4096, 0xee);
  Arena arena(memory.data(), memory.size());
  const size_t mark = arena.mark();
  auto* dirty = arena.allocate_uninitialized<uint8_t>(1024);
  ASSERT_NE(dirty, nullptr);
  std::memset(dirty, 0xff, 1024);
  arena.release_to(mark);
  // Small blocks (cleared 64 or 128 bytes at a time) and a large one.
  for (const size_t size : {size_t{1}, size_t{7}, size_t{24}, size_t{64}, size_t{65}, size_t{100}, size_t{128},
                            size_t{129}, size_t{500}}) {
    auto* p = arena.allocate<uint8_t>(size);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(all_bytes(p, size, 0)) << size;
  }
}

TEST(Arena, SmallBlockAtTheEndWritesNothingPastTheArena) {
  // The arena is the first 100 bytes of a larger buffer; the rest must keep
  // its contents although small blocks are cleared 64 bytes at a time.
  std::vector<uint8_t> memory(256, 0xee);
  Arena arena(memory.data(), 100);
  ASSERT_NE(arena.allocate_uninitialized<uint8_t>(80), nullptr);
  auto* tail = arena.allocate<uint8_t>(20);
  ASSERT_NE(tail, nullptr);
  EXPECT_TRUE(all_bytes(tail, 20, 0));
  EXPECT_TRUE(all_bytes(memory.data() + 100, 156, 0xee));
  EXPECT_EQ(arena.allocate<uint8_t>(1), nullptr);
  EXPECT_EQ(arena.used(), 100u);
}

TEST(Arena, MidSizeBlockAtTheEndWritesNothingPastTheArena) {
  // Blocks of 65 to 128 bytes are cleared 128 bytes at a time only when the
  // arena has that room; at its end only the block itself is cleared.
  std::vector<uint8_t> memory(512, 0xee);
  Arena arena(memory.data(), 300);
  ASSERT_NE(arena.allocate_uninitialized<uint8_t>(100), nullptr);
  auto* roomy = arena.allocate<uint8_t>(100);  // 200 bytes left: the 128-byte clear fits
  ASSERT_NE(roomy, nullptr);
  EXPECT_TRUE(all_bytes(roomy, 100, 0));
  auto* tail = arena.allocate<uint8_t>(100);  // exactly the last 100 bytes
  ASSERT_NE(tail, nullptr);
  EXPECT_TRUE(all_bytes(tail, 100, 0));
  EXPECT_TRUE(all_bytes(memory.data() + 300, 212, 0xee));
  EXPECT_EQ(arena.allocate<uint8_t>(1), nullptr);
}

TEST(Arena, UninitializedAllocationsKeepTheBytes) {
  std::vector<uint8_t> memory(256);
  Arena arena(memory.data(), memory.size());
  auto* first = arena.allocate_uninitialized<uint32_t>(8);
  ASSERT_NE(first, nullptr);
  for (uint32_t i = 0; i < 8; ++i) first[i] = 0x11111111u * i;
  arena.reset();
  auto* again = arena.allocate_uninitialized<uint32_t>(8);
  ASSERT_EQ(again, first);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(again[i], 0x11111111u * i);
  EXPECT_EQ(arena.allocate_uninitialized<uint64_t>(SIZE_MAX / 4), nullptr);  // the byte count overflows
}

TEST(Carve, ArraysShareOneZeroedAlignedBlock) {
  std::vector<uint8_t> memory(1024, 0xee);
  Arena arena(memory.data(), memory.size());
  uint8_t* bytes = nullptr;
  uint64_t* words = nullptr;
  uint32_t* none = nullptr;
  uint16_t* halves = nullptr;
  ASSERT_TRUE(carve(arena, [&](Carve& c) {
    c.take(bytes, 3);
    c.take(words, 5);
    c.take(none, 0);
    c.take(halves, 2);
  }));
  ASSERT_NE(bytes, nullptr);
  ASSERT_NE(none, nullptr);  // an empty array still has an address
  EXPECT_EQ(reinterpret_cast<uintptr_t>(words) % alignof(uint64_t), 0u);
  EXPECT_GE(reinterpret_cast<uint8_t*>(words), bytes + 3);
  EXPECT_GE(reinterpret_cast<uint8_t*>(halves), reinterpret_cast<uint8_t*>(words + 5));
  EXPECT_TRUE(all_bytes(bytes, 3, 0));
  EXPECT_TRUE(all_bytes(words, 5 * sizeof(uint64_t), 0));
  EXPECT_TRUE(all_bytes(halves, 2 * sizeof(uint16_t), 0));
  EXPECT_LE(arena.used(), 3u + 5 * 8 + 2 * 2 + 16);  // one block, padding only for alignment
}

TEST(Carve, OutOfMemoryTakesNothing) {
  std::vector<uint8_t> memory(64);
  Arena arena(memory.data(), memory.size());
  uint64_t* words = nullptr;
  EXPECT_FALSE(carve(arena, [&](Carve& c) { c.take(words, 9); }));
  EXPECT_EQ(words, nullptr);
  EXPECT_EQ(arena.used(), 0u);
}

}  // namespace
}  // namespace keel
