// Caller-supplied working memory. The core never allocates: every stage
// takes an Arena and running out is an error value, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel {

class Arena {
 public:
  Arena(void* memory, size_t size) : base_(static_cast<uint8_t*>(memory)), size_(size) {}

  // Returns zero-initialized storage for `count` objects of T, or nullptr
  // when the arena cannot hold them (or the byte count would overflow).
  template <class T>
  [[nodiscard]] T* allocate(size_t count) {
    if (count > (SIZE_MAX / sizeof(T))) return nullptr;
    return static_cast<T*>(allocate_bytes(count * sizeof(T), alignof(T)));
  }

  [[nodiscard]] void* allocate_bytes(size_t bytes, size_t alignment);

  size_t used() const { return used_; }
  size_t peak() const { return peak_; }
  size_t capacity() const { return size_; }
  // Everything allocated after `mark` is released (a scoped reset).
  size_t mark() const { return used_; }
  void release_to(size_t mark) { if (mark <= used_) used_ = mark; }
  void reset() { used_ = 0; }

 private:
  uint8_t* base_;
  size_t size_;
  size_t used_ = 0;
  size_t peak_ = 0;
};

}  // namespace keel
