// keel disasm IN.bin [--plain]: instruction bytes -> text, one line a
// slot-group; --plain output assembles back to the same bytes.
// keel disasm OBJ.o [--section S] [--function F] [--plain]: the same for
// the (relocated, linked) programs of an ELF object, one at a time.
#include <cstdio>

#include "commands.h"
#include "object_file.h"
#include "program.h"

namespace keel::cli {

namespace {

void print_listing(const uint8_t* bytes, size_t slots, bool plain) {
  char line[256];
  for (size_t pc = 0; pc < slots;) {
    const size_t used = disassemble_one(bytes, slots, pc, line, sizeof line);
    if (used == 0) throw CliError("disasm: cannot render the instruction at pc " + std::to_string(pc));
    if (plain) {
      std::printf("%s\n", line);
    } else {
      std::printf("%4zu: %s\n", pc, line);
    }
    pc += used;
  }
}

int disasm_object(const std::string& input, Bytes bytes, const std::string& section, const std::string& function,
                  bool plain) {
  const LoadedObject loaded(std::move(bytes), "");
  if (!loaded.result().ok()) throw CliError(input + ": " + elf_message(loaded.result()));
  std::vector<const ElfProgram*> programs = loaded.select("disasm", section, function);
  if (section.empty() && function.empty()) {
    // Every program, autoloaded or not: disassembly is for looking.
    programs.clear();
    for (uint32_t i = 0; i < loaded.object().program_count; ++i) programs.push_back(&loaded.object().programs[i]);
  }
  if (plain && programs.size() != 1)
    throw CliError("disasm: --plain prints one program; select it with --section/--function (" +
                   std::to_string(programs.size()) + " match)");
  int status = kExitOk;
  for (const ElfProgram* program : programs) {
    if (!program->status.ok()) {
      // Listed, but the object was not disassembled whole: exit status 2.
      std::printf("%s: not loaded: %s\n", program_label(*program).c_str(), elf_message(program->status).c_str());
      status = kExitUsage;
      continue;
    }
    if (!plain) std::printf("%s:\n", program_label(*program).c_str());
    print_listing(program->insns, program->slots, plain);
  }
  return status;
}

struct DisasmArgs {
  std::string input, section, function;
  bool plain = false;
};

int disassemble(const DisasmArgs& args) {
  const std::string& input = args.input;
  Bytes bytes = read_file(input);
  int status = kExitOk;
  if (is_elf(bytes)) {
    status = disasm_object(input, std::move(bytes), args.section, args.function, args.plain);
  } else {
    if (!args.section.empty() || !args.function.empty())
      usage_error("disasm", "--section and --function select programs of an ELF object");
    const std::string problem = raw_program_problem(bytes);
    if (!problem.empty()) throw CliError((input == "-" ? "<stdin>" : input) + ": " + problem);
    print_listing(bytes.data(), bytes.size() / 8, args.plain);
  }
  return std::fflush(stdout) == 0 ? status : kExitUsage;
}

}  // namespace

Run declare_disasm(CLI::App& app) {
  auto args = std::make_shared<DisasmArgs>();
  add_input(app, args->input, "instruction bytes (.bin, '-': stdin) or an ELF object (.o)");
  app.add_flag("--plain", args->plain,
               "only the instructions, which assemble back to the same bytes (of an object: one program)");
  app.add_option("--section", args->section, "only the programs of this section of an object");
  app.add_option("--function", args->function, "only this program (function) of an object");
  return [args] { return disassemble(*args); };
}

}  // namespace keel::cli
