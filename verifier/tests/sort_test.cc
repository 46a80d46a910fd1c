// support/sort.h: heap_sort against std::sort, on input that is random,
// already in order, in order but for one pair, reversed, and full of ties
// (the already-ordered shortcut must only take strictly increasing input).
#include "support/sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace keel {
namespace {

struct Keyed {
  uint32_t key;
  uint32_t tag;  // tells apart items of equal key
  bool operator==(const Keyed&) const = default;
};

bool by_key(const Keyed& a, const Keyed& b) { return a.key < b.key; }

std::vector<Keyed> sorted_by_heap(std::vector<Keyed> items) {
  heap_sort(items.data(), items.size(), by_key);
  return items;
}

std::vector<uint32_t> keys(const std::vector<Keyed>& items) {
  std::vector<uint32_t> out;
  for (const Keyed& k : items) out.push_back(k.key);
  return out;
}

TEST(HeapSort, SortsWhateverTheInputOrder) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    const size_t n = rng() % 40;
    const uint32_t range = 1 + rng() % 64;  // small ranges give ties
    std::vector<Keyed> items(n);
    for (size_t i = 0; i < n; ++i) items[i] = {static_cast<uint32_t>(rng() % range), static_cast<uint32_t>(i)};
    switch (rng() % 4) {
      case 0: std::sort(items.begin(), items.end(), by_key); break;
      case 1: std::sort(items.begin(), items.end(), [](const Keyed& a, const Keyed& b) { return b.key < a.key; }); break;
      case 2:
        std::sort(items.begin(), items.end(), by_key);
        if (n >= 2) std::swap(items[rng() % n], items[rng() % n]);
        break;
      default: break;
    }
    std::vector<Keyed> expected = items;
    std::sort(expected.begin(), expected.end(), by_key);
    const std::vector<Keyed> got = sorted_by_heap(items);
    ASSERT_EQ(keys(got), keys(expected));
    ASSERT_TRUE(std::is_permutation(got.begin(), got.end(), items.begin()));
  }
}

// Strictly increasing input is returned as it is; so is any input whose
// keys are all distinct, there being one sorted order only.
TEST(HeapSort, DistinctKeysHaveOneOrder) {
  std::mt19937 rng(11);
  for (int round = 0; round < 500; ++round) {
    const size_t n = 1 + rng() % 64;
    std::vector<Keyed> items(n);
    for (size_t i = 0; i < n; ++i) items[i] = {static_cast<uint32_t>(3 * i + rng() % 3), static_cast<uint32_t>(i)};
    ASSERT_EQ(sorted_by_heap(items), items);
    std::shuffle(items.begin(), items.end(), rng);
    std::vector<Keyed> expected = items;
    std::sort(expected.begin(), expected.end(), by_key);
    ASSERT_EQ(sorted_by_heap(items), expected);
  }
}

// Input in order but with equal neighbours is not strictly increasing: it
// still goes through the heap, and comes out in key order.
TEST(HeapSort, TiesInOrderStillSort) {
  std::vector<Keyed> items = {{1, 0}, {2, 1}, {2, 2}, {3, 3}, {0, 4}};
  const std::vector<Keyed> got = sorted_by_heap(items);
  EXPECT_EQ(keys(got), (std::vector<uint32_t>{0, 1, 2, 2, 3}));
}

}  // namespace
}  // namespace keel
