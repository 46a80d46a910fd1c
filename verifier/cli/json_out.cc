#include "json_out.h"

#include <cstdio>

namespace keel::cli {

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += escape;
        } else {
          out += c;  // UTF-8 passes through; JSON text is UTF-8 (RFC 8259 §8.1)
        }
    }
  }
  return out + "\"";
}

JsonObject& JsonObject::raw(const char* key, const std::string& json) {
  if (!text_.empty()) text_ += ", ";
  text_ += json_quote(key) + ": " + json;
  return *this;
}

}  // namespace keel::cli
