// Tests for what the analysis keeps that a plain join would lose (path
// partitions, ids linked on copies and fills, scalars linked through
// constant deltas and zero-extensions, values of two maps joined as
// memory, program arrays alike, frozen read-only maps read as constants):
// for each, a program Linux 6.1 accepts that keel accepts only with it, and
// the unsafe variant it must still reject.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/state.h"
#include "keel/decode.h"
#include "verify_checker.h"
#include "keel/platform_linux.h"
#include "keel/text.h"
#include "keel/verify.h"

namespace keel {
namespace {

using testing::Checker;
using testing::map_of;

// r2 = data, r3 = data_end of an XDP context in r1.
const char* kXdp = "ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\n";

// ---- Path partitions -----------------------------------------------------------

// cilium's inlined revalidation: `ret = data + 4 > data_end ? -22 : 0`, then
// `if (ret) ...` guards the access. Joined, ret is [-22, 0] and the access
// follows both ways.
TEST(PathPartitions, FlagSetOnTwoPathsIsTestedOnEach) {
  Checker c;
  const std::string head = std::string(kXdp) +
                           "mov %r4, %r2\nadd %r4, 4\n"
                           "jgt %r4, %r3, fail\nmov %r5, 0\nja test\nfail:\nmov %r5, -22\ntest:\n";
  EXPECT_ACCEPT(c, head + "jne %r5, 0, out\nldxw %r0, [%r2+0]\nout:\nmov %r0, 0\nexit\n", "xdp");
  // The access on the path where the check failed.
  EXPECT_REJECT(c, head + "jeq %r5, 0, out\nldxw %r0, [%r2+0]\nout:\nmov %r0, 0\nexit\n",
                packet_out_of_bounds, "xdp");
}

// The flag shifted and copied before its test, with unrelated branching in
// between (cilium built with an older clang).
TEST(PathPartitions, FlagThroughShiftsAndADiamond) {
  Checker c;
  const std::string head = std::string(kXdp) +
                           "ldxw %r7, [%r1+12]\n"
                           "mov %r4, %r2\nadd %r4, 4\n"
                           "jgt %r4, %r3, fail\nmov %r5, 0\nja next\nfail:\nmov %r5, -22\nnext:\n"
                           "lsh %r5, 32\nmov %r6, %r5\nrsh %r6, 32\n"
                           "mov %r8, 1\njeq %r7, 0, join\nmov %r8, 2\njoin:\n";
  EXPECT_ACCEPT(c, head + "jne %r6, 0, out\nldxw %r0, [%r2+0]\nout:\nmov %r0, 0\nexit\n", "xdp");
  EXPECT_REJECT(c, head + "jeq %r6, 0, out\nldxw %r0, [%r2+0]\nout:\nmov %r0, 0\nexit\n",
                packet_out_of_bounds, "xdp");
}

// The Linux samples' xdp1: a header length of 14 or 18 (VLAN), checked as
// `data + len + 4 > data_end` and then read at `data + len + 2`. Joined, the
// length is [14, 18] and the two pointers share nothing.
TEST(PathPartitions, ConstantOffsetsOfTwoPathsStayExact) {
  Checker c;
  const std::string head = std::string(kXdp) +
                           "ldxw %r6, [%r1+12]\n"
                           "mov %r5, 14\njeq %r6, 0, len\nmov %r5, 18\nlen:\n"
                           "mov %r7, %r5\nadd %r7, 4\nmov %r4, %r2\nadd %r4, %r7\n"
                           "jgt %r4, %r3, out\nmov %r4, %r2\nadd %r4, %r5\n";
  EXPECT_ACCEPT(c, head + "ldxh %r0, [%r4+2]\nout:\nmov %r0, 0\nexit\n", "xdp");
  // One byte past what the check proved.
  EXPECT_REJECT(c, head + "ldxh %r0, [%r4+3]\nout:\nmov %r0, 0\nexit\n", packet_out_of_bounds, "xdp");
}

// A pointer to a map value on one path and to a stack buffer on the other
// (cilium's `state = lookup() ?: &tmp`): joined it is unusable.
TEST(PathPartitions, PointersOfTwoKindsAreUsedApart) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  const std::string head =
      "stdw [%r10-8], 0\nstdw [%r10-16], 0\n"
      "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\n"
      "mov %r6, %r10\nadd %r6, -16\njeq %r0, 0, use\nmov %r6, %r0\nuse:\n";
  EXPECT_ACCEPT(c, head + "ldxdw %r0, [%r6+0]\nmov %r0, 0\nexit\n");
  // Past the 8-byte value (and the 16 bytes left of the stack buffer's frame).
  EXPECT_REJECT(c, head + "ldxdw %r0, [%r6+8]\nmov %r0, 0\nexit\n", map_value_out_of_bounds);
}

// Linux rewrites each context access (convert_ctx_accesses), so one load may
// not read the context on one path and other memory on another, however
// safe each path is ("same insn cannot be used with different pointers").
TEST(PathPartitions, ContextAndOtherMemoryInOneLoad) {
  Checker c;
  const std::string head = "stdw [%r10-8], 0\nldxw %r2, [%r1+0]\nmov %r6, %r1\n";
  EXPECT_REJECT(c, head + "jeq %r2, 0, use\nmov %r6, %r10\nadd %r6, -8\nuse:\nldxw %r0, [%r6+0]\nexit\n",
                ctx_mixed_access);
  EXPECT_ACCEPT(c, head + "jeq %r2, 0, use\nmov %r6, %r1\nuse:\nldxw %r0, [%r6+0]\nexit\n");
}

// Linux rejects one pointer arithmetic instruction fed by different maps on
// different paths when unprivileged (update_alu_sanitation_state), and masks
// an unprivileged tail call's index with the one map's size: there a join
// stays, and so does the rejection.
TEST(PathPartitions, UnprivilegedProgramsAreJoined) {
  Checker c;
  MapDescriptor small = map_of(MapType::hash, 8, 16);
  MapDescriptor large = map_of(MapType::array, 4, 48);
  large.key_size = 8;
  c.maps = {small, large};
  const std::string src =
      "ldxw %r6, [%r1+0]\nstdw [%r10-8], 0\nmov %r2, %r10\nadd %r2, -8\n"
      "lddw %r1, map_fd 0\njeq %r6, 0, look\nlddw %r1, map_fd 1\nlook:\ncall 1\n"
      "jeq %r0, 0, out\nmov %r1, 3\nadd %r1, %r0\nldxb %r0, [%r1+0]\nout:\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, src);
  c.options.privileged = false;
  EXPECT_FALSE(c.run(src).ok()) << c.text;

  Checker t;
  t.maps = {map_of(MapType::prog_array, 4, 4, 8), map_of(MapType::prog_array, 4, 4, 2)};
  const std::string tail =
      "ldxw %r6, [%r1+0]\nlddw %r2, map_fd 0\njeq %r6, 0, call\nlddw %r2, map_fd 1\n"
      "call:\nmov %r3, 0\ncall 12\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(t, tail);
  t.options.privileged = false;
  EXPECT_REJECT(t, tail, helper_argument);
}

// More flag values than partitions: the extra ones are joined, and the one
// value that leads to an unsafe access is still found.
TEST(PathPartitions, OverflowingPartitionsStaySound) {
  Checker c;
  std::string src = "ldxw %r6, [%r1+0]\nmov %r5, 0\n";
  for (int v = 1; v <= 12; ++v) {
    src += "jne %r6, " + std::to_string(v) + ", n" + std::to_string(v) + "\nmov %r5, " + std::to_string(v) +
           "\nja test\nn" + std::to_string(v) + ":\n";
  }
  src += "test:\njne %r5, 7, out\nstdw [%r10-520], 0\nout:\nmov %r0, 0\nexit\n";
  EXPECT_REJECT(c, src, stack_out_of_bounds);
}

// Unrelated branching that puts a use more than kPartitionDistance (4)
// blocks away from the join before it: six triangles on r9.
std::string far_ahead() {
  std::string s = "mov %r8, 0\n";
  for (const char* i : {"1", "2", "3", "4", "5", "6"}) {
    s = s + "jeq %r9, " + i + ", far" + i + "\nadd %r8, 1\nfar" + i + ":\n";
  }
  return s;
}

// cilium's `state = lookup() ?: &tmp` used a hundred blocks later: pointer
// kinds are compared however far ahead the pointer is used.
TEST(PathPartitions, PointersOfTwoKindsUsedFarAhead) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  const std::string head =
      "ldxw %r9, [%r1+0]\nstdw [%r10-8], 0\nstdw [%r10-16], 0\n"
      "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\n"
      "mov %r6, %r10\nadd %r6, -16\njeq %r0, 0, use\nmov %r6, %r0\nuse:\n" + far_ahead();
  EXPECT_ACCEPT(c, head + "ldxdw %r0, [%r6+0]\nmov %r0, 0\nexit\n");
  // Past the 8-byte value (the stack buffer has room).
  EXPECT_REJECT(c, head + "ldxdw %r0, [%r6+8]\nmov %r0, 0\nexit\n", map_value_out_of_bounds);
}

