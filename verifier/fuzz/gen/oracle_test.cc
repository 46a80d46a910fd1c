// The oracle must be able to fail: programs the verifier rejects (or never
// sees), handed to run_accepted() as if accepted, give the finding their
// fault is, and sound accepted programs give none.
#include "oracle.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "keel/decode.h"
#include "keel/platform_linux.h"
#include "keel/text.h"

namespace keel::fuzzgen {
namespace {

std::vector<uint8_t> assemble_text(const std::string& text) {
  std::vector<uint8_t> bytes(8 * 256);
  const AsmResult r = assemble(text.data(), text.size(), bytes.data(), 256);
  EXPECT_EQ(r.error, AsmError::ok) << text;
  bytes.resize(8 * r.slots);
  return bytes;
}

const ProgramType& type_named(const char* name) {
  const ProgramType* type = find_program_type(linux_platform(), name);
  EXPECT_NE(type, nullptr);
  return *type;
}

struct Decoded {
  std::vector<uint8_t> memory = std::vector<uint8_t>(1u << 16);
  Program program;
};

void decode_into(const std::vector<uint8_t>& bytes, Decoded& d) {
  Arena arena(d.memory.data(), d.memory.size());
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, d.program).ok());
}

// A verdict keel never gave: "accepted, at most `bound` instructions".
Verdict accepted(uint64_t bound) {
  Verdict v;
  v.max_insns_executed = bound;
  return v;
}

// What keel itself says about `text`.
Verdict keel_verdict(const std::string& text, const char* type, bool privileged = true) {
  const std::vector<uint8_t> bytes = assemble_text(text);
  std::vector<uint8_t> memory(8u << 20);
  Decoded d;
  decode_into(bytes, d);
  Arena arena(memory.data(), memory.size());
  return verify(d.program, type_named(type), verify_options(privileged), arena);
}

Finding bypass(const std::string& text, const char* type, uint64_t bound, bool unprivileged = false) {
  Decoded d;
  decode_into(assemble_text(text), d);
  return run_accepted(d.program, type_named(type), accepted(bound), 7, 4, unprivileged);
}

// keel rejects `text` for `why`; handed to the oracle as accepted (with a
// bound of `bound` instructions) it gives a finding of `kind`, returned.
Finding rejected_yet_found(const std::string& text, const char* type, Reason why, uint64_t bound,
                           FindingKind kind) {
  EXPECT_EQ(keel_verdict(text, type).reason, why) << text;
  const Finding f = bypass(text, type, bound);
  EXPECT_EQ(f.kind, kind) << f.message;
  return f;
}

TEST(Oracle, ReportsAnOutOfBoundsLoadAsATrap) {
  // xdp_md is 24 bytes: offset 4096 is no memory of the program's.
  const Finding f =
      rejected_yet_found("ldxdw %r0, [%r1+4096]\nexit\n", "xdp", Reason::ctx_bad_access, 2, FindingKind::trap);
  EXPECT_EQ(f.pc, 0u);
  EXPECT_NE(f.message.find("out_of_bounds"), std::string::npos) << f.message;
}

TEST(Oracle, ReportsAStoreIntoTheReadOnlyPacketOfASocketFilterContext) {
  // __sk_buff.len (offset 0) is read-only: a write traps.
  const Finding f = bypass("stw [%r1+0], 1\nmov %r0, 0\nexit\n", "socket_filter", 3);
  EXPECT_EQ(f.kind, FindingKind::trap) << f.message;
}

TEST(Oracle, ReportsARunLongerThanTheBound) {
  const std::string text = "mov %r0, 0\nmov %r0, 1\nexit\n";
  EXPECT_TRUE(bypass(text, "xdp", 3).kind == FindingKind::none);
  const Finding f = bypass(text, "xdp", 2);
  EXPECT_EQ(f.kind, FindingKind::budget_overrun) << f.message;
  EXPECT_EQ(f.value, 2u);
}

