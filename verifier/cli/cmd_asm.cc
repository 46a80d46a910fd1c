// keel asm IN.s [-o OUT.bin]: text -> instruction bytes.
#include "args.h"
#include "program.h"

namespace keel::cli {

int cmd_asm(const std::vector<std::string>& arguments) {
  Args args("asm", arguments);
  std::string input, output;
  while (!args.done()) {
    const std::string& arg = args.take();
    if (arg == "-o") {
      output = args.value_of(arg);
    } else {
      args.single_input(arg, input);
    }
  }
  if (input.empty()) args.fail("missing input file (keel asm IN.s [-o OUT.bin])");
  if (output.empty()) output = input == "-" ? "-" : replace_extension(input, ".bin");
  if (output == input && input != "-") args.fail("output would overwrite the input '" + input + "'; use -o");

  const Bytes source = read_file(input);
  const std::string name = input == "-" ? "<stdin>" : input;
  Bytes bytes;
  const AsmResult result = assemble_text(std::string(source.begin(), source.end()), bytes);
  if (!result.ok()) throw DiagnosticError(asm_error_message(name, result));
  if (bytes.empty()) throw CliError(name + ": no instructions");
  write_file(output, bytes);
  return kExitOk;
}

}  // namespace keel::cli