// The same pointer spilled at the join and filled far ahead (cilium spills
// it before its copy loop): the slot is compared like a register.
TEST(PathPartitions, PointersOfTwoKindsInAStackSlot) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  const std::string head =
      "ldxw %r9, [%r1+0]\nstdw [%r10-8], 0\nstdw [%r10-16], 0\n"
      "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\n"
      "mov %r6, %r10\nadd %r6, -16\njeq %r0, 0, use\nmov %r6, %r0\nuse:\n"
      "stxdw [%r10-24], %r6\nmov %r6, 0\n" + far_ahead() + "ldxdw %r1, [%r10-24]\n";
  EXPECT_ACCEPT(c, head + "ldxdw %r0, [%r1+0]\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, head + "ldxdw %r0, [%r1+8]\nmov %r0, 0\nexit\n", map_value_out_of_bounds);
  // A store into the slot before the fill: the fill is a scalar on both paths.
  EXPECT_REJECT(c, head + "stdw [%r10-24], 0\nldxdw %r1, [%r10-24]\nldxdw %r0, [%r1+0]\nmov %r0, 0\nexit\n",
                scalar_dereference);
}

// Two maps that do not join (values of 16 and 40 bytes), one chosen by a
// flag, spilled and filled far ahead as a lookup's map argument: each
// lookup is checked with its own map, as Linux checks each path; joined,
// the argument would be no map at all. Unprivileged programs keep the join.
TEST(PathPartitions, MapReferencesOfTwoMapsInAStackSlot) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 16), map_of(MapType::hash, 8, 40)};
  const std::string head =
      "ldxw %r9, [%r1+0]\nstdw [%r10-8], 0\n"
      "lddw %r1, map_fd 0\njeq %r9, 0, keep\nlddw %r1, map_fd 1\nkeep:\nstxdw [%r10-16], %r1\n" + far_ahead() +
      "ldxdw %r1, [%r10-16]\nmov %r2, %r10\nadd %r2, -8\ncall 1\njeq %r0, 0, out\n";
  EXPECT_ACCEPT(c, head + "ldxdw %r0, [%r0+8]\nout:\nmov %r0, 0\nexit\n");
  // Past the first map's 16-byte value (the two values join as 16 bytes of memory).
  EXPECT_REJECT(c, head + "ldxdw %r0, [%r0+16]\nout:\nmov %r0, 0\nexit\n", memory_out_of_bounds);
  c.options.privileged = false;
  EXPECT_FALSE(c.run(head + "ldxdw %r0, [%r0+8]\nout:\nmov %r0, 0\nexit\n").ok()) << c.text;
}

// cilium's nodeport NAT (lib/nodeport.h): `info = lookup(); found = info &&
// (info->flags & 3) == 2;` with `found` kept in a 4-byte stack word and
// `info` spilled, then `if (found) info->...` far ahead. The pointer is
// NULL on one path and not on the others, so the partitions keep them
// apart, and the NULL one carries found == 0 to the test.
TEST(PathPartitions, NullOrPointerBesideAFlagUsedFarAhead) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  const auto program = [](const char* before_check, const char* test, const char* use) {
    return std::string("ldxw %r9, [%r1+0]\nstdw [%r10-8], 0\n"
                       "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\n") +
           before_check +
           "jeq %r0, 0, spill\nldxb %r1, [%r0+0]\nand %r1, 3\njne %r1, 2, spill\nmov32 %r2, 1\nspill:\n"
           "stxw [%r10-16], %r2\nstxdw [%r10-24], %r0\nmov %r0, 0\n" +
           far_ahead() + "ldxw %r1, [%r10-16]\nand32 %r1, 1\n" + test + "\nldxdw %r2, [%r10-24]\n" + use +
           "out:\nmov %r0, 0\nexit\n";
  };
  EXPECT_ACCEPT(c, program("mov32 %r2, 0\n", "jeq32 %r1, 0, out", "ldxb %r0, [%r2+1]\n"));
  // The flag set before the NULL check: found on the NULL path too (its
  // partition fills the NULL, a scalar, as Linux sees it on that path).
  EXPECT_REJECT(c, program("mov32 %r2, 1\n", "jeq32 %r1, 0, out", "ldxb %r0, [%r2+1]\n"), scalar_dereference);
  // The test the wrong way round: the use is on the paths that did not find it.
  EXPECT_REJECT(c, program("mov32 %r2, 0\n", "jne32 %r1, 0, out", "ldxb %r0, [%r2+1]\n"), scalar_dereference);
  // No test at all.
  EXPECT_REJECT(c, program("mov32 %r2, 0\n", "", "ldxb %r0, [%r2+1]\n"), scalar_dereference);
  // The same kept in registers: r6 the pointer, r7 the flag.
  const std::string in_registers =
      "ldxw %r9, [%r1+0]\nstdw [%r10-8], 0\n"
      "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\nmov %r6, %r0\nmov %r7, 0\n"
      "jeq %r6, 0, join\nldxb %r1, [%r6+0]\njne %r1, 2, join\nmov %r7, 1\njoin:\n" + far_ahead();
  EXPECT_ACCEPT(c, in_registers + "jeq %r7, 0, out\nldxb %r0, [%r6+1]\nout:\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, in_registers + "jne %r7, 0, out\nldxb %r0, [%r6+1]\nout:\nmov %r0, 0\nexit\n",
                scalar_dereference);
}

