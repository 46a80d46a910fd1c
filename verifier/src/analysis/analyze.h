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

// A bpf_loop / bpf_for_each_map_elem call site and the most runs of its
// callback any state reaching it allows (nr_loops' maximum, or the map's
// max_entries); 0 until the analysis reaches the site.
struct CallbackSite {
  uint32_t pc;
  uint64_t runs;
};

struct LoopFactTable {
  uint32_t* index = nullptr;     // per block: into facts, or Cfg::kNone
  uint32_t* fn_first = nullptr;  // per function: its first index (blocks are contiguous)
  uint32_t* fn_count = nullptr;
  ExitFacts* facts = nullptr;
  uint32_t count = 0;
  ExitFacts* entries = nullptr;  // per function: its registers on entry, joined over every call
                                 // (the loop headed by a function's first block is entered so)
  CallbackSite* callbacks = nullptr;  // ascending pc
  uint32_t callback_count = 0;
};

// The function entry facts of `function` (verify.cc's query), false when none.
bool function_entry_scalar(const LoopFactTable& table, uint32_t function, uint8_t reg, Scalar& out);

// The site of `pc` in table.callbacks, or nullptr.
CallbackSite* find_callback_site(const LoopFactTable& table, uint32_t pc);

// Runs the analysis from the entry function with `entry` (owned). False when
// the program is rejected (e.verdict says why).
[[nodiscard]] bool analyze(Engine& e, LoopFactTable& table, State* entry);

}  // namespace keel
