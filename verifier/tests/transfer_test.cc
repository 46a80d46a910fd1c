// transfer.cc on its own: the ALU and lddw transfer functions and the
// propagation of a bound to linked copies, one instruction at a time
// (analysis_fixture.h), without the fixpoint around them.
#include <gtest/gtest.h>

#include <initializer_list>

#include "analysis_fixture.h"

namespace keel {
namespace {

using test_support::AnalysisFixture;
using test_support::holds_constant;

TEST(Transfer, ConstantsFold) {
  AnalysisFixture f("mov %r0, 5\nadd %r0, 3\nmul %r0, 7\nlsh %r0, 2\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(0), (5 + 3) * 7 * 4));
}

TEST(Transfer, Alu32ZeroExtends) {
  // RFC 9669 §4.1: every 32-bit result has its upper half zeroed.
  AnalysisFixture f("mov %r0, -1\nadd32 %r0, 1\nmov %r2, -1\nmov32 %r3, %r2\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(0), 0));
  EXPECT_TRUE(holds_constant(f.reg(3), 0xffffffffu));
}

TEST(Transfer, DivisionByZeroFollowsTheRfc) {
  // §4.1: x / 0 is 0 and x % 0 is x, for constants as for the interpreter.
  AnalysisFixture f("mov %r0, 9\nmov %r2, 0\ndiv %r0, %r2\nmov %r3, 9\nmod %r3, %r2\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(0), 0));
  EXPECT_TRUE(holds_constant(f.reg(3), 9));
}

TEST(Transfer, UnknownOperandGivesARange) {
  // A byte from the context, masked and shifted: a range, not a constant.
  AnalysisFixture f("ldxb %r2, [%r1+0]\nand %r2, 0xf\nadd %r2, 1\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  const RegState& r2 = f.reg(2);
  ASSERT_EQ(r2.kind, RegKind::scalar);
  EXPECT_EQ(r2.value.umin, 1u);
  EXPECT_EQ(r2.value.umax, 16u);
}

TEST(Transfer, ReadOfAnUninitializedRegisterIsRejected) {
  AnalysisFixture f("mov %r0, %r2\nexit\n");
  ASSERT_EQ(f.error, "");
  EXPECT_FALSE(f.run());
  EXPECT_EQ(f.reason(), Reason::uninit_register);
  EXPECT_EQ(f.engine->verdict.detail.reg, 2);
}

TEST(Transfer, StackPointerArithmeticKeepsTheOffset) {
  AnalysisFixture f("mov %r2, %r10\nadd %r2, -8\nadd %r2, -8\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run()) << reason_name(f.reason());
  EXPECT_EQ(f.reg(2).kind, RegKind::stack);
  EXPECT_EQ(f.reg(2).off, -16);
  // Linux: "we don't allow subtraction from FP" (adjust_ptr_min_max_vals).
  AnalysisFixture g("mov %r2, %r10\nsub %r2, 8\nexit\n");
  EXPECT_FALSE(g.run());
  EXPECT_EQ(g.reason(), Reason::pointer_arithmetic);
}

TEST(Transfer, MultiplyingAPointerIsRejected) {
  AnalysisFixture f("mul %r1, 2\nexit\n");
  ASSERT_EQ(f.error, "");
  EXPECT_FALSE(f.run());
  EXPECT_EQ(f.reason(), Reason::pointer_arithmetic);
}

TEST(Transfer, UnprivilegedNegationOfAPointerLeaks) {
  VerifyOptions options;
  options.privileged = false;
  AnalysisFixture f("mov %r0, %r10\nneg %r0\nexit\n", options);
  ASSERT_EQ(f.error, "");
  EXPECT_FALSE(f.run());
  EXPECT_EQ(f.reason(), Reason::pointer_leak);
  // Privileged, the result is just an unknown number.
  AnalysisFixture g("mov %r0, %r10\nneg %r0\nexit\n");
  ASSERT_TRUE(g.run());
  EXPECT_EQ(g.reg(0).kind, RegKind::scalar);
}

TEST(Transfer, LinuxRulesRefuseAShiftByTheWidth) {
  VerifyOptions options;
  options.linux_rules = true;
  AnalysisFixture f("mov %r0, 1\nlsh %r0, 64\nexit\n", options);
  ASSERT_EQ(f.error, "");
  EXPECT_FALSE(f.run());
  EXPECT_EQ(f.reason(), Reason::unsupported_instruction);
  // keel's own rules mask the amount (§4.1): 64 & 63 = 0.
  AnalysisFixture g("mov %r0, 1\nlsh %r0, 64\nexit\n");
  ASSERT_TRUE(g.run());
  EXPECT_TRUE(holds_constant(g.reg(0), 1));
}

TEST(Transfer, LddwLoadsTheWholeImmediate) {
  AnalysisFixture f("lddw %r3, 0x1122334455667788\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(3), 0x1122334455667788u));
}

// Runs f up to the branch at `pc` (r2 compared with a constant), checks that
// each register of `copies` shares r2's id, and takes the branch; false when
// any step fails.
bool take_branch_after_copies(AnalysisFixture& f, uint32_t pc, std::initializer_list<uint32_t> copies) {
  if (!f.error.empty() || !f.run(0, pc) || f.reg(2).id == 0) return false;
  for (uint32_t r : copies) {
    if (f.reg(r).id != f.reg(2).id) return false;
  }
  bool feasible = false;
  return refine_branch(*f.engine, *f.state, f.program.insns[pc], pc, true, feasible) && feasible;
}

TEST(Transfer, CopiesAreLinkedAndABoundReachesThem) {
  // r3 = r2 + 4 shares r2's id; a branch bounding r2 bounds r3 too
  // (propagate_scalar, called by refine_branch).
  AnalysisFixture f("ldxdw %r2, [%r1+0]\nmov %r3, %r2\nadd %r3, 4\njlt %r2, 10, +0\nexit\n");
  ASSERT_TRUE(take_branch_after_copies(f, 3, {3}));
  EXPECT_EQ(f.reg(2).value.umax, 9u);
  EXPECT_EQ(f.reg(3).value.umin, 4u);
  EXPECT_EQ(f.reg(3).value.umax, 13u);
}

TEST(Transfer, ABoundReachesCopiesAtSeveralOffsets) {
  // r3 = r2 + 4, r4 = r2 + 8, r5 = r3 (offset 4 again): each learns the
  // bound through its own offset (propagate_scalar shares one class value
  // between copies at the same offset, and only between those).
  AnalysisFixture f(
      "ldxdw %r2, [%r1+0]\nmov %r3, %r2\nadd %r3, 4\nmov %r4, %r2\nadd %r4, 8\nmov %r5, %r3\n"
      "jlt %r2, 10, +0\nexit\n");
  ASSERT_TRUE(take_branch_after_copies(f, 6, {3, 4, 5}));
  EXPECT_EQ(f.reg(2).value.umax, 9u);
  EXPECT_EQ(f.reg(3).value.umin, 4u);
  EXPECT_EQ(f.reg(3).value.umax, 13u);
  EXPECT_EQ(f.reg(4).value.umin, 8u);
  EXPECT_EQ(f.reg(4).value.umax, 17u);
  EXPECT_EQ(f.reg(5).value, f.reg(3).value);
}

TEST(Transfer, AWriteBreaksTheLink) {
  AnalysisFixture f("ldxdw %r2, [%r1+0]\nmov %r3, %r2\nmul %r3, 3\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_NE(f.reg(2).id, 0u);
  EXPECT_NE(f.reg(3).id, f.reg(2).id);
}

}  // namespace
}  // namespace keel
