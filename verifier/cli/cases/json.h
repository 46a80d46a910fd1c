// A minimal JSON reader for the corpus files (host only): objects, arrays,
// strings (with \uXXXX escapes decoded to UTF-8), numbers, true/false/null.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace keel::tools {

struct Json {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  bool is_null() const { return type == Type::null; }
  // The member `key` of an object, or a null value.
  const Json& operator[](const std::string& key) const;
  const std::string& str() const { return string; }
};

// Parses `text`; false (and `error`) when it is not one JSON value.
bool parse_json(const std::string& text, Json& out, std::string& error);

}  // namespace keel::tools
