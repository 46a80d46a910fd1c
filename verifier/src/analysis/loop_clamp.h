// Derived induction variables: the loop clamps of the fixpoint.
//
// Widening at a loop header sends every growing bound to its extreme, so a
// register stepped beside the counter (clang's `p += 4` next to `i += 1`,
// `i < 16` tested) loses its bound: the exit test bounds only the counter.
// For a loop with no nested loop, a register whose only write in the loop is
// `r += c` (or `r -= c`) in a block that dominates every back-edge source
// changes by exactly c from one header run to the next. When an exit test in
// a block that also dominates every back-edge source compares such a counter
// with an immediate, loop_trip's trip_bound gives N >= the header runs per
// entry (the arithmetic the termination proof uses, from the counter's entry
// values). So at the k-th header run (k <= N) every such register holds its
// entry value + (k - 1) * c, exactly (mod 2^64): it lies in
// [entry min, entry max] + c * [0, N - 1] whenever that sum does not wrap.
// That is a fact about every run, so meeting the header state with it (on
// each merge into the header, after the join and the widening) loses no
// concrete state. The entry values are joined from the merges that enter the
// header from outside the loop; when they grow the body runs again, so the
// fixpoint's last back-edge merges use the final ones. Not under
// speculative_paths: a mispredicted exit test runs one more iteration.
//
// The fixpoint (fixpoint.cc, merge) calls note_entry and apply_clamp on
// every merge into a header that has a clamp. loop_facts.h tells how this
// fits the rest of the loop reasoning.
#pragma once

#include <cstddef>
#include <cstdint>

#include "analysis/engine.h"
#include "analysis/loop_trip.h"

namespace keel {

struct EntryRange {
  RegKind kind = RegKind::uninit;
  uint8_t frame = 0;
  bool valid = false;
  uint32_t region = 0;
  int64_t lo = 0, hi = 0;  // scalars: the value; pointers: fixed + variable offset
};
struct LoopClamp {
  uint16_t mask = 0;  // registers stepped by step[r] on every path around the loop, written nowhere else in it
  uint8_t counter = 0;
  bool usable = false;  // a counter and its exit test were found
  bool entered = false;  // some entry from outside has been seen
  bool counter_valid = false;
  bool is_signed = false;
  StayRel stay = StayRel::lt;
  int64_t bound = 0;
  int64_t test_off = 0;
  int64_t step[kRegisterCount] = {};
  Scalar counter_entry;
  EntryRange entry[kRegisterCount];
};


inline bool is_header(const Cfg& cfg, uint32_t b) {
  const uint32_t l = cfg.blocks[b].loop;
  return l != Cfg::kNone && cfg.loops[l].header == b;
}

// The syntactic part (the comment above): the stepped registers and a
// counter test of loop l; c.usable false when there are none.
void find_clamp(const Cfg& cfg, const Insn* insns, uint32_t l, LoopClamp& c);
// Joins the entry values of `regs` (a header's incoming state from outside
// the loop) into c; true when they grew.
[[nodiscard]] bool note_entry(LoopClamp& c, const RegState* regs);
// Meets the stepped registers of `regs` (a header state) with their range
// over the proven header runs; nothing when no trip bound is proven.
void apply_clamp(const LoopClamp& c, RegState* regs);

// The clamps of one function's loops, from the state pool.
struct LoopClamps {
  uint32_t* clamp_of = nullptr;  // [cfg.loop_count]: index in clamps of this function's loops, kNone for none
  LoopClamp* clamps = nullptr;    // the loops with stepped registers and a counter test
  size_t bytes = 0;

  // The clamp of the loop headed by block `b`, or nullptr.
  LoopClamp* at_header(const Cfg& cfg, uint32_t b) const {
    if (clamps == nullptr || !is_header(cfg, b)) return nullptr;
    const uint32_t index = clamp_of[cfg.blocks[b].loop];
    return index == Cfg::kNone ? nullptr : &clamps[index];
  }
};

// The clamp probing: finds the clamps of function fn's loops (none when it
// has no loop block, `has_loops` false, or under speculative_paths). Precision
// only: without room in the pool the loops are analysed without clamps.
void find_loop_clamps(Engine& e, uint32_t fn, bool has_loops, LoopClamps& out);
void release_loop_clamps(StatePool& pool, LoopClamps& clamps);

}  // namespace keel
