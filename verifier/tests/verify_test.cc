// Tests for keel::verify (verifier/src/analysis): for each check a program
// it must accept and one it must reject, diagnostics, arena exhaustion, the
// cost-bound shapes, and a soundness cross-check with the guarded
// interpreter.
#include "keel/verify.h"

#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "keel/decode.h"
#include "verify_checker.h"
#include "keel/interp.h"
#include "keel/platform_linux.h"
#include "keel/text.h"

namespace keel {
namespace {

using testing::Checker;
using testing::assemble_or_die;
using testing::linux_type;

MapDescriptor hash_map(uint32_t key, uint32_t value) {
  MapDescriptor m;
  m.type = MapType::hash;
  m.key_size = key;
  m.value_size = value;
  m.max_entries = 16;
  return m;
}

// ---- Registers, ALU, exit ---------------------------------------------------

TEST(Verify, ReturnsConstant) {
  Checker c;
  EXPECT_ACCEPT(c, "mov %r0, 0\nexit\n");
  EXPECT_REJECT(c, "exit\n", uninit_register);
  EXPECT_EQ(c.run("exit\n").detail.reg, 0);
}

TEST(Verify, UninitializedOperand) {
  Checker c;
  EXPECT_ACCEPT(c, "mov %r2, 1\nmov %r0, %r2\nexit\n");
  EXPECT_REJECT(c, "mov %r0, %r2\nexit\n", uninit_register);
  EXPECT_REJECT(c, "mov %r0, 0\nadd %r0, %r3\nexit\n", uninit_register);
}

TEST(Verify, PointerReturnNeedsPrivilege) {
  Checker c;
  EXPECT_ACCEPT(c, "mov %r0, %r10\nexit\n");
  c.options.privileged = false;
  EXPECT_REJECT(c, "mov %r0, %r10\nexit\n", pointer_leak);
}

TEST(Verify, ReturnRange) {
  Checker c;
  EXPECT_ACCEPT(c, "mov %r0, 1\nexit\n", "cgroup_skb");
  EXPECT_REJECT(c, "mov %r0, 2\nexit\n", bad_return_value, "cgroup_skb");
  EXPECT_REJECT(c, "mov %r0, %r1\nexit\n", bad_return_value, "cgroup_skb");
}

TEST(Verify, DivisionByZeroIsDefinedUnlessAsked) {
  Checker c;
  const char* src = "mov %r0, 1\nmov %r2, 0\ndiv %r0, %r2\nexit\n";
  EXPECT_ACCEPT(c, src);
  c.options.reject_division_by_zero = true;
  EXPECT_REJECT(c, src, division_by_zero);
  EXPECT_ACCEPT(c, "mov %r0, 1\nmov %r2, 3\ndiv %r0, %r2\nexit\n");
}

TEST(Verify, LinuxRulesRejectImmediateZeroDivisor) {
  Checker c;
  EXPECT_ACCEPT(c, "mov %r0, 1\ndiv %r0, 0\nexit\n");
  c.options.linux_rules = true;
  EXPECT_REJECT(c, "mov %r0, 1\ndiv %r0, 0\nexit\n", division_by_zero);
  EXPECT_REJECT(c, "mov %r0, 1\nlsh %r0, 64\nexit\n", unsupported_instruction);
}

// ---- Pointer arithmetic -------------------------------------------------------

TEST(Verify, PointerArithmetic) {
  Checker c;
  EXPECT_ACCEPT(c, "mov %r2, %r10\nadd %r2, -8\nstdw [%r2], 1\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, "mov %r2, %r10\nmul %r2, 2\nmov %r0, 0\nexit\n", pointer_arithmetic);
  EXPECT_REJECT(c, "mov %r2, %r10\nsub %r2, 8\nmov %r0, 0\nexit\n", pointer_arithmetic);
  EXPECT_REJECT(c, "mov %r2, 8\nsub %r2, %r10\nmov %r0, 0\nexit\n", pointer_arithmetic);
  // ptr - ptr gives a scalar, privileged only.
  EXPECT_ACCEPT(c, "mov %r2, %r10\nsub %r2, %r10\nmov %r0, %r2\nexit\n");
  c.options.privileged = false;
  EXPECT_REJECT(c, "mov %r2, %r10\nsub %r2, %r10\nmov %r0, 0\nexit\n", pointer_arithmetic);
}

// A constant near INT64_MAX / INT64_MIN added to or subtracted from a
// pointer with an offset is rejected without computing the overflowing sum
// (signed overflow is undefined: UBSan in host-asan / host-fuzz reports it;
// found by fuzz_structured).
TEST(Verify, PointerPlusAnExtremeConstantIsRejectedWithoutOverflow) {
  Checker c;
  c.maps = {hash_map(8, 48)};
  const std::string lookup = "stdw [%r10-8], 0\nlddw %r1, map_fd 0\nmov %r2, %r10\nadd %r2, -8\ncall 1\n"
                             "jeq %r0, 0, out\nadd %r0, 2\n";
  EXPECT_REJECT(c, lookup + "lddw %r1, 0x7fffffffffffffff\nadd %r0, %r1\nout: mov %r0, 0\nexit\n", pointer_arithmetic);
  EXPECT_REJECT(c, lookup + "lddw %r1, 0x8000000000000000\nsub %r0, %r1\nout: mov %r0, 0\nexit\n", pointer_arithmetic);
  EXPECT_REJECT(c, lookup + "lddw %r1, 0x8000000000000000\nadd %r0, %r1\nout: mov %r0, 0\nexit\n", pointer_arithmetic);
}

// ---- Stack ----------------------------------------------------------------------

TEST(Verify, StackBoundsAndInitialization) {
  Checker c;
  EXPECT_ACCEPT(c, "stdw [%r10-512], 1\nldxdw %r0, [%r10-512]\nexit\n");
  EXPECT_REJECT(c, "stdw [%r10-520], 1\nmov %r0, 0\nexit\n", stack_out_of_bounds);
  EXPECT_REJECT(c, "stdw [%r10], 1\nmov %r0, 0\nexit\n", stack_out_of_bounds);
  EXPECT_REJECT(c, "ldxdw %r0, [%r10-8]\nexit\n", uninit_stack);
  EXPECT_REJECT(c, "stw [%r10-8], 1\nldxdw %r0, [%r10-8]\nexit\n", uninit_stack);
  c.options.allow_uninit_stack_reads = true;
  EXPECT_ACCEPT(c, "ldxdw %r0, [%r10-8]\nexit\n");
}

TEST(Verify, StackAccessesAreAligned) {
  Checker c;
  EXPECT_ACCEPT(c, "stw [%r10-8], 1\nldxw %r0, [%r10-8]\nexit\n");
  EXPECT_REJECT(c, "stw [%r10-6], 1\nmov %r0, 0\nexit\n", misaligned_access);
}

TEST(Verify, SpilledPointerIsKept) {
  Checker c;
  const char* fill = "stxdw [%r10-8], %r1\nldxdw %r2, [%r10-8]\nldxw %r0, [%r2]\nexit\n";
  EXPECT_ACCEPT(c, fill);
  // A partial overwrite turns the slot into data: no longer a pointer.
  EXPECT_REJECT(c,
                "stxdw [%r10-8], %r1\nstb [%r10-8], 0\nldxdw %r2, [%r10-8]\nldxw %r0, [%r2]\nexit\n",
                scalar_dereference);
  // Reading part of a spilled pointer is not allowed at all.
  EXPECT_REJECT(c, "stxdw [%r10-8], %r1\nldxw %r0, [%r10-8]\nexit\n", invalid_dereference);
  c.options.privileged = false;
  EXPECT_REJECT(c, "stxdw [%r10-8], %r1\nstb [%r10-8], 0\nmov %r0, 0\nexit\n", pointer_leak);
}

TEST(Verify, VariableOffsetStackAccess) {
  Checker c;
  const char* src =
      "stdw [%r10-16], 0\nstdw [%r10-8], 0\n"
      "ldxw %r2, [%r1+0]\nand %r2, 8\n"  // r2 in {0, 8}
      "mov %r3, %r10\nadd %r3, -16\nadd %r3, %r2\n"
      "ldxdw %r0, [%r3]\nexit\n";
  EXPECT_ACCEPT(c, src);
  const char* partly_uninit =
      "stdw [%r10-8], 0\n"
      "ldxw %r2, [%r1+0]\nand %r2, 8\n"
      "mov %r3, %r10\nadd %r3, -16\nadd %r3, %r2\n"
      "ldxdw %r0, [%r3]\nexit\n";
  EXPECT_REJECT(c, partly_uninit, uninit_stack);
  c.options.privileged = false;
  EXPECT_REJECT(c, src, variable_stack_access);
}

// ---- Context ---------------------------------------------------------------------

TEST(Verify, ContextFields) {
  Checker c;
  EXPECT_ACCEPT(c, "ldxw %r0, [%r1+0]\nexit\n");  // skb->len
  EXPECT_ACCEPT(c, "ldxb %r0, [%r1+1]\nexit\n");  // narrow read
  EXPECT_REJECT(c, "ldxw %r0, [%r1+2]\nexit\n", ctx_bad_access);  // misaligned
  EXPECT_REJECT(c, "ldxw %r0, [%r1+200]\nexit\n", ctx_bad_access);
  EXPECT_REJECT(c, "mov %r0, 0\nstxw [%r1+0], %r0\nexit\n", read_only_write);  // len
  EXPECT_ACCEPT(c, "mov %r0, 0\nstxw [%r1+48], %r0\nexit\n");  // cb[0]
  EXPECT_REJECT(c, "add %r1, 4\nldxw %r0, [%r1+0]\nexit\n", ctx_bad_access);
  EXPECT_REJECT(c, "ldxw %r0, [%r1+76]\nexit\n", ctx_bad_access);  // no data for socket filters
}

// ---- Maps and helpers --------------------------------------------------------------

const char* kLookup =
    "stdw [%r10-8], 0\n"
    "mov %r2, %r10\nadd %r2, -8\n"
    "lddw %r1, map_fd 0\n"
    "call 1\n";

TEST(Verify, MapLookupNeedsNullCheck) {
  Checker c;
  c.maps = {hash_map(8, 48)};
  EXPECT_ACCEPT(c, std::string(kLookup) + "jeq %r0, 0, +1\nldxw %r0, [%r0+44]\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, std::string(kLookup) + "ldxw %r0, [%r0+0]\nmov %r0, 0\nexit\n", null_dereference);
  const Verdict v = c.run(std::string(kLookup) + "jeq %r0, 0, +1\nldxw %r0, [%r0+48]\nmov %r0, 0\nexit\n");
  EXPECT_EQ(v.reason, Reason::map_value_out_of_bounds);
  EXPECT_EQ(c.text,
            "pc 7: r0 is a pointer to map value of size 48, access at offset 48 size 4 is out of bounds");
}

TEST(Verify, NullCheckRefinesCopies) {
  Checker c;
  c.maps = {hash_map(8, 8)};
  EXPECT_ACCEPT(c, std::string(kLookup) +
                       "mov %r6, %r0\nstxdw [%r10-16], %r0\njeq %r0, 0, +3\n"
                       "ldxdw %r7, [%r10-16]\nstw [%r7+0], 1\nstw [%r6+4], 1\nmov %r0, 0\nexit\n");
}

// check_cond_jmp_op: a maybe-NULL pointer equal to a pointer known not NULL
// is not NULL where they are equal (jeq taken, jne fall-through); where they
// differ, or when the other may be NULL too, nothing is learnt.
TEST(Verify, ComparingWithANonNullPointerProvesNonNull) {
  Checker c;
  c.maps = {hash_map(8, 8)};
  const std::string other = std::string(kLookup) + "jne %r0, 0, +2\nmov %r0, 0\nexit\nmov %r6, %r0\n";
  const std::string maybe = std::string(kLookup) + "mov %r6, %r0\n";  // r6 may be NULL
  const std::string lookup = std::string(kLookup);
  const std::string store = "stw [%r0+0], 1\nmov %r0, 0\nexit\n";
  const std::string leave = "mov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, other + lookup + "jeq %r0, %r6, +2\n" + leave + store);
  EXPECT_ACCEPT(c, other + lookup + "jeq %r6, %r0, +2\n" + leave + store);
  EXPECT_ACCEPT(c, other + lookup + "jne %r0, %r6, +3\n" + store + leave);
  EXPECT_ACCEPT(c, other + lookup + "mov %r7, %r0\njne %r6, %r0, +3\nstw [%r7+4], 1\n" + leave + leave);
  // The branch where they differ: r0 may still be NULL.
  EXPECT_REJECT(c, other + lookup + "jeq %r0, %r6, +3\n" + store + leave, null_dereference);
  EXPECT_REJECT(c, other + lookup + "jne %r0, %r6, +2\n" + leave + store, null_dereference);
  // Not an equality, or the other may be NULL too: nothing.
  EXPECT_REJECT(c, other + lookup + "jgt %r0, %r6, +2\n" + leave + store, null_dereference);
  EXPECT_REJECT(c, maybe + lookup + "jeq %r0, %r6, +2\n" + leave + store, null_dereference);
  EXPECT_REJECT(c, maybe + lookup + "jeq %r6, %r0, +2\n" + leave + store, null_dereference);
  // Unprivileged, pointers may not be compared at all.
  c.options.privileged = false;
  EXPECT_REJECT(c, other + lookup + "jeq %r0, %r6, +2\n" + leave + store, pointer_leak);
}

TEST(Verify, MapKeyMustBeInitialized) {
  Checker c;
  c.maps = {hash_map(8, 8)};
  EXPECT_REJECT(c, "mov %r2, %r10\nadd %r2, -8\nlddw %r1, map_fd 0\ncall 1\nmov %r0, 0\nexit\n",
                uninit_stack);
  EXPECT_REJECT(c, "mov %r2, 0\nlddw %r1, map_fd 0\ncall 1\nmov %r0, 0\nexit\n", helper_argument);
  EXPECT_REJECT(c, std::string(kLookup).replace(std::string(kLookup).find("map_fd 0"), 8, "map_fd 1") +
                       "mov %r0, 0\nexit\n",
                unresolved_map);
}

// Linux resolves every map reference at load time, reachable or not; a
// loader patches them all, so a dead one naming no map must not pass.
TEST(Verify, MapReferencesInDeadCodeAreChecked) {
  Checker c;
  MapDescriptor array = hash_map(4, 8);
  array.type = MapType::array;
  c.maps = {array};
  const std::string dead_branch = "mov %r0, 0\njeq %r0, 0, +2\n";
  EXPECT_ACCEPT(c, dead_branch + "lddw %r1, map_value 0 + 4\nexit\n");
  EXPECT_REJECT(c, dead_branch + "lddw %r1, map_value 7 + 0\nexit\n", unresolved_map);
  EXPECT_REJECT(c, dead_branch + "lddw %r1, map_fd 1\nexit\n", unresolved_map);
  EXPECT_REJECT(c, dead_branch + "lddw %r1, map_value 0 + 8\nexit\n", map_value_out_of_bounds);
  // Every source kind that names a map, and none of those that do not
  // (check_map_references picks them by a bit mask over the lddw Ops).
  EXPECT_REJECT(c, dead_branch + "lddw %r1, map_idx 1\nexit\n", unresolved_map);
  EXPECT_REJECT(c, dead_branch + "lddw %r1, map_idx_value 1 + 0\nexit\n", unresolved_map);
  EXPECT_ACCEPT(c, dead_branch + "lddw %r1, map_idx 0\nexit\n");
  EXPECT_ACCEPT(c, dead_branch + "lddw %r1, 0x100000001\nexit\n");
}

TEST(Verify, ReadOnlyAndWriteOnlyMaps) {
  Checker c;
  MapDescriptor ro = hash_map(8, 8);
  ro.read_only = true;
  c.maps = {ro};
  EXPECT_ACCEPT(c, std::string(kLookup) + "jeq %r0, 0, +1\nldxw %r0, [%r0+0]\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, std::string(kLookup) + "jeq %r0, 0, +1\nstw [%r0+0], 1\nmov %r0, 0\nexit\n",
                read_only_write);
  c.maps[0].read_only = false;
  c.maps[0].write_only = true;
  EXPECT_REJECT(c, std::string(kLookup) + "jeq %r0, 0, +1\nldxw %r0, [%r0+0]\nmov %r0, 0\nexit\n",
                write_only_read);
}

TEST(Verify, HelperAvailabilityAndClobbers) {
  Checker c;
  EXPECT_ACCEPT(c, "call 5\nexit\n");                                     // ktime_get_ns
  EXPECT_REJECT(c, "mov %r1, 1\ncall 5\nmov %r0, %r1\nexit\n", uninit_register);  // r1 clobbered
  EXPECT_REJECT(c, "call 44\nmov %r0, 0\nexit\n", unknown_helper);        // xdp_adjust_head
  EXPECT_ACCEPT(c, "mov %r6, 7\ncall 5\nmov %r0, %r6\nexit\n");           // r6 preserved
}

TEST(Verify, MemAndSizeArguments) {
  Checker c;
  // bpf_probe_read_kernel(dst = stack, size, src) for tracepoints: id 113.
  const char* ok =
      "mov %r1, %r10\nadd %r1, -16\nmov %r2, 16\nmov %r3, 0\ncall 113\n"
      "ldxdw %r0, [%r10-16]\nexit\n";
  EXPECT_ACCEPT(c, ok, "kprobe");
  const char* too_big = "mov %r1, %r10\nadd %r1, -16\nmov %r2, 24\nmov %r3, 0\ncall 113\nmov %r0, 0\nexit\n";
  EXPECT_REJECT(c, too_big, stack_out_of_bounds, "kprobe");
}

// A helper that writes a variable number of bytes into the stack has
// written for sure only as many as the smallest size: with a size in [0, 7]
// nothing of fp-8 is initialised, with [4, 7] its first 4 bytes. (Found by
// keel-fuzzgen: keel marked all 7 as written, and a fill of the rest read
// stack bytes no instruction had stored.)
TEST(Verify, VariableSizeHelperWriteInitialisesOnlyTheSmallestSize) {
  Checker c;
  const std::string write = "ldxdw %r6, [%r1+0]\nand %r6, 7\n"
                            "mov %r1, %r10\nadd %r1, -8\nmov %r2, %r6\nmov %r3, 0\ncall 113\n";
  EXPECT_REJECT(c, write + "ldxb %r0, [%r10-8]\nexit\n", uninit_stack, "kprobe");
  const std::string at_least_4 = "ldxdw %r6, [%r1+0]\nand %r6, 3\nor %r6, 4\n"
                                 "mov %r1, %r10\nadd %r1, -8\nmov %r2, %r6\nmov %r3, 0\ncall 113\n";
  EXPECT_ACCEPT(c, at_least_4 + "ldxw %r0, [%r10-8]\nexit\n", "kprobe");
  EXPECT_REJECT(c, at_least_4 + "ldxdw %r0, [%r10-8]\nexit\n", uninit_stack, "kprobe");
  // Bytes written before keep their state.
  EXPECT_ACCEPT(c, "stdw [%r10-8], 0\n" + write + "ldxdw %r0, [%r10-8]\nexit\n", "kprobe");
}

// Linux bounds what get_stack and probe_read_*_str return by their size
// argument (do_refine_retval_range): [-MAX_ERRNO, size]. A program may use
// the result as an offset without a check of its own; without the size
// bound the same program is rejected.
// bpf_check_mtu reads *mtu_len before it writes the MTU there: the 4 bytes
// must be initialized (an uninitialized slot would hand the kernel stale
// stack bytes) and writable (not a read-only map). Linux 6.1 allowed both;
// keel follows the later fix (platform_test UninitArgumentsAreReviewed).
TEST(Verify, CheckMtuLengthIsReadThenWritten) {
  Checker c;
  const std::string call = "mov %r2, 0\nmov %r4, 0\nmov %r5, 0\ncall 163\nmov %r0, 2\nexit\n";
  const std::string on_stack = "mov %r3, %r10\nadd %r3, -4\n" + call;
  for (const char* type : {"xdp", "sched_cls"}) {
    EXPECT_REJECT(c, on_stack, uninit_stack, type);
    EXPECT_ACCEPT(c, "stw [%r10-4], 0\n" + on_stack, type);
  }
  // A map value: writable, or not (.rodata-style read-only map).
  const std::string in_map = "stw [%r10-4], 0\nmov %r6, %r1\nlddw %r1, map_fd 0\nmov %r2, %r10\nadd %r2, -4\n"
                             "call 1\njne %r0, 0, +2\nmov %r0, 2\nexit\nmov %r1, %r6\nmov %r3, %r0\n" + call;
  c.maps = {testing::map_of(MapType::array, 4, 8, 1)};
  EXPECT_ACCEPT(c, in_map, "xdp");
  c.maps[0].read_only = true;
  EXPECT_REJECT(c, in_map, read_only_write, "xdp");
}

TEST(Verify, HelperResultBoundedBySizeArgument) {
  Checker c;
  const char* use_result =
      "stdw [%r10-8], 0\n"
      "mov %r2, %r10\nadd %r2, -40\nmov %r3, 32\nmov %r4, 0\n"
      "call 67\n"                      // writes fp-40..fp-9; r0 in [-4095, 32]
      "jslt %r0, 0, +4\n"              // errors: done
      "mov %r1, %r10\nadd %r1, -40\n"
      "add %r1, %r0\n"                 // fp-40 + [0, 32]: at most fp-8, written above
      "ldxb %r0, [%r1+0]\n"
      "mov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, use_result, "tracepoint");
  // ktime_get_ns has no such bound: the same use is out of bounds.
  const char* unbounded =
      "stdw [%r10-8], 0\nstdw [%r10-16], 0\nstdw [%r10-24], 0\nstdw [%r10-32], 0\n"
      "stdw [%r10-40], 0\n"
      "call 5\njslt %r0, 0, +4\nmov %r1, %r10\nadd %r1, -40\nadd %r1, %r0\n"
      "ldxb %r0, [%r1+0]\nmov %r0, 0\nexit\n";
  const Verdict v = c.run(unbounded, "tracepoint");
  EXPECT_FALSE(v.ok()) << c.text;
}

// A size the helper's implementation reads as 32 bits (HelperProto::size_u32,
// ADR 0014) is checked by its low half only: probe_read_kernel's u32 size
// with an unknown upper half passes; the same register fails for
// ringbuf_output, whose size is a u64, and when the low half is too big.
// r6 = unknown upper 32 bits | low 32 bits in [1, 15] (tnum 1 + 0b1110).
const char* kUpperUnknownSize =
    "ldxdw %r6, [%r1+0]\nlsh %r6, 32\n"
    "ldxdw %r7, [%r1+8]\nand %r7, 14\nor %r7, 1\nor %r6, %r7\n"
    "stdw [%r10-16], 0\nstdw [%r10-8], 0\n";

TEST(Verify, SizeReadAs32BitsChecksTheLowHalf) {
  Checker c;
  const std::string read = std::string(kUpperUnknownSize) +
                           "mov %r1, %r10\nadd %r1, -16\nmov %r2, %r6\nmov %r3, 0\ncall 113\n"
                           "mov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, read, "kprobe");
  // The low half up to 31: more than the 16-byte buffer.
  std::string wide = read;
  wide.replace(wide.find("and %r7, 14"), 11, "and %r7, 30");
  EXPECT_REJECT(c, wide, stack_out_of_bounds, "kprobe");
  // trace_printk's u32 size must be > 0 in the low half, which may be 0 here.
  const std::string zero_low = "ldxdw %r6, [%r1+0]\nlsh %r6, 32\nldxdw %r7, [%r1+8]\nand %r7, 15\n"
                               "or %r6, %r7\nstdw [%r10-16], 0\nstdw [%r10-8], 0\n"
                               "mov %r1, %r10\nadd %r1, -16\nmov %r2, %r6\ncall 6\nmov %r0, 0\nexit\n";
  EXPECT_REJECT(c, zero_low, helper_argument, "kprobe");
  // ringbuf_output(map, data, size, flags): the size is a u64 (BPF_CALL_4 in
  // kernel/bpf/ringbuf.c), so all 64 bits must be bounded.
  c.maps = {testing::map_of(MapType::ringbuf, 0, 0, 4096)};
  const std::string output = std::string(kUpperUnknownSize) +
                             "lddw %r1, map_fd 0\nmov %r2, %r10\nadd %r2, -16\nmov %r3, %r6\n"
                             "mov %r4, 0\ncall 130\nmov %r0, 0\nexit\n";
  EXPECT_REJECT(c, output, helper_argument, "kprobe");
  std::string output_bounded = output;
  output_bounded.replace(output_bounded.find("lsh %r6, 32"), 11, "mov %r6, 0");
  EXPECT_ACCEPT(c, output_bounded, "kprobe");
}

// probe_read_kernel_str returns at most its (32-bit) size: [-4095, 15] here,
// whatever the upper half of r2.
TEST(Verify, SizeReadAs32BitsBoundsTheResult) {
  Checker c;
  const std::string use_result = std::string(kUpperUnknownSize) +
                                 "mov %r1, %r10\nadd %r1, -16\nmov %r2, %r6\nmov %r3, 0\ncall 115\n"
                                 "jslt %r0, 0, +4\n"
                                 "mov %r1, %r10\nadd %r1, -16\nadd %r1, %r0\n"  // at most fp-1
                                 "ldxb %r0, [%r1+0]\n"
                                 "mov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, use_result, "kprobe");
  std::string past = use_result;
  past.replace(past.find("add %r1, -16\nadd"), 12, "add %r1, -15");  // up to fp+0
  EXPECT_REJECT(c, past, stack_out_of_bounds, "kprobe");
}

// ---- Packets ---------------------------------------------------------------------------

const char* kXdpHead = "ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nmov %r4, %r2\nadd %r4, 14\n";

TEST(Verify, PacketRangeFromComparison) {
  Checker c;
  EXPECT_ACCEPT(c, std::string(kXdpHead) + "jgt %r4, %r3, +1\nldxb %r0, [%r2+13]\nmov %r0, 0\nexit\n", "xdp");
  EXPECT_REJECT(c, std::string(kXdpHead) + "jgt %r4, %r3, +1\nldxb %r0, [%r2+14]\nmov %r0, 0\nexit\n",
                packet_out_of_bounds, "xdp");
  EXPECT_REJECT(c, std::string(kXdpHead) + "ldxb %r0, [%r2+0]\nmov %r0, 0\nexit\n", packet_out_of_bounds, "xdp");
  // The mirrored forms: end < ptr, end >= ptr.
  EXPECT_ACCEPT(c, std::string(kXdpHead) + "jlt %r3, %r4, +1\nldxb %r0, [%r2+13]\nmov %r0, 0\nexit\n", "xdp");
  EXPECT_ACCEPT(c, std::string(kXdpHead) + "jge %r3, %r4, +2\nmov %r0, 0\nexit\nldxb %r0, [%r2+13]\nmov %r0, 0\nexit\n", "xdp");
  EXPECT_ACCEPT(c, std::string(kXdpHead) + "jle %r4, %r3, +2\nmov %r0, 0\nexit\nldxb %r0, [%r2+13]\nmov %r0, 0\nexit\n", "xdp");
}

TEST(Verify, PacketWritesNeedWritableType) {
  Checker c;
  const std::string write = std::string(kXdpHead) + "jgt %r4, %r3, +1\nstb [%r2+0], 1\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, write, "xdp");
  // cgroup_skb: packet readable, not writable (data/data_end at 76/80).
  const std::string skb = "ldxw %r2, [%r1+76]\nldxw %r3, [%r1+80]\nmov %r4, %r2\nadd %r4, 14\n"
                          "jgt %r4, %r3, +1\nstb [%r2+0], 1\nmov %r0, 0\nexit\n";
  EXPECT_REJECT(c, skb, read_only_write, "cgroup_skb");
}

TEST(Verify, HelperChangingPacketInvalidatesPointers) {
  Checker c;
  const std::string src = std::string(kXdpHead) +
                          "jgt %r4, %r3, +5\nmov %r6, %r2\nmov %r2, 0\ncall 44\n"  // xdp_adjust_head
                          "ldxb %r0, [%r6+0]\nexit\nmov %r0, 0\nexit\n";
  EXPECT_REJECT(c, src, scalar_dereference, "xdp");
}

// ---- Compiler builtins (keel/isa.h, ADR 0011) --------------------------------------------

std::string fp_reg(int reg, int offset) {
  return "mov %r" + std::to_string(reg) + ", %r10\nadd %r" + std::to_string(reg) + ", " +
         std::to_string(offset) + "\n";
}
// memset(fp-16, byte, n), then `tail`.
std::string memset16(const std::string& byte, const std::string& n, const std::string& tail) {
  return fp_reg(1, -16) + "mov %r2, " + byte + "\nmov %r3, " + n + "\ncall memset\n" + tail;
}
// memcpy-like `name`(fp-16, fp-32, n) after `setup`, then `tail`.
std::string copy16(const char* name, const std::string& setup, const std::string& n, const std::string& tail) {
  return setup + fp_reg(1, -16) + fp_reg(2, -32) + "mov %r3, " + n + "\ncall " + name + "\n" + tail;
}
const char* kInit32 = "stdw [%r10-32], 0\nstdw [%r10-24], 0\n";
const char* kReturn0 = "mov %r0, 0\nexit\n";

TEST(Verify, BuiltinsAreOfferedToEveryType) {
  const Platform& linux = linux_platform();
  for (uint32_t i = 0; i < linux.type_count; ++i) {
    const ProgramType& type = linux.types[i];
    const int64_t r0 = std::max(type.return_min, std::min<int64_t>(0, type.return_max));
    Checker c;
    EXPECT_ACCEPT(c, memset16("0", "16", "mov %r0, " + std::to_string(r0) + "\nexit\n"), type);
  }
}

TEST(Verify, MemsetBoundsAndStackState) {
  Checker c;
  // Zeros stay known zeros: cgroup_skb may return only 0 or 1.
  EXPECT_ACCEPT(c, memset16("0", "16", "ldxdw %r0, [%r10-8]\nexit\n"), "cgroup_skb");
  EXPECT_ACCEPT(c, memset16("0x100", "16", "ldxdw %r0, [%r10-8]\nexit\n"), "cgroup_skb");  // byte 0
  EXPECT_REJECT(c, memset16("1", "16", "ldxdw %r0, [%r10-8]\nexit\n"), bad_return_value, "cgroup_skb");
  EXPECT_REJECT(c, memset16("0", "17", kReturn0), stack_out_of_bounds);
  EXPECT_REJECT(c, memset16("0", "16", "exit\n"), uninit_register);  // r0 is unset
  EXPECT_REJECT(c, memset16("0", "16", "mov %r0, %r1\nexit\n"), uninit_register);  // r1-r5 clobbered
  // The value of a pointer's low byte would leak it.
  EXPECT_ACCEPT(c, memset16("%r10", "16", kReturn0));
  c.options.privileged = false;
  EXPECT_REJECT(c, memset16("%r10", "16", kReturn0), pointer_leak);
  EXPECT_ACCEPT(c, memset16("7", "16", kReturn0));
}

TEST(Verify, BuiltinSizeIsTheThirdArgument) {
  Checker c;
  const std::string len = "ldxw %r3, [%r1+0]\n";  // skb->len: unknown
  EXPECT_ACCEPT(c, len + "and %r3, 15\n" + fp_reg(1, -16) + "mov %r2, 0\ncall memset\n" + kReturn0);
  EXPECT_REJECT(c, len + "and %r3, 31\n" + fp_reg(1, -16) + "mov %r2, 0\ncall memset\n" + kReturn0,
                stack_out_of_bounds);
  EXPECT_REJECT(c, len + fp_reg(1, -16) + "mov %r2, 0\ncall memset\n" + kReturn0, helper_argument);
  EXPECT_REJECT(c, fp_reg(1, -16) + "mov %r2, 0\nmov %r3, %r10\ncall memset\n" + kReturn0, helper_argument);
  EXPECT_REJECT(c, fp_reg(1, -16) + "mov %r2, 0\nmov %r3, -1\ncall memset\n" + kReturn0, helper_argument);
  // n in [8, 15]: only the first 8 bytes are surely written.
  const std::string eight_or_more = len + "and %r3, 7\nadd %r3, 8\n" + fp_reg(1, -16) + "mov %r2, 0\ncall memset\n";
  EXPECT_ACCEPT(c, eight_or_more + "ldxdw %r0, [%r10-16]\nexit\n");
  EXPECT_REJECT(c, eight_or_more + "ldxdw %r0, [%r10-8]\nexit\n", uninit_stack);
}

TEST(Verify, MemcpyAndMemmoveNeedInitializedSource) {
  Checker c;
  for (const char* name : {"memcpy", "memmove"}) {
    EXPECT_ACCEPT(c, copy16(name, kInit32, "16", "ldxdw %r0, [%r10-8]\nexit\n"));
    EXPECT_REJECT(c, copy16(name, "stdw [%r10-32], 0\n", "16", kReturn0), uninit_stack);
    EXPECT_REJECT(c, copy16(name, std::string(kInit32) + "stdw [%r10-16], 0\n", "17", kReturn0),
                  stack_out_of_bounds);
    // Source and destination overlap: the source is checked before the
    // destination counts as written.
    EXPECT_REJECT(c, fp_reg(1, -16) + fp_reg(2, -16) + "mov %r3, 16\ncall " + name + "\n" + kReturn0,
                  uninit_stack);
  }
  // The context is not memory a builtin may take.
  EXPECT_REJECT(c, std::string(kInit32) + fp_reg(2, -32) + "mov %r3, 4\ncall memcpy\n" + kReturn0,
                helper_argument);  // r1 is still the context
}

TEST(Verify, BuiltinsOnMapValues) {
  Checker c;
  MapDescriptor array = hash_map(8, 16);
  c.maps = {array};
  const std::string lookup =
      std::string(kInit32) + "stdw [%r10-16], 0\n" + kLookup + "jeq %r0, 0, +5\nmov %r1, %r0\n" + fp_reg(2, -32);
  EXPECT_ACCEPT(c, lookup + "mov %r3, 16\ncall memcpy\n" + kReturn0);
  EXPECT_REJECT(c, lookup + "mov %r3, 17\ncall memcpy\n" + kReturn0, map_value_out_of_bounds);
  c.maps[0].read_only = true;  // .rodata, BPF_F_RDONLY_PROG
  EXPECT_REJECT(c, lookup + "mov %r3, 16\ncall memcpy\n" + kReturn0, read_only_write);
  // Reading a read-only value is fine: it is the source here.
  EXPECT_ACCEPT(c, std::string(kInit32) + kLookup + "jeq %r0, 0, +5\nmov %r2, %r0\n" + fp_reg(1, -32) +
                       "mov %r3, 16\ncall memcpy\n" + kReturn0);
}

TEST(Verify, MemcmpReadsBothAndReturnsTheOrder) {
  Checker c;
  // r0 is -1, 0 or 1: the dereference of a larger r0 is dead code.
  const std::string cmp = copy16("memcmp", std::string(kInit32) + "stdw [%r10-16], 0\nstdw [%r10-8], 0\n", "16",
                                 "jsle %r0, 1, +1\nldxdw %r0, [%r0+0]\n" + std::string(kReturn0));
  EXPECT_ACCEPT(c, cmp);
  EXPECT_REJECT(c, copy16("memcmp", kInit32, "16", kReturn0), uninit_stack);  // fp-16 never written
}

TEST(Verify, BuiltinsOnPackets) {
  Checker c;
  const std::string check = std::string(kXdpHead) + "jgt %r4, %r3, +4\n";
  EXPECT_ACCEPT(c, check + fp_reg(1, -16) + "mov %r3, 14\ncall memcpy\n" + kReturn0, "xdp");
  EXPECT_REJECT(c, check + fp_reg(1, -16) + "mov %r3, 15\ncall memcpy\n" + kReturn0, packet_out_of_bounds,
                "xdp");
  EXPECT_ACCEPT(c, check + "mov %r1, %r2\nmov %r2, 0\nmov %r3, 14\ncall memset\n" + kReturn0, "xdp");
  // cgroup_skb may read the packet but not write it.
  const std::string skb = "ldxw %r2, [%r1+76]\nldxw %r3, [%r1+80]\nmov %r4, %r2\nadd %r4, 14\n"
                          "jgt %r4, %r3, +4\nmov %r1, %r2\nmov %r2, 0\nmov %r3, 14\ncall memset\n" +
                          std::string(kReturn0);
  EXPECT_REJECT(c, skb, read_only_write, "cgroup_skb");
}

// ---- Legacy packet loads ------------------------------------------------------------------

TEST(Verify, LegacyPacketLoads) {
  Checker c;
  EXPECT_ACCEPT(c, "mov %r6, %r1\nldabsb 0\nexit\n");
  EXPECT_REJECT(c, "ldabsb 0\nexit\n", uninit_register);
  EXPECT_REJECT(c, "mov %r6, %r10\nldabsb 0\nexit\n", legacy_packet_load);
  EXPECT_REJECT(c, "mov %r6, %r1\nldabsb 0\nexit\n", legacy_packet_load, "xdp");
}

// ---- BPF-to-BPF calls ----------------------------------------------------------------------

TEST(Verify, LocalCalls) {
  Checker c;
  const char* src =
      "mov %r1, 5\nmov %r6, 9\ncall local f\nadd %r0, %r6\nexit\n"
      "f:\nmov %r0, %r1\nexit\n";
  EXPECT_ACCEPT(c, src);
  EXPECT_REJECT(c, "mov %r1, 5\ncall local f\nmov %r0, %r1\nexit\nf:\nmov %r0, 0\nexit\n",
                uninit_register);
  // The callee may use the caller's stack through a pointer.
  EXPECT_ACCEPT(c,
                "mov %r1, %r10\nadd %r1, -8\ncall local f\nldxdw %r0, [%r10-8]\nexit\n"
                "f:\nstdw [%r1+0], 3\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, "call local f\nexit\nf:\nmov %r0, %r10\nexit\n", pointer_leak);
  c.options.privileged = false;
  EXPECT_REJECT(c, src, unprivileged_call);
}

TEST(Verify, CombinedStackDepth) {
  Checker c;
  EXPECT_ACCEPT(c, "stdw [%r10-256], 0\ncall local f\nexit\nf:\nstdw [%r10-256], 0\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, "stdw [%r10-264], 0\ncall local f\nexit\nf:\nstdw [%r10-256], 0\nmov %r0, 0\nexit\n",
                stack_out_of_bounds);
}

// ---- Atomics, alignment, comparisons, structure ------------------------------------------

TEST(Verify, Atomics) {
  Checker c;
  EXPECT_ACCEPT(c, "stdw [%r10-8], 1\nmov %r1, 2\nlock add [%r10-8], %r1\nldxdw %r0, [%r10-8]\nexit\n");
  EXPECT_REJECT(c, "mov %r1, 2\nlock add [%r10-8], %r1\nmov %r0, 0\nexit\n", uninit_stack);
  EXPECT_REJECT(c, "stdw [%r10-8], 1\nmov %r1, 2\nlock add32 [%r10-6], %r1\nmov %r0, 0\nexit\n",
                misaligned_access);
  EXPECT_REJECT(c, "mov %r2, 2\nlock add32 [%r1+0], %r2\nmov %r0, 0\nexit\n", invalid_dereference);
  // The fetch forms write the old value back into the source register.
  EXPECT_ACCEPT(c, "stdw [%r10-8], 1\nmov %r1, 2\nlock fetch add [%r10-8], %r1\nmov %r0, %r1\nexit\n");
}

// A fetch from a stack slot reads what a load of its size would (Linux 6.1
// check_atomic fills load_reg): from a spilled 0 the fetched value is 0, so
// `r5` (uninitialized) is never read. The slot itself becomes unknown.
TEST(Verify, AtomicFetchFromTheStackReadsTheSpilledValue) {
  Checker c;
  const std::string use = "jne %r1, 0, +2\nmov %r0, %r1\nexit\nmov %r0, %r5\nexit\n";
  const std::string zero = "mov %r0, 0\nstxdw [%r10-8], %r0\nmov %r1, 1\n";
  EXPECT_ACCEPT(c, zero + "lock fetch add [%r10-8], %r1\n" + use);
  EXPECT_ACCEPT(c, zero + "lock xchg [%r10-8], %r1\n" + use);
  // 32 bits of a spilled 1 << 32 are 0.
  EXPECT_ACCEPT(c, "lddw %r0, 0x100000000\nstxdw [%r10-8], %r0\nmov %r1, 1\nlock fetch add32 [%r10-8], %r1\n" + use);
  // cmpxchg fetches into r0.
  EXPECT_ACCEPT(c, zero + "lock cmpxchg [%r10-8], %r1\nmov %r1, %r0\n" + use);
  // An unknown spill, a nonzero one, and the slot after the first fetch.
  EXPECT_REJECT(c, "ldxw %r0, [%r1+0]\nstxdw [%r10-8], %r0\nmov %r1, 1\nlock fetch add [%r10-8], %r1\n" + use,
                uninit_register);
  EXPECT_REJECT(c, "lddw %r0, 0x100000001\nstxdw [%r10-8], %r0\nmov %r1, 1\nlock fetch add32 [%r10-8], %r1\n" + use,
                uninit_register);
  EXPECT_REJECT(c, zero + "lock fetch add [%r10-8], %r1\nmov %r1, 1\nlock fetch add [%r10-8], %r1\n" + use,
                uninit_register);
}

TEST(Verify, StrictAlignment) {
  Checker c;
  c.maps = {hash_map(8, 16)};
  const std::string src = std::string(kLookup) + "jeq %r0, 0, +1\nldxw %r0, [%r0+2]\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, src);
  c.options.strict_alignment = true;
  EXPECT_REJECT(c, src, misaligned_access);
}

TEST(Verify, PointerComparisons) {
  Checker c;
  const char* src = "mov %r0, 0\njeq %r1, %r10, +1\nmov %r0, 1\nexit\n";
  EXPECT_ACCEPT(c, src);
  c.options.privileged = false;
  EXPECT_REJECT(c, src, pointer_leak);
}

TEST(Verify, StructuralErrors) {
  Checker c;
  EXPECT_REJECT(c, "mov %r0, 0\nexit\nmov %r0, 1\nexit\n", unreachable_code);
  c.options.reject_unreachable = false;
  EXPECT_ACCEPT(c, "mov %r0, 0\nexit\nmov %r0, 1\nexit\n");
  EXPECT_REJECT(c, "call local f\nexit\nf:\ncall local f\nexit\n", recursion);
}

TEST(Verify, TailCallNeedsProgArray) {
  Checker c;
  MapDescriptor progs;
  progs.type = MapType::prog_array;
  progs.key_size = 4;
  progs.value_size = 4;
  progs.max_entries = 4;
  c.maps = {progs, hash_map(4, 4)};
  EXPECT_ACCEPT(c, "lddw %r2, map_fd 0\nmov %r3, 0\ncall 12\nmov %r0, 0\nexit\n");
  EXPECT_REJECT(c, "lddw %r2, map_fd 1\nmov %r3, 0\ncall 12\nmov %r0, 0\nexit\n", helper_argument);
  // A prog_array has no values to look up.
  EXPECT_REJECT(c, std::string(kLookup) + "mov %r0, 0\nexit\n", helper_argument);
}

TEST(Verify, UnsupportedHelper) {
  Checker c;
  // bpf_timer_set_callback (170) takes a struct bpf_timer, which keel does not model.
  EXPECT_REJECT(c, "mov %r1, 0\nmov %r2, 0\ncall 170\nmov %r0, 0\nexit\n", unsupported_helper, "sched_cls");
}

TEST(Verify, SpeculativePaths) {
  Checker c;
  // r2 = 1, so the branch to the out-of-bounds store is never taken...
  const char* src = "mov %r2, 1\njeq %r2, 0, +2\nmov %r0, 0\nexit\nstdw [%r10-520], 0\nmov %r0, 0\nexit\n";
  c.options.reject_unreachable = false;
  EXPECT_ACCEPT(c, src);
  // ...except speculatively, which unprivileged Linux also verifies.
  c.options.speculative_paths = true;
  EXPECT_REJECT(c, src, stack_out_of_bounds);
  // Unprivileged implies it, without the flag (ADR 0015).
  c.options.speculative_paths = false;
  c.options.privileged = false;
  EXPECT_REJECT(c, src, stack_out_of_bounds);
}

TEST(Verify, UnprivilegedPointerLimits) {
  Checker c;
  c.maps = {hash_map(8, 48)};
  const std::string one_past = std::string(kLookup) +
                               "jeq %r0, 0, +3\nadd %r0, 48\nsub %r0, 48\nldxb %r0, [%r0+0]\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, one_past);
  EXPECT_ACCEPT(c, "mov %r1, %r10\nadd %r1, 0\nstb [%r1-1], 42\nldxb %r0, [%r1-1]\nexit\n");
  c.options.privileged = false;
  EXPECT_REJECT(c, one_past, pointer_arithmetic);
  EXPECT_REJECT(c, "mov %r1, %r10\nadd %r1, 0\nstb [%r1-1], 42\nldxb %r0, [%r1-1]\nexit\n", pointer_arithmetic);
  EXPECT_ACCEPT(c, "mov %r1, %r10\nadd %r1, -8\nstdw [%r1+0], 42\nldxdw %r0, [%r1+0]\nexit\n");
}

// ---- Diagnostics, names ---------------------------------------------------------------------

TEST(Verify, ReasonNamesAndDescribe) {
  EXPECT_STREQ(reason_name(Reason::map_value_out_of_bounds), "map_value_out_of_bounds");
  EXPECT_STREQ(reason_name(Reason::out_of_memory), "out_of_memory");
  Checker c;
  c.run("mov %r0, %r3\nexit\n");
  EXPECT_EQ(c.text, "pc 0: r3 is read before it is written");
  c.run("stdw [%r10-520], 1\nmov %r0, 0\nexit\n");
  EXPECT_EQ(c.text, "pc 0: r10 is a stack pointer, access at offset -520 size 8 is outside the 512-byte frame");
  Verdict v;
  v.reason = Reason::uninit_register;
  v.pc = 12;
  v.detail.reg = 3;
  char small[8];
  const size_t need = describe(v, small, sizeof(small));
  EXPECT_EQ(std::string(small), "pc 12: ");
  EXPECT_GT(need, sizeof(small));
}

TEST(Verify, DescribeStateAtFailingPc) {
  Checker c;
  c.maps = {hash_map(8, 48)};
  const std::string src = std::string(kLookup) + "ldxw %r0, [%r0+0]\nmov %r0, 0\nexit\n";
  const Verdict v = c.run(src);
  ASSERT_EQ(v.reason, Reason::null_dereference);
  std::vector<uint8_t> memory(size_t{1} << 20);
  Arena arena(memory.data(), memory.size());
  char buffer[512];
  const size_t n = describe_state(c.program, linux_type("socket_filter"), c.options, arena, v.pc,
                                  buffer, sizeof(buffer));
  EXPECT_LT(n, sizeof(buffer));
  const std::string text = buffer;
  EXPECT_NE(text.find("r0=map_value_or_null(map 0)+0"), std::string::npos) << text;
  EXPECT_NE(text.find("r10=stack(fp0)+0"), std::string::npos) << text;
  EXPECT_NE(text.find("fp-8=spill:scalar(0)"), std::string::npos) << text;
  Arena arena2(memory.data(), memory.size());
  describe_state(c.program, linux_type("socket_filter"), c.options, arena2, 100, buffer, sizeof(buffer));
  EXPECT_STREQ(buffer, "unreached");
}

// ---- Constant runs (analysis/constants.h) ---------------------------------------------------

// describe_state() at `pc` of c's last program.
std::string state_at(Checker& c, uint32_t pc) {
  std::vector<uint8_t> memory(size_t{1} << 20);
  Arena arena(memory.data(), memory.size());
  char buffer[1024];
  describe_state(c.program, linux_type("socket_filter"), c.options, arena, pc, buffer, sizeof(buffer));
  return buffer;
}

TEST(Verify, FoldedConstantsAreSeenInsideTheRun) {
  // One run of foldable instructions: a state captured inside it (the run
  // stops there) holds the values folded so far, as full scalars.
  Checker c;
  ASSERT_TRUE(c.run("mov %r1, 5\nadd %r1, 3\nlsh %r1, 2\nmov32 %r2, -1\nxor %r1, %r2\nmov %r0, 0\nexit\n").ok())
      << c.text;
  EXPECT_NE(state_at(c, 2).find("r1=scalar(8)"), std::string::npos) << state_at(c, 2);
  EXPECT_NE(state_at(c, 3).find("r1=scalar(32)"), std::string::npos) << state_at(c, 3);
  const std::string end = state_at(c, 6);
  EXPECT_NE(end.find("r1=scalar(4294967263) r2=scalar(4294967295)"), std::string::npos) << end;
}

TEST(Verify, FoldedConstantsAreWrittenBackBeforeOtherInstructions) {
  Checker c;
  // The branch reads r1 = 8: the taken side (a load through a scalar) is
  // ruled out, so the program is safe only if the folded value is there.
  EXPECT_ACCEPT(c, "mov %r0, 0\nmov %r1, 1\nlsh %r1, 3\njne %r1, 8, +2\nmov %r0, 1\nexit\nldxw %r0, [%r0+0]\nexit\n");
  EXPECT_REJECT(c, "mov %r0, 0\nmov %r1, 1\nlsh %r1, 2\njne %r1, 8, +2\nmov %r0, 1\nexit\nldxw %r0, [%r0+0]\nexit\n",
                scalar_dereference);
  // A folded immediate replaces a pointer (r1, the context) with a scalar,
  // which an unprivileged program may return.
  c.options.privileged = false;
  EXPECT_ACCEPT(c, "mov %r1, 7\nadd %r1, 1\nmov %r0, %r1\nexit\n");
  EXPECT_REJECT(c, "add %r1, 1\nmov %r0, %r1\nexit\n", pointer_leak);
  // A fold writes a value of its own: r1 no longer shares r2's id, so the
  // comparison of r2 refines r2 only.
  c.options.privileged = true;
  ASSERT_TRUE(
      c.run("ldxw %r1, [%r1+0]\nmov %r2, %r1\nmov %r1, 3\nadd %r1, 1\nmov %r0, 0\njgt %r2, 10, +1\nmov %r0, 1\nexit\n")
          .ok())
      << c.text;
  const std::string state = state_at(c, 6);
  EXPECT_NE(state.find("r1=scalar(4) r2=scalar[0,10]"), std::string::npos) << state;
}

TEST(Verify, ShiftsAreCheckedBeforeFoldingUnderLinuxRules) {
  Checker c;
  EXPECT_ACCEPT(c, "mov %r0, 1\nlsh %r0, 63\nrsh %r0, 63\nexit\n");
  c.options.linux_rules = true;
  EXPECT_ACCEPT(c, "mov %r0, 1\nlsh %r0, 63\nrsh %r0, 63\nexit\n");
  EXPECT_REJECT(c, "mov %r0, 1\nrsh %r0, 64\nexit\n", unsupported_instruction);
  EXPECT_REJECT(c, "mov32 %r0, 1\nlsh32 %r0, 32\nexit\n", unsupported_instruction);
}

TEST(Verify, FoldedRunsReadTheRegisterWrittenLast) {
  // A run keeps the register it wrote last in a machine register, written
  // back only when another one is written (constants.h): repeated ops on it,
  // reads of it as the other operand or as both, and switching registers
  // and back must all see its latest value. r0: 5, 6, 7; r3 = 2 * 7 = 14;
  // r0 = 7 - 14 = -7; -14; then 32-bit -14 + 15 = 1 (+ 16 = 2 is out of
  // cgroup_skb's range).
  Checker c;
  const std::string run =
      "mov %r0, 5\nmov %r3, 2\nadd %r0, 1\nadd %r0, 1\nmul %r3, %r0\nsub %r0, %r3\nadd %r0, %r0\n";
  EXPECT_ACCEPT(c, run + "add32 %r0, 15\nexit\n", "cgroup_skb");
  EXPECT_REJECT(c, run + "add32 %r0, 16\nexit\n", bad_return_value, "cgroup_skb");
  ASSERT_TRUE(c.run(run + "add32 %r0, 15\nexit\n").ok()) << c.text;
  const std::string before_sub = state_at(c, 5);
  EXPECT_NE(before_sub.find("r0=scalar(7)"), std::string::npos) << before_sub;
  EXPECT_NE(before_sub.find("r3=scalar(14)"), std::string::npos) << before_sub;
  const std::string at_exit = state_at(c, 8);
  EXPECT_NE(at_exit.find("r0=scalar(1)"), std::string::npos) << at_exit;
  EXPECT_NE(at_exit.find("r3=scalar(14)"), std::string::npos) << at_exit;
}

// ---- Arena exhaustion and the cost bound ---------------------------------------------------

std::string straight_line(size_t n) {
  std::string s = "mov %r0, 0\n";
  for (size_t i = 0; i + 2 < n; ++i) s += "add %r0, " + std::to_string(i % 100) + "\n";
  return s + "exit\n";
}

TEST(Verify, ArenaExhaustionAtEverySize) {
  const std::string sources[] = {
      std::string(kLookup) +
          "jeq %r0, 0, +2\nldxw %r1, [%r0+0]\nstxw [%r10-16], %r1\nmov %r0, 0\nexit\n",
      // a loop, a call, spills in both frames
      "stxdw [%r10-8], %r1\nmov %r6, 0\nl:\nmov %r1, %r10\nadd %r1, -16\ncall local f\n"
      "add %r6, 1\njlt %r6, 4, l\nldxdw %r0, [%r10-16]\nexit\n"
      "f:\nstxdw [%r10-8], %r1\nstdw [%r1+0], 3\nmov %r0, 0\nexit\n",
  };
  std::vector<MapDescriptor> maps = {hash_map(8, 8)};
  VerifyOptions options;
  options.maps = maps.data();
  options.map_count = 1;
  std::vector<uint8_t> memory(size_t{1} << 17);
  for (const std::string& src : sources) {
    const std::vector<uint8_t> bytes = assemble_or_die(src);
    bool reached = false;
    for (size_t size = 0; size <= memory.size() && !reached; size += 8) {
      Arena arena(memory.data(), size);
      Program program;
      if (!decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, program).ok()) continue;
      const Verdict v = verify(program, linux_type("socket_filter"), options, arena);
      ASSERT_TRUE(v.ok() || v.reason == Reason::out_of_memory) << reason_name(v.reason) << "\n" << src;
      reached = v.ok();
    }
    EXPECT_TRUE(reached) << src;
  }
}

TEST(Verify, StraightLine1000In32KiB) {
  const std::vector<uint8_t> bytes = assemble_or_die(straight_line(1000));
  ASSERT_EQ(bytes.size(), 1000u * 8);
  std::vector<uint8_t> memory(32 * 1024);
  Arena arena(memory.data(), memory.size());
  Program program;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, program).ok());
  const Verdict v = verify(program, linux_type("socket_filter"), VerifyOptions{}, arena);
  EXPECT_TRUE(v.ok()) << reason_name(v.reason);
  std::printf("1000-insn straight line: arena peak %zu bytes\n", arena.peak());
  // Timing (informative here; the benchmark measures it properly).
  const auto start = std::chrono::steady_clock::now();
  constexpr int kRuns = 200;
  for (int i = 0; i < kRuns; ++i) {
    Arena a(memory.data(), memory.size());
    Program p;
    ASSERT_TRUE(decode(bytes.data(), bytes.size(), DecodeOptions{}, a, p).ok());
    ASSERT_TRUE(verify(p, linux_type("socket_filter"), VerifyOptions{}, a).ok());
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / kRuns;
  std::printf("1000-insn straight line: %.1f us per decode+verify\n", us);
}

struct Shape {
  const char* name;
  std::string source;
  size_t arena_bound;
};

std::string diamonds(size_t n) {
  std::string s = "mov %r0, 0\nldxw %r2, [%r1+0]\n";
  for (size_t i = 0; i < n; ++i) s += "jeq %r2, 0, +1\nadd %r0, 1\nadd %r0, 2\n";
  return s + "exit\n";
}

std::string nested_diamonds(size_t depth) {
  std::string s = "mov %r0, 0\nldxw %r2, [%r1+0]\n";
  for (size_t i = 0; i < depth; ++i) s += "jeq %r2, " + std::to_string(i) + ", +1\nadd %r0, 1\n";
  for (size_t i = 0; i < depth; ++i) s += "add %r0, 2\n";
  return s + "exit\n";
}

std::string nested_loops(size_t depth) {
  std::string s = "mov %r0, 0\n";
  for (size_t i = 0; i < depth; ++i) s += "mov %r" + std::to_string(i + 1) + ", 0\nl" + std::to_string(i) + ":\n";
  s += "add %r0, 1\n";
  for (size_t i = depth; i-- > 0;) {
    s += "add %r" + std::to_string(i + 1) + ", 1\njlt %r" + std::to_string(i + 1) + ", 10, l" + std::to_string(i) + "\n";
  }
  return s + "exit\n";
}

// A bound is only a bound while it counts: a wrapping counter (issue 11),
// a count past max_loop_insns (Linux 6.1 walks every iteration within its
// 1M-instruction budget), or a program past max_insns_bound is too_complex
// at the loop header or call that makes it so, never an accept with a
// saturated max_insns_executed.
TEST(Verify, CostPastItsLimitIsTooComplex) {
  Checker c;
  Verdict v = c.run("mov %r1, 0\nl:\nsub %r1, 1\njgt %r1, 5, l\nmov %r0, 0\nexit\n");
  ASSERT_EQ(v.reason, Reason::too_complex) << c.text;
  EXPECT_EQ(v.pc, 1u);
  EXPECT_EQ(v.detail.kind, kTooComplexLoopInsns);
  EXPECT_EQ(v.detail.max, INT64_MAX);
  EXPECT_EQ(v.max_insns_executed, 0u);
  char text[200];
  describe(v, text, sizeof(text));
  EXPECT_STREQ(text, "pc 1: the loop headed here may execute more instructions than 64 bits can count per entry, "
                     "more than the loop limit of 1000000");
  // 2^20 trips of a 2-instruction body: past 1M. 2^18 trips fit.
  const std::string counted = "mov %r0, 0\nl:\nadd %r0, 1\njlt %r0, N, l\nexit\n";
  auto with = [&](const char* n) {
    std::string s = counted;
    s.replace(s.find('N'), 1, n);
    return s;
  };
  v = c.run(with("1048576"));
  ASSERT_EQ(v.reason, Reason::too_complex) << c.text;
  EXPECT_EQ(v.detail.max, 2 * 1048576);  // (trips - 1) x 2 round the loop + 2 in the run that leaves
  EXPECT_ACCEPT(c, with("262144"));
  // The limit is the embedder's.
  c.options.max_loop_insns = 100;
  EXPECT_REJECT(c, with("1000"), too_complex);
  c.options.max_loop_insns = 1'000'000;
  // A straight line past max_insns_bound: at its last instruction.
  c.options.max_insns_bound = 3;
  v = c.run("mov %r0, 0\nadd %r0, 1\nadd %r0, 2\nexit\n");
  ASSERT_EQ(v.reason, Reason::too_complex);
  EXPECT_EQ(v.pc, 3u);
  EXPECT_EQ(v.detail.kind, kTooComplexInsns);
  EXPECT_EQ(v.detail.max, 4);
  // Calls add up: two calls of a 2000-instruction loop pass 3000 at the second call.
  c.options.max_insns_bound = 3000;
  const std::string callee = "f:\nmov %r0, 0\nl:\nadd %r0, 1\njlt %r0, 1000, l\nexit\n";
  v = c.run("call local f\ncall local f\nmov %r0, 0\nexit\n" + callee);
  ASSERT_EQ(v.reason, Reason::too_complex) << c.text;
  EXPECT_EQ(v.pc, 1u);
  c.options.max_insns_bound = 5000;
  EXPECT_ACCEPT(c, "call local f\ncall local f\nmov %r0, 0\nexit\n" + callee);
  // Nested loops multiply: five levels of 10 fit in 1M, six do not, and
  // the outermost loop (header at pc 2) is where the product passes it.
  c.options.max_insns_bound = uint64_t{1} << 43;
  EXPECT_ACCEPT(c, nested_loops(5));
  v = c.run(nested_loops(6));
  ASSERT_EQ(v.reason, Reason::too_complex) << c.text;
  EXPECT_EQ(v.pc, 2u);
  EXPECT_EQ(v.detail.kind, kTooComplexLoopInsns);
  EXPECT_GT(v.detail.max, 1'000'000);
}

// A loop headed by a function's first block is entered by the calls: the
// count comes from what the callers pass (Linux 6.1 loops1 "taken loop with
// back jump to 1st insn").
TEST(Verify, LoopAtFunctionEntryTakesTheCallersValues) {
  Checker c;
  const std::string callee = "f:\nadd %r2, %r1\nsub %r1, 1\njne %r1, 0, f\nmov %r0, %r2\nexit\n";
  const Verdict v = c.run("mov %r1, 10\nmov %r2, 0\ncall local f\nexit\n" + callee);
  ASSERT_TRUE(v.ok()) << c.text;
  EXPECT_EQ(v.max_insns_executed, 4u + 10 * 3 + 2);
  // With a count the caller does not know, the loop may run ~2^64 times.
  EXPECT_REJECT(c, "call 7\nmov %r1, %r0\nmov %r2, 0\ncall local f\nexit\n" + callee, too_complex, "tracepoint");
}

TEST(Verify, NestedLoopsAreBounded) {
  Checker c;
  const Verdict v = c.run(nested_loops(3));
  ASSERT_TRUE(v.ok()) << c.text << "\n" << nested_loops(3);
  EXPECT_GE(v.max_insns_executed, 1000u);  // the innermost body runs 10^3 times
  EXPECT_REJECT(c, "mov %r0, 0\nl:\nadd %r0, 1\nja l\n", unbounded_loop);
}

// The first iteration is analysed apart from the later ones (fixpoint.cc
// join_at): r0 is written by the call before the back edge, and the exit
// edge needs r6 > 10000, which the first run (r6 = 1) never has (Linux
// 6.1's loops1 "bounded loop that jumps out rather than in").
TEST(Verify, FirstIterationIsPeeled) {
  Checker c;
  const std::string loop = "mov %r6, 0\nl:\nadd %r6, 1\njgt %r6, LIMIT, out\ncall 7\nja l\nout:\nexit\n";
  auto with = [&](const char* limit) {
    std::string s = loop;
    s.replace(s.find("LIMIT"), 5, limit);
    return s;
  };
  EXPECT_ACCEPT(c, with("10000"), "tracepoint");
  // The first run may leave (r6 = 1 > 0) before r0 is written.
  EXPECT_REJECT(c, with("0"), uninit_register, "tracepoint");
  // Facts at a peeled header keep the first run: it takes the back edge
  // (r2 = 0), the second does not, so the bound counts two runs:
  // 2 + 2 x (add, mov, mov, jeq) + exit.
  const Verdict v = c.run("mov %r0, 0\nmov %r1, 0\nl:\nadd %r0, 1\nmov %r2, %r1\nmov %r1, 1\njeq %r2, 0, l\nexit\n");
  ASSERT_TRUE(v.ok()) << c.text;
  EXPECT_EQ(v.max_insns_executed, 11u);
}

// One block ending in exit: verify() counts its slots itself rather than
// running bound_loops (a lddw is one instruction in two slots); a block
// that jumps to itself is still a loop for bound_loops.
TEST(Verify, OneBlockCostIsItsInstructionCount) {
  Checker c;
  Verdict v = c.run("mov %r0, 0\nadd %r0, 1\nadd %r0, 2\nexit\n");
  ASSERT_TRUE(v.ok()) << c.text;
  EXPECT_EQ(v.max_insns_executed, 4u);
  v = c.run("lddw %r1, 5\nmov %r0, 0\nexit\n");
  ASSERT_TRUE(v.ok()) << c.text;
  EXPECT_EQ(v.max_insns_executed, 3u);
  EXPECT_REJECT(c, "l:\nmov %r0, 0\nja l\n", unbounded_loop);
}

TEST(Verify, CostBoundShapes) {
  const Shape shapes[] = {
      {"nested loops depth 4", nested_loops(4), 64 * 1024},
      {"64k straight line", straight_line(65536), size_t{3} << 19},  // 1.5 MiB
      {"10k diamonds", diamonds(10000), size_t{3} << 20},
      {"nested diamonds 12", nested_diamonds(12), 64 * 1024},
  };
  for (const Shape& shape : shapes) {
    const std::vector<uint8_t> bytes = assemble_or_die(shape.source);
    std::vector<uint8_t> memory(shape.arena_bound);
    Arena arena(memory.data(), memory.size());
    Program program;
    ASSERT_TRUE(decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, program).ok()) << shape.name;
    const Verdict v = verify(program, linux_type("socket_filter"), VerifyOptions{}, arena);
    EXPECT_TRUE(v.ok()) << shape.name << ": " << reason_name(v.reason);
    std::printf("%s: %zu slots, arena peak %zu bytes\n", shape.name, bytes.size() / 8, arena.peak());
  }
}

// A loop that steps a pointer: the loop head sees a new fixed offset on every
// visit. Widening must keep one base so the fixpoint is reached in a few
// visits (it once took 2^20 visits and seconds; found by fuzz_verify,
// verifier/fuzz/regressions/fuzz_verify/slow-pointer-loop). The work bound
// is checked, not the time: 64 block visits must be enough for a verdict.
TEST(VerifyCost, PointerSteppingLoopReachesItsFixpointQuickly) {
  Checker c;
  c.options.max_iterations = 64;
  const char* ctx_loop = "mov %r0, 7\nloop:\nadd %r1, -1\njne %r1, 2, loop\nexit\n";
  EXPECT_REJECT(c, ctx_loop, unbounded_loop);
  // The same shape on a stack pointer, and a map value pointer stepped
  // forward under a counter (bounded: accepted or rejected, never too_complex).
  EXPECT_REJECT(c, "mov %r0, 0\nmov %r1, %r10\nloop:\nadd %r1, -8\njne %r1, 0, loop\nexit\n",
                unbounded_loop);
  const Verdict v = c.run(
      "mov %r1, %r10\nadd %r1, -64\nmov %r2, 0\nloop:\nadd %r1, 8\nadd %r2, 1\n"
      "jlt %r2, 8, loop\nmov %r0, 0\nexit\n");
  EXPECT_NE(v.reason, Reason::too_complex) << c.text;
}

// ---- Soundness cross-check with the guarded interpreter ----------------------------------

uint64_t address_of(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

TEST(Verify, AcceptedProgramsDoNotTrap) {
  const char* programs[] = {
      "ldxw %r0, [%r1+0]\nexit\n",
      "stdw [%r10-8], 7\nldxdw %r0, [%r10-8]\nexit\n",
      "stxdw [%r10-8], %r1\nldxdw %r2, [%r10-8]\nldxw %r0, [%r2+4]\nexit\n",
      "stdw [%r10-16], 0\nstdw [%r10-8], 0\nldxw %r2, [%r1+0]\nand %r2, 8\n"
      "mov %r3, %r10\nadd %r3, -16\nadd %r3, %r2\nldxdw %r0, [%r3]\nexit\n",
      "mov %r1, %r10\nadd %r1, -8\ncall local f\nldxdw %r0, [%r10-8]\nexit\n"
      "f:\nstdw [%r1+0], 3\nmov %r0, 0\nexit\n",
      // Builtins with a size from the context (ADR 0011).
      "mov %r6, %r1\nldxw %r3, [%r6+0]\nand %r3, 15\nmov %r1, %r10\nadd %r1, -16\nmov %r2, 0\ncall memset\n"
      "stdw [%r10-32], 1\nstdw [%r10-24], 2\nldxw %r3, [%r6+0]\nand %r3, 16\nmov %r1, %r10\n"
      "add %r1, -16\nmov %r2, %r10\nadd %r2, -32\ncall memcpy\nmov %r0, 0\nexit\n",
  };
  std::vector<uint8_t> ctx(192, 0);
  for (uint32_t len : {0u, 7u, 8u, 200u}) {
    std::memcpy(ctx.data(), &len, 4);
    for (const char* src : programs) {
      Checker c;
      ASSERT_TRUE(c.run(src).ok()) << c.text << "\n" << src;
      Region region{address_of(ctx.data()), ctx.size(), true};
      RunOptions options;
      options.mode = RunMode::guarded;
      options.regions = &region;
      options.region_count = 1;
      RunStack stack{};
      const RunResult r = keel::run(c.program, address_of(ctx.data()), 0, options, stack);
      EXPECT_EQ(r.status, RunStatus::ok) << run_status_name(r.status) << " at " << r.pc << "\n" << src;
    }
  }
}

}  // namespace
}  // namespace keel

namespace keel {
namespace {

// ---- bpf_conformance programs under the conformance program type -------------------------

std::string section(const std::string& text, const std::string& name) {
  const std::string marker = "-- " + name + "\n";
  size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  at += marker.size();
  const size_t end = text.find("\n-- ", at - 1);
  return text.substr(at, end == std::string::npos ? std::string::npos : end + 1 - at);
}

size_t hex_byte_count(const std::string& mem) {
  size_t n = 0;
  for (size_t i = 0; i + 1 < mem.size(); ++i) {
    if (std::isxdigit(static_cast<unsigned char>(mem[i])) && std::isxdigit(static_cast<unsigned char>(mem[i + 1]))) {
      ++n;
      ++i;
    }
  }
  return n;
}

TEST(Verify, ConformancePrograms) {
  const std::string dir = std::string(KEEL_CORPUS_DIR) + "/bpf_conformance/tests";
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      const std::string name = entry->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".data") files.push_back(name);
    }
    closedir(d);
  }
  if (files.empty()) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::strcmp(ci, "true") == 0) FAIL() << "corpus not found: " << dir;
    GTEST_SKIP() << "skipped: corpus not found";
  }
  static const HelperProto kAnything = [] {
    HelperProto p;
    p.name = "conformance_helper";
    p.args[0] = ArgKind::anything;  // the test runner's helpers take r1
    return p;
  }();
  const HelperSlot helpers[] = {{0, &kAnything, HelperGate::anyone}, {1, &kAnything, HelperGate::anyone},
                                {2, &kAnything, HelperGate::anyone}, {3, &kAnything, HelperGate::anyone},
                                {4, &kAnything, HelperGate::anyone}, {5, &kAnything, HelperGate::anyone}};
  size_t accepted = 0;
  std::vector<std::string> rejected;
  for (const std::string& name : files) {
    std::ifstream in(dir + "/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    if (text.find("-- error") != std::string::npos) continue;
    const std::string source = section(text, "asm");
    std::vector<uint8_t> bytes((source.size() + 2) * 16);
    const AsmResult a = assemble(source.data(), source.size(), bytes.data(), bytes.size() / 8);
    if (!a.ok()) continue;  // the assembler's own tests cover its syntax
    bytes.resize(a.slots * 8);
    CtxField field;
    const ProgramType type = make_conformance_type(static_cast<uint32_t>(hex_byte_count(section(text, "mem"))),
                                                   helpers, 6, field);
    std::vector<uint8_t> memory(size_t{4} << 20);
    Arena arena(memory.data(), memory.size());
    Program program;
    if (!decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, program).ok()) continue;
    const Verdict v = verify(program, type, VerifyOptions{}, arena);
    if (v.ok()) {
      ++accepted;
    } else {
      char buffer[256];
      describe(v, buffer, sizeof(buffer));
      rejected.push_back(name + ": " + buffer);
    }
  }
  for (const std::string& r : rejected) std::printf("conformance rejected: %s\n", r.c_str());
  std::printf("conformance: %zu accepted, %zu rejected\n", accepted, rejected.size());
  // FIXME: loops need loop_bounds (being written); until then the looping programs are rejected.
  EXPECT_LE(rejected.size(), 40u);
}

}  // namespace
}  // namespace keel
