// ConstantRun's pre-test (analysis/constants.h) against fold_run() itself:
// wherever may_fold() answers false, fold_run() folds nothing, for every
// Op byte, every dst/src pair over a mix of register kinds and values,
// under each of linux_rules and guarded, with the cache empty and with the
// cache left by a run that stopped at the instruction (the two ways the
// fixpoint reaches the call).
#include <gtest/gtest.h>

#include <cstdint>

#include "analysis/constants.h"

namespace keel {
namespace {

// Register r's state in the mix: constants (zero and not), a range, an
// unknown scalar, a pointer (whose `value` is the constant 0 offset) and
// an uninitialized register, spread so that dst and src meet every pair.
RegState mix(uint32_t r) {
  RegState s;
  switch (r % 6) {
    case 0:
      s.kind = RegKind::scalar;
      s.value = Scalar::constant(5);
      break;
    case 1:
      s.kind = RegKind::scalar;
      s.value = Scalar::constant(0);
      break;
    case 2:
      s.kind = RegKind::scalar;
      s.value = Scalar::from_urange(3, 9);
      break;
    case 3:
      s.kind = RegKind::scalar;
      s.value = Scalar::unknown();
      break;
    case 4:
      s.kind = RegKind::ctx;
      break;
    default:
      break;  // uninit
  }
  return s;
}

Insn make(uint32_t op, uint32_t dst, uint32_t src, int64_t imm) {
  Insn insn{};
  insn.op = static_cast<Op>(op);
  insn.dst = static_cast<uint8_t>(dst);
  insn.src = static_cast<uint8_t>(src);
  insn.imm = imm;
  return insn;
}

TEST(ConstantRun, MayFoldIsFalseOnlyWhereFoldRunFoldsNothing) {
  const Insn exit_insn = make(static_cast<uint32_t>(Op::exit), 0, 0, 0);
  uint32_t skipped = 0;
  uint32_t folded = 0;
  for (uint32_t shift = 0; shift < 6; ++shift) {  // rotates the mix over the registers
    RegState regs[kRegisterCount];
    for (uint32_t r = 0; r < kRegisterCount; ++r) regs[r] = mix(r + shift);
    for (uint32_t op = 0; op < 256; ++op) {
      for (uint32_t dst = 0; dst < kRegisterCount; ++dst) {
        for (uint32_t src = 0; src < kRegisterCount; ++src) {
          for (uint32_t flags = 0; flags < 4; ++flags) {
            const bool linux_rules = (flags & 1u) != 0;
            const bool guarded = (flags & 2u) != 0;
            const Insn insn = make(op, dst, src, 3);
            const bool may = ConstantRun::may_fold(insn, regs);
            // The cache empty: insn alone, then exit.
            const Insn alone[] = {insn, exit_insn};
            ConstantRun fresh(linux_rules, guarded);
            const uint32_t next = fresh.fold_run(alone, 0, 2, regs);
            if (!may) {
              EXPECT_EQ(next, 0u) << "op " << op << " dst " << dst << " src " << src << " flags " << flags;
              ++skipped;
            } else if (next != 0) {
              ++folded;
            }
            // The cache left by a run that stopped at insn: a constant
            // folded first into dst itself or into another register
            // (regs not written back, so regs[dst] may be stale).
            for (const uint32_t first : {dst, (dst + 1) % kRegisterCount}) {
              const Insn after_run[] = {make(static_cast<uint32_t>(Op::mov64_imm), first, 0, 7), insn, exit_insn};
              ConstantRun cached(linux_rules, guarded);
              if (cached.fold_run(after_run, 0, 3, regs) == 1 && !ConstantRun::may_fold(insn, regs)) {
                EXPECT_EQ(cached.fold_run(after_run, 1, 3, regs), 1u)
                    << "op " << op << " dst " << dst << " src " << src << " flags " << flags << " first " << first;
              }
            }
          }
        }
      }
    }
  }
  // Both answers occur (the test is not vacuous).
  EXPECT_GT(skipped, 0u);
  EXPECT_GT(folded, 0u);
}

}  // namespace
}  // namespace keel
