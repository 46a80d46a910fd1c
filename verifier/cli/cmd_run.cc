// keel run IN.{bin,s} [--mem HEX | --mem-file F] [--guarded] [--budget N]:
// decode with the conformance helpers and run once. Fast mode checks no
// access, so it runs only what the verifier accepts as the "conformance"
// type (the context is the --mem buffer); guarded mode runs anything.
#include <cstdio>

#include "args.h"
#include "program.h"
#include "verification.h"

namespace keel::cli {

int cmd_run(const std::vector<std::string>& arguments) {
  Args args("run", arguments);
  std::string input;
  Bytes memory;
  bool have_memory = false;
  RunMode mode = RunMode::fast;
  uint64_t budget = RunOptions{}.insn_budget;
  while (!args.done()) {
    const std::string& arg = args.take();
    if (arg == "--mem" || arg == "--mem-file") {
      if (have_memory) args.fail("give at most one of --mem and --mem-file");
      have_memory = true;
      const std::string& value = args.value_of(arg);
      if (arg == "--mem-file") {
        memory = read_file(value);
      } else if (!parse_hex_bytes(value, memory)) {
        args.fail("--mem wants hex bytes (e.g. '01 02 ff'), got '" + value + "'");
      }
    } else if (arg == "--guarded") {
      mode = RunMode::guarded;
    } else if (arg == "--budget") {
      const std::string& value = args.value_of(arg);
      if (!parse_u64(value, budget) || budget == 0) args.fail("--budget wants a positive number, got '" + value + "'");
    } else {
      args.single_input(arg, input);
    }
  }
  if (input.empty()) args.fail("missing input file (keel run IN.{bin,s} [options])");

  const Bytes bytes = load_program_file(input);
  DecodedProgram decoded;
  const DecodeResult loaded = decoded.decode(bytes);
  if (!loaded.ok()) {
    std::fprintf(stderr, "error: pc %u: %s\n", loaded.pc, decode_error_name(loaded.error));
    return kExitUsage;
  }
  if (mode == RunMode::fast) {
    const ConformanceType type(static_cast<uint32_t>(memory.size() < UINT32_MAX ? memory.size() : UINT32_MAX));
    CheckOptions options;
    options.verify = conformance_verify_options();
    const Check check = check_decoded(decoded.program(), type.type(), options);
    if (!check.accepted()) {
      std::fprintf(stderr,
                   "keel: the verifier rejected this program (%s); run it with --guarded to execute it with "
                   "every access checked\n",
                   check.message.c_str());
      return kExitTrap;
    }
  }
  const RunResult result = execute(decoded.program(), memory, mode, budget);
  if (result.status != RunStatus::ok) {
    std::fprintf(stderr, "%s\n", trap_message(result).c_str());
    return kExitTrap;
  }
  std::printf("r0 = 0x%llx\n", static_cast<unsigned long long>(result.r0));
  return kExitOk;
}

}  // namespace keel::cli
