// keel-corpus — the project's test machinery, apart from the user-facing
// `keel` (docs/adr/0046): runs the bpf_conformance / uBPF .data files
// (with the -- pyelf interpreter), scores keel against the Linux verifier
// selftest cases, and packs both for the bare-metal runner. Built beside
// keel, not installed.
#include "commands.h"
#include "keel_git_commit.h"

int main(int argc, char** argv) {
  using namespace keel::cli;
  Tool tool;
  tool.name = "keel-corpus";
  tool.description = "keel-corpus: keel's conformance and verifier corpora (test machinery; not installed)";
  tool.version =
      std::string("keel-corpus ") + KEEL_VERSION + (KEEL_GIT_COMMIT[0] == '\0' ? "" : " (" KEEL_GIT_COMMIT ")");
  tool.footer = "\n" + input_limit_note() + "\n" + exit_status_table();
  tool.commands = {
      {"test-data", "run bpf_conformance / uBPF .data files (directories recursively)", &declare_test_data},
      {"cases", "score keel against the Linux verifier selftest cases", &declare_cases},
      {"suite-pack", "pack .data files and selftest cases into the bare-metal runner's blob", &declare_suite_pack},
  };
  tool.elsewhere = {{"asm", "keel"}, {"disasm", "keel"}, {"verify", "keel"}, {"compare", "keel"}, {"run", "keel"}};
  return run_tool(tool, argc, argv);
}
