// The fixpoint over one function (fixpoint.cc) and what the modules it
// delegates to share with it: the partition store (partitions.cc) and the
// calls that push or pop a frame (call_frames.cc). Internal to the analysis.
#pragma once

#include <cstdint>

#include "analysis/analyze.h"
#include "analysis/loop_clamp.h"
#include "analysis/loop_facts.h"
#include "analysis/partitions.h"

namespace keel {

// One function's fixpoint, for one call context: its worklist, the entry
// states of its blocks, and what it records for the loop bounds.
struct Fixpoint {
  Engine& e;
  LoopFacts& facts;
  const PartitionPlan& plan;
  uint32_t fn;
  uint32_t base;  // first block
  uint32_t rpo_begin;
  uint32_t first_loop_pos = Cfg::kNone, last_loop_pos = 0;  // rpo positions of its first and last loop block
  BlockEntries entries{};
  uint32_t* visits = nullptr;   // [block_count]
  uint64_t* pending = nullptr;  // the worklist: one bit per reverse-post-order position
  uint32_t cursor = 0;          // no pending position is below it
  ExitFacts* local = nullptr;   // this context's loop facts, joined into `facts` at the fixpoint
  LoopClamps clamps{};
  State* exit_state = nullptr;  // the join of the states leaving a callee (do_exit)
};

// Analyses function fn from `entry_state` (owned) to its fixpoint; a
// callee's exits joined into `exit_out` (nullptr when none returns). False
// when the program is rejected.
[[nodiscard]] bool analyze_function(Engine& e, LoopFacts& facts, const PartitionPlan& plan, uint32_t fn,
                                    State* entry_state, State*& exit_out);

// call_frames.cc: exit, a BPF-to-BPF call (`returns` false when no path of
// the callee returns) and a helper call that calls back.
[[nodiscard]] bool do_exit(Fixpoint& fx, State& s, uint32_t pc);
[[nodiscard]] bool do_call(Fixpoint& fx, State*& s, uint32_t pc, bool& returns);
[[nodiscard]] bool do_callback(Fixpoint& fx, State*& s, const Insn& insn, uint32_t pc);

}  // namespace keel
