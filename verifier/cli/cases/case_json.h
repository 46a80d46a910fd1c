// Reading the corpus's JSON (linux-verifier/*.jsonl and maps.json) with
// nlohmann::json (docs/adr/0046). The case files leave members out or set
// them to null where they do not apply; these read such a member as
// empty: "", 0, false or no items.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace keel::tools {

using Json = nlohmann::json;

// Parses one JSON value; false (and `error`) when `text` is not one.
inline bool parse_json(const std::string& text, Json& out, std::string& error) {
  try {
    out = Json::parse(text);
    return true;
  } catch (const Json::parse_error& e) {
    error = e.what();
    return false;
  }
}

inline const Json& member(const Json& value, const std::string& key) {
  static const Json kNull;
  if (!value.is_object()) return kNull;
  const auto it = value.find(key);
  return it == value.end() ? kNull : *it;
}
inline std::string as_text(const Json& value) { return value.is_string() ? value.get<std::string>() : ""; }
inline double as_number(const Json& value) { return value.is_number() ? value.get<double>() : 0.0; }
inline std::string text(const Json& value, const std::string& key) { return as_text(member(value, key)); }
inline double number(const Json& value, const std::string& key) { return as_number(member(value, key)); }
inline bool flag(const Json& value, const std::string& key) {
  const Json& m = member(value, key);
  return m.is_boolean() && m.get<bool>();
}
// An array member's items (none when absent, null or not an array).
inline const Json& items(const Json& value, const std::string& key) {
  static const Json kEmpty = Json::array();
  const Json& m = member(value, key);
  return m.is_array() ? m : kEmpty;
}

}  // namespace keel::tools
