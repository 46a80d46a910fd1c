// Termination and worst-case cost, after the safety fixpoint: proves a
// trip-count bound for every natural loop (else the program is rejected at
// the loop header) and computes max_insns_executed, the longest path with
// each loop weighted by its bound. docs/verifier/design.md, "Loops".
#pragma once

#include <cstddef>
#include <cstdint>

#include "analysis/loop_facts.h"
#include "cfg/cfg.h"
#include "domain/scalar.h"
#include "keel/arena.h"
#include "keel/result.h"

namespace keel {

enum class LoopBoundError : uint8_t {
  ok,
  unbounded_loop,  // pc = first slot of the header of a loop with no proven trip bound
  too_costly,      // pc = the loop header, call or block where the worst case first passes a limit
  out_of_memory,
};

// What bound_loops reports beside its error (keel/result.h).
struct LoopBoundDetail {
  uint32_t pc = 0;
  uint64_t max_insns_executed = 0;  // too_costly: the cost that passed the limit (UINT64_MAX: not representable)
  uint64_t trips = 0;  // unbounded_loop: the best bound proven (above max_trips), 0 when none
  uint64_t limit = 0;  // too_costly: the limit it passed
  bool loop_limit = false;  // too_costly: max_loop_insns (else max_insns)
};
using LoopBoundResult = Result<LoopBoundError, LoopBoundDetail>;

struct LoopBoundOptions {
  /// A loop whose best proven bound on header runs per entry exceeds this is unbounded_loop too
  /// (a u32 length bounds a loop by 2^32 trips, which Linux's 1M-instruction budget refuses).
  uint64_t max_trips = UINT64_MAX;
  /// Runs of a bpf_loop callback per call (BPF_MAX_LOOPS: more are refused with -E2BIG).
  uint64_t loop_callback_runs = uint64_t{1} << 23;
  /// Runs of a bpf_for_each_map_elem callback per call: the largest max_entries of the maps.
  uint64_t map_callback_runs = UINT32_MAX;
  /// Worst-case instructions from entering a loop to leaving it; more is too_costly at its header.
  uint64_t max_loop_insns = UINT64_MAX;
  /// Worst-case instructions of one run of the program; more is too_costly where it is passed.
  /// A cost that does not fit 64 bits (UINT64_MAX) passes every limit: it is no bound.
  uint64_t max_insns = UINT64_MAX;
};

// `facts` is what the safety fixpoint recorded (loop_facts.h, step 4 of the
// loop story): values at the end of a block, before the block's final jump
// refines them. Arena use is O(blocks + loops) and released before returning.
[[nodiscard]] LoopBoundResult bound_loops(const Cfg& cfg, const LoopFacts& facts,
                                          const LoopBoundOptions& options, Arena& arena);
[[nodiscard]] inline LoopBoundResult bound_loops(const Cfg& cfg, const LoopFacts& facts, Arena& arena) {
  return bound_loops(cfg, facts, LoopBoundOptions{}, arena);
}

// The most arena bytes bound_loops takes for `cfg` (about 300 per block:
// an 11-register symbolic state per unit of the largest loop dominates).
size_t loop_bounds_arena_bound(const Cfg& cfg);

}  // namespace keel
