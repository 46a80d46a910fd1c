// Appends text to a caller buffer: the core's stand-in for snprintf (it has
// no libc). Output that does not fit is dropped but counted, so finish()
// returns the length the text needed, as snprintf does.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel {

class TextWriter {
 public:
  TextWriter(char* buffer, size_t size) : buffer_(buffer), size_(size) {}

  TextWriter& put(char c) {
    if (length_ + 1 < size_) buffer_[length_] = c;
    ++length_;
    return *this;
  }
  TextWriter& put(const char* s) {
    while (*s != '\0') put(*s++);
    return *this;
  }
  TextWriter& decimal(uint64_t value) {
    char digits[20];
    size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (n > 0) put(digits[--n]);
    return *this;
  }
  // `-N`, and `+N` for non-negative values when `plus` is set.
  TextWriter& signed_decimal(int64_t value, bool plus = false) {
    // Negating in unsigned arithmetic keeps INT64_MIN defined.
    const uint64_t magnitude =
        value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    if (value < 0) {
      put('-');
    } else if (plus) {
      put('+');
    }
    return decimal(magnitude);
  }
  // `0x` and at least `min_digits` lower-case hex digits.
  TextWriter& hex(uint64_t value, size_t min_digits = 1) {
    put("0x");
    char digits[16];
    size_t n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value & 0xf];
      value >>= 4;
    } while (value != 0);
    while (n < min_digits && n < sizeof(digits)) digits[n++] = '0';
    while (n > 0) put(digits[--n]);
    return *this;
  }
  size_t length() const { return length_; }
  // NUL-terminates (when the buffer has room for anything) and returns the
  // length the whole text needed, terminator excluded.
  size_t finish() {
    if (size_ > 0) buffer_[length_ < size_ ? length_ : size_ - 1] = '\0';
    return length_;
  }
  // All or nothing: NUL-terminates and returns true when the whole text fit;
  // otherwise leaves an empty string and returns false.
  bool finish_whole() {
    if (size_ == 0) return false;
    if (length_ + 1 > size_) {
      buffer_[0] = '\0';
      return false;
    }
    buffer_[length_] = '\0';
    return true;
  }

 private:
  char* buffer_;
  size_t size_;
  size_t length_ = 0;
};

}  // namespace keel
