// The core's one binary search, for its sorted tables (helpers by id,
// callback sites by pc, relocations by offset, ...), instead of a
// hand-written loop at each.
#pragma once

#include <cstdint>

namespace keel {

// The first index in [first, last) at which `before(i)` is false, or last:
// `before` must hold on a prefix of the range and fail on the rest.
template <typename Index, typename Before>
Index partition_index(Index first, Index last, Before before) {
  while (first < last) {
    const Index middle = first + (last - first) / 2;
    if (before(middle)) {
      first = middle + 1;
    } else {
      last = middle;
    }
  }
  return first;
}

// The first index in [0, count) whose key(i) is not below `value`, or count:
// key must be non-decreasing in i.
template <typename Key, typename Value>
uint32_t lower_bound_index(uint32_t count, const Value& value, Key key) {
  return partition_index(uint32_t{0}, count, [&](uint32_t i) { return key(i) < value; });
}

// The first index in [0, count) whose key(i) is above `value`, or count.
template <typename Key, typename Value>
uint32_t upper_bound_index(uint32_t count, const Value& value, Key key) {
  return partition_index(uint32_t{0}, count, [&](uint32_t i) { return !(value < key(i)); });
}

}  // namespace keel
