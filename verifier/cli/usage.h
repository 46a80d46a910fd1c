// The help texts of `keel` (usage.cc).
#pragma once

#include <string>

#include "cli.h"

namespace keel::cli {

// `keel --help`: every command, the input limit and the exit-status table.
std::string full_usage();
// True when `command` is one of keel's commands.
bool has_usage(const std::string& command);
// `keel COMMAND --help`: that command's usage and the exit-status table.
std::string command_usage(const std::string& command);
// The options COMMAND takes ("--json, --type, ..."), for an unknown-option error.
std::string command_options(const std::string& command);

}  // namespace keel::cli