// A pointer NULL on one path and not on the other that the program tests
// itself before each use (cilium's `if (info) ...` again and again) joins:
// the test tells the paths apart, partitions would only double the visits
// of every block ahead. The work is checked, not the time: joined, the
// program takes 37 block visits; two partitions take 70.
TEST(PathPartitions, PointerTestedBeforeItsUseIsJoined) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  c.options.max_iterations = 40;
  std::string program =
      "ldxw %r9, [%r1+0]\nstdw [%r10-8], 0\n"
      "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\n"
      "jeq %r0, 0, join\nldxb %r1, [%r0+0]\njoin:\nmov %r8, 0\n";
  for (int i = 1; i <= 16; ++i) {
    const std::string n = std::to_string(i);
    program += "jgt %r9, " + n + ", far" + n + "\nadd %r8, 1\nfar" + n + ":\n";
  }
  EXPECT_ACCEPT(c, program + "jeq %r0, 0, out\nldxb %r0, [%r0+1]\nout:\nmov %r0, 0\nexit\n");
}

// Eight values of r7 tested a little later, then a packet check whose flag
// r5 the block's own jump tests: sixteen states for eight partitions. The
// two that join should be two values of r7, not r5's 0 and -22 (whose join
// loses the checked range).
TEST(PathPartitions, OverflowJoinsWhatMattersLeast) {
  Checker c;
  std::string head = std::string(kXdp) + "ldxw %r9, [%r1+12]\nmov %r7, 0\n";
  for (const char* v : {"1", "2", "3", "4", "5", "6", "7"}) head = head + "jeq %r9, " + v + ", case" + v + "\n";
  head += "ja check\n";
  for (const char* v : {"1", "2", "3", "4", "5", "6", "7"}) {
    head = head + "case" + v + ":\nmov %r7, " + v + "\nja check\n";
  }
  head += "check:\nmov %r4, %r2\nadd %r4, 4\njgt %r4, %r3, fail\nmov %r5, 0\nja test\nfail:\nmov %r5, -22\ntest:\n";
  const std::string tail = "ldxw %r0, [%r2+0]\njgt %r7, 100, out\nout:\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, head + "jne %r5, 0, out\n" + tail, "xdp");
  // The access on the path where the check failed.
  EXPECT_REJECT(c, head + "jeq %r5, 0, out\n" + tail, packet_out_of_bounds, "xdp");
}

// The Linux samples' lathist (log2l, inlined): each step sets a shift of 0
// or 2^k, shifts the value by it and ors it into the result, and the next
// step's test reads the shifted value. Every shift is a constant tested
// ahead, so partitions would keep each combination apart: 2, 4, 8 states
// per block. But the paths differ only in scalars that no load or store
// ahead uses as its base, so they join (partitions.cc,
// apart_in_scalars_only). The work is checked, not the time: joined, the
// program takes 10 block visits; kept apart, 39.
TEST(PathPartitions, FlagsBesideOnlyScalarsAreJoined) {
  Checker c;
  c.options.max_iterations = 12;
  std::string program = "ldxw %r9, [%r1+0]\nmov %r7, 0\njle %r9, 0xffff, s1\nmov %r7, 16\ns1:\nrsh %r9, %r7\n";
  const char* steps[][3] = {{"0xff", "8", "s2"}, {"0xf", "4", "s3"}, {"3", "2", "s4"}};
  for (const auto& step : steps) {
    program = program + "mov %r6, 0\njle %r9, " + step[0] + ", " + step[2] + "\nmov %r6, " + step[1] + "\n" +
              step[2] + ":\nrsh %r9, %r6\nor %r7, %r6\n";
  }
  EXPECT_ACCEPT(c, program + "jle %r7, 31, out\nmov %r7, 31\nout:\nmov %r0, %r7\nexit\n");
}

// A flag still splits when the paths may differ in what they check ahead.
// A maybe-NULL pointer that both hold alike (spilled): the paths that set
// the flag also decide, by another scalar, whether it is checked (cilium's
// NAT, lib/nat.h: `ret` 0 or -155 beside the helper's result, and the
// `state` pointer reloaded and checked on one side).
TEST(PathPartitions, FlagBesideAPointerAwaitingItsCheckSplits) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  const std::string head =
      "ldxw %r9, [%r1+0]\nstdw [%r10-8], 0\n"
      "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\nstxdw [%r10-16], %r0\n"
      "mov %r6, 0\njsgt %r9, 100, join\nmov %r6, -1\njoin:\n"
      "jsle %r9, 100, unchecked\nldxdw %r2, [%r10-16]\njeq %r2, 0, out\nunchecked:\n";
  const std::string use = "ldxdw %r2, [%r10-16]\nldxb %r0, [%r2+0]\nout:\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, head + "jne %r6, 0, out\n" + use);
  EXPECT_REJECT(c, head + "jeq %r6, 0, out\n" + use, null_dereference);
  // The same with a packet pointer and its bounds check.
  const std::string packet = std::string(kXdp) +
                             "ldxw %r9, [%r1+12]\nmov %r6, 0\njsgt %r9, 100, join\nmov %r6, -1\njoin:\n"
                             "jsle %r9, 100, unchecked\nmov %r4, %r2\nadd %r4, 4\njgt %r4, %r3, out\nunchecked:\n";
  const std::string read = "ldxw %r0, [%r2+0]\nout:\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, packet + "jne %r6, 0, out\n" + read, "xdp");
  EXPECT_REJECT(c, packet + "jeq %r6, 0, out\n" + read, packet_out_of_bounds, "xdp");
}

// The next two: r8 and r9 read from the context, then a lookup in an
// 8-byte map value (r0, not NULL), which `kByteAtR8` reads at offset r8.
const char* kLookupOfR8 =
    "ldxw %r9, [%r1+0]\nldxw %r8, [%r1+4]\nstdw [%r10-8], 0\n"
    "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\njeq %r0, 0, out\n";
const char* kByteAtR8 = "add %r0, %r8\nldxb %r0, [%r0+0]\nout:\nmov %r0, 0\nexit\n";

// And when a scalar that differs beside the flag is a base ahead: bounded
// on the path that sets the flag to 0 only.
TEST(PathPartitions, FlagBesideABaseSplits) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  const std::string head = std::string(kLookupOfR8) + "mov %r6, -1\njgt %r8, 7, join\nmov %r6, 0\njoin:\n";
  EXPECT_ACCEPT(c, head + "jne %r6, 0, out\n" + kByteAtR8);
  EXPECT_REJECT(c, head + "jeq %r6, 0, out\n" + kByteAtR8, map_value_out_of_bounds);
}

// Two flags set together split too: one decides whether a scalar is
// bounded, the other whether it is then used as an offset. Joined, the
// two flags' values would pair up as no path sets them.
TEST(PathPartitions, TwoFlagsSetTogetherSplit) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  const std::string head = std::string(kLookupOfR8) +
                           "mov %r6, 0\nmov %r7, 1\njgt %r9, 100, join\nmov %r6, -1\nmov %r7, 0\njoin:\n"
                           "jne %r6, 0, unbounded\njgt %r8, 7, out\nunbounded:\n";
  EXPECT_ACCEPT(c, head + "jne %r7, 1, out\n" + kByteAtR8);
  EXPECT_REJECT(c, head + "jne %r7, 0, out\n" + kByteAtR8, map_value_out_of_bounds);
}

// ---- Ids linked on copies and fills ------------------------------------------------

