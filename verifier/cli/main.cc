// keel — command-line front end of libkeel: assemble, disassemble and run
// eBPF programs, and run the conformance corpora. One file per command.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.h"

namespace {

constexpr const char* kUsage =
    "Usage: keel <command> [arguments]\n"
    "\n"
    "Commands:\n"
    "  asm IN.s [-o OUT.bin]        assemble (IN '-' reads stdin; default OUT is IN with .bin,\n"
    "                               or stdout for stdin)\n"
    "  disasm IN.bin [--plain]      disassemble, one '<pc>: <insn>' line per instruction;\n"
    "                               --plain prints only the instructions (re-assemblable)\n"
    "  run IN.{bin,s} [--mem HEX | --mem-file FILE] [--guarded] [--budget N]\n"
    "                               decode and run; r1 points to a copy of the memory\n"
    "                               (HEX bytes, or FILE's raw bytes), r2 holds its length;\n"
    "                               --guarded checks every memory access (fast mode trusts\n"
    "                               the program: use --guarded for untrusted code);\n"
    "                               --budget limits the instructions executed\n"
    "  test-data PATH...            run bpf_conformance / uBPF .data files (directories\n"
    "                               recursively)\n"
    "  help, --help                 this text\n"
    "\n"
    "Exit status: 0 success, 1 the program trapped (run) or a test failed (test-data),\n"
    "2 bad input (nothing was run, or the program was refused at load).\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace keel::cli;
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "help" || command == "--help" || command == "-h") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
  }
  try {
    if (command == "asm") return cmd_asm(args);
    if (command == "disasm") return cmd_disasm(args);
    if (command == "run") return cmd_run(args);
    if (command == "test-data") return cmd_test_data(args);
    throw CliError("unknown command '" + command + "' (try 'keel --help')");
  } catch (const DiagnosticError& error) {
    std::fprintf(stderr, "%s\n", error.what());
  } catch (const CliError& error) {
    std::fprintf(stderr, "keel: %s\n", error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "keel: %s: %s\n", command.c_str(), error.what());
  }
  return kExitUsage;
}
