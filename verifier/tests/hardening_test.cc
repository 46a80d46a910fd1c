// Unprivileged programs and speculative execution (ADR 0015): what verify()
// records (analysis/transfer.cc, memory.cc, verify.cc) and what run() does
// with it (interp/interp.cc, support/speculation.h). The programs follow
// the Spectre v1 and v4 cases of Linux 6.1's selftests (verifier/
// value_ptr_arith.c, bounds.c, "speculative store bypass" in spill_fill.c)
// and the published bypasses they guard against.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/text.h"
#include "support/speculation.h"
#include "verify_checker.h"

namespace keel {
namespace {

using testing::Checker;
using testing::map_of;

// r0 = a 16-byte array value, NULL-checked; then r2 from the context,
// checked against 15 (the bounds check a mispredicted branch bypasses).
const std::string kValueAndIndex =
    "mov %r6, %r1\n"
    "stdw [%r10-8], 0\n"
    "mov %r2, %r10\nadd %r2, -8\n"
    "lddw %r1, map_fd 0\n"
    "call 1\n"
    "jeq %r0, 0, out\n"
    "ldxw %r2, [%r6+0]\n"  // skb->len: unknown
    "jgt %r2, 15, out\n";
const std::string kOut = "out:\nmov %r0, 0\nexit\n";

// The pc of the first instruction spelled `text` (lddw counted as two slots).
uint32_t pc_of(const std::string& program, const std::string& text) {
  uint32_t pc = 0;
  size_t start = 0;
  while (start < program.size()) {
    size_t end = program.find('\n', start);
    if (end == std::string::npos) end = program.size();
    const std::string line = program.substr(start, end - start);
    if (line == text) return pc;
    if (!line.empty() && line.back() != ':') pc += line.rfind("lddw", 0) == 0 ? 2 : 1;
    start = end + 1;
  }
  ADD_FAILURE() << text << " not in the program";
  return 0;
}

// Verifies unprivileged with a guard table of the program's size.
struct Hardened {
  Checker c;
  std::vector<SpecGuard> guards;
  Verdict verdict;

