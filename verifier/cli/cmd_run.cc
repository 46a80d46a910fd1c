// keel run IN.{bin,s} [--mem HEX | --mem-file F] [--guarded] [--budget N]:
// decode with the conformance helpers and run once. Fast mode checks no
// access, so it runs only what the verifier accepts as the "conformance"
// type (the context is the --mem buffer); guarded mode runs anything.
#include <cstdio>

#include "commands.h"
#include "program.h"
#include "verification.h"

namespace keel::cli {

namespace {

struct RunArgs {
  std::string input, mem_hex, mem_file;
  bool guarded = false;
  uint64_t budget = RunOptions{}.insn_budget;
};

int run_program(const RunArgs& args) {
  const std::string& input = args.input;
  Bytes memory;
  if (!args.mem_file.empty()) memory = read_file(args.mem_file);
  if (!args.mem_hex.empty()) (void)parse_hex_bytes(args.mem_hex, memory);  // checked by declare_run
  const RunMode mode = args.guarded ? RunMode::guarded : RunMode::fast;
  const uint64_t budget = args.budget;
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

}  // namespace

Run declare_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  add_input(app, args->input, "a raw program (.bin or .s)");
  CLI::Option* mem = app.add_option("--mem", args->mem_hex, "the memory r1 points to, as hex bytes ('01 02 ff')")
                         ->type_name("HEX")
                         ->check(CLI::Validator(
                             [](const std::string& text) {
                               Bytes bytes;
                               return parse_hex_bytes(text, bytes)
                                          ? std::string()
                                          : "--mem wants hex bytes (e.g. '01 02 ff'), got '" + text + "'";
                             },
                             "", "hex"));
  app.add_option("--mem-file", args->mem_file, "the memory r1 points to, as FILE's bytes")
      ->type_name("FILE")
      ->excludes(mem);
  app.add_flag("--guarded", args->guarded, "run anything, checking every memory access (default: verify first)");
  add_number(app, "--budget", args->budget, 1, UINT64_MAX, "the most instructions to execute");
  return [args] { return run_program(*args); };
}

}  // namespace keel::cli
