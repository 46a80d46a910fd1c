// The lattice over abstract states (state.h): join, with widening at loop
// heads, and inclusion, per register and per stack slot. design.md,
// "Abstract state" and "Join".
#pragma once

#include <cstdint>

#include "analysis/reg_state.h"
#include "analysis/state.h"
#include "keel/platform.h"

namespace keel {

// The maps lddw may name: two maps that look alike to every check (same
// value size and access flags, both plain lookup maps; or both program
// arrays, or both perf event arrays) are one region for the join, as
// Linux's separate paths would each accept them.
struct MapTable {
  const MapDescriptor* maps = nullptr;
  uint32_t count = 0;
  // Values of two maps that are not alike join as plain memory (see
  // join_reg), and program arrays are alike, only for privileged programs:
  // Linux's Spectre v1 defences (map value limits, tail call index masking)
  // need the one map.
  bool privileged = false;
  bool equivalent(uint32_t a, uint32_t b) const;
  // The one of two equivalent maps a join keeps: the larger key (a key
  // argument must then be initialized for both), else the lower index.
  uint32_t pick(uint32_t a, uint32_t b) const;
};

// Lattice operations over states of the same frame count (the same call
// context). `into` becomes the join (or widening) of itself and `other`;
// it may move (more spills). Return false on arena exhaustion.
[[nodiscard]] bool join_into(StatePool& pool, State*& into, const State& other, bool widen,
                             const MapTable& maps);
// join_into's result always built in a fresh state. join_into joins in
// place when both sides spill the same slots with the same widths (or
// none), which must give the same state bit for bit: for the tests that
// compare the two (lattice_test).
[[nodiscard]] bool join_fresh(StatePool& pool, State*& into, const State& other, bool widen, const MapTable& maps);
// Every concrete state of a is one of b's.
bool state_leq(const State& a, const State& b, const MapTable& maps);

// Register-level operations, used by the state ones and by the transfer
// functions.
RegState join_reg(const RegState& a, const RegState& b, bool widen, const MapTable& maps);
bool reg_leq(const RegState& a, const RegState& b, const MapTable& maps);

}  // namespace keel
