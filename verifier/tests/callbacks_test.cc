// Helper callbacks (analysis/call_frames.cc do_callback, cfg.cc, decode.cc):
// bpf_loop (181) and bpf_for_each_map_elem (164) run a BPF function whose
// address `lddw code_addr` takes, any number of times. Each rule has a
// program keel accepts and one it rejects (Linux 6.1 kernel/bpf/verifier.c:
// __check_func_call with a callback, set_loop_callback_state,
// set_map_elem_callback_state, prepare_func_exit).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cfg/cfg.h"
#include "keel/decode.h"
#include "verify_checker.h"

namespace keel {
namespace {

using testing::Checker;
using testing::map_of;

// Slots of a program text as these tests write it: one instruction or
// label per line, lddw taking two slots.
uint32_t slots_of(const std::string& text) {
  uint32_t n = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() != ':') n += line.rfind("lddw", 0) == 0 ? 2 : 1;
    start = end + 1;
  }
  return n;
}

// `main`, then each callback of `callbacks` in order; "@N" in a line of any
// part (`lddw %r2, code_addr @0`, `call local @1`) becomes the offset of
// part N + 1 from that instruction's next slot.
std::string program(const std::string& main, const std::vector<std::string>& callbacks) {
  std::vector<std::string> parts{main};
  parts.insert(parts.end(), callbacks.begin(), callbacks.end());
  std::vector<uint32_t> start;  // first slot of each callback
  uint32_t at = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) start.push_back(at);
    at += slots_of(parts[i]);
  }
  std::string out;
  uint32_t pc = 0;
  for (const std::string& part : parts) {
    size_t line_start = 0;
    while (line_start < part.size()) {
      size_t end = part.find('\n', line_start);
      if (end == std::string::npos) end = part.size();
      std::string line = part.substr(line_start, end - line_start);
      const uint32_t size = slots_of(line);
      const size_t mark = line.find('@');
      if (mark != std::string::npos) {
        const int64_t offset = int64_t{start[static_cast<size_t>(line[mark + 1] - '0')]} - pc - 1;
        std::string target = std::to_string(offset);
        if (offset >= 0) target.insert(target.begin(), '+');
        line.replace(mark, 2, target);
      }
      out += line + "\n";
      pc += size;
      line_start = end + 1;
    }
  }
  return out;
}

const std::string kExit0 = "mov %r0, 0\nexit\n";
// bpf_loop(4, callback 0, NULL, 0).
const std::string kLoopNull = "mov %r1, 4\nlddw %r2, code_addr @0\nmov %r3, 0\nmov %r4, 0\ncall 181\n";
// fp-8 = 0; bpf_loop(4, callback 0, fp-8, 0).
const std::string kLoopCtx =
    "stdw [%r10-8], 0\nmov %r1, 4\nlddw %r2, code_addr @0\nmov %r3, %r10\nadd %r3, -8\nmov %r4, 0\ncall 181\n";

TEST(Callbacks, PlaceholderOffsets) {
  // Callback 0 starts at slot 8: the lddw at slot 1 needs +6.
  EXPECT_NE(program(kLoopNull + kExit0, {kExit0}).find("code_addr +6"), std::string::npos);
}

TEST(Callbacks, LoopAcceptedAndBounded) {
  Checker c;
  Verdict v = c.run(program(kLoopNull + kExit0, {kExit0}), "sched_cls");
  ASSERT_TRUE(v.ok()) << c.text;
  // nr_loops is the constant 4: 4 runs of the 2-instruction callback, plus the caller's 7.
  EXPECT_EQ(v.max_insns_executed, 4u * 2 + 7);
  // An unknown nr_loops (bpf_get_prandom_u32()): BPF_MAX_LOOPS runs, plus the caller's 9.
  v = c.run(program("call 7\nmov %r1, %r0\n" + kLoopNull.substr(kLoopNull.find('\n') + 1) + kExit0, {kExit0}),
            "sched_cls");
  ASSERT_TRUE(v.ok()) << c.text;
  EXPECT_EQ(v.max_insns_executed, (uint64_t{1} << 23) * 2 + 8);
  // nr_loops known only as a range: its maximum.
  v = c.run(program("call 7\nmov %r1, %r0\nand %r1, 63\n" + kLoopNull.substr(kLoopNull.find('\n') + 1) + kExit0,
                    {kExit0}),
            "sched_cls");
  ASSERT_TRUE(v.ok()) << c.text;
  EXPECT_EQ(v.max_insns_executed, 63u * 2 + 9);
  // The index is below nr_loops (at most BPF_MAX_LOOPS): usable as an offset.
  EXPECT_ACCEPT(c, program(kLoopNull + kExit0, {"mov %r0, 0\njgt %r1, 3, +1\nmov %r0, 1\nexit\n"}), "sched_cls");
}

