// The core's one sort: an in-place heapsort, O(n log n) whatever the input,
// no recursion and no allocation, so that a hostile object cannot make the
// loader quadratic or exhaust the stack. Not stable: callers that need a
// total order break ties in `less`.
#pragma once

#include <cstddef>

namespace keel {

template <class T, class Less>
void heap_sort(T* items, size_t count, Less less) {
  auto sift_down = [&](size_t root, size_t end) {
    while (2 * root + 1 < end) {
      size_t child = 2 * root + 1;
      if (child + 1 < end && less(items[child], items[child + 1])) ++child;
      if (!less(items[root], items[child])) return;
      T swap = items[root];
      items[root] = items[child];
      items[child] = swap;
      root = child;
    }
  };
  if (count < 2) return;
  // Input already in strictly increasing order (line records, symbols and
  // relocations mostly come so) is its own and only sorted order: every
  // key differs, so no tie could be broken otherwise. One pass finds it and
  // stops at the first pair out of order.
  size_t ordered = 1;
  while (ordered < count && less(items[ordered - 1], items[ordered])) ++ordered;
  if (ordered == count) return;
  for (size_t start = count / 2; start-- > 0;) sift_down(start, count);
  for (size_t end = count - 1; end > 0; --end) {
    T swap = items[0];
    items[0] = items[end];
    items[end] = swap;
    sift_down(0, end);
  }
}

}  // namespace keel
