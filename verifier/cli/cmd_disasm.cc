// keel disasm IN.bin [--plain] [--syntax conformance|llvm]: instruction
// bytes -> text, one line a slot-group; --plain output assembles back to
// the same bytes.
// keel disasm OBJ.o [--section S] [--function F] [--plain] [-S] [--syntax ...]:
// the same for the (relocated, linked) programs of an ELF object, one at a
// time, naming helpers, maps, global variables and jump targets (listing.h);
// --function also finds a subprogram, -S interleaves the source lines.
#include <cstdio>

#include "commands.h"
#include "elf_symbols.h"
#include "listing.h"
#include "object_file.h"
#include "program.h"

namespace keel::cli {

namespace {

// --plain: the assembler's syntax, one instruction a line, nothing else.
void print_plain(const uint8_t* bytes, size_t slots) {
  char line[256];
  for (size_t pc = 0; pc < slots;) {
    const size_t used = disassemble_one(bytes, slots, pc, line, sizeof line);
    if (used == 0) throw CliError("disasm: cannot render the instruction at pc " + std::to_string(pc));
    std::printf("%s\n", line);
    pc += used;
  }
}

int disasm_object(const std::string& input, Bytes bytes, const std::string& section, const std::string& function,
                  bool plain, const ListingStyle& style) {
  const std::vector<DataSymbol> symbols = data_symbols(bytes);
  const LoadedObject loaded(std::move(bytes), "");
  if (!loaded.result().ok()) throw CliError(input + ": " + elf_message(loaded.result()));
  if (!function.empty() && !plain) {
    // A subprogram (no program of its own): its slots in the first program linking it.
    const FoundFunction found = find_subprogram(loaded.object(), section, function);
    if (found.function != nullptr && found.function->pc != 0) {
      std::printf("%s (in %s):\n", function.c_str(), program_label(*found.program).c_str());
      print_listing(loaded.object(), *found.program, symbols, style, found.function->pc,
                    found.function->pc + found.function->slots);
      return kExitOk;
    }
  }
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
    if (plain) {
      print_plain(program->insns, program->slots);
      continue;
    }
    std::printf("%s:\n", program_label(*program).c_str());
    print_listing(loaded.object(), *program, symbols, style, 0, program->slots);
  }
  return status;
}

struct DisasmArgs {
  std::string input, section, function;
  bool plain = false;
  std::string syntax = "conformance";
  bool source = false;  // -S
};

int disassemble(const DisasmArgs& args) {
  const std::string& input = args.input;
  if (args.syntax != "conformance" && args.syntax != "llvm") usage_error("disasm", "--syntax wants conformance or llvm");
  ListingStyle style;
  style.syntax = args.syntax == "llvm" ? Syntax::llvm : Syntax::conformance;
  style.source = args.source;
  if (args.plain && (style.source || style.syntax != Syntax::conformance))
    usage_error("disasm", "--plain is the assembler's syntax, without -S or --syntax llvm");
  Bytes bytes = read_file(input);
  int status = kExitOk;
  if (is_elf(bytes)) {
    status = disasm_object(input, std::move(bytes), args.section, args.function, args.plain, style);
  } else {
    if (!args.section.empty() || !args.function.empty())
      usage_error("disasm", "--section and --function select programs of an ELF object");
    const std::string problem = raw_program_problem(bytes);
    if (!problem.empty()) throw CliError((input == "-" ? "<stdin>" : input) + ": " + problem);
    if (args.plain) {
      print_plain(bytes.data(), bytes.size() / 8);
    } else {
      print_listing(bytes.data(), bytes.size() / 8, style);
    }
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
  app.add_option("--function", args->function, "only this program or subprogram (function) of an object");
  app.add_option("--syntax", args->syntax, "conformance (the default; what keel asm reads) or llvm (llvm-objdump's)");
  app.add_flag("-S", args->source, "interleave the source lines (an object's BTF line info)");
  return [args] { return disassemble(*args); };
}

}  // namespace keel::cli
