// File and number helpers shared by the commands.
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

namespace keel::cli {

namespace {

[[noreturn]] void too_large(const std::string& path) {
  throw CliError(path + ": larger than keel's input limit of " + std::to_string(kMaxInputBytes >> 20) + " MiB");
}

// Reads at most kMaxInputBytes from `file` into one buffer, sized up front
// when `expected` (the file's size) is known, so an object is held once.
Bytes read_bounded(std::FILE* file, const std::string& path, size_t expected) {
  Bytes bytes;
  bytes.reserve(expected);
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0) {
    if (bytes.size() + got > kMaxInputBytes) too_large(path);
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  if (std::ferror(file) != 0) throw CliError(path + ": read error");
  return bytes;
}

}  // namespace

Bytes read_file(const std::string& path) {
  // stdin may be a pipe or a terminal: bounded as it is read.
  if (path == "-") return read_bounded(stdin, "<stdin>", 0);
  // Checked on the open descriptor, before reading: a FIFO would block, a
  // device (/dev/zero) never ends, and a directory has no bytes.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw CliError(path + ": " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    throw CliError(path + ": " + std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw CliError(path + (S_ISDIR(info.st_mode) ? ": is a directory" : ": not a regular file"));
  }
  if (static_cast<uint64_t>(info.st_size) > kMaxInputBytes) {
    ::close(fd);
    too_large(path);
  }
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    ::close(fd);
    throw CliError(path + ": " + std::strerror(errno));
  }
  try {
    Bytes bytes = read_bounded(file, path, static_cast<size_t>(info.st_size));
    std::fclose(file);
    return bytes;
  } catch (...) {
    std::fclose(file);
    throw;
  }
}

std::string read_text_file(const std::string& path) {
  const Bytes bytes = read_file(path);
  return std::string(bytes.begin(), bytes.end());
}

void write_file(const std::string& path, const Bytes& bytes) {
  if (path == "-") {
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size();
    if (!written || std::fflush(stdout) != 0) throw CliError(std::string("stdout: ") + std::strerror(errno));
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
