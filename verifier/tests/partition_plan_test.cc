// The path partitions' pre-pass (analysis/partition_plan.cc): its one pass
// over loop-free code against the definition, kPartitionDistance + 1
// passes (plan_partitions_by_passes), on chosen and random programs; and
// the distance bound itself.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/partitions.h"
#include "analysis_fixture.h"

namespace keel {
namespace {

using test_support::AnalysisFixture;

struct Plans {
  std::vector<uint64_t> flags, slots;  // per block (slots: two per block)
  bool computed = false;               // false: no plan (no join)
};

Plans copy_plan(StatePool& pool, PartitionPlan& plan, uint32_t blocks) {
  Plans out;
  if (plan.flags != nullptr) {
    out.computed = true;
    out.flags.assign(plan.flags, plan.flags + blocks);
    if (plan.slots != nullptr) out.slots.assign(plan.slots, plan.slots + 2 * size_t{blocks});
  }
  release_plan(pool, plan);
  return out;
}

// Both plans of `text`; fails the test when it does not build or the
// pool runs out.
bool plans_of(const std::string& text, Plans& one_pass, Plans& passes, uint32_t* loops = nullptr) {
  AnalysisFixture f(text);
  EXPECT_EQ(f.error, "") << text;
  if (!f.error.empty()) return false;
  if (loops != nullptr) *loops = f.cfg.loop_count;
  PartitionPlan a, b;
  EXPECT_TRUE(plan_partitions(*f.engine, a));
  one_pass = copy_plan(*f.pool, a, f.cfg.block_count);
  EXPECT_TRUE(plan_partitions_by_passes(*f.engine, b));
  passes = copy_plan(*f.pool, b, f.cfg.block_count);
  return true;
}

void expect_same_plan(const std::string& text) {
  Plans one_pass, passes;
  if (!plans_of(text, one_pass, passes)) return;
  EXPECT_EQ(one_pass.computed, passes.computed) << text;
  EXPECT_EQ(one_pass.flags, passes.flags) << text;
  EXPECT_EQ(one_pass.slots, passes.slots) << text;
}

// Appends the pieces to `text` (appending, not operator+: g++ 12 -O3 warns
// falsely on `"literal" + std::string`).
template <class... Pieces>
void add(std::string& text, const Pieces&... pieces) {
  (text.append(pieces), ...);
}

// `if r6 != 0` tested `gap` diamonds after r6 is set on two paths: the
// flag is in the plan of the join where the paths meet only when the test
// is at most kPartitionDistance blocks ahead of it.
std::string flag_tested_after(uint32_t gap) {
  std::string text = "ldxw %r7, [%r1+0]\nmov %r6, 0\njeq %r7, 0, set\nmov %r6, 1\nset:\n";  // the join: block 2
  for (uint32_t i = 0; i < gap; ++i) {
    const std::string n = std::to_string(i);
    add(text, "jgt %r7, ", n, ", d", n, "\nmov %r0, 1\nd", n, ":\n");
  }
  add(text, "jne %r6, 0, out\nmov %r0, 2\nout:\nmov %r0, 0\nexit\n");
  return text;
}

TEST(PartitionPlan, FlagIsPlannedUpToTheDistance) {
  constexpr uint64_t kR6 = uint64_t{1} << 6;
  for (uint32_t gap = 0; gap <= kPartitionDistance + 2; ++gap) {
    Plans one_pass, passes;
    ASSERT_TRUE(plans_of(flag_tested_after(gap), one_pass, passes));
    ASSERT_TRUE(one_pass.computed);
    // Blocks: 0 the load and jump, 1 `r6 = 1`, 2 the join (the first test
    // after it, or the flag's own test when gap is 0).
    const bool planned = (one_pass.flags[2] & kR6) != 0;
    EXPECT_EQ(planned, gap < kPartitionDistance + 1) << "gap " << gap;
    EXPECT_EQ(one_pass.flags, passes.flags) << "gap " << gap;
  }
}

// Flags shifted and copied, pointers of two kinds, spills and fills (as
// verify_precision_test's partitions), helper calls and NULL tests.
TEST(PartitionPlan, OnePassIsThePassesOnChosenPrograms) {
  expect_same_plan(
      "ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nmov %r4, %r2\nadd %r4, 4\n"
      "jgt %r4, %r3, fail\nmov %r5, 0\nja next\nfail:\nmov %r5, -22\nnext:\n"
      "lsh %r5, 32\nmov %r6, %r5\nrsh %r6, 32\n"
      "mov %r8, 1\njeq %r7, 0, join\nmov %r8, 2\njoin:\n"
      "jne %r6, 0, out\nldxw %r0, [%r2+0]\nout:\nmov %r0, 0\nexit\n");
  expect_same_plan(
      "mov %r6, %r10\nadd %r6, -16\nldxw %r7, [%r1+0]\njeq %r7, 0, keep\n"
      "mov %r2, %r10\nadd %r2, -8\nstdw [%r10-8], 0\nlddw %r1, map_fd 0\ncall 1\n"
      "jeq %r0, 0, keep\nmov %r6, %r0\nkeep:\nstxdw [%r10-24], %r6\n"
      "jgt %r7, 3, a\nmov %r0, 1\na:\njgt %r7, 4, b\nmov %r0, 2\nb:\n"
      "ldxdw %r3, [%r10-24]\nldxdw %r0, [%r3+0]\nmov %r0, 0\nexit\n");
  expect_same_plan(flag_tested_after(3));
}

// Random loop-free programs: ALU on r0-r9 (copies, shifts, arithmetic),
// loads and stores through registers and r10, spills and fills of 8-byte
// slots, helper calls, and forward conditional jumps (NULL tests among
// them), each to a label further on.
std::string random_program(std::mt19937& rng, uint32_t length) {
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  auto number = [&](uint32_t n) { return std::to_string(pick(n)); };
  auto reg = [&] {
    std::string r = "%r";
    add(r, number(10));
    return r;
  };
  auto slot = [&] {
    std::string s = "[%r10-";
    add(s, std::to_string(8 * (1 + pick(6))), "]");
    return s;
  };
  std::string text = "ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nmov %r4, %r10\n";
  for (uint32_t i = 0; i < length; ++i) {
    add(text, "l", std::to_string(i), ":\n");
    std::string target = "l";
    add(target, std::to_string(i + 1 + pick(length - i)), "\n");
    switch (pick(16)) {
      case 0: add(text, "mov ", reg(), ", ", number(3), "\n"); break;
      case 1: case 2: add(text, "mov ", reg(), ", ", reg(), "\n"); break;
      case 3: add(text, "add ", reg(), ", ", reg(), "\n"); break;
      case 4: add(text, pick(2) == 0 ? "lsh " : "rsh ", reg(), ", 32\n"); break;
      case 5: add(text, "ldxdw ", reg(), ", ", slot(), "\n"); break;
      case 6: add(text, "stxdw ", slot(), ", ", reg(), "\n"); break;
      case 7: add(text, "stdw ", slot(), ", 0\n"); break;
      case 8: add(text, "ldxw ", reg(), ", [", reg(), "+", std::to_string(4 * pick(3)), "]\n"); break;
      case 9: add(text, "stxw [", reg(), "+0], ", reg(), "\n"); break;
      case 10: add(text, "call ", std::to_string(1 + pick(3)), "\n"); break;
      case 11: add(text, "jeq ", reg(), ", 0, ", target); break;
      case 12: add(text, "jne ", reg(), ", 0, ", target); break;
      case 13: add(text, "jgt ", reg(), ", ", reg(), ", ", target); break;
      case 14: add(text, "jset ", reg(), ", 1, ", target); break;
      default: add(text, "add ", reg(), ", ", std::to_string(1 + pick(7)), "\n"); break;
    }
  }
  add(text, "l", std::to_string(length), ":\nmov %r0, 0\nexit\n");
  return text;
}

TEST(PartitionPlan, OnePassIsThePassesOnRandomPrograms) {
  std::mt19937 rng(20261202);
  uint32_t planned = 0, with_slots = 0, far_tests = 0;
  for (uint32_t i = 0; i < 400; ++i) {
    const std::string text = random_program(rng, 8 + i % 60);
    Plans one_pass, passes;
    uint32_t loops = 0;
    if (!plans_of(text, one_pass, passes, &loops)) continue;
    ASSERT_EQ(loops, 0u);
    ASSERT_EQ(one_pass.computed, passes.computed) << text;
    ASSERT_EQ(one_pass.flags, passes.flags) << text;
    ASSERT_EQ(one_pass.slots, passes.slots) << text;
    planned += one_pass.computed ? 1 : 0;
    for (uint64_t s : one_pass.slots) with_slots += s != 0 ? 1 : 0;
    for (uint64_t f : one_pass.flags) far_tests += (f & kFlagMask) != 0 ? 1 : 0;
  }
  // The comparison covers what it is about: plans with tested registers
  // and stack slots in them.
  EXPECT_GT(planned, 300u);
  EXPECT_GT(with_slots, 100u);
  EXPECT_GT(far_tests, 1000u);
}

// With a loop both are the passes.
TEST(PartitionPlan, LoopsKeepThePasses) {
  Plans one_pass, passes;
  uint32_t loops = 0;
  ASSERT_TRUE(plans_of("ldxw %r2, [%r1+0]\nmov %r3, 0\njeq %r2, 0, loop\nmov %r3, 1\nloop:\nadd %r2, 1\n"
                       "jlt %r2, 10, loop\njne %r3, 0, out\nmov %r0, 1\nout:\nmov %r0, 0\nexit\n",
                       one_pass, passes, &loops));
  EXPECT_EQ(loops, 1u);
  EXPECT_EQ(one_pass.flags, passes.flags);
}

}  // namespace
}  // namespace keel
