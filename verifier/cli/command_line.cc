#include "command_line.h"

#include <cstdio>
#include <exception>
#include <memory>

namespace keel::cli {

namespace {

bool is_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

// stdout is checked once, at exit, for every command: a full disk or a
// closed pipe must not turn a verdict into a silent success.
int finish(const char* tool, int status) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "%s: cannot write to stdout\n", tool);
    return kExitUsage;
  }
  return status;
}

// CLI11's message for a parse error, in keel's words where they differ:
// "option -o needs a value", "missing input file", and a check's own
// sentence without CLI11's "--map: " in front of it.
std::string parse_error_text(const CLI::ParseError& error) {
  const std::string name = error.get_name();
  const std::string what = error.what();
  const size_t colon = what.find(": ");
  if (name == "ArgumentMismatch" && what.find("required") != std::string::npos &&
      what.find("missing") != std::string::npos && colon != std::string::npos)
    return "option " + what.substr(0, colon) + " needs a value";
  if (name == "RequiredError") {
    const size_t is = what.find(" is required");
    if (is != std::string::npos && !is_option(what)) return "missing " + what.substr(0, is) + " file";
  }
  if (name == "ValidationError" && colon != std::string::npos) return what.substr(colon + 2);
  return what;
}

const Command* find_command(const Tool& tool, const std::string& name) {
  for (const Command& command : tool.commands)
    if (name == command.name) return &command;
  return nullptr;
}

// The one subcommand CLI11 has seen on the command line, if any.
CLI::App* parsed_command(CLI::App& app) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  return parsed.empty() ? nullptr : parsed.front();
}

// Arguments no declaration matched (CLI::App::allow_extras): an unknown
// option names the valid ones; anything else is one input too many.
void check_extras(const CLI::App& command) {
  const std::vector<std::string> extras = command.remaining();
  for (const std::string& arg : extras)
    if (is_option(arg))
      usage_error(command.get_name(),
                  "unknown option '" + arg.substr(0, arg.find('=')) + "' (valid: " + option_list(command) + ")");
  if (!extras.empty()) usage_error(command.get_name(), "more than one input file ('" + extras.front() + "')");
}