// Two lookups on two paths leave a maybe-NULL spill with no id. Filled into
// two registers, a NULL check of one must cover the other (Linux keeps the
// lookup's id along each path).
TEST(LinkedCopies, NullCheckOfAFillCoversTheSlot) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 8)};
  const std::string head =
      "stdw [%r10-8], 0\nldxw %r6, [%r1+0]\n"
      "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\n"
      "jeq %r6, 0, other\ncall 1\nja spill\nother:\ncall 1\nspill:\nstxdw [%r10-16], %r0\n";
  EXPECT_ACCEPT(c, head + "ldxdw %r2, [%r10-16]\njeq %r2, 0, out\nldxdw %r3, [%r10-16]\n"
                          "ldxdw %r0, [%r3+0]\nout:\nmov %r0, 0\nexit\n");
  // The same for a register copy of the joined r0.
  EXPECT_ACCEPT(c, head + "mov %r3, %r0\njeq %r0, 0, out\nldxdw %r0, [%r3+0]\nout:\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, head + "ldxdw %r2, [%r10-16]\njne %r2, 0, out\nldxdw %r3, [%r10-16]\n"
                          "ldxdw %r0, [%r3+0]\nout:\nmov %r0, 0\nexit\n",
                scalar_dereference);  // r3 is the NULL the check found
}

// A packet pointer with a variable offset, joined from two paths (no id),
// copied; the copy's range check covers the original.
TEST(LinkedCopies, RangeCheckOfACopyCoversTheOriginal) {
  Checker c;
  const std::string head = std::string(kXdp) +
                           "ldxw %r6, [%r1+12]\nand %r6, 15\nmov %r4, %r2\nadd %r4, %r6\n"
                           "jeq %r6, 0, join\nmov %r4, %r2\nadd %r4, %r6\njoin:\n"
                           "mov %r5, %r4\nadd %r5, 2\njgt %r5, %r3, out\n";
  EXPECT_ACCEPT(c, head + "ldxh %r0, [%r4+0]\nout:\nmov %r0, 0\nexit\n", "xdp");
  EXPECT_REJECT(c, head + "ldxh %r0, [%r4+1]\nout:\nmov %r0, 0\nexit\n", packet_out_of_bounds, "xdp");
}

// The shapes' packet_parse_vlan: data, or data + 4 past a VLAN tag, joined
// into one pointer at data + [0, 4] (no id); then `r4 = r2 + 34` checked
// against data_end. Linux (find_good_pkt_pointers) gives every pointer of
// r4's id the range 34 relative to its own variable part: bytes
// [data + var, data + var + 34) for whatever var is on a run. keel's range
// is relative to base + var too, and the copy that makes r4 links it to r2.
TEST(LinkedCopies, RangeOfAJoinedOffsetCoversItsCopies) {
  Checker c;
  const std::string head = std::string(kXdp) +
                           "mov %r4, %r2\nadd %r4, 14\njgt %r4, %r3, out\n"
                           "ldxh %r5, [%r2+12]\njne %r5, 129, plain\nadd %r2, 4\nplain:\n"
                           "mov %r7, %r2\n"  // a copy made before the check
                           "mov %r4, %r2\nadd %r4, 34\njgt %r4, %r3, out\n";
  const std::string end = "out:\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, head + "ldxb %r0, [%r2+33]\n" + end, "xdp");
  EXPECT_ACCEPT(c, head + "ldxw %r0, [%r2+30]\n" + end, "xdp");
  EXPECT_ACCEPT(c, head + "ldxw %r0, [%r7+30]\n" + end, "xdp");
  EXPECT_ACCEPT(c, head + "ldxw %r0, [%r4-4]\n" + end, "xdp");
  // At 34, or 4 bytes ending past it: beyond what the check proved.
  EXPECT_REJECT(c, head + "ldxb %r0, [%r2+34]\n" + end, packet_out_of_bounds, "xdp");
  EXPECT_REJECT(c, head + "ldxw %r0, [%r2+31]\n" + end, packet_out_of_bounds, "xdp");
  EXPECT_REJECT(c, head + "ldxw %r0, [%r7+31]\n" + end, packet_out_of_bounds, "xdp");
  // Another variable part added after the check: a new pointer with no
  // range (adjust_ptr_min_max_vals gives it a fresh id and range 0), even
  // where the sum is 0; the pointer it came from keeps its range.
  const std::string more = head + "ldxw %r6, [%r1+12]\nand %r6, 1\nmov %r8, %r2\nadd %r8, %r6\n";
  EXPECT_REJECT(c, more + "ldxb %r0, [%r8+0]\n" + end, packet_out_of_bounds, "xdp");
  EXPECT_ACCEPT(c, more + "ldxb %r0, [%r2+33]\n" + end, "xdp");
  // Checked through the new pointer, the range is its own, not r2's.
  const std::string moved = more + "mov %r4, %r8\nadd %r4, 10\njgt %r4, %r3, out\n";
  EXPECT_ACCEPT(c, moved + "ldxb %r0, [%r8+9]\n" + end, "xdp");
  EXPECT_REJECT(c, moved + "ldxb %r0, [%r8+10]\n" + end, packet_out_of_bounds, "xdp");
}

// ---- Scalar links (Link, reg_state.h) ---------------------------------------------

// r6 = skb->len (upper half zero), r0 = a 16-byte array value, r7 = its
// first 8 bytes (all 64 bits unknown). kLinkEnd ends the program.
const char* kLinkPre =
    "ldxw %r6, [%r1+0]\nstw [%r10-4], 0\nmov %r2, %r10\nadd %r2, -4\nlddw %r1, map_fd 0\ncall 1\n"
    "jeq %r0, 0, out\nldxdw %r7, [%r0+0]\n";
const char* kLinkEnd = "out:\nmov %r0, 0\nexit\n";

Checker link_checker() {
  Checker c;
  c.maps = {map_of(MapType::array, 4, 16)};
  return c;
}

std::string linked(const std::string& body) { return std::string(kLinkPre) + body + kLinkEnd; }

// `r2 = r7 + 4` (newer Linux's BPF_ADD_CONST link): a bound on either
// register bounds the other, shifted by the delta.
TEST(ScalarLinks, ConstantDeltaCarriesABound) {
  Checker c = link_checker();
  const std::string check = "mov %r2, %r7\nadd %r2, 4\njgt %r2, 12, out\n";
  EXPECT_ACCEPT(c, linked(check + "jlt %r2, 4, out\nadd %r0, %r7\nldxdw %r1, [%r0+0]\n"));  // r7 in [0, 8]
  EXPECT_REJECT(c, linked(check + "jlt %r2, 3, out\nadd %r0, %r7\nldxdw %r1, [%r0+0]\n"),  // r7 may be -1
                map_value_out_of_bounds);
  // From the original to the derived register, and `-=`.
  const std::string back = "mov %r2, %r7\nsub %r2, -4\njgt %r7, 8, out\nadd %r0, %r2\n";
  EXPECT_ACCEPT(c, linked(back + "ldxb %r1, [%r0+3]\n"));  // r2 in [4, 12]
  EXPECT_REJECT(c, linked(back + "ldxb %r1, [%r0+4]\n"), map_value_out_of_bounds);
}

// The delta is added modulo 2^64: `r7 + 4 <= 12` leaves r7 in [-4, 8], and
// `r7 - 4 <= 4` leaves it in [4, 8]. A rule that subtracted the delta from
// the bounds without wrapping would accept the first.
TEST(ScalarLinks, DeltaWrapsAround) {
  Checker c = link_checker();
  EXPECT_REJECT(c, linked("mov %r2, %r7\nadd %r2, 4\njgt %r2, 12, out\nadd %r0, %r7\nldxb %r1, [%r0+0]\n"),
                map_value_out_of_bounds);
  EXPECT_ACCEPT(c, linked("mov %r2, %r7\nadd %r2, -4\njgt %r2, 4, out\nadd %r0, %r7\nldxdw %r1, [%r0+0]\n"));
  EXPECT_REJECT(c, linked("mov %r2, %r7\nadd %r2, -4\njgt %r2, 5, out\nadd %r0, %r7\nldxdw %r1, [%r0+0]\n"),
                map_value_out_of_bounds);
}

