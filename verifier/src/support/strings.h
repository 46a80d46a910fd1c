// NUL-terminated string comparisons for the freestanding core (no libc).
#pragma once

namespace keel {

constexpr bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

constexpr bool starts_with(const char* s, const char* prefix) {
  while (*prefix != '\0') {
    if (*s++ != *prefix++) return false;
  }
  return true;
}

}  // namespace keel
