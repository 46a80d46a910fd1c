// Tests for what the analysis keeps that a plain join would lose (path
// partitions, ids linked on copies and fills, values of two maps joined as
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

}  // namespace
}  // namespace keel