TEST(Oracle, ReportsASaturatedBound) {
  EXPECT_EQ(bypass("mov %r0, 0\nexit\n", "xdp", UINT64_MAX).kind, FindingKind::saturated_bound);
}

TEST(Oracle, LeavesBoundsAboveTheCapUnjudged) {
  // 2^17 iterations: longer than kBudgetCap, so only traps count.
  const std::string loop = "mov %r1, 0\nloop: add %r1, 1\njlt %r1, 131072, loop\nmov %r0, 0\nexit\n";
  EXPECT_EQ(bypass(loop, "xdp", kBudgetCap + 1).kind, FindingKind::none);
  EXPECT_EQ(bypass(loop, "xdp", kBudgetCap).kind, FindingKind::budget_overrun);
}

TEST(Oracle, ReportsAnOutcomeThatDependsOnUnwrittenStack) {
  rejected_yet_found("ldxdw %r0, [%r10-8]\nexit\n", "socket_filter", Reason::uninit_stack, 2,
                     FindingKind::uninit_read);
}

TEST(Oracle, ReportsAHelperThatReadsNeverWrittenStack) {
  // bpf_check_mtu reads *mtu_len before it writes it (issue 11 item 2): an
  // unwritten mtu_len changes what the helpers return.
  const std::string text = "mov %r1, %r1\nmov %r2, 0\nmov %r3, %r10\nadd %r3, -8\nmov %r4, 0\nmov %r5, 0\n"
                           "call 163\nexit\n";
  rejected_yet_found(text, "xdp", Reason::uninit_stack, 8, FindingKind::uninit_read);
  EXPECT_EQ(bypass("stw [%r10-8], 1500\n" + text, "xdp", 9).kind, FindingKind::none);
}

TEST(Oracle, ReportsAHelperArgumentOutsideItsPrototype) {
  // bpf_map_lookup_elem with a scalar where the map must be.
  const std::string text = "mov %r1, 5\nmov %r2, %r10\nadd %r2, -8\nstdw [%r10-8], 0\ncall 1\nmov %r0, 0\nexit\n";
  const Finding f = rejected_yet_found(text, "xdp", Reason::helper_argument, 7, FindingKind::helper_argument);
  EXPECT_EQ(f.pc, 4u);
}

TEST(Oracle, ReportsAnAddressAnUnprivilegedProgramLetsOut) {
  // The frame pointer returned, or stored into __sk_buff.cb[0..1].
  const std::string returned = "mov %r0, %r10\nexit\n";
  EXPECT_EQ(keel_verdict(returned, "socket_filter", false).reason, Reason::pointer_leak);
  EXPECT_EQ(bypass(returned, "socket_filter", 2, true).kind, FindingKind::pointer_leak);
  EXPECT_EQ(bypass(returned, "socket_filter", 2, false).kind, FindingKind::none);  // privileged may
  const std::string stored = "stxdw [%r1+48], %r10\nmov %r0, 0\nexit\n";
  const Finding f = bypass(stored, "socket_filter", 3, true);
  EXPECT_EQ(f.kind, FindingKind::pointer_leak) << f.message;
  // A scalar stored there is no leak.
  EXPECT_EQ(bypass("stdw [%r1+48], 7\nmov %r0, 0\nexit\n", "socket_filter", 3, true).kind, FindingKind::none);
}

TEST(Oracle, ConfirmsAPacketAddressByMovingThePacket) {
  // The packet's page lies below 4 GiB, where a 32-bit scalar can equal an
  // address in it by chance; the oracle then judges again with the packet in
  // another page. A packet pointer, or its page number, moves with it and
  // is still reported; a number that does not move is not.
  const Finding pointer = bypass("ldxw %r0, [%r1+0]\nexit\n", "xdp", 2, true);
  EXPECT_EQ(pointer.kind, FindingKind::pointer_leak) << pointer.message;
  const Finding page = bypass("ldxw %r0, [%r1+0]\nand %r0, -4096\nexit\n", "xdp", 3, true);
  EXPECT_EQ(page.kind, FindingKind::pointer_leak) << page.message;
  // The page number learned in one run and returned as a constant in the
  // next cannot be written here; the same number from a scalar is the
  // case of fuzz_structured's crash input in the regression seeds.
  EXPECT_EQ(bypass("mov %r0, 7\nexit\n", "xdp", 2, true).kind, FindingKind::none);
}

