// Writing JSON for the --json outputs: one object built member by member,
// strings escaped per RFC 8259 §7. Output only; nothing here parses.
#pragma once

#include <cstdint>
#include <string>

namespace keel::cli {

// `text` as a JSON string literal, quotes included.
std::string json_quote(const std::string& text);

// Builds "{...}" or "[...]" text; members are added in order.
class JsonObject {
 public:
  JsonObject& add(const char* key, const std::string& value) { return raw(key, json_quote(value)); }
  JsonObject& add(const char* key, const char* value) {
    return raw(key, value == nullptr ? "null" : json_quote(value));
  }
  JsonObject& add(const char* key, uint64_t value) { return raw(key, std::to_string(value)); }
  JsonObject& boolean(const char* key, bool value) { return raw(key, value ? "true" : "false"); }
  JsonObject& null(const char* key) { return raw(key, "null"); }
  // `json` is already JSON text (an object or array).
  JsonObject& raw(const char* key, const std::string& json);
  std::string str() const { return "{" + text_ + "}"; }

 private:
  std::string text_;
};

class JsonArray {
 public:
  JsonArray& push(const std::string& json) {
    if (!text_.empty()) text_ += ", ";
    text_ += json;
    return *this;
  }
  std::string str() const { return "[" + text_ + "]"; }

 private:
  std::string text_;
};

}  // namespace keel::cli
