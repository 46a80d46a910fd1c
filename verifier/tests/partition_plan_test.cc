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
  std::vector<bool> read;              // per block: whether the fixpoint may read its plan
};

// The blocks that can be entered by two states in one analysis, so that
// partition_of reads their plan: a join, and any block a join reaches
// (a split partition goes on to the successors). Found forward from the
// joins here, independently of partition_plan.cc's own test (RPO
// positions from the first join on), which holds more blocks.
std::vector<bool> blocks_read(const Cfg& cfg) {
  std::vector<bool> read(cfg.block_count, false);
  std::vector<uint32_t> work;
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    if (cfg.pred_offsets[b + 1] - cfg.pred_offsets[b] >= 2) {
      read[b] = true;
      work.push_back(b);
    }
  }
  while (!work.empty()) {
    const uint32_t b = work.back();
    work.pop_back();
    for (const Cfg::Edge& edge : cfg.successors(b)) {
      if (!read[edge.to]) {
        read[edge.to] = true;
        work.push_back(edge.to);
      }
    }
  }
  return read;
}

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
  one_pass.read = passes.read = blocks_read(f.cfg);
  return true;
}

// The one pass's plan as the fixpoint uses it: the passes' (the
// definition) on every block it may read, and on the others the passes'
// or empty (it leaves out the blocks before the first join). Counts the
// blocks left out that the passes plan something for in `skipped`.
::testing::AssertionResult same_where_read(const Plans& one_pass, const Plans& passes, uint32_t* skipped = nullptr) {
  if (one_pass.computed != passes.computed) return ::testing::AssertionFailure() << "one plan is missing";
  if (!one_pass.computed) return ::testing::AssertionSuccess();
  const bool slots = !one_pass.slots.empty();
  if (slots != !passes.slots.empty()) return ::testing::AssertionFailure() << "one plan has no slot sets";
  for (size_t b = 0; b < one_pass.flags.size(); ++b) {
    const bool same = one_pass.flags[b] == passes.flags[b] &&
                      (!slots || (one_pass.slots[2 * b] == passes.slots[2 * b] &&
                                  one_pass.slots[2 * b + 1] == passes.slots[2 * b + 1]));
    const bool empty = one_pass.flags[b] == 0 && (!slots || (one_pass.slots[2 * b] | one_pass.slots[2 * b + 1]) == 0);
    if (same) continue;
    if (one_pass.read[b] || !empty) {
      return ::testing::AssertionFailure() << "block " << b << (one_pass.read[b] ? " (read)" : " (not read)")
                                           << ": flags " << one_pass.flags[b] << " against " << passes.flags[b];
    }
    if (skipped != nullptr) ++*skipped;
  }
  return ::testing::AssertionSuccess();
}

void expect_same_plan(const std::string& text) {
  Plans one_pass, passes;
  if (!plans_of(text, one_pass, passes)) return;
  EXPECT_TRUE(same_where_read(one_pass, passes)) << text;
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
    EXPECT_TRUE(same_where_read(one_pass, passes)) << "gap " << gap;
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
  uint32_t planned = 0, with_slots = 0, far_tests = 0, skipped = 0;
  for (uint32_t i = 0; i < 400; ++i) {
    const std::string text = random_program(rng, 8 + i % 60);
    Plans one_pass, passes;
    uint32_t loops = 0;
    if (!plans_of(text, one_pass, passes, &loops)) continue;
    ASSERT_EQ(loops, 0u);
    ASSERT_TRUE(same_where_read(one_pass, passes, &skipped)) << text;
    planned += one_pass.computed ? 1 : 0;
    for (uint64_t s : one_pass.slots) with_slots += s != 0 ? 1 : 0;
    for (uint64_t f : one_pass.flags) far_tests += (f & kFlagMask) != 0 ? 1 : 0;
  }
  // The comparison covers what it is about: plans with tested registers
  // and stack slots in them.
  EXPECT_GT(planned, 300u);
  EXPECT_GT(with_slots, 100u);
  EXPECT_GT(far_tests, 1000u);
  // ... and the blocks left out before the first join.
  EXPECT_GT(skipped, 100u);
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