TEST(Callbacks, CallbackReturnsZeroOrOne) {
  Checker c;
  EXPECT_ACCEPT(c, program(kLoopNull + kExit0, {"mov %r0, 1\nexit\n"}), "sched_cls");
  // Linux: "At callback return the register R0 has value (0x2; 0x0)".
  EXPECT_REJECT(c, program(kLoopNull + kExit0, {"mov %r0, 2\nexit\n"}), bad_return_value, "sched_cls");
  EXPECT_REJECT(c, program(kLoopNull + kExit0, {"mov %r0, %r1\nexit\n"}), bad_return_value, "sched_cls");
  EXPECT_REJECT(c, program(kLoopNull + kExit0, {"exit\n"}), uninit_register, "sched_cls");
  EXPECT_REJECT(c, program(kLoopNull + kExit0, {"mov %r0, %r10\nexit\n"}), bad_return_value, "sched_cls");
}

TEST(Callbacks, ArgumentsChecked) {
  Checker c;
  // flags must be 0 (the helper refuses others at run time).
  EXPECT_ACCEPT(c, program(kLoopNull + kExit0, {kExit0}), "sched_cls");
  const std::string flags =
      "mov %r1, 4\nlddw %r2, code_addr @0\nmov %r3, 0\nmov %r4, 1\ncall 181\n" + kExit0;
  EXPECT_REJECT(c, program(flags, {kExit0}), helper_argument, "sched_cls");
  // r2 must be a function's address.
  EXPECT_REJECT(c, "mov %r1, 4\nmov %r2, 0\nmov %r3, 0\nmov %r4, 0\ncall 181\n" + kExit0, helper_argument,
                "sched_cls");
  // r3: a stack pointer or NULL, not a context.
  const std::string ctx = "mov %r3, %r1\nmov %r1, 4\nlddw %r2, code_addr @0\nmov %r4, 0\ncall 181\n" + kExit0;
  EXPECT_REJECT(c, program(ctx, {kExit0}), helper_argument, "sched_cls");
  // Callbacks need CAP_BPF (bpf_loop is a privileged helper; so is taking a function's address).
  c.options.privileged = false;
  EXPECT_REJECT(c, program(kLoopNull + kExit0, {kExit0}), unprivileged_call, "sched_cls");
}

TEST(Callbacks, CtxIsTheCallersStack) {
  Checker c;
  // The callback reads and writes fp-8 of the caller through r2.
  const std::string count = "ldxdw %r1, [%r2+0]\nadd %r1, 1\nstxdw [%r2+0], %r1\nmov %r0, 0\nexit\n";
  EXPECT_ACCEPT(c, program(kLoopCtx + "ldxdw %r0, [%r10-8]\nexit\n", {count}), "sched_cls");
  // Beyond the 8 bytes the caller initialized.
  EXPECT_REJECT(c, program(kLoopCtx + kExit0, {"ldxdw %r1, [%r2-8]\nmov %r0, 0\nexit\n"}),
                uninit_stack, "sched_cls");
  // What the callback stores is what the caller finds: 0 keeps the
  // store below in bounds, 1000 does not.
  const std::string use = "ldxdw %r1, [%r10-8]\nmov %r2, %r10\nadd %r2, -16\nadd %r2, %r1\nstb [%r2+0], 0\n" + kExit0;
  EXPECT_ACCEPT(c, program(kLoopCtx + use, {"stdw [%r2+0], 0\nmov %r0, 0\nexit\n"}), "sched_cls");
  EXPECT_REJECT(c, program(kLoopCtx + use, {"stdw [%r2+0], 1000\nmov %r0, 0\nexit\n"}), stack_out_of_bounds,
                "sched_cls");
  // A counter grows with every run, not just one (Linux 6.1 analyses the
  // callback once and would see 0 or 1 here).
  const std::string near =
      "ldxdw %r1, [%r10-8]\nand %r1, 0xff\nmov %r2, %r10\nadd %r2, -10\nadd %r2, %r1\nstb [%r2+0], 0\n" + kExit0;
  EXPECT_REJECT(c, program(kLoopCtx + near, {count}), stack_out_of_bounds, "sched_cls");
  // ...while a value the callback only ever sets stays known.
  EXPECT_ACCEPT(c, program(kLoopCtx + near, {"stdw [%r2+0], 1\nmov %r0, 0\nexit\n"}), "sched_cls");
}

