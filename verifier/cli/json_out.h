// The --json outputs, built with nlohmann::json (docs/adr/0046). Members
// keep the order they are set in (ordered_json), so the output reads in
// the order the README documents.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace keel::cli {

using Json = nlohmann::ordered_json;

// A string, or null where there is none.
inline Json string_or_null(const char* text) { return text == nullptr ? Json() : Json(text); }
inline Json string_or_null(const std::string& text) { return text.empty() ? Json() : Json(text); }

// `value` as one line on stdout. Text from an object (file names, source
// lines) need not be UTF-8: invalid bytes become U+FFFD rather than an
// exception (RFC 8259 §8.1 wants UTF-8).
inline void print_json(const Json& value) {
  const std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::printf("%s\n", text.c_str());
}

}  // namespace keel::cli
