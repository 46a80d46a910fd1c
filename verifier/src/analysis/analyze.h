// Stage "analyze": the fixpoint over the CFG. A worklist of blocks in
// reverse post-order per function, states kept at block entries only,
// widening at loop headers after two visits, callees analysed per call site.
#pragma once

#include <cstdint>

#include "analysis/engine.h"

namespace keel {

// What the loop-bound analysis may ask about (loop_bounds.h LoopFacts):
// scalar registers at the exit of the blocks inside loops and of the
// blocks that enter them, joined over every call context.
struct ExitFacts {
  uint32_t seen;
  uint32_t valid;  // bit r: regs[r] holds a scalar
  Scalar regs[kRegisterCount];
};

struct LoopFactTable {
  uint32_t* index = nullptr;     // per block: into facts, or Cfg::kNone
  uint32_t* fn_first = nullptr;  // per function: its first index (blocks are contiguous)
  uint32_t* fn_count = nullptr;
  ExitFacts* facts = nullptr;
  uint32_t count = 0;
};

// Runs the analysis from the entry function with `entry` (owned). False when
// the program is rejected (e.verdict says why).
[[nodiscard]] bool analyze(Engine& e, LoopFactTable& table, State* entry);

}  // namespace keel
