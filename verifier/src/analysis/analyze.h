// Stage "analyze": the safety fixpoint over the CFG. A worklist of blocks
// in reverse post-order per function, states kept at block entries only,
// widening at loop headers after two visits, callees analysed per call site.
//
// Module map (docs/verifier/design.md, "Module map"; ADR 0042):
//   fixpoint.{h,cc}      the worklist and the per-function fixpoint
//   partitions.{h,cc}    path partitions: the entry-state store and its key
//   partition_plan.cc    the partitions' backward pre-pass (PartitionPlan)
//   loop_clamp.{h,cc}    induction variables stepped beside a loop counter
//   call_frames.cc       BPF-to-BPF calls, callbacks, exits
//   loop_facts.{h,cc}    what the fixpoint records for the loop bounds
// The transfer functions the fixpoint calls are engine.h's.
#pragma once

#include <cstdint>

#include "analysis/engine.h"
#include "analysis/loop_facts.h"

namespace keel {

// Analyses the program from the entry function with `entry` (owned),
// filling `facts` for the loop bounds. False when the program is rejected
// (e.verdict says why).
[[nodiscard]] bool analyze(Engine& e, LoopFacts& facts, State* entry);

}  // namespace keel
