// The command line of keel's tools (`keel`, `keel-corpus`), on CLI11: each
// command declares its positionals and options once, on a CLI::App, and
// that one declaration gives the parser, the checks of every value, the
// `TOOL COMMAND --help` text and the list of valid options an unknown
// option is answered with (docs/adr/0046). Adding an option to a command
// is one `add_option` / `add_flag` line in its declare function.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli.h"

namespace keel::cli {

// What runs a command once its arguments are parsed: the exit status.
using Run = std::function<int()>;

struct Command {
  const char* name;
  const char* summary;  // one line of `TOOL --help`
  // Declares the command's arguments on `app` (bound to state the
  // returned Run owns) and returns what runs it.
  Run (*declare)(CLI::App& app);
};

struct Tool {
  const char* name;  // "keel"
  const char* description;
  std::string version;        // the line --version / -V prints
  std::string footer;         // after every help text: input limits, exit statuses
  std::vector<Command> commands;
  // Commands another tool has, as "command -> tool", for a useful error.
  std::vector<std::pair<std::string, std::string>> elsewhere;
};

// Parses argv, runs the command, checks stdout at exit; the exit status
// (cli.h): a usage error prints one "TOOL: COMMAND: what" line and is 2.
int run_tool(const Tool& tool, int argc, char** argv);

// The options `app` declares ("-o, --help"), for an unknown-option error.
std::string option_list(const CLI::App& app);

// The exit-status table every help text ends with.
std::string exit_status_table();
// "Inputs are regular files ... of at most 64 MiB ...".
std::string input_limit_note();

// --- Declaration helpers: the values of these options are checked while
// parsing; a bad one is a usage error naming the option.

// The command's one input file (positional; required).
CLI::Option* add_input(CLI::App& app, std::string& into, const char* what);
// An unsigned number from `min` to `max` (decimal or 0x-hex).
CLI::Option* add_number(CLI::App& app, const char* name, uint64_t& into, uint64_t min, uint64_t max,
                        const char* help);
CLI::Option* add_number(CLI::App& app, const char* name, uint32_t& into, uint64_t min, uint64_t max,
                        const char* help);

// A usage error of `command` found after parsing: "COMMAND: message", exit 2.
[[noreturn]] void usage_error(const std::string& command, const std::string& message);

}  // namespace keel::cli
