// Little-endian loads and stores of unaligned bytes. __builtin_memcpy keeps
// them single moves even under -ffreestanding (which implies -fno-builtin).
#pragma once

#include <cstdint>

namespace keel::bytes {

template <class T>
inline T load(const void* p) {
  T value;
  __builtin_memcpy(&value, p, sizeof(T));
  return value;
}

template <class T>
inline void store(void* p, T value) {
  __builtin_memcpy(p, &value, sizeof(T));
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "keel's targets are little-endian; loads would need byte swaps elsewhere");

}  // namespace keel::bytes