TEST(Callbacks, ForEachMapElem) {
  Checker c;
  c.maps = {map_of(MapType::array, 4, 16, 100)};
  // bpf_for_each_map_elem(map 0, callback 0, NULL, 0).
  const std::string each = "lddw %r1, map_fd 0\nlddw %r2, code_addr @0\nmov %r3, 0\nmov %r4, 0\ncall 164\n" + kExit0;
  const Verdict v = c.run(program(each, {"ldxdw %r0, [%r3+8]\nand %r0, 1\nexit\n"}), "sched_cls");
  EXPECT_TRUE(v.ok()) << c.text;
  // max_entries runs of the 3-instruction callback, plus the caller's 7.
  EXPECT_EQ(v.max_insns_executed, 100u * 3 + 7);
  // r3 is the value: 16 bytes.
  EXPECT_REJECT(c, program(each, {"ldxdw %r0, [%r3+16]\nmov %r0, 0\nexit\n"}), map_value_out_of_bounds,
                "sched_cls");
  // r1 is the map, usable as a helper's map: lookup of a stack key.
  EXPECT_ACCEPT(c,
                program(each, {"stw [%r10-4], 0\nmov %r2, %r10\nadd %r2, -4\ncall 1\nmov %r0, 0\nexit\n"}),
                "sched_cls");
  // The key (PTR_TO_MAP_KEY, read-only) is not modelled: reads are refused.
  EXPECT_REJECT(c, program(each, {"ldxw %r0, [%r2+0]\nmov %r0, 0\nexit\n"}), scalar_dereference,
                "sched_cls");
  // The ctx comes in r4.
  const std::string ctx = "stdw [%r10-8], 0\nlddw %r1, map_fd 0\nlddw %r2, code_addr @0\nmov %r3, %r10\n"
                          "add %r3, -8\nmov %r4, 0\ncall 164\n" + kExit0;
  EXPECT_ACCEPT(c, program(ctx, {"ldxdw %r0, [%r4+0]\nmov %r0, 0\nexit\n"}), "sched_cls");
  // Only maps with elements to visit (not a ring buffer).
  c.maps = {map_of(MapType::ringbuf, 0, 0, 4096)};
  EXPECT_REJECT(c, program(each, {kExit0}), helper_argument, "sched_cls");
}

TEST(Callbacks, References) {
  Checker c;
  c.maps = {map_of(MapType::ringbuf, 0, 0, 4096)};
  const std::string reserve = "lddw %r1, map_fd 0\nmov %r2, 16\nmov %r3, 0\ncall 131\n";
  // Reserved and submitted inside one run.
  EXPECT_ACCEPT(c,
                program(kLoopNull + kExit0,
                        {reserve + "jeq %r0, 0, +3\nmov %r1, %r0\nmov %r2, 0\ncall 132\n" + kExit0}),
                "kprobe");
  // Linux: "Unreleased reference": held when the callback returns.
  EXPECT_REJECT(c, program(kLoopNull + kExit0, {reserve + kExit0}), unreleased_reference, "kprobe");
  // The caller's reservation, released by a callback that may run again.
  const std::string caller = reserve + "jeq %r0, 0, out\nstxdw [%r10-8], %r0\n" +
                             "mov %r1, 4\nlddw %r2, code_addr @0\nmov %r3, %r10\nadd %r3, -8\nmov %r4, 0\ncall 181\n" +
                             "ldxdw %r1, [%r10-8]\nmov %r2, 0\ncall 132\nout:\n" + kExit0;
  EXPECT_ACCEPT(c, program(caller, {kExit0}), "kprobe");
  EXPECT_REJECT(c, program(caller, {"ldxdw %r1, [%r2+0]\nmov %r2, 0\ncall 132\n" + kExit0}), double_release,
                "kprobe");
}