  explicit Hardened(const std::string& source, const char* type = "socket_filter") {
    c.maps = {map_of(MapType::array, 4, 16, 4)};
    c.options.privileged = false;
    guards.assign(4096, SpecGuard{});  // more than any program here
    c.options.spec_guards = guards.data();
    verdict = c.run(source, type);
  }
};

TEST(Hardening, PointerPlusCheckedIndexIsMasked) {
  const std::string src = kValueAndIndex + "add %r0, %r2\nldxb %r0, [%r0+0]\nexit\n" + kOut;
  Hardened h(src);
  ASSERT_TRUE(h.verdict.ok()) << h.c.text;
  const SpecGuard& g = h.guards[pc_of(src, "add %r0, %r2")];
  EXPECT_EQ(g.flags & (kGuardMaskSrc | kGuardMaskDst), kGuardMaskSrc);
  EXPECT_EQ(g.min, 0);
  EXPECT_EQ(g.max, 15);
  EXPECT_EQ(g.target, 0);
  EXPECT_GE(h.verdict.spec_guards, 1u);
  // The same program privileged needs nothing, and reports nothing.
  Checker c;
  c.maps = {map_of(MapType::array, 4, 16, 4)};
  const Verdict v = c.run(src);
  ASSERT_TRUE(v.ok()) << c.text;
  EXPECT_EQ(v.spec_guards, 0u);
  // Verdicts do not depend on the table: without one, the same verdict and count.
  Checker bare;
  bare.maps = {map_of(MapType::array, 4, 16, 4)};
  bare.options.privileged = false;
  const Verdict w = bare.run(src);
  EXPECT_TRUE(w.ok()) << bare.text;
  EXPECT_EQ(w.spec_guards, h.verdict.spec_guards);
}

TEST(Hardening, ScalarPlusPointerMasksTheDestination) {
  // r2 += r0: the scalar is in dst (Linux's BPF_ALU_SANITIZE_DST).
  const std::string src = kValueAndIndex + "add %r2, %r0\nldxb %r0, [%r2+0]\nexit\n" + kOut;
  Hardened h(src);
  ASSERT_TRUE(h.verdict.ok()) << h.c.text;
  const SpecGuard& g = h.guards[pc_of(src, "add %r2, %r0")];
  EXPECT_EQ(g.flags & (kGuardMaskSrc | kGuardMaskDst), kGuardMaskDst);
  EXPECT_EQ(g.max, 15);
}

TEST(Hardening, ConstantRegisterIsMaskedToItsValue) {
  // A register the verifier knows to be 8 may hold anything under
  // misprediction; Linux rewrites the add to an immediate, keel masks it.
  const std::string src = kValueAndIndex + "mov %r3, 8\nadd %r0, %r3\nldxb %r0, [%r0+0]\nexit\n" + kOut;
  Hardened h(src);
  ASSERT_TRUE(h.verdict.ok()) << h.c.text;
  const SpecGuard& g = h.guards[pc_of(src, "add %r0, %r3")];
  EXPECT_EQ(g.flags & kGuardMaskSrc, kGuardMaskSrc);
  EXPECT_EQ(g.min, 8);
  EXPECT_EQ(g.max, 8);
  EXPECT_EQ(g.target, 8);
  // An immediate cannot be mispredicted: no mask.
  const std::string imm = kValueAndIndex + "add %r0, 8\nldxb %r0, [%r0+0]\nexit\n" + kOut;
  Hardened i(imm);
  ASSERT_TRUE(i.verdict.ok()) << i.c.text;
  EXPECT_EQ(i.guards[pc_of(imm, "add %r0, 8")].flags, 0);
}

TEST(Hardening, LinuxRefusalsForUnprivilegedPointerArithmetic) {
  // "R0 has unknown scalar with mixed signed bounds": r2 in [-4, 4].
  Hardened mixed(kValueAndIndex + "add %r2, -4\nadd %r0, 4\nadd %r0, %r2\nldxb %r0, [%r0+0]\nexit\n" + kOut);
  EXPECT_EQ(mixed.verdict.reason, Reason::pointer_arithmetic) << mixed.c.text;
  // "R1 has pointer with unsupported alu operation": only stack and map
  // value pointers take a register operand (retrieve_ptr_limit).
  Hardened ctx("mov %r2, 4\nadd %r1, %r2\nldxw %r0, [%r1+0]\nexit\n");
  EXPECT_EQ(ctx.verdict.reason, Reason::pointer_arithmetic) << ctx.c.text;
  Hardened ctx_imm("add %r1, 4\nldxw %r0, [%r1-4]\nexit\n");
  EXPECT_EQ(ctx_imm.verdict.reason, Reason::ctx_bad_access) << ctx_imm.c.text;  // an immediate is not refused for the add
  // A stack pointer plus a constant register: masked like a map value.
  const std::string stack = "mov %r2, -8\nmov %r1, %r10\nadd %r1, %r2\nstdw [%r1+0], 1\nldxdw %r0, [%r1+0]\nexit\n";
  Hardened st(stack);
  ASSERT_TRUE(st.verdict.ok()) << st.c.text;
  EXPECT_EQ(st.guards[pc_of(stack, "add %r1, %r2")].target, -8);
}

TEST(Hardening, StoresThatNeedABarrier) {
  // Spectre v4: a store a later load may speculatively bypass, reading what
  // the slot held before. A pointer spilled, a slot written for the first
  // time (it held another program's bytes), and a spill overwritten need a
  // barrier; data replacing data does not (Linux sanitize_stack_spill).
  // keel counts any spilled register, also a scalar an 8-byte immediate
  // store left, which Linux 6.1 keeps as plain data: a barrier more, never
  // one less.
  const std::string src =
      "stw [%r10-8], 1\n"       // first write: barrier
      "stw [%r10-8], 2\n"       // data over data: none
      "stxdw [%r10-16], %r10\n"  // a pointer: barrier
      "stdw [%r10-16], 0\n"     // over a spilled pointer: barrier
      "ldxw %r0, [%r10-8]\nexit\n";
  Hardened h(src);
  ASSERT_TRUE(h.verdict.ok()) << h.c.text;
  EXPECT_EQ(h.guards[0].flags, kGuardBarrierAfter);
  EXPECT_EQ(h.guards[1].flags, 0);
  EXPECT_EQ(h.guards[2].flags, kGuardBarrierAfter);
  EXPECT_EQ(h.guards[3].flags, kGuardBarrierAfter);
  EXPECT_EQ(h.verdict.spec_guards, 3u);
}

TEST(Hardening, ClampIsExactInsideAndTargetOutside) {
  EXPECT_EQ(clamp_speculative(5, 0, 15, 0), 5u);
  EXPECT_EQ(clamp_speculative(0, 0, 15, 0), 0u);
  EXPECT_EQ(clamp_speculative(15, 0, 15, 0), 15u);
  EXPECT_EQ(clamp_speculative(16, 0, 15, 3), 3u);
  EXPECT_EQ(clamp_speculative(UINT64_MAX, 0, 15, 3), 3u);  // -1 is below 0
  EXPECT_EQ(clamp_speculative(static_cast<uint64_t>(-8), -16, -1, -16), static_cast<uint64_t>(-8));
  EXPECT_EQ(clamp_speculative(0, -16, -1, -16), static_cast<uint64_t>(-16));
  EXPECT_EQ(clamp_speculative(uint64_t{1} << 63, INT64_MIN, INT64_MAX, 0), uint64_t{1} << 63);
  speculation_barrier();  // links and runs on this ISA
}

// run() applies a table: an operand outside its range becomes the target,
// one inside is untouched; without a table nothing changes.
TEST(Hardening, RunAppliesTheTable) {
  const std::vector<uint8_t> bytes = testing::assemble_or_die("mov %r0, %r1\nadd %r0, %r2\nstdw [%r10-8], 1\nexit\n");
  std::vector<uint8_t> memory(1 << 16);
  Arena arena(memory.data(), memory.size());
  Program program;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, program).ok());
  std::vector<SpecGuard> guards(program.count);
  guards[1] = SpecGuard{0, 7, 2, kGuardMaskSrc};
  guards[2].flags = kGuardBarrierAfter;
  RunStack stack;
  for (const RunMode mode : {RunMode::fast, RunMode::guarded}) {
    RunOptions options;
    options.mode = mode;
    EXPECT_EQ(run(program, 100, 1000, options, stack).r0, 1100u);
    options.spec_guards = guards.data();
    EXPECT_EQ(run(program, 100, 5, options, stack).r0, 105u);
    EXPECT_EQ(run(program, 100, 1000, options, stack).r0, 102u);
    EXPECT_EQ(run(program, 100, static_cast<uint64_t>(-1), options, stack).r0, 102u);
  }
}

