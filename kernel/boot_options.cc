#include "boot_options.h"

namespace keel {
namespace {

// Does the word [begin, end) equal `text`?
bool word_is(const char* begin, const char* end, const char* text) {
  for (; begin != end; ++begin, ++text) {
    if (*text == '\0' || *text != *begin) return false;
  }
  return *text == '\0';
}

// If [begin, end) starts with `prefix`, where its remainder begins.
const char* after_prefix(const char* begin, const char* end, const char* prefix) {
  for (; *prefix != '\0'; ++begin, ++prefix) {
    if (begin == end || *begin != *prefix) return nullptr;
  }
  return begin;
}

constexpr SelfTest kNamedTests[] = {SelfTest::invalid_opcode, SelfTest::page_fault,
                                    SelfTest::null_read, SelfTest::stack_overflow};

}  // namespace

const char* self_test_name(SelfTest test) {
  switch (test) {
    case SelfTest::none: return "none";
    case SelfTest::invalid_opcode: return "ud2";
    case SelfTest::page_fault: return "page-fault";
    case SelfTest::null_read: return "null-read";
    case SelfTest::stack_overflow: return "stack-overflow";
    case SelfTest::unknown: return "unknown";
  }
  return "unknown";
}

BootOptions parse_boot_options(const char* cmdline) {
  BootOptions options;
  if (cmdline == nullptr) return options;
  const char* cursor = cmdline;
  while (*cursor != '\0') {
    while (*cursor == ' ') ++cursor;
    const char* begin = cursor;
    while (*cursor != '\0' && *cursor != ' ') ++cursor;
    const char* value = after_prefix(begin, cursor, "keel.test=");
    if (value == nullptr) continue;  // other words belong to someone else (a loader, a user)
    options.self_test = SelfTest::unknown;
    for (const SelfTest test : kNamedTests) {
      if (word_is(value, cursor, self_test_name(test))) options.self_test = test;
    }
  }
  return options;
}

}  // namespace keel
