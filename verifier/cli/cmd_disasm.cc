// keel disasm IN.bin [--plain]: instruction bytes -> text, one line a
// slot-group; --plain output assembles back to the same bytes.
#include <cstdio>

#include "args.h"
#include "program.h"

namespace keel::cli {

int cmd_disasm(const std::vector<std::string>& arguments) {
  Args args("disasm", arguments);
  std::string input;
  bool plain = false;
  while (!args.done()) {
    const std::string& arg = args.take();
    if (arg == "--plain") {
      plain = true;
    } else if (Args::is_option(arg)) {
      args.unknown(arg);
    } else if (input.empty()) {
      input = arg;
    } else {
      args.fail("more than one input file ('" + arg + "')");
    }
  }
  if (input.empty()) args.fail("missing input file (keel disasm IN.bin [--plain])");

  const Bytes bytes = read_file(input);
  const std::string problem = raw_program_problem(bytes);
  if (!problem.empty()) throw CliError((input == "-" ? "<stdin>" : input) + ": " + problem);

  const size_t slots = bytes.size() / 8;
  char line[256];
  for (size_t pc = 0; pc < slots;) {
    const size_t used = disassemble_one(bytes.data(), slots, pc, line, sizeof line);
    if (used == 0) throw CliError("disasm: cannot render the instruction at pc " + std::to_string(pc));
    if (plain) {
      std::printf("%s\n", line);
    } else {
      std::printf("%4zu: %s\n", pc, line);
    }
    pc += used;
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitUsage;
}

}  // namespace keel::cli
