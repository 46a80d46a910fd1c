// keel — command-line front end of libkeel: assemble, disassemble, verify
// and run eBPF programs, and run the conformance and verifier corpora. One
// file per command.
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
    "  disasm OBJ.o [--section S] [--function F] [--plain]\n"
    "                               the same for the programs of an ELF object, each under a\n"
    "                               'section/function:' line (--plain: select one program)\n"
    "  verify IN.{bin,s} --type T [--map KIND:TYPE:KEY:VALUE:ENTRIES]... [--unprivileged]\n"
    "         [--strict-alignment] [--json]\n"
    "                               verify as Linux program type T (socket_filter, xdp, ...);\n"
    "                               each --map is the next map index a lddw may name, TYPE one\n"
    "                               of array, hash, percpu_array, percpu_hash, lru_hash,\n"
    "                               lru_percpu_hash, prog_array, perf_event_array, ringbuf,\n"
    "                               stack_trace, lpm_trie, cgroup_array, devmap, devmap_hash,\n"
    "                               cpumap, xskmap, array_of_maps, hash_of_maps (no inner map\n"
    "                               here: lookups through them are rejected); prints PASS/FAIL\n"
    "                               (with the abstract state at the rejected pc) or one JSON object\n"
    "  verify OBJ.o [--section S] [--function F] [--type T | --default-type T] [--unprivileged]\n"
    "         [--strict-alignment] [--json]\n"
    "                               verify the autoloaded (or the selected) programs of an ELF\n"
    "                               object with its maps (--type overrides the section's type,\n"
    "                               --default-type types the sections whose names keel lacks);\n"
    "                               one PASS/FAIL line per program, with the source line of a\n"
    "                               rejection when the object has BTF line info\n"
    "  cases FILE.jsonl [--maps MAPS.json] [--divergences FILE] [--prefix ID] [--unprivileged]\n"
    "        [--state] [--all] [--json]\n"
    "                               score keel against the Linux verifier selftest cases\n"
    "                               (default MAPS: maps.json beside FILE); one line per\n"
    "                               disagreement (--state: with the abstract state at a false\n"
    "                               reject; --all: one line per case instead, with its verdict),\n"
    "                               then 'N passed, M failed'; false accepts listed\n"
    "                               in FILE ('ID why' lines) are documented divergences\n"
    "  compare FILE... [--type T] [--map ...] [--section S] [--function F] [--runs N]\n"
    "          [--strict-alignment] [--linux-log] [--json]\n"
    "                               verify each program (.bin/.s as for verify, or the programs\n"
    "                               of .o objects) with keel and with the running kernel's\n"
    "                               verifier (bpf(2) BPF_PROG_LOAD with equivalent maps, never\n"
    "                               attached): both verdicts, agreement, both verification\n"
    "                               times (median of N runs, default 5) and their ratio, as a\n"
    "                               table or JSON; --linux-log adds the kernel's log (level 1).\n"
    "                               Where bpf(2) is refused (not root / no CAP_BPF) one line\n"
    "                               says so and only keel's side is shown; exit 0 either way\n"
    "  run IN.{bin,s} [--mem HEX | --mem-file FILE] [--guarded] [--budget N]\n"
    "                               decode and run; r1 points to a copy of the memory\n"
    "                               (HEX bytes, or FILE's raw bytes), r2 holds its length;\n"
    "                               the default fast mode first verifies the program as the\n"
    "                               'conformance' type (context = the memory) and refuses to\n"
    "                               run what the verifier rejects; --guarded runs anything,\n"
    "                               checking every memory access; --budget limits the\n"
    "                               instructions executed\n"
    "  test-data PATH...            run bpf_conformance / uBPF .data files (directories\n"
    "                               recursively); -- result programs are also verified\n"
    "  suite-pack OUT [--data DIR]... [--cases FILE.jsonl [--maps MAPS.json]]\n"
    "                               pack .data files and selftest cases into the blob the\n"
    "                               bare-metal runner reads (runner/); the runner prints what\n"
    "                               test-data DIR... and cases FILE --all print\n"
    "  help, --help                 this text\n"
    "\n"
    "Exit status: 0 success, 1 the program trapped or was refused by the verifier (run), was\n"
    "rejected (verify), a test failed (test-data) or a case was falsely accepted (cases),\n"
    "2 bad input (nothing was run or verified; for run and test-data also a program the\n"
    "decoder refuses).\n";

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
    if (command == "verify") return cmd_verify(args);
    if (command == "cases") return cmd_cases(args);
    if (command == "compare") return cmd_compare(args);
    if (command == "suite-pack") return cmd_suite_pack(args);
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
