// The usage text of `keel` and of each command: one declaration per
// command, from which `keel --help`, `keel COMMAND --help` and the list of
// valid options in an "unknown option" error all come.
#include "usage.h"

#include <cstring>
#include <set>

namespace keel::cli {

namespace {

struct CommandUsage {
  const char* name;
  const char* text;  // "  NAME ARGS   what it does\n" lines, as in `keel --help`
};

constexpr CommandUsage kCommands[] = {
    {"asm",
      "  asm IN.s [-o OUT.bin]        assemble (IN '-' reads stdin; default OUT is IN with .bin,\n"
      "                               or stdout for stdin)\n"},
    {"disasm",
      "  disasm IN.bin [--plain]      disassemble, one '<pc>: <insn>' line per instruction;\n"
      "                               --plain prints only the instructions (re-assemblable)\n"
      "  disasm OBJ.o [--section S] [--function F] [--plain]\n"
      "                               the same for the programs of an ELF object, each under a\n"
      "                               'section/function:' line (--plain: select one program)\n"},
    {"verify",
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
      "         [--strict-alignment] [--btf FILE | --no-btf] [--json]\n"
      "                               verify the autoloaded (or the selected) programs of an ELF\n"
      "                               object with its maps (--type overrides the section's type,\n"
      "                               --default-type types the sections whose names keel lacks);\n"
      "                               one PASS/FAIL line per program, with the source line of a\n"
      "                               rejection when the object has BTF line info; CO-RE\n"
      "                               relocations are applied against --btf FILE (default: the\n"
      "                               running kernel's /sys/kernel/btf/vmlinux when it exists;\n"
      "                               --no-btf: none, CO-RE programs are then unsupported);\n"
      "                               the same BTF types the context of fentry/fexit/fmod_ret/\n"
      "                               tp_btf/lsm/iter programs\n"},
    {"cases",
      "  cases FILE.jsonl [--maps MAPS.json] [--divergences FILE] [--prefix ID] [--unprivileged]\n"
      "        [--state] [--all] [--json]\n"
      "                               score keel against the Linux verifier selftest cases\n"
      "                               (default MAPS: maps.json beside FILE); one line per\n"
      "                               disagreement (--state: with the abstract state at a false\n"
      "                               reject; --all: one line per case instead, with its verdict),\n"
      "                               then 'N passed, M failed'; false accepts listed\n"
      "                               in FILE ('ID why' lines) are documented divergences\n"},
    {"compare",
      "  compare FILE... [--type T] [--map ...] [--section S] [--function F] [--runs N]\n"
      "          [--strict-alignment] [--linux-log] [--btf FILE | --no-btf] [--json]\n"
      "                               verify each program (.bin/.s as for verify, or the programs\n"
      "                               of .o objects) with keel and with the running kernel's\n"
      "                               verifier (bpf(2) BPF_PROG_LOAD with equivalent maps, never\n"
      "                               attached): both verdicts, agreement, both verification\n"
      "                               times (median of N runs, default 5) and their ratio, as a\n"
      "                               table or JSON; --linux-log adds the kernel's log (level 1).\n"
      "                               Where bpf(2) is refused (not root / no CAP_BPF) one line\n"
      "                               says so and only keel's side is shown; the exit status is\n"
      "                               that of keel's verdicts, whatever the kernel said; objects'\n"
      "                               CO-RE relocations as for verify (--btf / --no-btf)\n"},
    {"run",
      "  run IN.{bin,s} [--mem HEX | --mem-file FILE] [--guarded] [--budget N]\n"
      "                               decode and run; r1 points to a copy of the memory\n"
      "                               (HEX bytes, or FILE's raw bytes), r2 holds its length;\n"
      "                               the default fast mode first verifies the program as the\n"
      "                               'conformance' type (context = the memory) and refuses to\n"
      "                               run what the verifier rejects; --guarded runs anything,\n"
      "                               checking every memory access; --budget limits the\n"
      "                               instructions executed\n"},
    {"test-data",
      "  test-data PATH...            run bpf_conformance / uBPF .data files (directories\n"
      "                               recursively); -- result programs are also verified\n"},
    {"suite-pack",
      "  suite-pack OUT [--data DIR]... [--cases FILE.jsonl [--maps MAPS.json]]\n"
      "                               pack .data files and selftest cases into the blob the\n"
      "                               bare-metal runner reads (runner/); the runner prints what\n"
      "                               test-data DIR... and cases FILE --all print\n"},
};

constexpr const char* kExitStatus =
    "Exit status (every command):\n"
    "  0  success: every program accepted (verify, compare), ran without a trap (run), every\n"
    "     test passed (test-data, cases); asm, disasm and suite-pack: done\n"
    "  1  a verdict: at least one program rejected (verify, compare, run), trapped (run), a\n"
    "     test failed (test-data) or a case was falsely accepted (cases)\n"
    "  2  usage error, or input that could not be checked: unreadable, not a regular file,\n"
    "     larger than the input limit, a corrupt or non-BPF object, a program using what keel\n"
    "     does not support (JSON verdict \"error\" / \"unsupported\"), a write error on the\n"
    "     output; 2 wins over 1 when a run has both\n";

const CommandUsage* find(const std::string& command) {
  for (const CommandUsage& usage : kCommands)
    if (command == usage.name) return &usage;
  return nullptr;
}

}  // namespace

std::string full_usage() {
  std::string text = "Usage: keel <command> [arguments]\n       keel --version | -V\n\nCommands:\n";
  for (const CommandUsage& usage : kCommands) text += usage.text;
  text += "  help, --help                 this text; keel COMMAND --help: one command's\n";
  text += "\nInputs are regular files (or '-' for stdin) of at most " + std::to_string(kMaxInputBytes >> 20) +
          " MiB; anything else is refused\nwith exit status 2 before it is read.\n\n";
  return text + kExitStatus;
}

bool has_usage(const std::string& command) { return find(command) != nullptr; }

std::string command_usage(const std::string& command) {
  const CommandUsage* usage = find(command);
  if (usage == nullptr) return full_usage();
  return std::string("Usage: keel ") + (usage->text + 2) + "\n" + kExitStatus;
}

std::string command_options(const std::string& command) {
  const CommandUsage* usage = find(command);
  if (usage == nullptr) return "";
  // Every "-x" / "--word" token of the command's usage, in order, once.
  std::set<std::string> seen;
  std::string list;
  const char* text = usage->text;
  for (const char* p = text; *p != '\0'; ++p) {
    const bool starts = *p == '-' && (p == text || std::strchr(" [|(", p[-1]) != nullptr) && p[1] != ' ';
    if (!starts) continue;
    const char* end = p;
    while (*end == '-' || (*end >= 'a' && *end <= 'z') || (*end >= '0' && *end <= '9')) ++end;
    const std::string option(p, end);
    if (option.size() > 1 && option != "--" && seen.insert(option).second) list += (list.empty() ? "" : ", ") + option;
    p = end - 1;
  }
  list += (list.empty() ? "" : ", ") + std::string("--help");
  return list;
}

}  // namespace keel::cli