TEST(Callbacks, NestingAndPlacement) {
  Checker c;
  // A callback may call bpf_loop with a callback of its own.
  const std::string inner = "mov %r1, 2\nlddw %r2, code_addr @1\nmov %r3, 0\nmov %r4, 0\ncall 181\n" + kExit0;
  const Verdict v = c.run(program(kLoopNull + kExit0, {inner, kExit0}), "sched_cls");
  EXPECT_TRUE(v.ok()) << c.text;
  // 4 runs of the outer callback, each 7 + 2 runs of the 2-instruction inner one.
  EXPECT_EQ(v.max_insns_executed, 4u * (2 * 2 + 7) + 7);
  // A tail call inside a callback is not modelled (outside one it is).
  c.maps = {map_of(MapType::prog_array, 4, 4, 4)};
  const std::string tail = "lddw %r2, map_fd 0\nmov %r3, 0\ncall 12\n" + kExit0;
  EXPECT_ACCEPT(c, "mov %r6, %r1\nmov %r1, %r6\n" + tail, "sched_cls");
  EXPECT_REJECT(c, program(kLoopNull + kExit0, {"mov %r1, 0\n" + tail}), unsupported_helper, "sched_cls");
  c.maps.clear();
  // A callback taking its own address is recursion.
  const std::string self = "mov %r1, 2\nlddw %r2, code_addr @0\nmov %r3, 0\nmov %r4, 0\ncall 181\n" + kExit0;
  EXPECT_REJECT(c, program(kLoopNull + kExit0, {self}), recursion, "sched_cls");
  // The address must be taken in the function that passes it (the cost
  // bound charges each helper call with the callbacks of its function).
  const std::string main = "lddw %r1, code_addr @1\ncall local @0\n" + kExit0;
  const std::string sub = "mov %r2, %r1\nmov %r1, 4\nmov %r3, 0\nmov %r4, 0\ncall 181\n" + kExit0;
  EXPECT_REJECT(c, program(main, {sub, kExit0}), unsupported_helper, "sched_cls");
}

TEST(Callbacks, DecodedAsFunctions) {
  // The target must be inside the program, and starts a function: a jump
  // from the caller into it leaves the caller.
  std::vector<uint8_t> memory(1 << 16);
  Arena arena(memory.data(), memory.size());
  Program p;
  const std::vector<uint8_t> out = testing::assemble_or_die("lddw %r2, code_addr 5\n" + kExit0);
  EXPECT_EQ(decode(out.data(), out.size(), DecodeOptions{}, arena, p).error, DecodeError::jump_out_of_range);
  const std::vector<uint8_t> into =
      testing::assemble_or_die("lddw %r2, code_addr 4\nja +2\n" + kExit0 + "mov %r0, 0\nexit\n");
  EXPECT_EQ(decode(into.data(), into.size(), DecodeOptions{}, arena, p).error, DecodeError::jump_out_of_range);
  const std::vector<uint8_t> fine = testing::assemble_or_die("lddw %r2, code_addr 3\n" + kExit0 + kExit0);
  ASSERT_TRUE(decode(fine.data(), fine.size(), DecodeOptions{}, arena, p).ok());
  // The CFG: a function at the target, called from the lddw's function.
  Cfg cfg;
  ASSERT_TRUE(build_cfg(p, arena, cfg).ok());
  ASSERT_EQ(cfg.function_count, 2u);
  EXPECT_EQ(cfg.functions[1].entry, 4u);
  ASSERT_EQ(cfg.call_count, 1u);
  EXPECT_EQ(cfg.calls[0].pc, 0u);
  EXPECT_EQ(cfg.calls[0].callee, 1u);
  EXPECT_EQ(cfg.max_call_depth, 2u);
}

// Runs of callbacks multiply: with unknown counts, 2^23 runs of a callback
// that runs 2^23 callbacks is about 2^47 instructions, past the default
// limit of 2^43 (VerifyOptions::max_insns_bound), so it is no bound keel can
// promise: too_complex at the outer call, with the cost in the detail.
TEST(Callbacks, MultipliedRunsPastTheLimitAreTooComplex) {
  Checker c;
  const std::string unknown = "call 7\nmov %r1, %r0\nlddw %r2, code_addr @N\nmov %r3, 0\nmov %r4, 0\ncall 181\n";
  auto with = [&](char callee) {
    std::string s = unknown;
    s[s.find('N')] = callee;
    return s;
  };
  const std::string text = program(with('0') + kExit0, {with('1') + kExit0, kExit0});
  const Verdict v = c.run(text, "sched_cls");
  ASSERT_EQ(v.reason, Reason::too_complex) << c.text;
  EXPECT_EQ(v.pc, 6u);  // the outer bpf_loop call
  EXPECT_EQ(v.detail.kind, kTooComplexInsns);
  EXPECT_EQ(v.detail.min, int64_t{1} << 43);
  EXPECT_GT(v.detail.max, int64_t{1} << 46);
  // A smaller limit is the embedder's to set: one level of 2^23 runs passes 2^20.
  c.options.max_insns_bound = uint64_t{1} << 20;
  EXPECT_REJECT(c, program(with('0') + kExit0, {kExit0}), too_complex, "sched_cls");
  c.options.max_insns_bound = uint64_t{1} << 43;
  EXPECT_ACCEPT(c, program(with('0') + kExit0, {kExit0}), "sched_cls");
}

}  // namespace
}  // namespace keel
