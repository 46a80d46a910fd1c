// One binary search for the core's sorted tables (helpers by id, callback
// sites by pc, ...), instead of a hand-written loop at each.
#pragma once

#include <cstdint>

namespace keel {

// The first index in [0, count) whose key(i) is not below `value`, or count:
// key must be non-decreasing in i.
template <typename Key, typename Value>
uint32_t lower_bound_index(uint32_t count, const Value& value, Key key) {
  uint32_t low = 0, high = count;
  while (low < high) {
    const uint32_t middle = low + (high - low) / 2;
    if (key(middle) < value) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

}  // namespace keel
