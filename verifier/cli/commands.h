// The commands of `keel` (main.cc) and of `keel-corpus` (corpus/main.cc):
// each declares its arguments on a CLI11 command and returns what runs it
// (command_line.h). One file per command.
#pragma once

#include "command_line.h"

namespace keel::cli {

Run declare_asm(CLI::App& app);
Run declare_disasm(CLI::App& app);
Run declare_verify(CLI::App& app);
Run declare_compare(CLI::App& app);
Run declare_run(CLI::App& app);

// keel-corpus: the test machinery.
Run declare_test_data(CLI::App& app);
Run declare_cases(CLI::App& app);
Run declare_suite_pack(CLI::App& app);

}  // namespace keel::cli
