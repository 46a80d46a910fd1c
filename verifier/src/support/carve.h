// Several arrays from one arena allocation. A stage that needs a dozen small
// working arrays would otherwise pay a dozen allocations (each a call and a
// memset), which is most of the fixed cost of verifying a tiny program.
// Usage: a function that calls take() for every array, run once on a Carve
// without memory to size the block, then once on the block itself.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"

namespace keel {

class Carve {
 public:
  Carve() = default;
  explicit Carve(uint8_t* base) : base_(base) {}

  // `out` = room for `count` objects aligned for T (never nullptr once
  // carved, even for none, as Arena::allocate); nullptr while sizing.
  template <class T>
  void take(T*& out, size_t count) {
    static_assert(alignof(T) <= alignof(uint64_t));
    at_ = (at_ + alignof(T) - 1) / alignof(T) * alignof(T);
    out = base_ == nullptr ? nullptr : reinterpret_cast<T*>(base_ + at_);
    at_ += sizeof(T) * count;
  }
  size_t size() const { return at_; }

 private:
  uint8_t* base_ = nullptr;
  size_t at_ = 0;
};

// Runs `layout(Carve&)` to size, allocates the block (zeroed when `zeroed`),
// and runs it again to hand out the arrays. False on arena exhaustion.
template <class Layout>
[[nodiscard]] bool carve_block(Arena& arena, Layout&& layout, bool zeroed) {
  Carve sizing;
  layout(sizing);
  const size_t words = (sizing.size() + 7) / 8;
  auto* memory = zeroed ? arena.allocate<uint64_t>(words) : arena.allocate_uninitialized<uint64_t>(words);
  if (memory == nullptr) return false;
#ifndef NDEBUG
  // A debug build fills an uncleared block with a pattern that is neither
  // zero nor a valid index, so that a caller reading an entry it did not
  // write gets a wrong result (and its tests fail) rather than a lucky zero.
  if (!zeroed) __builtin_memset(memory, 0xa5, words * 8);
#endif
  Carve block(reinterpret_cast<uint8_t*>(memory));
  layout(block);
  return true;
}

// The arrays of `layout` in one zeroed block.
template <class Layout>
[[nodiscard]] bool carve(Arena& arena, Layout&& layout) {
  return carve_block(arena, layout, true);
}

// As carve(), but the block is left as it was (Arena::allocate_uninitialized):
// for arrays the caller writes completely before reading them, where the
// zeroing would cost about as much as the writes.
template <class Layout>
[[nodiscard]] bool carve_uninitialized(Arena& arena, Layout&& layout) {
  return carve_block(arena, layout, false);
}

}  // namespace keel
