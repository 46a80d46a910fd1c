// Constant folding for the analysis: the ALU operations on known values
// (RFC 9669 §4.1), and the cache that folds a run of them inside a block
// without rewriting a 88-byte register per instruction. Internal.
#pragma once

#include <cstdint>

#include "analysis/reg_state.h"
#include "isa/ops.h"
#include "isa/semantics.h"
#include "keel/isa.h"

namespace keel {

// The ALU Ops are 4 * Alu + (32-bit ? 2 : 0) + (reg ? 1 : 0) (isa/ops.h),
// which fold_run()'s handler table relies on.
static_assert(static_cast<unsigned>(Op::arsh32_reg) == 4 * static_cast<unsigned>(Alu::arsh) + 3 &&
              static_cast<unsigned>(Op::neg64) == 4 * static_cast<unsigned>(Alu::arsh) + 4);

// The operations folded on constants, and mov (the second operand).
constexpr bool folds(Alu op) {
  return op == Alu::add || op == Alu::sub || op == Alu::mul || op == Alu::bor || op == Alu::band ||
         op == Alu::bxor || op == Alu::lsh || op == Alu::rsh || op == Alu::mov;
}

// Bit op: ConstantRun::fold_run() has a fold handler for Op op (its
// kHandlers): a binary ALU Op whose operation folds(), other than mov of a
// register.
constexpr uint64_t fold_starts() {
  static_assert(static_cast<uint32_t>(kBinaryAluEnd) <= 64);
  uint64_t bits = 0;
  for (uint32_t op = 0; op < static_cast<uint32_t>(kBinaryAluEnd); ++op) {
    const auto alu = static_cast<Alu>(op / 4);
    const bool reg = (op & 1u) != 0;
    if (folds(alu) && !(alu == Alu::mov && reg)) bits |= uint64_t{1} << op;
  }
  return bits;
}

// a OP b with RFC 9669 §4.1 semantics (isa/semantics.h), for an op that folds().
[[gnu::always_inline]] inline uint64_t fold_op(Alu op, bool is64, uint64_t a, uint64_t b) {
  return sem::alu(op, is64 ? Width::w64 : Width::w32, a, b);
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
  // guarded: so do 64-bit add and sub of a register, whose every visit the
  // unprivileged hardening must see (transfer.cc note_scalar_operand).
  ConstantRun(bool linux_rules, bool guarded) : linux_rules_(linux_rules), guarded_(guarded) {}

  // Whether fold_run(insns, pc, ...) with insns[pc] == insn could fold it
  // (a cheap test: a call that folds nothing costs ~55 instructions, and
  // most calls in real programs were such calls). regs: the registers
  // fold_run() would be given.
  //
  // False only where fold_run() would return pc, changing nothing but its
  // cache of known values (flush() then empties it):
  //  - insn's Op is not one kFoldStarts has: its kHandlers entry is `stop`,
  //    reached before anything is read (Ops >= 64 are not binary ALU Ops);
  //  - insn is not a mov of an immediate and its dst is not a constant
  //    scalar in regs: fold_one() then calls load(dst), false for it.
  //    That holds when the cache is empty, when regs is fresh. The cache is
  //    not empty only right after a run that stopped at insns[pc] because
  //    insns[pc] did not fold (fixpoint.cc: every other path flushes), and
  //    a second call would stop there again (fold_one() is a function of
  //    the known values and regs alone, neither changed in between).
  // The remaining cases (a constant dst and a src that is not, shifts under
  // linux_rules, guarded 64-bit add and sub of a register) fold_run() tests.
  // (The order keeps a mov of an immediate, which always folds, at two
  // compares more than is_binary_alu alone.)
  static bool may_fold(const Insn& insn, const RegState* regs) {
    // is_binary_alu as one compare: isa/ops.h checks that the binary ALU Ops come first.
    if (insn.op >= kBinaryAluEnd) return false;
    const auto op = static_cast<uint32_t>(insn.op);
    if ((op | 2u) == kMov32Imm) return true;  // mov64_imm or mov32_imm
    return ((kFoldStarts >> op) & 1u) != 0 && regs[insn.dst].is_const();
  }

  // Folds insns[pc], insns[pc + 1], ... before `end` while they fold;
  // returns the first one that does not (pc when none did).
  // Not inlined: inside the fixpoint's large function its loop would run
  // out of registers. Aligned to a cache line: its loop is most of
  // straight-line code's time, and where an unrelated change happened to
  // put it (16 bytes past a line, at this session's merge) the same
  // instruction count ran 1.14-1.19x slower (evidence 8696f48-verifier-ab).
  [[gnu::noinline, gnu::aligned(64)]] uint32_t fold_run(const Insn* insns, uint32_t pc, uint32_t end,
                                                        const RegState* regs) {
    // Locals, so that they stay in registers (value_ stores could alias members).
    Masks m{known_, dirty_, linux_rules_, guarded_, kNoRegister, 0};
    // Threaded dispatch (labels as values, as in interp.cc): one handler per
    // Op, each ending in the jump to the next instruction's handler, so an
    // instruction costs one jump, not a switch's range check and jump plus
    // the jumps back to a loop head (which were most of the cost of a run
    // of constants). An instruction with the same Op as the one before
    // (`r1 = 0; r2 = 0`, `r0 += 4; r0 += 8`) jumps straight back to its
    // handler, a direct jump that predicts better than the shared indirect
    // one. An ALU Op is 4 * Alu + (32-bit ? 2 : 0) + (reg ? 1 : 0); every Op
    // from neg64 on, and the ALU ones that do not fold, stop the run.
#define KEEL_FOLD_LABELS(name) &&fold_##name##64_imm, &&fold_##name##64_reg, &&fold_##name##32_imm, &&fold_##name##32_reg,
#define KEEL_NO_FOLD_LABELS &&stop, &&stop, &&stop, &&stop,
#define KEEL_STOP_40 KEEL_NO_FOLD_LABELS KEEL_NO_FOLD_LABELS KEEL_NO_FOLD_LABELS KEEL_NO_FOLD_LABELS \
  KEEL_NO_FOLD_LABELS KEEL_NO_FOLD_LABELS KEEL_NO_FOLD_LABELS KEEL_NO_FOLD_LABELS KEEL_NO_FOLD_LABELS KEEL_NO_FOLD_LABELS
    // One entry per byte value (as interp.cc), so that the Op needs no range check.
    static const void* const kHandlers[] = {
        KEEL_FOLD_LABELS(add) KEEL_FOLD_LABELS(sub) KEEL_FOLD_LABELS(mul)
        KEEL_NO_FOLD_LABELS /* div */ KEEL_NO_FOLD_LABELS /* sdiv */
        KEEL_FOLD_LABELS(or) KEEL_FOLD_LABELS(and) KEEL_FOLD_LABELS(lsh) KEEL_FOLD_LABELS(rsh)
        KEEL_NO_FOLD_LABELS /* mod */ KEEL_NO_FOLD_LABELS /* smod */
        KEEL_FOLD_LABELS(xor)
        &&fold_mov64_imm, &&stop, &&fold_mov32_imm, &&stop,  // mov of a register keeps its id: not folded
        KEEL_NO_FOLD_LABELS /* arsh */
        KEEL_STOP_40 KEEL_STOP_40 KEEL_STOP_40 KEEL_STOP_40 KEEL_STOP_40};  // neg64 and every Op after it
#undef KEEL_FOLD_LABELS
#undef KEEL_NO_FOLD_LABELS
#undef KEEL_STOP_40
    static_assert(sizeof(kHandlers) / sizeof(kHandlers[0]) == 256 && static_cast<uint32_t>(Op::neg64) == 56);
    static_assert(static_cast<uint32_t>(Op::xor64_imm) == 4 * static_cast<uint32_t>(Alu::bxor) &&
                  static_cast<uint32_t>(Op::mov64_imm) == 4 * static_cast<uint32_t>(Alu::mov) &&
                  static_cast<uint32_t>(Op::or64_imm) == 4 * static_cast<uint32_t>(Alu::bor));
#define KEEL_NEXT()                                                          \
  do {                                                                       \
    goto* kHandlers[static_cast<uint8_t>(at->op)];                           \
  } while (0)
#define KEEL_FOLD_HANDLER(label, alu, is64, reg)                                \
  label:                                                                         \
    if (!fold_one<Alu::alu, is64, reg>(regs, *at, m) || ++at >= stop_at) goto stop; \
    if (at->op == at[-1].op) goto label;                                         \
    KEEL_NEXT();
#define KEEL_FOLD_HANDLERS(name, alu)                            \
  KEEL_FOLD_HANDLER(fold_##name##64_imm, alu, true, false)       \
  KEEL_FOLD_HANDLER(fold_##name##64_reg, alu, true, true)        \
  KEEL_FOLD_HANDLER(fold_##name##32_imm, alu, false, false)      \
  KEEL_FOLD_HANDLER(fold_##name##32_reg, alu, false, true)
    const Insn* at = insns + pc;
    const Insn* const stop_at = insns + end;
    if (at >= stop_at) goto stop;
    KEEL_NEXT();
    KEEL_FOLD_HANDLERS(add, add)
    KEEL_FOLD_HANDLERS(sub, sub)
    KEEL_FOLD_HANDLERS(mul, mul)
    KEEL_FOLD_HANDLERS(or, bor)
    KEEL_FOLD_HANDLERS(and, band)
    KEEL_FOLD_HANDLERS(xor, bxor)
    KEEL_FOLD_HANDLERS(lsh, lsh)
    KEEL_FOLD_HANDLERS(rsh, rsh)
    KEEL_FOLD_HANDLER(fold_mov64_imm, mov, true, false)
    KEEL_FOLD_HANDLER(fold_mov32_imm, mov, false, false)
#undef KEEL_FOLD_HANDLERS
#undef KEEL_FOLD_HANDLER
#undef KEEL_NEXT
  stop:
    value_[m.last] = m.last_value;  // (the spare slot when nothing folded)
    known_ = m.known;
    dirty_ = m.dirty;
    return static_cast<uint32_t>(at - insns);
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
  static constexpr uint64_t kFoldStarts = fold_starts();
  static constexpr uint32_t kMov32Imm = static_cast<uint32_t>(Op::mov32_imm);
  static_assert((static_cast<uint32_t>(Op::mov64_imm) | 2u) == kMov32Imm && (kMov32Imm & 1u) == 0);

  // value_'s spare slot: `last` before anything folded.
  static constexpr uint32_t kNoRegister = kRegisterCount;
  struct Masks {
    uint32_t known;  // bit r: value_[r] is register r's constant
    uint32_t dirty;  // bit r: register r is still to be written from value_[r]
    bool linux_rules;
    bool guarded;
    // The register written last, whose value is last_value and not yet in
    // value_ (written back when another register is written, and when the
    // run stops). An operation on it (`r0 += 1; r0 <<= 3`, most of a
    // run) then needs neither the known test nor the memory round trip
    // through value_ that would make each instruction wait for the one
    // before.
    uint32_t last;
    uint64_t last_value;
  };

  // False (nothing changed but the cache) when insn is not a foldable
  // instruction on constants.
  template <Alu kOp, bool kIs64, bool kReg>
  [[gnu::always_inline]] bool fold_one(const RegState* regs, const Insn& insn, Masks& m) {
    static_assert(folds(kOp) && !(kOp == Alu::mov && kReg));
    if ((kOp == Alu::lsh || kOp == Alu::rsh) && m.linux_rules) return false;
    if ((kOp == Alu::add || kOp == Alu::sub) && kIs64 && kReg && m.guarded) return false;
    const uint32_t dst = insn.dst;
    uint64_t b = static_cast<uint64_t>(insn.imm);
    if (kReg) {
      if (!load(regs, insn.src, m)) return false;
      b = insn.src == m.last ? m.last_value : value_[insn.src];
    }
    uint64_t a = m.last_value;
    if (__builtin_expect(dst != m.last, 0)) {
      if (kOp != Alu::mov) {
        if (!load(regs, dst, m)) return false;
        a = value_[dst];
      }
      value_[m.last] = m.last_value;
      m.last = dst;
      m.known |= 1u << dst;
      m.dirty |= 1u << dst;
    }
    m.last_value = fold_op(kOp, kIs64, a, b);
    return true;
  }

  // Whether register r holds a constant, caching it.
  bool load(const RegState* regs, uint32_t r, Masks& m) {
    if (__builtin_expect((m.known >> r) & 1u, 1)) return true;  // most operands were just folded
    if (regs[r].kind != RegKind::scalar || !regs[r].value.is_const()) return false;
    value_[r] = regs[r].value.bits.value;
    m.known |= 1u << r;
    return true;
  }

  uint64_t value_[kRegisterCount + 1];  // + the spare slot
  bool linux_rules_;
  bool guarded_;
  uint32_t known_ = 0;
  uint32_t dirty_ = 0;
};

}  // namespace keel
