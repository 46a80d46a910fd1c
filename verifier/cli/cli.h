// Shared pieces of the `keel` command-line tool: the error every command
// reports bad input with, file access, and one entry point per command.
// Unlike the core, the tool may use the C++ standard library.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace keel::cli {

using Bytes = std::vector<uint8_t>;

// Bad input of any kind (missing file, malformed option, ...). run_tool()
// (command_line.h) prints "keel: <what>" on stderr and exits with kExitUsage.
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A message already in a standard form ("IN.s:3:5: error: bad_operand"),
// printed as it is.
struct DiagnosticError : CliError {
  using CliError::CliError;
};

// The exit-code contract of every command (README.md, `keel --help`).
inline constexpr int kExitOk = 0;     // every program accepted / the command succeeded
inline constexpr int kExitTrap = 1;   // a verdict: a program rejected or trapped, a test failed
inline constexpr int kExitUsage = 2;  // usage error, or input that could not be checked

// The largest input file keel reads (objects, programs, data files): far
// above any real BPF object (the corpus's largest is a few MiB), and low
// enough that a wrong path cannot exhaust memory.
inline constexpr uint64_t kMaxInputBytes = uint64_t{64} << 20;

// Whole-file reads and writes; "-" is stdin / stdout. Throw CliError.
// read_file refuses, before reading, anything but a regular file (FIFO,
// directory, device) and files over kMaxInputBytes.
Bytes read_file(const std::string& path);
std::string read_text_file(const std::string& path);
void write_file(const std::string& path, const Bytes& bytes);

// `path` with its extension (if any) replaced by `extension` (".bin").
std::string replace_extension(const std::string& path, const std::string& extension);
bool has_extension(const std::string& path, const std::string& extension);

// Hex bytes ("01 02 0a0b"): whitespace separates nothing but is ignored;
// false on an odd digit count or a non-hex character.
bool parse_hex_bytes(const std::string& text, Bytes& out);

// Parses an unsigned number (decimal or 0x-hex); false on garbage or overflow.
bool parse_u64(const std::string& text, uint64_t& out);

}  // namespace keel::cli
