// The loop story, in one place. Loops are reasoned about in four steps, and
// this header is the data that flows between them:
//
//   1. cfg.cc (build_loops) finds the natural loops of each function: their
//      headers, bodies, back edges and nesting (Cfg::Loop).
//   2. build_loop_facts (here) lays out a LoopFacts for that CFG: one slot
//      per block inside a loop or entering one, one per function entry, one
//      per bpf_loop / bpf_for_each_map_elem call site.
//   3. The safety fixpoint (fixpoint.cc) fills it while it runs: the scalar
//      registers at the exit of each such block and at each function's
//      entry, joined over every path and call context, and the most runs of
//      each callback that any state reaching its call allows
//      (call_frames.cc). Inside the fixpoint, loop_clamp.cc uses the same
//      trip arithmetic (loop_trip.h) to keep registers stepped beside a
//      counter bounded at their header; widening (state.cc) does the rest.
//   4. bound_loops (loop_bounds.cc) reads the filled LoopFacts, and only
//      it: it proves a trip bound for every loop with loop_trip.h's
//      trip_bound, and weighs each loop (and callback) by it to get the
//      worst-case instruction count.
//
// verify.cc owns the LoopFacts (in the caller's arena) and hands it from
// step 3 to step 4; nothing is passed as an untyped context.
// docs/verifier/design.md, "Loops" and "Module map".
#pragma once

#include <cstdint>

#include "cfg/cfg.h"
#include "domain/scalar.h"
#include "keel/arena.h"
#include "keel/isa.h"

namespace keel {

// The scalar registers at one point (a block's exit before its final jump
// refines them, or a function's entry), joined over every visit; `seen` 0
// until the fixpoint reached it.
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

struct LoopFacts {
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

// Step 2: the slots of `cfg`'s loops and callback calls, from `arena`
// (nothing for a program without either); false when the arena is full.
[[nodiscard]] bool build_loop_facts(const Cfg& cfg, Arena& arena, LoopFacts& facts);

// Facts seen on another path or call context: what both say.
void join_facts(ExitFacts& to, const ExitFacts& from);

// The site of `pc` in facts.callbacks, or nullptr.
CallbackSite* find_callback_site(const LoopFacts& facts, uint32_t pc);

// Step 4's questions. False when the register does not hold a scalar there,
// the point was never reached, or nothing was recorded for it.
bool scalar_at_block_exit(const LoopFacts& facts, uint32_t block, uint8_t reg, Scalar& out);
bool scalar_at_function_entry(const LoopFacts& facts, uint32_t function, uint8_t reg, Scalar& out);
// The most runs of the callback of the call at `pc` (0: never reached).
bool callback_runs_at(const LoopFacts& facts, uint32_t pc, uint64_t& runs);

}  // namespace keel
