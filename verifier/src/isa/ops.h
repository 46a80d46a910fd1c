// What every stage after the decoder asks of an instruction: its class, its
// width and operand form, the size of its memory access, and the registers
// it reads and writes. One row per Op in kOpTable, built from isa.h's
// operation lists, so a stage asks `op_info(op).cls == OpClass::load`
// instead of testing a range of the enum (which breaks silently when an Op
// is added in the middle). Internal header (docs/adr/0044); everything is
// constexpr and needs nothing but <cstdint>, so the freestanding core
// builds it like any other table.
#pragma once

#include <cstdint>

#include "keel/isa.h"

namespace keel {

// What kind of instruction an Op is (RFC 9669 §3 classes, with the ones a
// stage treats differently split out).
enum class OpClass : uint8_t {
  alu,          // dst = dst OP operand, and the unary neg, movsx, byte swaps (§4.1, §4.2)
  cond_jump,    // if dst OP operand goto offset (§4.3)
  ja,           // goto offset (JMP JA and JMP32 JA, §4.3)
  call_helper,  // call imm (§4.3.1)
  call_local,   // call a BPF-to-BPF function (§4.3.2)
  callx,        // call the helper whose id dst holds (Linux/LLVM encoding)
  exit,         // return r0 (§4.3)
  lddw,         // first slot of a 64-bit immediate load (§5.4)
  lddw_tail,    // its second slot, never executed
  load,         // dst = [src + offset], zero- or sign-extended (§5.1, §5.2)
  store_imm,    // [dst + offset] = imm (§5.1)
  store_reg,    // [dst + offset] = src (§5.1)
  atomic,       // [dst + offset] OP= src, with or without fetch (§5.3)
  legacy_load,  // r0 = packet[imm (+ src)] (§5.5)
};

// ALU64/JMP versus ALU/JMP32 (RFC 9669 §3).
enum class Width : uint8_t { w64, w32 };

// The ALU operation of an Op: first the binary ones in the order of
// KEEL_ALU_OPS (and, or, xor carry a `b` because the bare words are C++
// operator tokens), then the unary ones. Atomic Ops use add, bor, band,
// bxor, and mov for xchg and cmpxchg.
enum class Alu : uint8_t {
  add, sub, mul, div, sdiv, bor, band, lsh, rsh, mod, smod, bxor, mov, arsh,
  neg, movsx, to_le, to_be, bswap, none
};

// Conditional jumps (RFC 9669 §4.3), in the order of KEEL_JMP_OPS.
enum class JmpOp : uint8_t { jeq, jgt, jge, jset, jne, jsgt, jsge, jlt, jle, jslt, jsle };

// What an atomic instruction gives back (RFC 9669 §5.3).
enum class AtomicKind : uint8_t {
  none,     // not an atomic instruction
  plain,    // no register written
  fetch,    // src = the old value
  xchg,     // src = the old value (XCHG has FETCH set)
  cmpxchg,  // r0 = the old value; [dst + offset] = src when it equalled r0
};

struct OpInfo {
  OpClass cls;
  Alu alu;          // alu and atomic classes; none elsewhere
  JmpOp jmp;        // cond_jump only
  Width width;      // alu, cond_jump, atomic: the width operated on
  bool reads_src;   // the `_reg` forms, stx, atomics, ld_ind, movsx: src is an operand
  uint8_t size;     // bytes accessed: loads, stores, atomics, legacy loads; 0 elsewhere
  uint8_t extend;   // movsx, ldxs*: bits sign-extended from; le/be/bswap: bits kept; else 0
  AtomicKind atomic;
};

namespace op_table {

constexpr OpInfo row(OpClass cls) { return OpInfo{cls, Alu::none, JmpOp::jeq, Width::w64, false, 0, 0, AtomicKind::none}; }
constexpr OpInfo alu(Alu a, Width w, bool reg, uint8_t extend = 0) {
  return OpInfo{OpClass::alu, a, JmpOp::jeq, w, reg, 0, extend, AtomicKind::none};
}
constexpr OpInfo jump(JmpOp j, Width w, bool reg) {
  return OpInfo{OpClass::cond_jump, Alu::none, j, w, reg, 0, 0, AtomicKind::none};
}
constexpr OpInfo memory(OpClass cls, uint8_t size, bool reads_src, uint8_t extend = 0) {
  return OpInfo{cls, Alu::none, JmpOp::jeq, Width::w64, reads_src, size, extend, AtomicKind::none};
}
constexpr OpInfo atomic(Alu a, Width w, AtomicKind kind) {
  return OpInfo{OpClass::atomic, a, JmpOp::jeq, w, true, static_cast<uint8_t>(w == Width::w64 ? 8 : 4), 0, kind};
}

// In the order of enum Op (keel/isa.h); build() checks the count.
inline constexpr OpInfo kRows[] = {
#define KEEL_OP_ROW_ALU(name)                                                         \
  alu(Alu::kAlu_##name, Width::w64, false), alu(Alu::kAlu_##name, Width::w64, true), \
      alu(Alu::kAlu_##name, Width::w32, false), alu(Alu::kAlu_##name, Width::w32, true),
#define kAlu_add add
#define kAlu_sub sub
#define kAlu_mul mul
#define kAlu_div div
#define kAlu_sdiv sdiv
#define kAlu_or bor
#define kAlu_and band
#define kAlu_lsh lsh
#define kAlu_rsh rsh
#define kAlu_mod mod
#define kAlu_smod smod
#define kAlu_xor bxor
#define kAlu_mov mov
#define kAlu_arsh arsh
    KEEL_ALU_OPS(KEEL_OP_ROW_ALU)
#undef KEEL_OP_ROW_ALU
#undef kAlu_add
#undef kAlu_sub
#undef kAlu_mul
#undef kAlu_div
#undef kAlu_sdiv
#undef kAlu_or
#undef kAlu_and
#undef kAlu_lsh
#undef kAlu_rsh
#undef kAlu_mod
#undef kAlu_smod
#undef kAlu_xor
#undef kAlu_mov
#undef kAlu_arsh
    alu(Alu::neg, Width::w64, false), alu(Alu::neg, Width::w32, false),
    alu(Alu::movsx, Width::w64, true, 8), alu(Alu::movsx, Width::w64, true, 16),
    alu(Alu::movsx, Width::w64, true, 32), alu(Alu::movsx, Width::w32, true, 8),
    alu(Alu::movsx, Width::w32, true, 16),
    alu(Alu::to_le, Width::w64, false, 16), alu(Alu::to_le, Width::w64, false, 32),
    alu(Alu::to_le, Width::w64, false, 64), alu(Alu::to_be, Width::w64, false, 16),
    alu(Alu::to_be, Width::w64, false, 32), alu(Alu::to_be, Width::w64, false, 64),
    alu(Alu::bswap, Width::w64, false, 16), alu(Alu::bswap, Width::w64, false, 32),
    alu(Alu::bswap, Width::w64, false, 64),
#define KEEL_OP_ROW_JMP(name)                                                           \
  jump(JmpOp::name, Width::w64, false), jump(JmpOp::name, Width::w64, true),           \
      jump(JmpOp::name, Width::w32, false), jump(JmpOp::name, Width::w32, true),
    KEEL_JMP_OPS(KEEL_OP_ROW_JMP)
#undef KEEL_OP_ROW_JMP
    row(OpClass::ja), row(OpClass::call_helper), row(OpClass::call_local), row(OpClass::callx),
    row(OpClass::exit),
    row(OpClass::lddw), row(OpClass::lddw), row(OpClass::lddw), row(OpClass::lddw), row(OpClass::lddw),
    row(OpClass::lddw), row(OpClass::lddw),
    row(OpClass::lddw_tail),
    memory(OpClass::load, 1, true), memory(OpClass::load, 2, true), memory(OpClass::load, 4, true),
    memory(OpClass::load, 8, true), memory(OpClass::load, 1, true, 8), memory(OpClass::load, 2, true, 16),
    memory(OpClass::load, 4, true, 32),
    memory(OpClass::store_imm, 1, false), memory(OpClass::store_imm, 2, false),
    memory(OpClass::store_imm, 4, false), memory(OpClass::store_imm, 8, false),
    memory(OpClass::store_reg, 1, true), memory(OpClass::store_reg, 2, true),
    memory(OpClass::store_reg, 4, true), memory(OpClass::store_reg, 8, true),
#define KEEL_OP_ROW_ATOMIC(name)                                                                \
  atomic(Alu::kAtomic_##name, Width::w32, AtomicKind::plain),                                  \
      atomic(Alu::kAtomic_##name, Width::w32, AtomicKind::fetch),                              \
      atomic(Alu::kAtomic_##name, Width::w64, AtomicKind::plain),                              \
      atomic(Alu::kAtomic_##name, Width::w64, AtomicKind::fetch),
#define kAtomic_add add
#define kAtomic_or bor
#define kAtomic_and band
#define kAtomic_xor bxor
    KEEL_ATOMIC_OPS(KEEL_OP_ROW_ATOMIC)
#undef KEEL_OP_ROW_ATOMIC
#undef kAtomic_add
#undef kAtomic_or
#undef kAtomic_and
#undef kAtomic_xor
    atomic(Alu::mov, Width::w32, AtomicKind::xchg), atomic(Alu::mov, Width::w64, AtomicKind::xchg),
    atomic(Alu::mov, Width::w32, AtomicKind::cmpxchg), atomic(Alu::mov, Width::w64, AtomicKind::cmpxchg),
    memory(OpClass::legacy_load, 1, false), memory(OpClass::legacy_load, 2, false),
    memory(OpClass::legacy_load, 4, false), memory(OpClass::legacy_load, 1, true),
    memory(OpClass::legacy_load, 2, true), memory(OpClass::legacy_load, 4, true),
};
static_assert(sizeof(kRows) / sizeof(kRows[0]) == kOpCount, "one OpInfo row per Op, in enum order");

// Spot checks that the rows line up with the enum (a row out of place
// shifts every one after it, so checking the ends of each group suffices).
constexpr bool rows_line_up() {
  const auto at = [](Op op) { return kRows[static_cast<uint8_t>(op)]; };
  return at(Op::add64_imm).alu == Alu::add && at(Op::arsh32_reg).alu == Alu::arsh &&
         at(Op::arsh32_reg).width == Width::w32 && at(Op::arsh32_reg).reads_src &&
         at(Op::neg64).alu == Alu::neg && at(Op::movsx32_16).extend == 16 && at(Op::bswap64).alu == Alu::bswap &&
         at(Op::jeq64_imm).jmp == JmpOp::jeq && at(Op::jsle32_reg).jmp == JmpOp::jsle &&
         at(Op::jsle32_reg).width == Width::w32 && at(Op::ja).cls == OpClass::ja &&
         at(Op::exit).cls == OpClass::exit && at(Op::lddw_imm64).cls == OpClass::lddw &&
         at(Op::lddw_map_idx_value).cls == OpClass::lddw && at(Op::lddw_tail).cls == OpClass::lddw_tail &&
         at(Op::ldxb).size == 1 && at(Op::ldxdw).size == 8 && at(Op::ldxsw).extend == 32 &&
         at(Op::stb).cls == OpClass::store_imm && at(Op::stdw).size == 8 && at(Op::stxb).cls == OpClass::store_reg &&
         at(Op::stxdw).size == 8 && at(Op::atomic32_add).atomic == AtomicKind::plain &&
         at(Op::atomic64_fetch_xor).alu == Alu::bxor && at(Op::atomic64_fetch_xor).size == 8 &&
         at(Op::atomic64_cmpxchg).atomic == AtomicKind::cmpxchg && at(Op::ld_abs_b).size == 1 &&
         at(Op::ld_ind_w).size == 4 && at(Op::ld_ind_w).reads_src;
}
static_assert(rows_line_up(), "OpInfo rows out of step with enum Op");

}  // namespace op_table

constexpr const OpInfo& op_info(Op op) { return op_table::kRows[static_cast<uint8_t>(op)]; }
constexpr OpClass op_class(Op op) { return op_info(op).cls; }

constexpr bool is_alu(Op op) { return op_class(op) == OpClass::alu; }
// An ALU Op with two operands (dst OP imm / src), as opposed to neg, movsx and the byte swaps.
constexpr bool is_binary_alu(Op op) { return is_alu(op) && op_info(op).alu < Alu::neg; }
constexpr bool is_conditional_jump(Op op) { return op_class(op) == OpClass::cond_jump; }
constexpr bool is_lddw(Op op) { return op_class(op) == OpClass::lddw; }
constexpr bool is_load(Op op) { return op_class(op) == OpClass::load; }
constexpr bool is_store(Op op) {
  return op_class(op) == OpClass::store_imm || op_class(op) == OpClass::store_reg;
}
constexpr bool is_atomic(Op op) { return op_class(op) == OpClass::atomic; }
constexpr bool is_legacy_load(Op op) { return op_class(op) == OpClass::legacy_load; }
// Any call: helper, local (BPF-to-BPF) or callx.
constexpr bool is_call(Op op) {
  return op_class(op) == OpClass::call_helper || op_class(op) == OpClass::call_local ||
         op_class(op) == OpClass::callx;
}
// An Op that may move control anywhere but the next slot: jumps, calls,
// exit (what ends a basic block, with the lddw pair kept whole).
constexpr bool is_control(Op op) {
  const OpClass c = op_class(op);
  return c == OpClass::cond_jump || c == OpClass::ja || c == OpClass::call_helper ||
         c == OpClass::call_local || c == OpClass::callx || c == OpClass::exit;
}

// Whether the Ops for which `pred` holds are exactly [first, last]: lets a
// hot path keep a range test that a compile-time check ties to the table.
template <typename Pred>
constexpr bool op_range_is(Op first, Op last, Pred pred) {
  for (size_t i = 0; i < kOpCount; ++i) {
    const bool inside = i >= static_cast<size_t>(first) && i <= static_cast<size_t>(last);
    if (pred(static_cast<Op>(i)) != inside) return false;
  }
  return true;
}

// The binary ALU Ops come first in enum Op, so a hot path may test
// `op < kBinaryAluEnd` (one compare) for is_binary_alu(op); checked here
// against the table, so adding an Op that breaks it fails to compile.
inline constexpr Op kBinaryAluEnd = Op::neg64;
static_assert(op_range_is(Op::add64_imm, static_cast<Op>(static_cast<uint8_t>(kBinaryAluEnd) - 1), is_binary_alu),
              "the binary ALU Ops must stay first in enum Op");

// The JmpOp and width of a conditional jump; false for other ops.
[[nodiscard]] constexpr bool jmp_of(Op op, JmpOp& jmp, Width& w) {
  if (!is_conditional_jump(op)) return false;
  jmp = op_info(op).jmp;
  w = op_info(op).width;
  return true;
}
// Whether a conditional jump compares with its source register (a `_reg`
// form) rather than the immediate.
[[nodiscard]] constexpr bool jump_uses_src(Op op) { return is_conditional_jump(op) && op_info(op).reads_src; }

// ---- Register sets: bit r for register r (r0..r10).

using RegSet = uint16_t;
constexpr RegSet reg_bit(uint32_t r) { return static_cast<RegSet>(1u << r); }
// r0-r5: not preserved across a call (RFC 9669 §4.3.1: r0 the return value,
// r1-r5 the arguments).
inline constexpr RegSet kCallerSaved = 0x3f;
// r1-r5: the arguments of a call (RFC 9669 §4.3.1).
inline constexpr RegSet kArgumentRegs = 0x3e;
static_assert(kCallerSaved == (reg_bit(0) | kArgumentRegs) &&
              kArgumentRegs == (reg_bit(1) | reg_bit(2) | reg_bit(3) | reg_bit(4) | reg_bit(5)));

// The registers an instruction writes. Exact for every Op:
// - an atomic without FETCH writes no register; one with FETCH (and XCHG)
//   writes the old value into src; CMPXCHG writes it into r0 (RFC 9669 §5.3);
// - calls leave r0-r5 undefined (§4.3.1); the legacy packet loads are taken
//   as calls, as Linux implements them (they clobber r1-r5 and set r0).
constexpr RegSet written_regs(const Insn& insn) {
  const OpInfo& info = op_info(insn.op);
  switch (info.cls) {
    case OpClass::alu: case OpClass::lddw: case OpClass::load:
      return reg_bit(insn.dst);
    case OpClass::atomic:
      if (info.atomic == AtomicKind::fetch || info.atomic == AtomicKind::xchg) return reg_bit(insn.src);
      return info.atomic == AtomicKind::cmpxchg ? reg_bit(0) : RegSet{0};
    case OpClass::call_helper: case OpClass::call_local: case OpClass::callx: case OpClass::legacy_load:
      return kCallerSaved;
    case OpClass::cond_jump: case OpClass::ja: case OpClass::exit: case OpClass::lddw_tail:
    case OpClass::store_imm: case OpClass::store_reg:
      return 0;
  }
  return 0;
}

// The registers whose values an instruction reads as operands (a call's
// arguments: r1-r5, whatever the helper's prototype uses; exit: r0).
// Unary ALU Ops read dst except movsx, which reads src; mov reads only its
// operand; CMPXCHG also reads r0.
constexpr RegSet read_regs(const Insn& insn) {
  const OpInfo& info = op_info(insn.op);
  const RegSet src = info.reads_src ? reg_bit(insn.src) : RegSet{0};
  switch (info.cls) {
    case OpClass::alu:
      if (info.alu == Alu::movsx) return src;
      if (info.alu == Alu::mov) return src;
      return static_cast<RegSet>(reg_bit(insn.dst) | src);
    case OpClass::cond_jump: case OpClass::store_imm: case OpClass::store_reg:
      return static_cast<RegSet>(reg_bit(insn.dst) | src);
    case OpClass::callx:  // dst holds the helper id
      return static_cast<RegSet>(reg_bit(insn.dst) | kArgumentRegs);
    case OpClass::atomic:
      return static_cast<RegSet>(reg_bit(insn.dst) | src | (info.atomic == AtomicKind::cmpxchg ? reg_bit(0) : 0));
    case OpClass::load:
      return src;
    case OpClass::legacy_load:  // ld_abs/ld_ind read the context from r6 (Linux)
      return static_cast<RegSet>(reg_bit(6) | src);
    case OpClass::call_helper: case OpClass::call_local:
      return kArgumentRegs;
    case OpClass::exit:
      return reg_bit(0);
    case OpClass::ja: case OpClass::lddw: case OpClass::lddw_tail:
      return 0;
  }
  return 0;
}

}  // namespace keel
