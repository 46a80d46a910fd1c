#include "protocol.h"

#include "runtime/format.h"

namespace keel {
namespace {

size_t length_of(const char* text) {
  size_t length = 0;
  while (text[length] != '\0') ++length;
  return length;
}

// The marker left where fields were dropped: room for it is kept in every
// append, so a truncated line still ends with it.
constexpr char kTruncationMarker[] = " +";
constexpr size_t marker_length = sizeof(kTruncationMarker) - 1;

// A space inside a value would split it into two fields for a parser, and a
// line break would end the line.
char value_char(char c) { return (c == ' ' || c == '\n' || c == '\r' || c == '\0') ? '_' : c; }

}  // namespace

Line::Line(const char* event) {
  buffer_[0] = '\0';
  append("keel ");
  append(event);
}

bool Line::append(const char* text, size_t length) {
  if (truncated_ || size_ + length + marker_length > kCapacity) {
    if (!truncated_) {
      for (size_t i = 0; i < marker_length; ++i) buffer_[size_++] = kTruncationMarker[i];
      buffer_[size_] = '\0';
      truncated_ = true;
    }
    return false;
  }
  for (size_t i = 0; i < length; ++i) buffer_[size_++] = text[i];
  buffer_[size_] = '\0';
  return true;
}

bool Line::append(const char* text) { return append(text, length_of(text)); }

Line& Line::field(const char* key, const char* value, size_t length) {
  // Built in a scratch buffer first so that a field is added whole or not at all.
  char scratch[kCapacity];
  size_t used = 0;
  scratch[used++] = ' ';
  for (const char* k = key; *k != '\0' && used < kCapacity; ++k) scratch[used++] = *k;
  if (used < kCapacity) scratch[used++] = '=';
  for (size_t i = 0; i < length && used < kCapacity; ++i) scratch[used++] = value_char(value[i]);
  if (used == kCapacity) {
    append(scratch, kCapacity);  // cannot fit: marks the line truncated
    return *this;
  }
  append(scratch, used);
  return *this;
}

Line& Line::str(const char* key, const char* value) {
  if (value == nullptr) value = "(null)";
  return field(key, value, length_of(value));
}

Line& Line::dec(const char* key, uint64_t value) {
  char digits[24];
  return field(key, digits, runtime::format_unsigned(digits, sizeof digits, value));
}

Line& Line::sdec(const char* key, int64_t value) {
  char digits[24];
  return field(key, digits, runtime::format_signed(digits, sizeof digits, value));
}

Line& Line::hex(const char* key, uint64_t value) {
  char digits[20] = {'0', 'x'};
  const size_t length = runtime::format_unsigned(digits + 2, sizeof digits - 2, value, 16);
  return field(key, digits, length + 2);
}

Line& Line::fixed6(const char* key, uint64_t whole, uint32_t millionths) {
  char digits[32];
  size_t length = runtime::format_unsigned(digits, sizeof digits, whole);
  digits[length++] = '.';
  // millionths < 10^6 by contract; a larger value is clamped, not misprinted.
  if (millionths > 999'999) millionths = 999'999;
  length += runtime::format_unsigned(digits + length, sizeof digits - length, millionths, 10, 6);
  return field(key, digits, length);
}

Line& Line::word(const char* text) {
  char scratch[kCapacity];
  size_t used = 0;
  scratch[used++] = ' ';
  for (const char* t = text; *t != '\0' && used < kCapacity; ++t) scratch[used++] = value_char(*t);
  if (used == kCapacity) {
    append(scratch, kCapacity);  // cannot fit: marks the line truncated
    return *this;
  }
  append(scratch, used);
  return *this;
}

}  // namespace keel