TEST(Oracle, ReportsHardeningThatChangesAnArchitecturalRun) {
  // fp + r3 with r3 = -8: a guard claiming r3 is always -16 (and masking it
  // to -16) moves the store, so the load of fp-8 reads something else.
  const std::string text = "stdw [%r10-8], 0\nstdw [%r10-16], 0\nmov %r3, -8\nmov %r2, %r10\nadd %r2, %r3\n"
                           "stdw [%r2], 1\nldxdw %r0, [%r10-8]\nexit\n";
  Decoded d;
  decode_into(assemble_text(text), d);
  std::vector<SpecGuard> guards(d.program.count);
  EXPECT_EQ(run_accepted(d.program, type_named("socket_filter"), accepted(8), 7, 2, true, nullptr, guards.data()).kind,
            FindingKind::none);
  guards[4] = SpecGuard{-16, -16, -16, kGuardMaskSrc};
  const Finding f = run_accepted(d.program, type_named("socket_filter"), accepted(8), 7, 2, true, nullptr, guards.data());
  EXPECT_EQ(f.kind, FindingKind::spec_guard) << f.message;
}

TEST(Oracle, RunsBpfLoopCallbacksAndJudgesThem) {
  // bpf_loop(3, cb, NULL, 0); the callback dereferences its index.
  const std::string bad =
      "mov %r1, 3\nlddw %r2, code_addr 6\nmov %r3, 0\nmov %r4, 0\ncall 181\nmov %r0, 0\nexit\n"
      "ldxdw %r0, [%r1+0]\nexit\n";
  const Finding f = bypass(bad, "xdp", 100);
  EXPECT_EQ(f.kind, FindingKind::trap) << f.message;
  EXPECT_EQ(f.pc, 8u);

  // A callback of two instructions, run 3 times: 7 + 6 instructions.
  const std::string good =
      "mov %r1, 3\nlddw %r2, code_addr 6\nmov %r3, 0\nmov %r4, 0\ncall 181\nmov %r0, 0\nexit\n"
      "mov %r0, 0\nexit\n";
  EXPECT_EQ(bypass(good, "xdp", 13).kind, FindingKind::none);
  EXPECT_EQ(bypass(good, "xdp", 12).kind, FindingKind::budget_overrun);
}

TEST(Oracle, FindsNothingInASoundAcceptedProgram) {
  // A map lookup, a NULL check, a masked offset into the value, and a packet
  // read behind a data_end check.
  const std::string text =
      "stw [%r10-8], 1\nlddw %r1, map_fd 0\nmov %r2, %r10\nadd %r2, -8\nmov %r6, %r1\n"
      "call 1\njeq %r0, 0, out\nldxdw %r1, [%r0+0]\nand %r1, 31\nadd %r0, %r1\nldxdw %r0, [%r0+8]\n"
      "out: mov %r0, 0\nexit\n";
  const std::vector<uint8_t> bytes = assemble_text(text);
  const Judgement j = judge(bytes.data(), bytes.size(), type_named("xdp"), verify_options(true), 1, 16);
  ASSERT_TRUE(j.decoded);
  ASSERT_TRUE(j.verdict.ok()) << reason_name(j.verdict.reason) << " at " << j.verdict.pc;
  EXPECT_EQ(j.runs, 32u);
  EXPECT_FALSE(j.finding.found()) << j.finding.message;
}

}  // namespace
}  // namespace keel::fuzzgen
