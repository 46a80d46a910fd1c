// VerifyOptions::step_log: the trace of an analysis (`keel verify --log`)
// calls the caller's sink with the state entering each instruction it
// steps through, and never changes the verdict.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <utility>
#include <vector>

#include "verify_checker.h"

namespace keel {
namespace {

using testing::Checker;

struct Recorded {
  std::vector<std::pair<uint32_t, std::string>> steps;
  static void step(void* context, uint32_t pc, const char* state) {
    static_cast<Recorded*>(context)->steps.emplace_back(pc, state);
  }
};

// Runs `source` with and without a sink; both verdicts must agree.
Recorded traced(const std::string& source, Reason expected, size_t buffer_size = 4096) {
  Checker plain;
  const Verdict without = plain.run(source);
  EXPECT_EQ(without.reason, expected) << plain.text;
  Recorded recorded;
  std::vector<char> buffer(buffer_size);
  StepLog log;
  log.step = &Recorded::step;
  log.context = &recorded;
  log.buffer = buffer.data();
  log.size = buffer.size();
  Checker with_log;
  with_log.options.step_log = &log;
  const Verdict with = with_log.run(source);
  EXPECT_EQ(with.reason, without.reason) << with_log.text;
  EXPECT_EQ(with.pc, without.pc);
  EXPECT_EQ(with.max_insns_executed, without.max_insns_executed);
  return recorded;
}

TEST(StepLog, EveryInstructionOfAStraightLineInOrder) {
  // Constant runs are folded without a sink; with one, each is stepped.
  const Recorded r = traced("mov %r0, 1\nadd %r0, 2\nlsh %r0, 3\nexit\n", Reason::ok);
  ASSERT_EQ(r.steps.size(), 4u);
  for (uint32_t pc = 0; pc < 4; ++pc) EXPECT_EQ(r.steps[pc].first, pc);
  EXPECT_EQ(r.steps[0].second, "frame 0: r1=ctx+0 r10=stack(fp0)+0");
  EXPECT_EQ(r.steps[1].second, "frame 0: r0=scalar(1) r1=ctx+0 r10=stack(fp0)+0");
  EXPECT_EQ(r.steps[3].second, "frame 0: r0=scalar(24) r1=ctx+0 r10=stack(fp0)+0");
}

TEST(StepLog, EndsAtTheRejectedInstruction) {
  const Recorded r = traced("mov %r0, 0\nldxw %r0, [%r0]\nexit\n", Reason::scalar_dereference);
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps.back().first, 1u);
  EXPECT_EQ(r.steps.back().second, "frame 0: r0=scalar(0) r1=ctx+0 r10=stack(fp0)+0");
}

TEST(StepLog, BothBranchesAndTheJoin) {
  const char* source =
      "ldxw %r2, [%r1]\n"
      "mov %r0, 0\n"
      "jgt %r2, 10, +1\n"
      "mov %r0, 1\n"
      "exit\n";
  const Recorded r = traced(source, Reason::ok);
  std::vector<uint32_t> pcs;
  for (const auto& step : r.steps) pcs.push_back(step.first);
  // 0..2, then the branch's two successors in some order, exit reached from both.
  ASSERT_GE(pcs.size(), 5u);
  EXPECT_EQ(std::vector<uint32_t>(pcs.begin(), pcs.begin() + 3), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_NE(std::find(pcs.begin(), pcs.end(), 3u), pcs.end());
  EXPECT_EQ(pcs.back(), 4u);
}

TEST(StepLog, ALongStateIsCutToTheBuffer) {
  const Recorded r = traced("mov %r0, 1\nexit\n", Reason::ok, 8);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].second, "frame 0");  // 7 characters and the NUL
}

TEST(StepLog, LoopsGiveTheSameBoundWithATrace) {
  const char* source =
      "mov %r0, 0\n"
      "mov %r1, 0\n"
      "loop: add %r0, %r1\n"
      "add %r1, 1\n"
      "jlt %r1, 10, loop\n"
      "exit\n";
  const Recorded r = traced(source, Reason::ok);
  EXPECT_GT(r.steps.size(), 6u);  // the body more than once
}

}  // namespace
}  // namespace keel