// A write to either register between the link and the check ends it.
TEST(ScalarLinks, WriteBreaksTheLink) {
  Checker c = link_checker();
  const std::string check = "jgt %r2, 12, out\njlt %r2, 4, out\nadd %r0, %r7\nldxdw %r1, [%r0+0]\n";
  // (r7 unbounded: "arithmetic not allowed" with an unbounded offset)
  EXPECT_REJECT(c, linked("mov %r2, %r7\nadd %r2, 4\nldxdw %r7, [%r0+8]\n" + check), pointer_arithmetic);
  EXPECT_REJECT(c, linked("mov %r2, %r7\nadd %r2, 4\nldxdw %r2, [%r0+8]\n" + check), pointer_arithmetic);
  // An operation that is not `+= constant`: a variable addend of 0 or 1
  // (r7 may then be -1).
  EXPECT_REJECT(c, linked("mov %r2, %r7\nadd %r2, 4\nldxdw %r3, [%r0+8]\nand %r3, 1\nadd %r2, %r3\n" + check),
                pointer_arithmetic);
  // A constant addend of 0 keeps it.
  EXPECT_ACCEPT(c, linked("mov %r2, %r7\nadd %r2, 4\nldxdw %r3, [%r0+8]\nand %r3, 0\nadd %r2, %r3\n" + check));
}

// A join keeps a link only where both paths have it with the same delta.
TEST(ScalarLinks, JoinKeepsOnlyEqualLinks) {
  Checker c = link_checker();
  const std::string check = "join:\njgt %r2, 12, out\njlt %r2, 4, out\nadd %r0, %r7\nldxdw %r1, [%r0+0]\n";
  EXPECT_ACCEPT(c, linked("mov %r2, %r7\njeq %r6, 0, two\nadd %r2, 4\nja join\ntwo:\nadd %r2, 4\n" + check));
  // r7 = r2 - 2 on the second path: up to 10.
  EXPECT_REJECT(c, linked("mov %r2, %r7\njeq %r6, 0, two\nadd %r2, 4\nja join\ntwo:\nadd %r2, 2\n" + check),
                pointer_arithmetic);

  MapTable table{c.maps.data(), 1, true};
  RegState a = make_scalar(Scalar::unknown());
  a.id = 7;
  a.off = 4;
  RegState b = a;
  b.off = 2;
  EXPECT_EQ(join_reg(a, a, false, table).id, 7u);
  EXPECT_EQ(join_reg(a, b, false, table).id, 0u);
  b.off = 4;
  b.link = Link::zext32;
  EXPECT_EQ(join_reg(a, b, false, table).id, 0u);
  EXPECT_FALSE(reg_leq(b, a, table));
  EXPECT_TRUE(reg_leq(a, a, table));
}

// Old clang's u32 -> u64 conversion `r1 = r6; r1 <<= 32; r1 >>= 32`: a bound
// on r1 bounds r6's low half, which is r6 only when r6's upper half is zero.
TEST(ScalarLinks, ZeroExtensionIdiom) {
  Checker c = link_checker();
  const std::string use6 = "jgt %r1, 8, out\nadd %r0, %r6\nldxdw %r1, [%r0+0]\n";
  EXPECT_ACCEPT(c, linked("mov %r1, %r6\nlsh %r1, 32\nrsh %r1, 32\n" + use6));
  EXPECT_REJECT(c, linked("mov %r1, %r7\nlsh %r1, 32\nrsh %r1, 32\njgt %r1, 8, out\n"
                          "add %r0, %r7\nldxdw %r1, [%r0+0]\n"),
                pointer_arithmetic);  // r7's upper half is unknown
  // A jump lands between the two shifts.
  EXPECT_ACCEPT(c, linked("mov %r1, %r6\nlsh %r1, 32\njeq %r7, 0, mid\nmov %r3, 1\nmid:\nrsh %r1, 32\n" + use6));
  // falco: `(u32)(len - 1) <= 7` leaves len in [1, 8] (len = 0 wraps to 2^32 - 1).
  const std::string minus1 = "mov %r1, %r6\nadd %r1, -1\nlsh %r1, 32\nrsh %r1, 32\njgt %r1, 7, out\nadd %r0, %r6\n";
  EXPECT_ACCEPT(c, linked(minus1 + "ldxb %r1, [%r0+7]\n"));
  EXPECT_REJECT(c, linked(minus1 + "ldxb %r1, [%r0+8]\n"), map_value_out_of_bounds);
}

// `w1 = w6` and `w1 += c` keep the low half linked.
TEST(ScalarLinks, ThirtyTwoBitMoves) {
  Checker c = link_checker();
  EXPECT_ACCEPT(c, linked("mov32 %r1, %r6\njgt %r1, 8, out\nadd %r0, %r6\nldxdw %r1, [%r0+0]\n"));
  EXPECT_REJECT(c, linked("mov32 %r1, %r7\njgt %r1, 8, out\nadd %r0, %r7\nldxdw %r1, [%r0+0]\n"),
                pointer_arithmetic);
  const std::string minus1 = "mov32 %r1, %r6\nadd32 %r1, -1\njgt %r1, 7, out\nadd %r0, %r6\n";
  EXPECT_ACCEPT(c, linked(minus1 + "ldxb %r1, [%r0+7]\n"));
  EXPECT_REJECT(c, linked(minus1 + "ldxb %r1, [%r0+8]\n"), map_value_out_of_bounds);
  // A 64-bit `+= 1` after a 32-bit move is not the low half of anything:
  // with r7 = 2^32 - 1, r1 = 2^32 (a link kept as zext32(B + 1) would say 0,
  // find this branch impossible and accept the access in it).
  EXPECT_REJECT(c, linked("mov32 %r1, %r7\nadd %r1, 1\nlddw %r3, 0xffffffff\njne %r7, %r3, out\n"
                          "add %r0, %r1\nldxb %r1, [%r0+0]\n"),
                map_value_out_of_bounds);
}

// A spilled scalar is linked with the register it came from (as a copy is),
// and a store over the slot ends the link.
TEST(ScalarLinks, SpilledCopyIsLinked) {
  Checker c = link_checker();
  const std::string check =
      "add %r6, -1\nlsh %r6, 32\nrsh %r6, 32\njgt %r6, 7, out\nldxdw %r2, [%r10-16]\nadd %r0, %r2\n";
  EXPECT_ACCEPT(c, linked("stxdw [%r10-16], %r6\n" + check + "ldxb %r1, [%r0+7]\n"));
  EXPECT_REJECT(c, linked("stxdw [%r10-16], %r6\n" + check + "ldxb %r1, [%r0+8]\n"), map_value_out_of_bounds);
  EXPECT_REJECT(c, linked("stxdw [%r10-16], %r6\nstxdw [%r10-16], %r7\n" + check + "ldxb %r1, [%r0+7]\n"),
                pointer_arithmetic);
}

// ---- 32-bit spills ------------------------------------------------------------------

