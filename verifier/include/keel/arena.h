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

  [[nodiscard]] void* allocate_bytes(size_t bytes, size_t alignment) {
    void* result = take(bytes, alignment);
    if (result == nullptr) return nullptr;
    // Most blocks are small: when the arena has room past one, clearing a
    // fixed 64 bytes (a few stores, inline) is cheaper than calling memset.
    // The bytes past the block are free, so clearing them changes nothing.
    // Up to twice that (a tiny program's CFG arrays, carved as one block)
    // is still cheaper inline than the call.
    if (bytes <= kSmall && size_ - used_ >= kSmall - bytes) {
      __builtin_memset(result, 0, kSmall);
    } else if (bytes <= 2 * kSmall && size_ - used_ >= 2 * kSmall - bytes) {
      __builtin_memset(result, 0, 2 * kSmall);
    } else {
      clear(result, bytes);
    }
    return result;
  }

  // As allocate(), but the storage is left as it was: for arrays the caller
  // fills completely before reading them (zeroing them first would cost as
  // much as filling them; decode's instruction array is the largest).
  template <class T>
  [[nodiscard]] T* allocate_uninitialized(size_t count) {
    if (count > (SIZE_MAX / sizeof(T))) return nullptr;
    return static_cast<T*>(take(count * sizeof(T), alignof(T)));
  }

  size_t used() const { return used_; }
  size_t peak() const { return peak_; }
  size_t capacity() const { return size_; }
  // Everything allocated after `mark` is released (a scoped reset).
  size_t mark() const { return used_; }
  void release_to(size_t mark) { if (mark <= used_) used_ = mark; }
  void reset() { used_ = 0; }

 private:
  static constexpr size_t kSmall = 64;
  static void clear(void* memory, size_t bytes);  // memset, out of line
  // Inline: a bump of used_ (allocate_bytes adds the zeroing).
  void* take(size_t bytes, size_t alignment) {
    const uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
    const uintptr_t aligned = (start + (alignment - 1)) & ~(uintptr_t{alignment} - 1);
    const size_t padding = aligned - start;
    if (padding > size_ - used_ || bytes > size_ - used_ - padding) return nullptr;
    used_ += padding + bytes;
    if (used_ > peak_) peak_ = used_;
    return reinterpret_cast<void*>(aligned);
  }

  uint8_t* base_;
  size_t size_;
  size_t used_ = 0;
  size_t peak_ = 0;
};

}  // namespace keel
