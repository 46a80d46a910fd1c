// Byte loops on purpose: correct for any alignment and overlap, and small.
// The kernel copies little (UART lines, BPF programs at load time); a
// word-at-a-time version can come with a benchmark that needs it.
//
// Built with -fno-tree-loop-distribute-patterns under GCC (kernel/
// CMakeLists.txt): otherwise GCC recognises these loops as memcpy/memset and
// turns them into calls to themselves.
#include "runtime/mem.h"

#include <cstdint>

namespace keel::runtime {

void* copy(void* destination, const void* source, size_t size) {
  auto* to = static_cast<unsigned char*>(destination);
  const auto* from = static_cast<const unsigned char*>(source);
  for (size_t i = 0; i < size; ++i) to[i] = from[i];
  return destination;
}

void* move(void* destination, const void* source, size_t size) {
  auto* to = static_cast<unsigned char*>(destination);
  const auto* from = static_cast<const unsigned char*>(source);
  // Comparing unrelated pointers is unspecified in C++; their integer values
  // are not, and within one flat address space they order the bytes.
  if (reinterpret_cast<uintptr_t>(to) <= reinterpret_cast<uintptr_t>(from)) {
    for (size_t i = 0; i < size; ++i) to[i] = from[i];
  } else {
    for (size_t i = size; i > 0; --i) to[i - 1] = from[i - 1];
  }
  return destination;
}

void* fill(void* destination, int value, size_t size) {
  auto* to = static_cast<unsigned char*>(destination);
  const auto byte = static_cast<unsigned char>(value);
  for (size_t i = 0; i < size; ++i) to[i] = byte;
  return destination;
}

int compare(const void* left, const void* right, size_t size) {
  const auto* a = static_cast<const unsigned char*>(left);
  const auto* b = static_cast<const unsigned char*>(right);
  for (size_t i = 0; i < size; ++i) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

}  // namespace keel::runtime