// r6 in [0, 15] (skb->len & 15), r0 a 16-byte map value; `body` leaves an
// index in r7 that the value is read at.
std::string spill32(const std::string& body, const std::string& bound = "and %r6, 15\n") {
  return "ldxw %r6, [%r1+0]\n" + bound +
         "stdw [%r10-16], 0\nmov %r2, %r10\nadd %r2, -16\nlddw %r1, map_fd 0\ncall 1\n"
         "jne %r0, 0, +2\nmov %r0, 0\nexit\n" +
         body + "add %r0, %r7\nldxb %r1, [%r0+0]\nmov %r0, 0\nexit\n";
}

Checker spill32_checker() {
  Checker c;
  c.maps = {map_of(MapType::array, 4, 16)};
  return c;
}

// check_stack_write_fixed_off / save_register_state: a 4-byte store of a
// bounded scalar at the start of a slot is a spill of that size, and a fill
// of the same offset and size has its bounds (spill_fill/13).
TEST(Spill32, FillOfTheSameBytesKeepsTheBounds) {
  Checker c = spill32_checker();
  EXPECT_ACCEPT(c, spill32("stxw [%r10-8], %r6\nldxw %r7, [%r10-8]\n"));
  // Another size, another place, a partial overwrite: plain bytes.
  EXPECT_REJECT(c, spill32("stxw [%r10-8], %r6\nldxh %r7, [%r10-8]\n"), map_value_out_of_bounds);
  EXPECT_REJECT(c, spill32("stxw [%r10-20], %r6\nldxw %r7, [%r10-20]\n"), map_value_out_of_bounds);
  EXPECT_REJECT(c, spill32("stxw [%r10-8], %r6\nstb [%r10-6], 1\nldxw %r7, [%r10-8]\n"),
                map_value_out_of_bounds);
  // Linux scrubs the whole slot on any store into a spilled one, so do we.
  EXPECT_REJECT(c, spill32("stxw [%r10-8], %r6\nstb [%r10-4], 1\nldxw %r7, [%r10-8]\n"),
                map_value_out_of_bounds);
  // The slot's other 4 bytes are still their own: never written here.
  EXPECT_REJECT(c, spill32("stxw [%r10-8], %r6\nldxdw %r7, [%r10-8]\n"), uninit_stack);
  // Without CAP_BPF Linux keeps the bytes as data (env->bpf_capable).
  c.options.privileged = false;
  EXPECT_ACCEPT(c, spill32("mov %r7, %r6\n"));
  EXPECT_REJECT(c, spill32("stxw [%r10-8], %r6\nldxw %r7, [%r10-8]\n"), pointer_arithmetic);  // unbounded
}

// The fill gets what the 4 bytes hold, the low half zero-extended: a value
// in [-16, -1] reads back as [0xfffffff0, 0xffffffff] (Linux 6.1 keeps the
// 64-bit register here and would let r7 + 16 index the value).
TEST(Spill32, FillIsTheLowHalf) {
  Checker c = spill32_checker();
  const std::string negative = "and %r6, 15\nadd %r6, -16\n";
  EXPECT_ACCEPT(c, spill32("mov %r7, %r6\nadd %r7, 16\n", negative));
  EXPECT_REJECT(c, spill32("stxw [%r10-8], %r6\nldxw %r7, [%r10-8]\nadd %r7, 16\n", negative),
                map_value_out_of_bounds);
  EXPECT_ACCEPT(c, spill32("stxw [%r10-8], %r6\nldxw %r7, [%r10-8]\nrsh %r7, 28\n", negative));  // 15
}

TEST(Spill32, TwoPathsJoin) {
  Checker c = spill32_checker();
  EXPECT_ACCEPT(c, spill32("jgt %r6, 7, +2\nstxw [%r10-8], %r6\nja +2\nmov %r8, 3\nstxw [%r10-8], %r8\n"
                           "ldxw %r7, [%r10-8]\n"));
  // One path spills, the other stores a 4-byte value it does not know.
  EXPECT_REJECT(c, spill32("jgt %r6, 7, +2\nstxw [%r10-8], %r6\nja +2\nldxw %r8, [%r0+4]\n"
                           "stxw [%r10-8], %r8\nldxw %r7, [%r10-8]\n"),
                map_value_out_of_bounds);
}

// 8- and 16-bit spills (newer kernels' selftests spill_fill: "Spill a u8/u16
// ... fill at the same width"): the same rules at their width. A value that
// fits keeps its bounds; one that does not reads back as its low bytes.
TEST(NarrowSpill, ByteAndHalfWordFillsKeepTheBounds) {
  Checker c = spill32_checker();
  EXPECT_ACCEPT(c, spill32("stxb [%r10-8], %r6\nldxb %r7, [%r10-8]\n"));
  EXPECT_ACCEPT(c, spill32("stxh [%r10-8], %r6\nldxh %r7, [%r10-8]\n"));
  // r6 in [0, 15] read back at another width, another offset, or after a
  // partial overwrite: plain bytes, so an unknown index.
  EXPECT_REJECT(c, spill32("stxh [%r10-8], %r6\nldxb %r7, [%r10-8]\n"), map_value_out_of_bounds);
  EXPECT_REJECT(c, spill32("stxb [%r10-8], %r6\nldxh %r7, [%r10-8]\n"), uninit_stack);
  EXPECT_REJECT(c, spill32("stdw [%r10-8], 0\nstxb [%r10-8], %r6\nldxh %r7, [%r10-8]\n"),
                map_value_out_of_bounds);
  EXPECT_REJECT(c, spill32("stxb [%r10-7], %r6\nldxb %r7, [%r10-7]\n"), map_value_out_of_bounds);
  EXPECT_REJECT(c, spill32("stxh [%r10-8], %r6\nstb [%r10-7], 1\nldxh %r7, [%r10-8]\n"),
                map_value_out_of_bounds);
  EXPECT_REJECT(c, spill32("stxh [%r10-8], %r6\nstb [%r10-8], 1\nldxh %r7, [%r10-8]\n"),
                map_value_out_of_bounds);
  // Without CAP_BPF the byte is data, as for 32 bits.
  c.options.privileged = false;
  EXPECT_REJECT(c, spill32("stxb [%r10-8], %r6\nldxb %r7, [%r10-8]\n"), pointer_arithmetic);
}

