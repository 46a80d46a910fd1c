#include "runtime/format.h"

namespace keel::runtime {

size_t format_unsigned(char* out, size_t capacity, uint64_t value, unsigned base,
                       size_t min_digits) {
  if (base < 2 || base > 16) return 0;
  // 64 binary digits is the longest any base produces; padding beyond that
  // is refused rather than silently cut.
  constexpr size_t kMaxDigits = 64;
  if (min_digits > kMaxDigits) return 0;
  char reversed[kMaxDigits];
  size_t length = 0;
  do {
    reversed[length++] = "0123456789abcdef"[value % base];
    value /= base;
  } while (value != 0);
  while (length < min_digits) reversed[length++] = '0';
  if (length > capacity) return 0;
  for (size_t i = 0; i < length; ++i) out[i] = reversed[length - 1 - i];
  return length;
}

size_t format_signed(char* out, size_t capacity, int64_t value) {
  if (value >= 0) return format_unsigned(out, capacity, static_cast<uint64_t>(value));
  if (capacity < 2) return 0;
  // -(value + 1) + 1 avoids negating INT64_MIN, which does not fit.
  const uint64_t magnitude = static_cast<uint64_t>(-(value + 1)) + 1;
  const size_t digits = format_unsigned(out + 1, capacity - 1, magnitude);
  if (digits == 0) return 0;
  out[0] = '-';
  return digits + 1;
}

}  // namespace keel::runtime
