// The kernel's machine-readable UART protocol: every report is one line
// `keel <event> key=value ...` (docs/design.md, "UART"), built here in a
// fixed buffer and written whole by console.h's emit(). Capture scripts and
// the boot tests parse these lines, so values never contain spaces.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel {

class Line {
 public:
  static constexpr size_t kCapacity = 240;  ///< a full line, newline excluded

  explicit Line(const char* event);

  Line& str(const char* key, const char* value);  ///< key=value (spaces become '_')
  Line& dec(const char* key, uint64_t value);     ///< key=123
  Line& sdec(const char* key, int64_t value);     ///< key=-123
  Line& hex(const char* key, uint64_t value);     ///< key=0x7b
  /// key=<whole>.<six digits>, e.g. ns_per_tick=10.000000
  Line& fixed6(const char* key, uint64_t whole, uint32_t millionths);
  Line& word(const char* text);                   ///< a bare word, e.g. `fallback`

  const char* text() const { return buffer_; }   ///< NUL-terminated, no newline
  size_t size() const { return size_; }
  /// A field that did not fit was dropped whole, with every later one, and
  /// the line ends in ` +`: the protocol never shows a half value.
  bool truncated() const { return truncated_; }

 private:
  bool append(const char* text, size_t length);
  bool append(const char* text);
  Line& field(const char* key, const char* value, size_t length);

  char buffer_[kCapacity + 1];
  size_t size_ = 0;
  bool truncated_ = false;
};

}  // namespace keel
