// keel_tick and keel_test as the verifier sees them (kernel/bpf/
// program_types.cc): context access rules, return ranges, the helper
// table, and the strict (unprivileged) setting, on small assembled programs.
#include "bpf/program_types.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "keel/text.h"
#include "programs/keel_helpers.h"

namespace keel::bpf {
namespace {

struct Result {
  bool decoded = false;
  DecodeResult decode;
  Verdict verdict;
};

// One array map: 4 entries of 16 bytes (lddw %rN, map_fd 0).
const MapDescriptor map = [] {
  MapDescriptor d;
  d.type = MapType::array;
  d.key_size = 4;
  d.value_size = 16;
  d.max_entries = 4;
  return d;
}();

Result check(const char* text, const ProgramType& type) {
  uint8_t bytes[64 * 8];
  const AsmResult a = assemble(text, std::strlen(text), bytes, 64);
  EXPECT_TRUE(a.ok()) << asm_error_name(a.error) << " line " << a.line;
  std::vector<uint8_t> memory(64 * 1024);
  Arena arena(memory.data(), memory.size());
  Program program;
  Result r;
  r.decode = decode(bytes, a.slots * 8, decode_options(type), arena, program);
  r.decoded = r.decode.ok();
  if (r.decoded) r.verdict = verify(program, type, verify_options(&map, 1), arena);
  return r;
}

Reason reason(const char* text, const ProgramType& type) {
  const Result r = check(text, type);
  EXPECT_TRUE(r.decoded) << decode_error_name(r.decode.error);
  return r.verdict.reason;
}

TEST(ProgramTypes, ThePlatformHoldsBothTypes) {
  EXPECT_STREQ(find_program_type(platform(), "keel_tick")->name, "keel_tick");
  EXPECT_STREQ(find_program_type(platform(), "keel_test")->name, "keel_test");
  EXPECT_EQ(find_program_type(platform(), "xdp"), nullptr);
  EXPECT_EQ(hook_of(tick_type), Hook::tick);
  EXPECT_EQ(hook_of(test_type), Hook::once);
  EXPECT_EQ(tick_type.ctx_size, sizeof(keel_tick_ctx));
  EXPECT_EQ(test_type.ctx_size, sizeof(keel_test_ctx));
}

TEST(ProgramTypes, SectionNamesGiveTheTypes) {
  const LoadOptions options = load_options();
  ASSERT_NE(options.section_type, nullptr);
  EXPECT_STREQ(options.section_type(nullptr, KEEL_SEC_TICK), "keel_tick");
  EXPECT_STREQ(options.section_type(nullptr, KEEL_SEC_TEST), "keel_test");
  EXPECT_EQ(options.section_type(nullptr, "xdp"), nullptr);
}

TEST(ProgramTypes, ContextFieldsAreReadOnlyEightByteLoads) {
  EXPECT_EQ(reason("ldxdw %r0, [%r1+16]\nmov %r0, 0\nexit", tick_type), Reason::ok);
  EXPECT_EQ(reason("ldxdw %r0, [%r1+8]\nexit", test_type), Reason::ok);
  // Partial loads, a load past the end, a store.
  EXPECT_EQ(reason("ldxw %r0, [%r1+8]\nexit", test_type), Reason::ctx_bad_access);
  EXPECT_EQ(reason("ldxdw %r0, [%r1+16]\nexit", test_type), Reason::ctx_bad_access);
  EXPECT_EQ(reason("mov %r0, 0\nstxdw [%r1+0], %r0\nexit", tick_type), Reason::read_only_write);
}

TEST(ProgramTypes, TickProgramsReturnZero) {
  EXPECT_EQ(reason("mov %r0, 0\nexit", tick_type), Reason::ok);
  EXPECT_EQ(reason("mov %r0, 1\nexit", tick_type), Reason::bad_return_value);
  EXPECT_EQ(reason("mov %r0, -1\nexit", test_type), Reason::ok);
}

TEST(ProgramTypes, EveryKernelHelperAndNoOther) {
  // ktime_get_ns, then keel_trace of 4 bytes of the stack.
  EXPECT_EQ(reason("call 5\nstdw [%r10-8], 0\nmov %r1, %r10\nadd %r1, -8\nmov %r2, 4\n"
                   "mov %r3, %r0\ncall 6\nmov %r0, 0\nexit",
                   test_type),
            Reason::ok);
  // bpf_get_prandom_u32 (7) is Linux's, not the kernel's: refused at decode.
  const Result r = check("call 7\nexit", test_type);
  EXPECT_FALSE(r.decoded);
  EXPECT_EQ(r.decode.error, DecodeError::unknown_helper);
}

TEST(ProgramTypes, MapLookupMustBeNullChecked) {
  const char* unchecked =
      "stw [%r10-4], 0\nmov %r2, %r10\nadd %r2, -4\nlddw %r1, map_fd 0\ncall 1\n"
      "ldxdw %r0, [%r0+8]\nexit";
  EXPECT_EQ(reason(unchecked, test_type), Reason::null_dereference);
  const char* checked =
      "stw [%r10-4], 0\nmov %r2, %r10\nadd %r2, -4\nlddw %r1, map_fd 0\ncall 1\n"
      "jeq %r0, 0, +1\nldxdw %r0, [%r0+8]\nexit";
  EXPECT_EQ(reason(checked, test_type), Reason::ok);
}

// The strict setting: no pointer may leave the program (Linux's
// unprivileged mode), and no BPF-to-BPF call.
TEST(ProgramTypes, StrictModeRefusesPointerLeaks) {
  EXPECT_EQ(verify_options(nullptr, 0).privileged, false);
  const Reason leak = reason("mov %r0, %r10\nexit", test_type);
  EXPECT_TRUE(leak == Reason::pointer_leak || leak == Reason::bad_return_value) << reason_name(leak);
  EXPECT_EQ(reason("ldxdw %r3, [%r1+0]\nmov %r1, %r10\nadd %r1, -8\nstdw [%r10-8], 0\nmov %r2, 8\n"
                   "call 6\nmov %r0, 0\nexit",
                   test_type),
            Reason::ok);
  // keel_trace's value is `anything`: a pointer there is a leak.
  EXPECT_EQ(reason("mov %r1, %r10\nadd %r1, -8\nstdw [%r10-8], 0\nmov %r2, 8\n"
                   "mov %r3, %r10\ncall 6\nmov %r0, 0\nexit",
                   test_type),
            Reason::pointer_leak);
  EXPECT_EQ(reason("call local +2\nmov %r0, 0\nexit\nmov %r0, 0\nexit", test_type),
            Reason::unprivileged_call);
}

}  // namespace
}  // namespace keel::bpf
