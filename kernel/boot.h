// The portable kernel's entry and exit. The arch entry (kernel/arch/<isa>/)
// sets up the CPU, translates its boot protocol into BootInfo and calls
// kernel_main(); every run ends in finish(), which prints the single
// `keel done` line the capture scripts wait for.
#pragma once

#include "board.h"
#include "board_facts.h"

namespace keel {

struct BootInfo {
  const char* cmdline;  ///< boot loader's command line ("" when none)
  BoardFacts facts;     ///< what the loader says about the machine (boot line)
};

[[noreturn]] void kernel_main(const BootInfo& info);

/// Prints `keel done status=ok` (ExitCode::ok) or `status=fail` (anything
/// else) exactly once, even if called again from a fault, then exits.
[[noreturn]] void finish(board::ExitCode code);

}  // namespace keel
