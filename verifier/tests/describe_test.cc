// describe() with a DescribeContext: rejections name helpers, maps and the
// program type as the program's source does, and state the range an exit
// must return (issue 16, diagnostics).
#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <string>

#include "keel/isa.h"
#include "keel/platform_linux.h"
#include "keel/verify.h"

namespace keel {
namespace {

std::string text_of(const Verdict& verdict, const DescribeContext& context) {
  char buffer[512];
  describe(verdict, context, buffer, sizeof buffer);
  return buffer;
}

std::string text_of(const Verdict& verdict) {
  char buffer[512];
  describe(verdict, buffer, sizeof buffer);
  return buffer;
}

Verdict rejection(Reason reason, uint32_t pc, uint32_t limit) {
  Verdict v;
  v.reason = reason;
  v.pc = pc;
  v.detail.limit = limit;
  return v;
}

TEST(LinuxHelperName, MatchesTheUapiIds) {
  EXPECT_STREQ(linux_helper_name(BPF_FUNC_map_lookup_elem), "bpf_map_lookup_elem");
  EXPECT_STREQ(linux_helper_name(BPF_FUNC_spin_lock), "bpf_spin_lock");
  EXPECT_STREQ(linux_helper_name(BPF_FUNC_sk_release), "bpf_sk_release");
  EXPECT_STREQ(linux_helper_name(BPF_FUNC_loop), "bpf_loop");
  EXPECT_EQ(linux_helper_name(0), nullptr);  // BPF_FUNC_unspec
  EXPECT_EQ(linux_helper_name(-1), nullptr);
  EXPECT_EQ(linux_helper_name(__BPF_FUNC_MAX_ID + 1000), nullptr);
}

TEST(Describe, NamesTheHelper) {
  DescribeContext names;
  names.helper_name = linux_helper_name;
  const Verdict unsupported = rejection(Reason::unsupported_helper, 7, BPF_FUNC_spin_lock);
  EXPECT_EQ(text_of(unsupported, names), "pc 7: helper bpf_spin_lock (93) uses argument kinds keel does not model");
  // Without names, the number alone (the freestanding default).
  EXPECT_EQ(text_of(unsupported), "pc 7: helper 93 uses argument kinds keel does not model");
  // An id no helper has keeps its number.
  EXPECT_EQ(text_of(rejection(Reason::unsupported_helper, 7, 100000), names),
            "pc 7: helper 100000 uses argument kinds keel does not model");
}

TEST(Describe, NamesTheProgramTypeAHelperIsMissingFrom) {
  DescribeContext names;
  names.helper_name = linux_helper_name;
  names.type = find_program_type(linux_platform(), "socket_filter");
  ASSERT_NE(names.type, nullptr);
  EXPECT_EQ(text_of(rejection(Reason::unknown_helper, 3, BPF_FUNC_redirect), names),
            "pc 3: helper bpf_redirect (23) is not available to socket_filter programs");
}

TEST(Describe, HelperOfTheRejectedCall) {
  // The call at the rejected pc names the helper, whatever the detail holds.
  const Insn insns[] = {{Op::call_helper, 0, 0, 0x85, 0, BPF_FUNC_map_lookup_elem}, {Op::exit, 0, 0, 0x95, 0, 0}};
  const Program program{insns, 2};
  DescribeContext names;
  names.helper_name = linux_helper_name;
  names.program = &program;
  Verdict argument = rejection(Reason::helper_argument, 0, 0);
  argument.detail.reg = 1;
  argument.detail.kind = 1;  // RegKind::scalar
  EXPECT_EQ(text_of(argument, names),
            "pc 0: r1 is a scalar, wrong kind of argument for the helper bpf_map_lookup_elem (1)");
  // Not a call at pc: nothing to name.
  argument.pc = 1;
  EXPECT_EQ(text_of(argument, names), "pc 1: r1 is a scalar, wrong kind of argument for the helper");
}

TEST(Describe, NamesTheMap) {
  const char* const maps[] = {"counters", nullptr};
  DescribeContext names;
  names.map_names = maps;
  names.map_count = 2;
  EXPECT_EQ(text_of(rejection(Reason::unresolved_map, 4, 0), names),
            "pc 4: lddw names map 0 (counters), which is not provided");
  EXPECT_EQ(text_of(rejection(Reason::unresolved_map, 4, 1), names), "pc 4: lddw names map 1, which is not provided");
  EXPECT_EQ(text_of(rejection(Reason::unresolved_map, 4, 9), names), "pc 4: lddw names map 9, which is not provided");
}

TEST(Describe, ReturnRangeStatesWhatTheExitAllows) {
  Verdict v = rejection(Reason::bad_return_value, 2, 0);
  v.detail.kind = 1;  // RegKind::scalar
  v.detail.min = 0;
  v.detail.max = 7;
  v.detail.allowed_min = 0;
  v.detail.allowed_max = 1;
  EXPECT_EQ(text_of(v), "pc 2: r0 at exit is a scalar in [0, 7], outside what the program type allows: a scalar in [0, 1]");
}

// The verifier fills the allowed range at the exit it rejects.
TEST(Describe, VerifierReportsTheTypesReturnRange) {
  // r0 = *(u32 *)(r1 + 0) (skb->len) & 7; exit — as cgroup_skb, which returns 0 or 1.
  const ProgramType* type = find_program_type(linux_platform(), "cgroup_skb");
  ASSERT_NE(type, nullptr);
  const Insn insns[] = {{Op::ldxw, 0, 1, 0x61, 0, 0}, {Op::and64_imm, 0, 0, 0x57, 0, 7}, {Op::exit, 0, 0, 0x95, 0, 0}};
  const Program program{insns, 3};
  alignas(16) static uint8_t memory[1 << 20];
  Arena arena(memory, sizeof memory);
  const Verdict v = verify(program, *type, VerifyOptions{}, arena);
  ASSERT_EQ(v.reason, Reason::bad_return_value);
  EXPECT_EQ(v.detail.allowed_min, type->return_min);
  EXPECT_EQ(v.detail.allowed_max, type->return_max);
  EXPECT_NE(text_of(v).find("a scalar in [0, 1]"), std::string::npos) << text_of(v);
}

}  // namespace
}  // namespace keel
