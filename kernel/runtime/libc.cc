// The four C symbols a freestanding image must define (docs/platform.md: GCC
// calls them even with -ffreestanding; the verifier core is allowed exactly
// these). Linked into kernel images only: in a host test they would replace
// the C library's.
#include <cstddef>

#include "runtime/mem.h"

extern "C" {

void* memcpy(void* destination, const void* source, size_t size) {
  return keel::runtime::copy(destination, source, size);
}
void* memmove(void* destination, const void* source, size_t size) {
  return keel::runtime::move(destination, source, size);
}
void* memset(void* destination, int value, size_t size) {
  return keel::runtime::fill(destination, value, size);
}
int memcmp(const void* left, const void* right, size_t size) {
  return keel::runtime::compare(left, right, size);
}

}  // extern "C"
