// keel — command-line front end of libkeel: assemble, disassemble, verify
// and run eBPF programs, and run the conformance and verifier corpora. One
// file per command.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.h"
#include "keel_git_commit.h"
#include "usage.h"

namespace {

// stdout is checked once, at exit, for every command: a full disk or a
// closed pipe must not turn a verdict into a silent success.
int finish(int status) {
  using namespace keel::cli;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "keel: cannot write to stdout\n");
    return kExitUsage;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace keel::cli;
  if (argc < 2) {
    std::fputs(full_usage().c_str(), stderr);
    return kExitUsage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "help" || command == "--help" || command == "-h") {
    std::fputs((args.empty() ? full_usage() : command_usage(args[0])).c_str(), stdout);
    return finish(kExitOk);
  }
  if (command == "--version" || command == "-V") {
    std::printf("keel %s%s\n", KEEL_VERSION, KEEL_GIT_COMMIT[0] == '\0' ? "" : " (" KEEL_GIT_COMMIT ")");
    return finish(kExitOk);
  }
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::fputs(command_usage(command).c_str(), stdout);
      return finish(kExitOk);
    }
  }
  try {
    if (command == "asm") return finish(cmd_asm(args));
    if (command == "disasm") return finish(cmd_disasm(args));
    if (command == "run") return finish(cmd_run(args));
    if (command == "test-data") return finish(cmd_test_data(args));
    if (command == "verify") return finish(cmd_verify(args));
    if (command == "cases") return finish(cmd_cases(args));
    if (command == "compare") return finish(cmd_compare(args));
    if (command == "suite-pack") return finish(cmd_suite_pack(args));
    throw CliError("unknown command '" + command + "' (try 'keel --help')");
  } catch (const DiagnosticError& error) {
    std::fprintf(stderr, "%s\n", error.what());
  } catch (const CliError& error) {
    std::fprintf(stderr, "keel: %s\n", error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "keel: %s: %s\n", command.c_str(), error.what());
  }
  std::fflush(stdout);
  return kExitUsage;
}
