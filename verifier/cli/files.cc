// File and number helpers shared by the commands.
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "cli.h"

namespace keel::cli {

Bytes read_file(const std::string& path) {
  if (path == "-") {
    std::cin >> std::noskipws;
    Bytes bytes{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    return bytes;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw CliError(path + ": is a directory");
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw CliError(path + ": " + std::strerror(errno));
  Bytes bytes;
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0) bytes.insert(bytes.end(), chunk, chunk + got);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) throw CliError(path + ": read error");
  return bytes;
}

std::string read_text_file(const std::string& path) {
  const Bytes bytes = read_file(path);
  return std::string(bytes.begin(), bytes.end());
}

void write_file(const std::string& path, const Bytes& bytes) {
  if (path == "-") {
    std::cout.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    if (!std::cout) throw CliError("cannot write to stdout");
    return;
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw CliError(path + ": " + std::strerror(errno));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) throw CliError(path + ": write error");
}

std::string replace_extension(const std::string& path, const std::string& extension) {
  std::filesystem::path p(path);
  p.replace_extension(extension);
  return p.string();
}

bool has_extension(const std::string& path, const std::string& extension) {
  return std::filesystem::path(path).extension() == extension;
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool parse_hex_bytes(const std::string& text, Bytes& out) {
  out.clear();
  int high = -1;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    const int digit = hex_digit(c);
    if (digit < 0) return false;
    if (high < 0) {
      high = digit;
    } else {
      out.push_back(static_cast<uint8_t>(high << 4 | digit));
      high = -1;
    }
  }
  return high < 0;
}

bool parse_u64(const std::string& text, uint64_t& out) {
  if (text.empty() || text[0] == '-' || text[0] == '+' || text[0] == ' ') return false;
  // Base 16 only with an explicit 0x: a leading 0 is decimal, not octal.
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (hex && (text[2] == '-' || text[2] == '+' || text[2] == ' ')) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, hex ? 16 : 10);
  if (errno != 0 || end == text.c_str() || *end != '\0') return false;
  out = value;
  return true;
}

}  // namespace keel::cli