// The boundary: a byte holds 255 and not 256. r6 in [0, 255] spilled as a
// byte reads back as [0, 255]; r6 in [0, 256] reads back as [0, 255] too
// (256 is the byte 0), never as 256; [241, 256] reads back as [0, 255]
// since its low byte wraps.
TEST(NarrowSpill, ValueWiderThanTheStoreReadsBackTruncated) {
  Checker c;
  c.maps = {map_of(MapType::array, 4, 256)};
  auto prog = [](const std::string& bound, const std::string& body, int at) {
    return "ldxw %r6, [%r1+0]\n" + bound +
           "stdw [%r10-16], 0\nmov %r2, %r10\nadd %r2, -16\nlddw %r1, map_fd 0\ncall 1\n"
           "jne %r0, 0, +2\nmov %r0, 0\nexit\n" +
           body + "add %r0, %r7\nldxb %r1, [%r0+" + std::to_string(at) + "]\nmov %r0, 0\nexit\n";
  };
  const std::string u8 = "and %r6, 255\n";
  EXPECT_ACCEPT(c, prog(u8, "stxb [%r10-8], %r6\nldxb %r7, [%r10-8]\n", 0));
  EXPECT_REJECT(c, prog(u8, "stxb [%r10-8], %r6\nldxb %r7, [%r10-8]\n", 1), map_value_out_of_bounds);
  // [0, 256]: 256 is stored as 0, so the fill is [0, 255] and index 0 is in bounds...
  const std::string upto256 = "and %r6, 511\njle %r6, 256, +2\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, prog(upto256, "stxb [%r10-8], %r6\nldxb %r7, [%r10-8]\n", 0));
  // ...while r6 itself may be 256, one past the value.
  EXPECT_REJECT(c, prog(upto256, "mov %r7, %r6\n", 0), map_value_out_of_bounds);
  // A 16-bit spill of [0, 256] keeps 256.
  EXPECT_REJECT(c, prog(upto256, "stxh [%r10-8], %r6\nldxh %r7, [%r10-8]\n", 0), map_value_out_of_bounds);
  // [0, 0xffff]: a byte of it is [0, 255], a half-word all of it.
  const std::string u16 = "and %r6, 0xffff\n";
  EXPECT_ACCEPT(c, prog(u16, "stxb [%r10-8], %r6\nldxb %r7, [%r10-8]\n", 0));
  EXPECT_REJECT(c, prog(u16, "stxh [%r10-8], %r6\nldxh %r7, [%r10-8]\n", 0), map_value_out_of_bounds);
  // [-1, 0] (so 0xff.. when negative) stored as a byte is {0, 255}.
  const std::string minus = "and %r6, 1\nneg %r6\n";
  EXPECT_ACCEPT(c, prog(minus, "stxb [%r10-8], %r6\nldxb %r7, [%r10-8]\n", 0));
  EXPECT_REJECT(c, prog(minus, "stxb [%r10-8], %r6\nldxb %r7, [%r10-8]\nadd %r7, 1\n", 0),
                map_value_out_of_bounds);
}

// ---- Maps -----------------------------------------------------------------------

