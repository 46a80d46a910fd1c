// What the analysis' own passes ask of an instruction: the registers it may
// write and whether it is a conditional jump. Used by the partition
// pre-pass (partition_plan.cc), the loop clamps (loop_clamp.cc) and the
// fixpoint (fixpoint.cc). Moved here unchanged from the former analyze.cc;
// isa/'s instruction queries are to replace them.
#pragma once

#include <cstdint>

#include "keel/isa.h"

namespace keel {

inline bool is_cond_jump(Op op) { return op >= Op::jeq64_imm && op < Op::ja; }

// Registers an instruction may write (a superset only partitions less).
inline uint16_t written_by(const Insn& insn) {
  const Op op = insn.op;
  const auto bit = [](uint32_t r) { return static_cast<uint16_t>(1u << r); };
  if (op < Op::jeq64_imm || (op >= Op::ldxb && op <= Op::ldxsw) ||
      (op >= Op::lddw_imm64 && op <= Op::lddw_map_idx_value)) {
    return bit(insn.dst);
  }
  if ((op >= Op::stb && op <= Op::stxdw) || op == Op::lddw_tail || op == Op::exit || op == Op::ja ||
      is_cond_jump(op)) {
    return 0;
  }
  if (op >= Op::atomic32_add && op <= Op::atomic64_cmpxchg) return static_cast<uint16_t>(bit(insn.src) | bit(0));
  return 0x3f;  // calls and legacy packet loads: r0-r5
}

}  // namespace keel
