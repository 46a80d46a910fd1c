// keel asm IN.s [-o OUT.bin]: text -> instruction bytes.
#include "commands.h"
#include "program.h"

namespace keel::cli {

namespace {

struct AsmArgs {
  std::string input, output;
};

int assemble(AsmArgs args) {
  const std::string& input = args.input;
  std::string output = args.output;
  if (output.empty()) output = input == "-" ? "-" : replace_extension(input, ".bin");
  if (output == input && input != "-") usage_error("asm", "output would overwrite the input '" + input + "'; use -o");

  const Bytes source = read_file(input);
  const std::string name = input == "-" ? "<stdin>" : input;
  Bytes bytes;
  const AsmResult result = assemble_text(std::string(source.begin(), source.end()), bytes);
  if (!result.ok()) throw DiagnosticError(asm_error_message(name, result));
  if (bytes.empty()) throw CliError(name + ": no instructions");
  write_file(output, bytes);
  return kExitOk;
}

}  // namespace

Run declare_asm(CLI::App& app) {
  auto args = std::make_shared<AsmArgs>();
  add_input(app, args->input, "assembly text ('-': stdin)");
  app.add_option("-o", args->output, "the instruction bytes (default: IN with .bin, or stdout for stdin)")
      ->type_name("OUT.bin");
  return [args] { return assemble(*args); };
}

}  // namespace keel::cli