// Values of two maps of different sizes, joined: the bytes both have.
TEST(MapJoins, ValuesOfTwoMapsJoinAsTheBytesBothHave) {
  Checker c;
  c.maps = {map_of(MapType::hash, 8, 16), map_of(MapType::array, 4, 40)};
  MapTable table{c.maps.data(), 2, true};
  RegState a = make_pointer(RegKind::map_value, 0, 8);   // 8 before, 8 after
  RegState b = make_pointer(RegKind::map_value, 1, 4);   // 4 before, 36 after
  const RegState j = join_reg(a, b, false, table);
  EXPECT_EQ(j.kind, RegKind::mem);
  EXPECT_EQ(j.off, 4);
  EXPECT_EQ(j.region, 12u);  // [p - 4, p + 8)
  EXPECT_TRUE(reg_leq(a, j, table));
  EXPECT_TRUE(reg_leq(b, j, table));
  EXPECT_TRUE(reg_leq(j, j, table));
  // Unprivileged: map value arithmetic has Spectre limits plain memory lacks.
  table.privileged = false;
  EXPECT_EQ(join_reg(a, b, false, table).kind, RegKind::mixed);

  // End to end: a field at offset 8 of either value (16 and 40 bytes) is
  // readable through the join; at offset 16 it is past the first.
  const std::string head =
      "stdw [%r10-8], 0\nldxw %r6, [%r1+0]\nmov %r2, %r10\nadd %r2, -8\n"
      "jeq %r6, 0, second\nlddw %r1, map_fd 0\nja look\nsecond:\nlddw %r1, map_fd 1\nlook:\ncall 1\n"
      "jeq %r0, 0, out\n";
  EXPECT_ACCEPT(c, head + "ldxdw %r0, [%r0+8]\nout:\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, head + "ldxdw %r0, [%r0+16]\nout:\nmov %r0, 0\nexit\n", memory_out_of_bounds);
}

// Program arrays differ only in what the tail call checks at run time.
TEST(MapJoins, ProgramArraysAreAlike) {
  MapDescriptor progs = map_of(MapType::prog_array, 4, 4, 8);
  MapDescriptor more = map_of(MapType::prog_array, 4, 4, 2);
  MapDescriptor hash = map_of(MapType::hash, 4, 4);
  const MapDescriptor maps[] = {progs, more, hash};
  const MapTable table{maps, 3, true};
  EXPECT_TRUE(table.equivalent(0, 1));
  EXPECT_FALSE(table.equivalent(0, 2));
  EXPECT_EQ(join_reg(make_pointer(RegKind::map_ptr, 0), make_pointer(RegKind::map_ptr, 1), false, table).kind,
            RegKind::map_ptr);
  EXPECT_EQ(join_reg(make_pointer(RegKind::map_ptr, 0), make_pointer(RegKind::map_ptr, 2), false, table).kind,
            RegKind::mixed);

  Checker c;
  c.maps = {progs, more, hash};
  auto tail_call = [](int second) {
    return "ldxw %r6, [%r1+0]\nlddw %r2, map_fd 0\njeq %r6, 0, call\nlddw %r2, map_fd " +
           std::to_string(second) + "\ncall:\nmov %r3, 0\ncall 12\nmov %r0, 0\nexit\n";
  };
  EXPECT_ACCEPT(c, tail_call(1));
  EXPECT_REJECT(c, tail_call(2), helper_argument);
}

// libbpf freezes .rodata after filling it; Linux reads its bytes as
// constants (bpf_map_direct_read). Here a header length from it bounds a
// packet access.
TEST(FrozenMaps, LoadsReadTheFrozenBytes) {
  Checker c;
  static const uint8_t kBytes[4] = {0x00, 0x0d, 0x00, 0x00};  // u16 13 at offset 1, little-endian
  MapDescriptor rodata = map_of(MapType::array, 4, 4, 1);
  rodata.read_only = true;
  rodata.frozen_value = kBytes;
  c.maps = {rodata};
  const std::string src = std::string(kXdp) +
                          "lddw %r6, map_value 0 + 0\nldxh %r5, [%r6+1]\n"
                          "mov %r4, %r2\nadd %r4, 14\njgt %r4, %r3, out\n"
                          "add %r2, %r5\nldxb %r0, [%r2+0]\nout:\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, src, "xdp");
  // Not frozen (a loader may still change it): any u16.
  c.maps[0].frozen_value = nullptr;
  EXPECT_REJECT(c, src, packet_out_of_bounds, "xdp");
}

// The program may not change what it reads as constants: stores and the
// map-writing helpers are refused on read-only maps (Linux record_func_map:
// "write into map forbidden").
TEST(FrozenMaps, ReadOnlyMapsRefuseHelperWrites) {
  Checker c;
  MapDescriptor array = map_of(MapType::array, 4, 8, 4);
  c.maps = {array};
  const std::string update =
      "stw [%r10-4], 0\nstdw [%r10-16], 0\nlddw %r1, map_fd 0\nmov %r2, %r10\nadd %r2, -4\n"
      "mov %r3, %r10\nadd %r3, -16\nmov %r4, 0\ncall 2\nmov %r0, 0\nexit\n";
  const std::string erase = "stw [%r10-4], 0\nlddw %r1, map_fd 0\nmov %r2, %r10\nadd %r2, -4\ncall 3\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, update);
  EXPECT_ACCEPT(c, erase);
  c.maps[0].read_only = true;
  EXPECT_REJECT(c, update, read_only_write);
  EXPECT_REJECT(c, erase, read_only_write);
  EXPECT_REJECT(c, "lddw %r1, map_value 0 + 0\nstw [%r1+0], 1\nmov %r0, 0\nexit\n", read_only_write);
}

// Two frozen maps of one size are not alike: a join keeps them apart, so a
// value read through either is not taken from the other's bytes.
TEST(FrozenMaps, DifferentContentsAreNotJoinedAsOneMap) {
  static const uint8_t kZero[8] = {0};
  static const uint8_t kOne[8] = {1};
  MapDescriptor a = map_of(MapType::array, 4, 8, 1);
  a.read_only = true;
  a.frozen_value = kZero;
  MapDescriptor b = a;
  b.frozen_value = kOne;
  const MapDescriptor maps[] = {a, b};
  const MapTable table{maps, 2, true};
  EXPECT_FALSE(table.equivalent(0, 1));

  Checker c;
  c.maps = {a, b};
  // Through map 1 the byte is 1, and the out-of-frame store runs.
  EXPECT_REJECT(c,
                "ldxw %r6, [%r1+0]\nlddw %r7, map_value 0 + 0\njeq %r6, 0, read\nlddw %r7, map_value 1 + 0\n"
                "read:\nldxb %r5, [%r7+0]\njeq %r5, 0, out\nstdw [%r10-520], 0\nout:\nmov %r0, 0\nexit\n",
                stack_out_of_bounds);
}

// ---- Registers stepped beside a loop counter (loop_clamp.cc LoopClamp) ------------

// A zeroed 64-byte stack array at r10-64, r2 = 0 (the counter), r0 = 0.
const char* kZeroedArray =
    "mov %r2, 0\nstxdw [%r10-8], %r2\nstxdw [%r10-16], %r2\nstxdw [%r10-24], %r2\n"
    "stxdw [%r10-32], %r2\nstxdw [%r10-40], %r2\nstxdw [%r10-48], %r2\n"
    "stxdw [%r10-56], %r2\nstxdw [%r10-64], %r2\nmov %r0, 0\n";

// clang's sum over `u32 values[16]`: a pointer stepped by 4 beside
// `i < 16`. Widened alone the pointer's offset is unbounded at the header.
TEST(SteppedRegisters, PointerBesideCounterStaysInTheArray) {
  Checker c;
  const std::string head = std::string(kZeroedArray) + "mov %r3, %r10\nadd %r3, -64\nloop:\n";
  EXPECT_ACCEPT(c, head + "ldxw %r4, [%r3]\nadd %r0, %r4\nadd %r3, 4\nadd %r2, 1\n"
                          "jne %r2, 16, loop\nexit\n");
  // Counting down from the end, the test before the step.
  EXPECT_ACCEPT(c, std::string(kZeroedArray) + "mov %r3, %r10\nadd %r3, -4\nmov %r2, 16\nloop:\n"
                   "ldxw %r4, [%r3]\nadd %r0, %r4\njle %r2, 1, out\nadd %r3, -4\nsub %r2, 1\nja loop\n"
                   "out:\nexit\n");
  // A 17th run reads one past the array.
  EXPECT_REJECT(c, head + "ldxw %r4, [%r3]\nadd %r0, %r4\nadd %r3, 4\nadd %r2, 1\n"
                          "jne %r2, 17, loop\nexit\n",
                stack_out_of_bounds);
  // The pointer stepped before the access: the last run reads past the end.
  EXPECT_REJECT(c, head + "add %r3, 4\nldxw %r4, [%r3]\nadd %r0, %r4\nadd %r2, 1\n"
                          "jne %r2, 16, loop\nexit\n",
                stack_out_of_bounds);
}

// Under misprediction the exit test may fall through once more: the range
// over the proven runs does not hold there.
TEST(SteppedRegisters, NotUnderSpeculativePaths) {
  Checker c;
  c.options.speculative_paths = true;
  EXPECT_REJECT(c, std::string(kZeroedArray) + "mov %r3, %r10\nadd %r3, -64\nloop:\n"
                   "ldxw %r4, [%r3]\nadd %r0, %r4\nadd %r3, 4\nadd %r2, 1\njne %r2, 16, loop\nexit\n",
                stack_out_of_bounds);
}

TEST(SteppedRegisters, ScalarSteppedByThreeIndexesTheArray) {
  Checker c;
  const std::string head = std::string(kZeroedArray) + "mov %r5, 0\nloop:\n"
                                                       "mov %r6, %r10\nadd %r6, -64\nadd %r6, %r5\n"
                                                       "ldxb %r4, [%r6]\nadd %r0, %r4\nadd %r5, 3\nadd %r2, 1\n";
  EXPECT_ACCEPT(c, head + "jlt %r2, 22, loop\nexit\n");  // r5 <= 63: the last byte
  EXPECT_REJECT(c, head + "jlt %r2, 23, loop\nexit\n", stack_out_of_bounds);  // r5 reaches 66
}

// What the range needs: one step on every path, no other write, a proven
// trip count.
TEST(SteppedRegisters, OnlyOneConstantStepOnEveryPathBoundsTheRegister) {
  Checker c;
  const std::string head = std::string(kZeroedArray) + "ldxw %r7, [%r1+0]\nmov %r3, %r10\nadd %r3, -64\nloop:\n"
                                                       "ldxw %r4, [%r3]\nadd %r0, %r4\n";
  // A step of 4 on one path and 8 on the other.
  EXPECT_REJECT(c, head + "jeq %r4, 0, four\nadd %r3, 8\nja next\nfour:\nadd %r3, 4\nnext:\n"
                          "add %r2, 1\njne %r2, 16, loop\nexit\n",
                stack_out_of_bounds);
  // The pointer also moved on one path.
  EXPECT_REJECT(c, head + "add %r3, 4\njeq %r7, 0, next\nadd %r3, 4\nnext:\n"
                          "add %r2, 1\njne %r2, 16, loop\nexit\n",
                stack_out_of_bounds);
  // The counter tested against a register: no trip count here.
  EXPECT_REJECT(c, head + "and %r7, 15\nadd %r3, 4\nadd %r2, 1\njne %r2, %r7, loop\nexit\n",
                stack_out_of_bounds);
  // Stepping by 2 never meets 15.
  EXPECT_REJECT(c, head + "add %r3, 4\nadd %r2, 2\njne %r2, 15, loop\nexit\n", stack_out_of_bounds);
}

// A loop with a clamp followed by one without (its counter is tested
// against a register): the second loop's probe must not land past the one
// clamp the first loop needs (it used to overwrite the loop-to-clamp index).
TEST(SteppedRegisters, LaterLoopWithoutClampLeavesTheFirstOnesIntact) {
  Checker c;
  const std::string first = std::string(kZeroedArray) + "ldxw %r7, [%r1+0]\nand %r7, 15\nmov %r3, %r10\n"
                                                        "add %r3, -64\nloop:\nldxw %r4, [%r3]\nadd %r0, %r4\n"
                                                        "add %r3, 4\nadd %r2, 1\n";
  const std::string second = "mov %r5, 0\nloop2:\nadd %r0, 1\nadd %r5, 1\njlt %r5, %r7, loop2\nexit\n";
  EXPECT_ACCEPT(c, first + "jne %r2, 16, loop\n" + second);
  EXPECT_REJECT(c, first + "jne %r2, 17, loop\n" + second, stack_out_of_bounds);
}

}  // namespace
}  // namespace keel