// Verified, then run hardened and not: the same results for every input the
// program really gets (the masks never touch an architectural value).
TEST(Hardening, MasksNeverChangeArchitecturalResults) {
  const std::string src = kValueAndIndex + "mov %r3, %r0\nadd %r3, %r2\nldxb %r0, [%r3+0]\nexit\n" + kOut;
  Hardened h(src);
  ASSERT_TRUE(h.verdict.ok()) << h.c.text;
  ASSERT_GE(h.verdict.spec_guards, 1u);
  // The interpreter has no maps: the same program with the map reference as
  // a plain constant (same slots), whose lookup helper returns the value.
  std::string runnable = src;
  runnable.replace(runnable.find("map_fd 0"), 8, "0");
  std::vector<uint8_t> memory(1 << 16);
  Arena arena(memory.data(), memory.size());
  Program program;
  const std::vector<uint8_t> bytes = testing::assemble_or_die(runnable);
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, program).ok());
  ASSERT_EQ(program.count, h.c.program.count);
  // The map lookup returns a 16-byte value; the context's first word is the index.
  static uint8_t value[16];
  for (int i = 0; i < 16; ++i) value[i] = static_cast<uint8_t>(0xa0 + i);
  static HelperFn fns[2] = {nullptr, [](HelperCall&) -> uint64_t { return reinterpret_cast<uintptr_t>(value); }};
  HelperTable helpers{fns, 2, nullptr};
  RunStack stack;
  for (uint32_t index = 0; index < 40; ++index) {
    uint8_t ctx[256] = {};
    ctx[0] = static_cast<uint8_t>(index);
    RunOptions plain;
    plain.helpers = &helpers;
    RunOptions hardened = plain;
    hardened.spec_guards = h.guards.data();
    const RunResult a = run(program, reinterpret_cast<uintptr_t>(ctx), 0, plain, stack);
    const RunResult b = run(program, reinterpret_cast<uintptr_t>(ctx), 0, hardened, stack);
    ASSERT_EQ(a.status, RunStatus::ok);
    ASSERT_EQ(b.status, RunStatus::ok);
    EXPECT_EQ(a.r0, b.r0) << "index " << index;
    EXPECT_EQ(a.r0, index <= 15 ? 0xa0u + index : 0u);
  }
}

}  // namespace
}  // namespace keel
