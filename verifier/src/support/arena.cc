#include "keel/arena.h"

#include <cstring>

namespace keel {

void* Arena::allocate_bytes(size_t bytes, size_t alignment) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
  const uintptr_t aligned = (start + (alignment - 1)) & ~(uintptr_t{alignment} - 1);
  const size_t padding = aligned - start;
  if (padding > size_ - used_ || bytes > size_ - used_ - padding) return nullptr;
  used_ += padding + bytes;
  if (used_ > peak_) peak_ = used_;
  void* result = reinterpret_cast<void*>(aligned);
  memset(result, 0, bytes);
  return result;
}

}  // namespace keel
