// The kernel's byte-copy primitives, under their own names so that host
// tests can exercise them beside the C library's. The kernel image exports
// them as memcpy/memmove/memset/memcmp (libc.cc): GCC emits calls to those
// even with -ffreestanding (docs/platform.md, "Toolchain"), and the verifier
// core needs them.
#pragma once

#include <cstddef>

namespace keel::runtime {

void* copy(void* destination, const void* source, size_t size);   ///< memcpy: no overlap
void* move(void* destination, const void* source, size_t size);   ///< memmove: overlap allowed
void* fill(void* destination, int value, size_t size);             ///< memset
int compare(const void* left, const void* right, size_t size);     ///< memcmp: sign of first difference

}  // namespace keel::runtime
