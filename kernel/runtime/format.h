// Integer to text for the console and the line protocol, into a caller's
// buffer: no printf in the kernel. Each function writes nothing and returns 0
// when the text does not fit, so a caller never emits half a number.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel::runtime {

// Digits of `value` in `base` (2..16, lower-case), at least `min_digits`
// (zero-padded); no prefix, no terminator. Returns the length written.
[[nodiscard]] size_t format_unsigned(char* out, size_t capacity, uint64_t value,
                                     unsigned base = 10, size_t min_digits = 1);

// Decimal with a leading '-' for negative values (INT64_MIN included).
[[nodiscard]] size_t format_signed(char* out, size_t capacity, int64_t value);

}  // namespace keel::runtime
