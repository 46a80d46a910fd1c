// Constant folding for the analysis: the ALU operations on known values
// (RFC 9669 §4.1), and the cache that folds a run of them inside a block
// without rewriting a 88-byte register per instruction. Internal.
#pragma once

#include <cstdint>

#include "analysis/reg_state.h"
#include "keel/isa.h"

namespace keel {

// The order of KEEL_ALU_OPS in isa.h: an ALU Op is 4 * Alu + (32-bit ? 2 : 0) + (reg ? 1 : 0).
enum class Alu : uint8_t { add, sub, mul, div, sdiv, bor, band, lsh, rsh, mod, smod, bxor, mov, arsh };
static_assert(static_cast<unsigned>(Op::arsh32_reg) == 4 * static_cast<unsigned>(Alu::arsh) + 3 &&
              static_cast<unsigned>(Op::neg64) == 4 * static_cast<unsigned>(Alu::arsh) + 4);

// The operations folded on constants, and mov (the second operand).
constexpr bool folds(Alu op) {
  return op == Alu::add || op == Alu::sub || op == Alu::mul || op == Alu::bor || op == Alu::band ||
         op == Alu::bxor || op == Alu::lsh || op == Alu::rsh || op == Alu::mov;
}

// a OP b with RFC 9669 §4.1 semantics, for an op that folds().
inline uint64_t fold_op(Alu op, bool is64, uint64_t a, uint64_t b) {
  uint64_t out;
  switch (op) {
    case Alu::add: out = a + b; break;
    case Alu::sub: out = a - b; break;
    case Alu::mul: out = a * b; break;
    case Alu::bor: out = a | b; break;
    case Alu::band: out = a & b; break;
    case Alu::bxor: out = a ^ b; break;
    case Alu::lsh: out = is64 ? a << (b & 63) : uint64_t{static_cast<uint32_t>(a) << (b & 31)}; break;
    case Alu::rsh: out = is64 ? a >> (b & 63) : uint64_t{static_cast<uint32_t>(a) >> (b & 31)}; break;
    case Alu::mov: out = b; break;
    default: __builtin_unreachable();  // no other op folds()
  }
  return is64 ? out : static_cast<uint32_t>(out);
}

// Constant folding of the common operations; false for the others, which
// go through the domain.
inline bool fold_constant(Alu op, bool is64, uint64_t a, uint64_t b, uint64_t& out) {
  if (op == Alu::mov || !folds(op)) return false;
  out = fold_op(op, is64, a, b);
  return true;
}

// Folds `mov dst, imm` and the foldable operations whose operands are known
// constants, keeping the results here; flush() writes them back as
// scalars (id cleared, as any write does). Between fold_run() and flush()
// the registers may be stale, so the caller flushes before anything else
// reads or writes the state. Straight-line code is mostly such runs: each
// instruction then costs a few integer operations instead of an 88-byte
// register update.
class ConstantRun {
 public:
  // linux_rules: shifts take the general path (it checks their immediate).
  explicit ConstantRun(bool linux_rules) : linux_rules_(linux_rules) {}

  // Whether fold_run() could fold insn at all (a cheap test: not calling
  // it for the other instructions is worth it).
  static bool may_fold(const Insn& insn) { return insn.op < Op::neg64; }

  // Folds insns[pc], insns[pc + 1], ... before `end` while they fold;
  // returns the first one that does not (pc when none did).
  // Not inlined: inside the fixpoint's large function its loop would run
  // out of registers.
  [[gnu::noinline]] uint32_t fold_run(const Insn* insns, uint32_t pc, uint32_t end, const RegState* regs) {
    // Locals, so that they stay in registers (value_ stores could alias members).
    Masks m{known_, dirty_, linux_rules_};
    while (pc < end && fold(regs, insns[pc], m)) ++pc;
    known_ = m.known;
    dirty_ = m.dirty;
    return pc;
  }

  void flush(RegState* regs) {
    for (uint32_t pending = dirty_; pending != 0; pending &= pending - 1) {
      const auto r = static_cast<uint32_t>(__builtin_ctz(pending));
      regs[r].kind = RegKind::scalar;
      regs[r].id = 0;
      regs[r].value = const_scalar(value_[r]);
    }
    known_ = 0;
    dirty_ = 0;
  }

 private:
  struct Masks {
    uint32_t known;  // bit r: value_[r] is register r's constant
    uint32_t dirty;  // bit r: register r is still to be written from value_[r]
    bool linux_rules;
  };

  // False (nothing changed but the cache) when insn is not a foldable
  // instruction on constants. One case per Op, so that the dispatch is a
  // single jump and each case knows its operation, width and operand.
  [[gnu::always_inline]] bool fold(const RegState* regs, const Insn& insn, Masks& m) {
    switch (insn.op) {
#define KEEL_FOLD_CASES(name, alu)                                                     \
  case Op::name##64_imm: return fold_one<Alu::alu, true, false>(regs, insn, m);   \
  case Op::name##64_reg: return fold_one<Alu::alu, true, true>(regs, insn, m);    \
  case Op::name##32_imm: return fold_one<Alu::alu, false, false>(regs, insn, m);  \
  case Op::name##32_reg: return fold_one<Alu::alu, false, true>(regs, insn, m);
      KEEL_FOLD_CASES(add, add)
      KEEL_FOLD_CASES(sub, sub)
      KEEL_FOLD_CASES(mul, mul)
      KEEL_FOLD_CASES(or, bor)
      KEEL_FOLD_CASES(and, band)
      KEEL_FOLD_CASES(xor, bxor)
      KEEL_FOLD_CASES(lsh, lsh)
      KEEL_FOLD_CASES(rsh, rsh)
#undef KEEL_FOLD_CASES
      case Op::mov64_imm: return fold_one<Alu::mov, true, false>(regs, insn, m);
      case Op::mov32_imm: return fold_one<Alu::mov, false, false>(regs, insn, m);
      default: return false;
    }
  }

  template <Alu kOp, bool kIs64, bool kReg>
  [[gnu::always_inline]] bool fold_one(const RegState* regs, const Insn& insn, Masks& m) {
    static_assert(folds(kOp) && !(kOp == Alu::mov && kReg));
    if ((kOp == Alu::lsh || kOp == Alu::rsh) && m.linux_rules) return false;
    const uint32_t dst = insn.dst;
    uint64_t b = static_cast<uint64_t>(insn.imm);
    if (kReg) {
      if (!load(regs, insn.src, m)) return false;
      b = value_[insn.src];
    }
    uint64_t a = 0;
    if (kOp != Alu::mov) {
      if (!load(regs, dst, m)) return false;
      a = value_[dst];
    }
    value_[dst] = fold_op(kOp, kIs64, a, b);
    m.known |= 1u << dst;
    m.dirty |= 1u << dst;
    return true;
  }

  // Whether register r holds a constant, caching it.
  bool load(const RegState* regs, uint32_t r, Masks& m) {
    if ((m.known >> r) & 1u) return true;
    if (regs[r].kind != RegKind::scalar || !regs[r].value.is_const()) return false;
    value_[r] = regs[r].value.bits.value;
    m.known |= 1u << r;
    return true;
  }

  uint64_t value_[kRegisterCount];
  bool linux_rules_;
  uint32_t known_ = 0;
  uint32_t dirty_ = 0;
};

}  // namespace keel
