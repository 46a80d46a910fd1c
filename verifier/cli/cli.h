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

// Bad input of any kind (missing file, malformed option, ...). main() prints
// "keel: <what>" on stderr and exits with kExitUsage.
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A message already in a standard form ("IN.s:3:5: error: bad_operand"),
// printed as it is.
struct DiagnosticError : CliError {
  using CliError::CliError;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitTrap = 1;   // the program trapped or was rejected / a test failed
inline constexpr int kExitUsage = 2;  // bad input: nothing was run

// Whole-file reads and writes; "-" is stdin / stdout. Throw CliError.
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

// Commands; `args` excludes the command name. Return the exit status.
int cmd_asm(const std::vector<std::string>& args);
int cmd_disasm(const std::vector<std::string>& args);
int cmd_run(const std::vector<std::string>& args);
int cmd_test_data(const std::vector<std::string>& args);
int cmd_verify(const std::vector<std::string>& args);
int cmd_cases(const std::vector<std::string>& args);
int cmd_compare(const std::vector<std::string>& args);
int cmd_suite_pack(const std::vector<std::string>& args);

}  // namespace keel::cli