int run_parsed(const Tool& tool, int argc, char** argv) {
  CLI::App app(tool.description, tool.name);
  app.set_version_flag("-V,--version", tool.version);
  app.require_subcommand(1, 1);
  app.footer(tool.footer);
  app.get_formatter()->column_width(30);  // subcommands share it
  std::vector<std::pair<CLI::App*, Run>> runs;
  for (const Command& command : tool.commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    sub->allow_extras();
    sub->footer(tool.footer);
    runs.emplace_back(sub, command.declare(*sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    CLI::App* command = parsed_command(app);
    std::fputs(command != nullptr ? command->help(tool.name).c_str() : app.help().c_str(), stdout);
    return kExitOk;
  } catch (const CLI::CallForVersion& version) {
    std::printf("%s\n", version.what());
    return kExitOk;
  } catch (const CLI::ParseError& error) {
    CLI::App* command = parsed_command(app);
    if (command == nullptr && error.get_name() == "ExtrasError") {
      const std::string first = argc > 1 ? argv[1] : "";
      throw CliError(std::string(is_option(first) ? "unknown option '" : "unknown command '") + first + "' (try '" +
                     tool.name + " --help')");
    }
    throw CliError((command != nullptr ? command->get_name() + ": " : "") + parse_error_text(error));
  }
  for (auto& [command, run] : runs) {
    if (!command->parsed()) continue;
    check_extras(*command);
    return run();
  }
  throw CliError(std::string("no command (try '") + tool.name + " --help')");
}

}  // namespace

std::string option_list(const CLI::App& app) {
  std::string list;
  const auto options = app.get_options([](const CLI::Option* option) { return option->nonpositional(); });
  for (const CLI::Option* option : options) {
    for (const std::string& name : option->get_snames()) {
      if (name == "h") continue;
      list += (list.empty() ? "-" : ", -") + name;
    }
    for (const std::string& name : option->get_lnames()) {
      if (name == "help") continue;
      list += (list.empty() ? "--" : ", --") + name;
    }
  }
  return list + (list.empty() ? "" : ", ") + "--help";
}

std::string input_limit_note() {
  return "Inputs are regular files (or '-' for stdin) of at most " + std::to_string(kMaxInputBytes >> 20) +
         " MiB; anything else is refused\nwith exit status 2 before it is read.\n";
}

std::string exit_status_table() {
  return "Exit status (every command of keel and keel-corpus):\n"
         "  0  success: every program accepted (verify, compare), ran without a trap (run), every\n"
         "     test passed (test-data, cases); asm, disasm and suite-pack: done\n"
         "  1  a verdict: at least one program rejected (verify, compare, run), trapped (run), a\n"
         "     test failed (test-data) or a case was falsely accepted (cases)\n"
         "  2  usage error, or input that could not be checked: unreadable, not a regular file,\n"
         "     larger than the input limit, a corrupt or non-BPF object, a program using what keel\n"
         "     does not support (JSON verdict \"error\" / \"unsupported\"), a write error on the\n"
         "     output; 2 wins over 1 when a run has both\n";
}

CLI::Option* add_input(CLI::App& app, std::string& into, const char* what) {
  // Named "input": a missing one is "missing input file" (parse_error_text).
  return app.add_option("input", into, what)->required()->type_name("FILE");
}

namespace {

CLI::Validator number_check(const std::string& name, uint64_t min, uint64_t max) {
  return CLI::Validator(
      [name, min, max](std::string& text) {
        uint64_t value = 0;
        if (parse_u64(text, value) && value >= min && value <= max) {
          text = std::to_string(value);  // 0x-hex becomes decimal for CLI11's conversion
          return std::string();
        }
        if (max == UINT64_MAX && min == 1) return name + " wants a positive number, got '" + text + "'";
        return name + " wants a number from " + std::to_string(min) + " to " + std::to_string(max) + ", got '" +
               text + "'";
      },
      "N", "number");
}

}  // namespace

CLI::Option* add_number(CLI::App& app, const char* name, uint64_t& into, uint64_t min, uint64_t max,
                        const char* help) {
  return app.add_option(name, into, help)->check(number_check(name, min, max))->type_name("N");
}

CLI::Option* add_number(CLI::App& app, const char* name, uint32_t& into, uint64_t min, uint64_t max,
                        const char* help) {
  return app.add_option(name, into, help)->check(number_check(name, min, max < UINT32_MAX ? max : UINT32_MAX))
      ->type_name("N");
}

[[noreturn]] void usage_error(const std::string& command, const std::string& message) {
  throw CliError(command + ": " + message);
}

int run_tool(const Tool& tool, int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "";
  if (argc < 2) {
    std::fprintf(stderr, "Usage: %s COMMAND [ARGS] (%s --help lists the commands)\n", tool.name, tool.name);
    return kExitUsage;
  }
  try {
    std::vector<char*> args(argv, argv + argc);
    // `TOOL help [COMMAND]` is `TOOL [COMMAND] --help`.
    char help_flag[] = "--help";
    if (first == "help") {
      args.erase(args.begin() + 1);
      args.push_back(help_flag);
    }
    const std::string named = args.size() > 1 ? args[1] : "";
    if (!is_option(named) && find_command(tool, named) == nullptr) {
      for (const auto& [command, other] : tool.elsewhere)
        if (named == command)
          throw CliError("'" + command + "' is a command of " + other + ", the corpus tool: " + other + " " + command +
                         " ...");
      throw CliError("unknown command '" + named + "' (try '" + tool.name + " --help')");
    }
    return finish(tool.name, run_parsed(tool, static_cast<int>(args.size()), args.data()));
  } catch (const DiagnosticError& error) {
    std::fprintf(stderr, "%s\n", error.what());
  } catch (const CliError& error) {
    std::fprintf(stderr, "%s: %s\n", tool.name, error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s: %s\n", tool.name, first.c_str(), error.what());
  }
  std::fflush(stdout);
  return kExitUsage;
}

}  // namespace keel::cli
