#include "json.h"

#include <cstdlib>

namespace keel::tools {

const Json& Json::operator[](const std::string& key) const {
  static const Json kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : it->second;
}

namespace {

struct Parser {
  const std::string& s;
  size_t i = 0;
  std::string error;

  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  bool fail(const char* what) {
    if (error.empty()) error = std::string(what) + " at " + std::to_string(i);
    return false;
  }
  bool literal(const char* word) {
    size_t n = 0;
    while (word[n] != '\0') ++n;
    if (s.compare(i, n, word) != 0) return fail("bad literal");
    i += n;
    return true;
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  bool string(std::string& out) {
    if (s[i] != '"') return fail("expected string");
    ++i;
    while (i < s.size() && s[i] != '"') {
      char c = s[i++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i >= s.size()) return fail("bad escape");
      c = s[i++];
      switch (c) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (i + 4 > s.size()) return fail("bad \\u");
          utf8(out, static_cast<unsigned>(std::strtoul(s.substr(i, 4).c_str(), nullptr, 16)));
          i += 4;
          break;
        }
        default: out += c; break;
      }
    }
    if (i >= s.size()) return fail("unterminated string");
    ++i;
    return true;
  }
  bool value(Json& out) {
    ws();
    if (i >= s.size()) return fail("unexpected end");
    const char c = s[i];
    if (c == '{') {
      out.type = Json::Type::object;
      ++i;
      ws();
      if (i < s.size() && s[i] == '}') {
        ++i;
        return true;
      }
      for (;;) {
        ws();
        std::string key;
        if (!string(key)) return false;
        ws();
        if (i >= s.size() || s[i] != ':') return fail("expected :");
        ++i;
        if (!value(out.object[key])) return false;
        ws();
        if (i < s.size() && s[i] == ',') {
          ++i;
          continue;
        }
        if (i < s.size() && s[i] == '}') {
          ++i;
          return true;
        }
        return fail("expected , or }");
      }
    }
    if (c == '[') {
      out.type = Json::Type::array;
      ++i;
      ws();
      if (i < s.size() && s[i] == ']') {
        ++i;
        return true;
      }
      for (;;) {
        out.array.emplace_back();
        if (!value(out.array.back())) return false;
        ws();
        if (i < s.size() && s[i] == ',') {
          ++i;
          continue;
        }
        if (i < s.size() && s[i] == ']') {
          ++i;
          return true;
        }
        return fail("expected , or ]");
      }
    }
    if (c == '"') {
      out.type = Json::Type::string;
      return string(out.string);
    }
    if (c == 't') {
      out.type = Json::Type::boolean;
      out.boolean = true;
      return literal("true");
    }
    if (c == 'f') {
      out.type = Json::Type::boolean;
      return literal("false");
    }
    if (c == 'n') return literal("null");
    char* end = nullptr;
    out.number = std::strtod(s.c_str() + i, &end);
    if (end == s.c_str() + i) return fail("bad value");
    out.type = Json::Type::number;
    i = static_cast<size_t>(end - s.c_str());
    return true;
  }
};

}  // namespace

bool parse_json(const std::string& text, Json& out, std::string& error) {
  Parser p{text, 0, std::string()};
  out = Json{};
  if (!p.value(out)) {
    error = p.error;
    return false;
  }
  p.ws();
  if (p.i != text.size()) {
    error = "trailing text";
    return false;
  }
  return true;
}

}  // namespace keel::tools
