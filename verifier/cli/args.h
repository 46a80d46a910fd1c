// Minimal argument scanning for the commands: positionals and a few
// options, every mistake a CliError.
#pragma once

#include <string>
#include <vector>

#include "cli.h"
#include "usage.h"

namespace keel::cli {

class Args {
 public:
  Args(const char* command, const std::vector<std::string>& args) : command_(command), args_(args) {}

  bool done() const { return next_ >= args_.size(); }
  // The next argument, consumed.
  const std::string& take() { return args_[next_++]; }
  // True when `arg` is an option (starts with '-' and is not "-" alone).
  static bool is_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }
  // The value following option `name`, consumed.
  const std::string& value_of(const std::string& name) {
    if (done()) throw CliError(std::string(command_) + ": option " + name + " needs a value");
    return take();
  }
  [[noreturn]] void unknown(const std::string& arg) const {
    throw CliError(std::string(command_) + ": unknown option '" + arg + "' (valid: " + command_options(command_) +
                   ")");
  }
  // An argument that no option of the command matched: an unknown option
  // is an error, anything else is the command's one input file.
  void single_input(const std::string& arg, std::string& input) const {
    if (is_option(arg)) unknown(arg);
    if (!input.empty()) fail("more than one input file ('" + arg + "')");
    input = arg;
  }
  [[noreturn]] void fail(const std::string& message) const {
    throw CliError(std::string(command_) + ": " + message);
  }

 private:
  const char* command_;
  const std::vector<std::string>& args_;
  size_t next_ = 0;
};

}  // namespace keel::cli
