// keel — command-line front end of libkeel: assemble, disassemble, verify
// and run eBPF programs, and compare keel's verdicts with the running
// kernel's. One file per command (commands.h); the corpus and conformance
// test machinery is keel-corpus's (corpus/main.cc).
#include "commands.h"
#include "keel_git_commit.h"

int main(int argc, char** argv) {
  using namespace keel::cli;
  Tool tool;
  tool.name = "keel";
  tool.description =
      "keel: an eBPF verifier and interpreter. It restates the rules of Linux 6.1's verifier;\n"
      "an accept does not promise that a given kernel loads the program: `keel compare` asks it.";
  tool.version = std::string("keel ") + KEEL_VERSION + (KEEL_GIT_COMMIT[0] == '\0' ? "" : " (" KEEL_GIT_COMMIT ")");
  tool.footer = "\n" + input_limit_note() + "\n" + exit_status_table();
  tool.commands = {
      {"asm", "assemble IN.s into instruction bytes", &declare_asm},
      {"disasm", "disassemble instruction bytes or the programs of an ELF object", &declare_disasm},
      {"verify", "verify a raw program as Linux program type T, or the programs of an ELF object", &declare_verify},
      {"compare", "verify with keel and with the running kernel (bpf(2), never attached): both verdicts, both times",
       &declare_compare},
      {"run", "decode and run a raw program (verified first unless --guarded)", &declare_run},
  };
  tool.elsewhere = {{"test-data", "keel-corpus"}, {"cases", "keel-corpus"}, {"suite-pack", "keel-corpus"}};
  return run_tool(tool, argc, argv);
}
