// memory.cc on its own: loads, stores and atomics on the stack and the
// context, one instruction at a time (analysis_fixture.h), without the
// fixpoint around them.
#include <gtest/gtest.h>

#include "analysis_fixture.h"

namespace keel {
namespace {

using test_support::AnalysisFixture;
using test_support::holds_constant;

TEST(Memory, SpillAndFillKeepAConstant) {
  AnalysisFixture f("mov %r1, 7\nstxdw [%r10-8], %r1\nmov %r1, 0\nldxdw %r0, [%r10-8]\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(0), 7));
}

TEST(Memory, SpillAndFillKeepAPointer) {
  AnalysisFixture f("stxdw [%r10-16], %r1\nldxdw %r0, [%r10-16]\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_EQ(f.reg(0).kind, RegKind::ctx);
}

TEST(Memory, ZeroStoresReadBackAsZero) {
  AnalysisFixture f("stdw [%r10-8], 0\nldxw %r0, [%r10-4]\nldxb %r2, [%r10-8]\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(0), 0));
  EXPECT_TRUE(holds_constant(f.reg(2), 0));
}

TEST(Memory, ReadOfUnwrittenStackIsRejected) {
  AnalysisFixture f("ldxdw %r0, [%r10-8]\nexit\n");
  ASSERT_EQ(f.error, "");
  EXPECT_FALSE(f.run());
  EXPECT_EQ(f.reason(), Reason::uninit_stack);
  VerifyOptions options;
  options.allow_uninit_stack_reads = true;
  AnalysisFixture g("ldxdw %r0, [%r10-8]\nexit\n", options);
  ASSERT_TRUE(g.run());
  EXPECT_EQ(g.reg(0).kind, RegKind::scalar);
}

TEST(Memory, StackAccessOutsideTheFrameIsRejected) {
  for (const char* text : {"stdw [%r10+0], 1\nexit\n", "stdw [%r10-520], 1\nexit\n", "stb [%r10-513], 1\nexit\n"}) {
    SCOPED_TRACE(text);
    AnalysisFixture f(text);
    ASSERT_EQ(f.error, "");
    EXPECT_FALSE(f.run());
    EXPECT_EQ(f.reason(), Reason::stack_out_of_bounds);
  }
}

TEST(Memory, ContextLoadsStayInsideTheContext) {
  AnalysisFixture f("ldxdw %r0, [%r1+56]\nexit\n", VerifyOptions{}, 64);
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_EQ(f.reg(0).kind, RegKind::scalar);
  AnalysisFixture g("ldxdw %r0, [%r1+60]\nexit\n", VerifyOptions{}, 64);
  ASSERT_EQ(g.error, "");
  EXPECT_FALSE(g.run());
}

TEST(Memory, SignExtendingLoadsGiveSignedRanges) {
  // RFC 9669 §5.2: ldxsb sign-extends the byte; ldxb zero-extends it.
  AnalysisFixture f("ldxsb %r0, [%r1+0]\nldxb %r2, [%r1+0]\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_EQ(f.reg(0).value.smin, -128);
  EXPECT_EQ(f.reg(0).value.smax, 127);
  EXPECT_EQ(f.reg(2).value.umin, 0u);
  EXPECT_EQ(f.reg(2).value.umax, 255u);
}

TEST(Memory, LoadThroughAScalarIsRejected) {
  AnalysisFixture f("ldxdw %r2, [%r1+0]\nldxdw %r0, [%r2+0]\nexit\n");
  ASSERT_EQ(f.error, "");
  EXPECT_FALSE(f.run());
  EXPECT_EQ(f.reason(), Reason::scalar_dereference);
}

// RFC 9669 §5.3: what an atomic gives back, and where (isa/ops.h
// written_regs says the same for the loop and partition analyses).
TEST(Memory, PlainAtomicWritesNoRegister) {
  AnalysisFixture f("mov %r0, 3\nmov %r1, 1\nstxdw [%r10-8], %r1\nlock add [%r10-8], %r1\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(0), 3));
  EXPECT_TRUE(holds_constant(f.reg(1), 1));
  const Insn& insn = f.program.insns[3];
  EXPECT_EQ(written_regs(insn), 0u);
}

TEST(Memory, FetchAtomicWritesTheOldValueToSrcOnly) {
  AnalysisFixture f("mov %r0, 3\nmov %r1, 5\nstxdw [%r10-8], %r1\nmov %r2, 1\nlock fetch add [%r10-8], %r2\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(2), 5));  // the slot's old value
  EXPECT_TRUE(holds_constant(f.reg(0), 3));  // r0 untouched
  EXPECT_EQ(written_regs(f.program.insns[4]), reg_bit(2));
}

TEST(Memory, XchgWritesTheOldValueToSrc) {
  AnalysisFixture f("mov %r0, 3\nmov %r1, 5\nstxdw [%r10-8], %r1\nmov %r2, 1\nlock xchg [%r10-8], %r2\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(2), 5));
  EXPECT_TRUE(holds_constant(f.reg(0), 3));
  EXPECT_EQ(written_regs(f.program.insns[4]), reg_bit(2));
}

TEST(Memory, CmpxchgWritesTheOldValueToR0Only) {
  AnalysisFixture f("mov %r0, 5\nmov %r1, 5\nstxdw [%r10-8], %r1\nmov %r2, 9\nlock cmpxchg [%r10-8], %r2\nexit\n");
  ASSERT_EQ(f.error, "");
  ASSERT_TRUE(f.run());
  EXPECT_TRUE(holds_constant(f.reg(0), 5));  // the old value (equal to r0 here)
  EXPECT_TRUE(holds_constant(f.reg(2), 9));  // src untouched
  EXPECT_EQ(written_regs(f.program.insns[4]), reg_bit(0));
}

TEST(Memory, AtomicOnTheContextIsRejected) {
  // Only plain-memory contexts (this fixture's) take atomics; a scalar never.
  AnalysisFixture f("ldxdw %r2, [%r1+0]\nmov %r3, 1\nlock add [%r2+0], %r3\nexit\n");
  ASSERT_EQ(f.error, "");
  EXPECT_FALSE(f.run());
  EXPECT_EQ(f.reason(), Reason::scalar_dereference);
}

}  // namespace
}  // namespace keel
