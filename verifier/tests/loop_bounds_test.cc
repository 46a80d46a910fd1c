// Tests for keel::bound_loops (verifier/src/analysis/loop_bounds.cc) and the
// trip-count arithmetic (loop_trip.cc). Programs are written as text,
// assembled, decoded and turned into a CFG; the facts come from a small
// interval analysis written here (keel's scalar domain, widening to
// "unknown"), which stands in for the safety analysis. Expected costs are
// counted by hand from the program text; every accepted program is also run
// by the interpreter, whose insns_executed must not exceed the bound (and
// must equal it for loop-free code on its longest path).
#include "analysis/loop_bounds.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/loop_trip.h"
#include "cfg/cfg.h"
#include "domain/scalar.h"
#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/text.h"

namespace keel {
namespace {

using RegFile = std::array<Scalar, kRegisterCount>;

bool is_alu(Op op) { return op <= Op::bswap64; }
bool alu_imm_form(Op op) {
  // The first 14 x 4 ALU ops come as 64_imm, 64_reg, 32_imm, 32_reg.
  const unsigned i = static_cast<unsigned>(op);
  return i < static_cast<unsigned>(Op::neg64) && (i % 2) == 0;
}
bool jump_reg_form(Op op) { return ((static_cast<unsigned>(op) - static_cast<unsigned>(Op::jeq64_imm)) % 2) == 1; }

void clobber_caller_saved(RegFile& st) {
  for (int r = 0; r <= 5; ++r) st[r] = Scalar::unknown();
}

// Facts oracle: a forward interval analysis per function (entry state
// unknown), joins at merges, and after two changes of a block's entry
// state every changed register becomes unknown (so it terminates). Sound
// for any program: it only uses keel's scalar transfer functions.
struct Oracle {
  const Cfg* cfg = nullptr;
  std::vector<RegFile> at_exit;
  std::vector<bool> reached;
  std::map<std::pair<uint32_t, uint8_t>, Scalar> stated;  // (block's first pc, reg) -> value

  static void transfer(const Insn& insn, RegFile& st) {
    const Op op = insn.op;
    if (is_alu(op)) {
      const Scalar src = alu_imm_form(op) ? Scalar::constant(static_cast<uint64_t>(insn.imm)) : st[insn.src];
      st[insn.dst] = alu(op, st[insn.dst], src);
    } else if (op == Op::lddw_imm64) {
      st[insn.dst] = Scalar::constant(static_cast<uint64_t>(insn.imm));
    } else if (op == Op::call_helper || op == Op::call_local || op == Op::callx ||
               (op >= Op::ld_abs_b && op <= Op::ld_ind_w)) {
      clobber_caller_saved(st);
    } else if (op >= Op::atomic32_add && op <= Op::atomic64_cmpxchg) {
      st[insn.src] = Scalar::unknown();
      st[0] = Scalar::unknown();
    } else if ((op >= Op::lddw_map_fd && op <= Op::lddw_map_idx_value) || (op >= Op::ldxb && op <= Op::ldxsw)) {
      st[insn.dst] = Scalar::unknown();
    }
  }

  // The state along edge e out of a block whose exit state is `out`; false if infeasible.
  bool along(const Cfg::Edge& e, const RegFile& out, RegFile& st) const {
    st = out;
    if (e.kind != Cfg::EdgeKind::taken && e.kind != Cfg::EdgeKind::not_taken) return true;
    uint32_t pc = cfg->blocks[e.from].last;
    if (cfg->insns[pc].op == Op::lddw_tail) --pc;
    const Insn& insn = cfg->insns[pc];
    JmpOp jmp;
    Width w;
    if (!jmp_of(insn.op, jmp, w)) return true;
    Scalar a = out[insn.dst];
    Scalar b = jump_reg_form(insn.op) ? out[insn.src] : Scalar::constant(static_cast<uint64_t>(insn.imm));
    if (!refine(jmp, w, e.kind == Cfg::EdgeKind::taken, a, b)) return false;
    if (jump_reg_form(insn.op) && insn.src != insn.dst) st[insn.src] = b;
    st[insn.dst] = a;
    return true;
  }

  void compute(const Cfg& c) {
    cfg = &c;
    const uint32_t n = c.block_count;
    std::vector<RegFile> at_entry(n);
    std::vector<bool> has_entry(n, false);
    std::vector<int> changes(n, 0);
    at_exit.assign(n, RegFile{});
    reached.assign(n, false);
    for (uint32_t f = 0; f < c.function_count; ++f) {
      has_entry[c.functions[f].first_block] = true;
      at_entry[c.functions[f].first_block].fill(Scalar::unknown());
    }
    bool changed = true;
    for (int round = 0; changed && round < 10000; ++round) {
      changed = false;
      for (uint32_t i = 0; i < c.rpo_count; ++i) {
        const uint32_t b = c.rpo[i];
        if (!has_entry[b]) continue;
        RegFile st = at_entry[b];
        for (uint32_t pc = c.blocks[b].first; pc <= c.blocks[b].last; ++pc) transfer(c.insns[pc], st);
        at_exit[b] = st;
        reached[b] = true;
        for (const Cfg::Edge& e : c.successors(b)) {
          RegFile es;
          if (!along(e, st, es)) continue;
          if (!has_entry[e.to]) {
            at_entry[e.to] = es;
            has_entry[e.to] = true;
            changed = true;
            continue;
          }
          RegFile joined;
          for (uint32_t r = 0; r < kRegisterCount; ++r) joined[r] = join(at_entry[e.to][r], es[r]);
          if (joined == at_entry[e.to]) continue;
          if (++changes[e.to] > 2) {
            for (uint32_t r = 0; r < kRegisterCount; ++r) {
              if (!(joined[r] == at_entry[e.to][r])) joined[r] = Scalar::unknown();
            }
          }
          at_entry[e.to] = joined;
          changed = true;
        }
      }
    }
  }

  // The oracle's facts as the fixpoint would record them (loop_facts.h):
  // every block has a slot; a stated value wins over the computed one.
  std::vector<uint32_t> fact_index;
  std::vector<ExitFacts> exit_facts;
  LoopFacts facts() {
    const uint32_t n = cfg->block_count;
    fact_index.assign(n, 0);
    exit_facts.assign(n, ExitFacts{});
    for (uint32_t b = 0; b < n; ++b) {
      fact_index[b] = b;
      ExitFacts& f = exit_facts[b];
      for (uint8_t r = 0; r < kRegisterCount; ++r) {
        const auto it = stated.find({cfg->blocks[b].first, r});
        if (it == stated.end() && !reached[b]) continue;
        f.seen = 1;
        f.valid |= 1u << r;
        f.regs[r] = it != stated.end() ? it->second : at_exit[b][r];
      }
    }
    LoopFacts t;
    t.index = fact_index.data();
    t.facts = exit_facts.data();
    t.count = n;
    return t;
  }
};

struct Analyzed {
  std::vector<uint8_t> memory;  // sized once the program is assembled
  Arena arena{nullptr, 0};
  std::vector<uint8_t> bytes;
  Program program;
  Cfg cfg;
  Oracle oracle;
  LoopBoundResult result;
  std::string error;  // empty when the program made it to bound_loops
  size_t arena_used = 0;
};

std::unique_ptr<Analyzed> analyze(const std::string& text,
                                  const std::map<std::pair<uint32_t, uint8_t>, Scalar>& stated = {}) {
  auto a = std::make_unique<Analyzed>();
  a->bytes.assign(8 * 2048, 0);
  const AsmResult as = assemble(text.data(), text.size(), a->bytes.data(), 2048);
  if (!as.ok()) {
    a->error = std::string("assemble: ") + asm_error_name(as.error) + " line " + std::to_string(as.line);
    return a;
  }
  a->bytes.resize(8 * as.slots);
  // Decode (16 per slot), CFG (cfg_arena_bound) and bound_loops (~300 per block) fit easily.
  a->memory.assign(65536 + 1024 * as.slots, 0);
  a->arena = Arena(a->memory.data(), a->memory.size());
  const DecodeResult d = decode(a->bytes.data(), a->bytes.size(), DecodeOptions{}, a->arena, a->program);
  if (!d.ok()) {
    a->error = std::string("decode: ") + decode_error_name(d.error) + " pc " + std::to_string(d.pc);
    return a;
  }
  const CfgResult c = build_cfg(a->program, a->arena, a->cfg);
  if (!c.ok()) {
    a->error = std::string("cfg: ") + cfg_error_name(c.error) + " pc " + std::to_string(c.pc);
    return a;
  }
  a->oracle.stated = stated;
  a->oracle.compute(a->cfg);
  const LoopFacts facts = a->oracle.facts();
  const size_t before = a->arena.used();
  a->result = bound_loops(a->cfg, facts, a->arena);
  a->arena_used = a->arena.peak() - before;
  EXPECT_EQ(a->arena.used(), before) << "arena not released";
  return a;
}

uint64_t helper_zero(HelperCall&) { return 0; }

RunResult execute(const Program& program, uint64_t arg1, uint64_t arg2 = 0) {
  static HelperFn fns[8] = {helper_zero, helper_zero, helper_zero, helper_zero,
                            helper_zero, helper_zero, helper_zero, helper_zero};
  static HelperTable table{fns, 8, nullptr};
  RunOptions options;
  options.mode = RunMode::fast;
  options.helpers = &table;
  options.insn_budget = uint64_t{1} << 26;
  auto stack = std::make_unique<RunStack>();
  return run(program, arg1, arg2, options, *stack);
}

const uint64_t kArgs[] = {0, 1, 2, 3, 7, 10, 63, 64, 100, 1000, 0xffffffff, UINT64_MAX};

// Accepted; the bound is `expected` when given; every run stays within it
// (and reaches it exactly on some input when `exact`).
void expect_bounded(const std::string& text, uint64_t expected = 0, bool exact = false,
                    const std::map<std::pair<uint32_t, uint8_t>, Scalar>& stated = {}) {
  SCOPED_TRACE(text);
  const auto a = analyze(text, stated);
  ASSERT_EQ(a->error, "");
  ASSERT_EQ(a->result.error, LoopBoundError::ok) << "pc " << a->result.pc;
  if (expected != 0) {
    EXPECT_EQ(a->result.max_insns_executed, expected);
  }
  EXPECT_LE(a->arena_used, loop_bounds_arena_bound(a->cfg));
  uint64_t longest_run = 0;
  for (const uint64_t arg : kArgs) {
    const RunResult r = execute(a->program, arg, arg);
    ASSERT_EQ(r.status, RunStatus::ok) << "arg " << arg;
    EXPECT_LE(r.insns_executed, a->result.max_insns_executed) << "arg " << arg;
    if (r.insns_executed > longest_run) longest_run = r.insns_executed;
  }
  if (exact) {
    EXPECT_EQ(longest_run, a->result.max_insns_executed);
  }
}

void expect_unbounded(const std::string& text, uint32_t pc) {
  SCOPED_TRACE(text);
  const auto a = analyze(text);
  ASSERT_EQ(a->error, "");
  EXPECT_EQ(a->result.error, LoopBoundError::unbounded_loop);
  EXPECT_EQ(a->result.pc, pc);
}

// ---------------------------------------------------------------- loop-free

TEST(LoopBoundsLoopFree, StraightLineCountsLddwOnceAndHelperAsOne) {
  expect_bounded(R"(
    mov %r0, 1
    add %r0, 2
    lddw %r1, 0x1122334455667788
    call 1
    exit
  )", 5, true);
}

TEST(LoopBoundsLoopFree, DiamondTakesLongerArm) {
  expect_bounded(R"(
    mov %r0, 0
    jeq %r1, 0, short
    add %r0, 1
    add %r0, 1
    add %r0, 1
    ja end
  short:
    add %r0, 2
  end:
    exit
  )", 7, true);
  // The longer arm on the taken side.
  expect_bounded(R"(
    mov %r0, 0
    jne %r1, 0, long
    add %r0, 2
    ja end
  long:
    add %r0, 1
    add %r0, 1
    add %r0, 1
    lddw %r2, 5
    add %r0, %r2
  end:
    exit
  )", 8, true);  // mov, jne, add x 3, lddw (once), add, exit
}

TEST(LoopBoundsLoopFree, SeveralExitInstructions) {
  // The longer path ends at the first exit in pc order.
  expect_bounded(R"(
    jeq %r1, 0, short
    mov %r0, 1
    mov %r0, 2
    mov %r0, 3
    exit
  short:
    exit
  )", 5, true);
}

TEST(LoopBoundsLoopFree, NestedDiamonds) {
  // Longest: mov, jgt(taken), jgt(not taken), add, add, add, ja, (join) add, exit = 9
  // Other paths: mov jgt jgt(taken) add add exit ... all shorter.
  expect_bounded(R"(
    mov %r0, 0
    jgt %r1, 5, outer
    add %r0, 1
    ja join
  outer:
    jgt %r1, 50, inner
    add %r0, 1
    add %r0, 1
    add %r0, 1
    ja join
  inner:
    add %r0, 4
  join:
    add %r0, 1
    exit
  )", 9, true);
}

TEST(LoopBoundsLoopFree, CallsAddTheCalleeBound) {
  // f: mov, jgt, add, add, exit = 5 on its longest path; main: 1 + (1 + 5) x 2 + 1 = 14.
  expect_bounded(R"(
    mov %r1, 5
    call local f
    call local f
    exit
  f:
    mov %r0, 0
    jgt %r1, 3, big
    exit
  big:
    add %r0, 1
    add %r0, 1
    exit
  )", 14, true);
  // Nested calls: g = 2, f = 1 + (1 + 2) + 1 = 5, main = 1 + 5 + 1 + 5 + 1 = 13.
  expect_bounded(R"(
    call local f
    mov %r0, 0
    call local f
    exit
  f:
    call local g
    exit
  g:
    mov %r0, 1
    exit
  )", 12, true);
}

// ---------------------------------------------------------------- loops

TEST(LoopBoundsCountUp, TopTestUnsignedLessThan) {
  // mov + 10 x (jge, add, ja) + jge + exit = 33, exactly.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    jge %r1, 10, out
    add %r1, 1
    ja loop
  out:
    exit
  )", 33, true);
}

TEST(LoopBoundsCountUp, BottomTestDoWhile) {
  // mov + 10 x (add, jlt) + exit = 22.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jlt %r1, 10, loop
    exit
  )", 22, true);
}

TEST(LoopBoundsCountUp, LessOrEqualAndSigned) {
  // i <= 9 after the increment: same 10 iterations.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jle %r1, 9, loop
    exit
  )", 22, true);
  // Signed, from -5 to 5: 10 iterations.
  expect_bounded(R"(
    mov %r1, -5
  loop:
    add %r1, 1
    jslt %r1, 5, loop
    exit
  )", 22, true);
  expect_bounded(R"(
    mov %r1, -5
  loop:
    add %r1, 1
    jsle %r1, 4, loop
    exit
  )", 22, true);
  // Top test, exit on signed >: runs while i s<= 4 from -5: 10 iterations + 1 test.
  expect_bounded(R"(
    mov %r1, -5
  loop:
    jsgt %r1, 4, out
    add %r1, 1
    ja loop
  out:
    exit
  )", 33, true);
}

TEST(LoopBoundsCountUp, BoundOnTheLeftOfTheCompare) {
  // `if 10 > i goto loop`, i.e. the register form with the counter as src.
  expect_bounded(R"(
    mov %r1, 0
    mov %r2, 10
  loop:
    add %r1, 1
    jgt %r2, %r1, loop
    exit
  )", 23, true);
}

TEST(LoopBoundsCountUp, NotEqualStepOne) {
  expect_bounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jne %r1, 10, loop
    exit
  )", 22, true);
}

TEST(LoopBoundsCountUp, StepThree) {
  // 3, 6, 9, 12: four iterations: 1 + 4 x 2 + 1.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    add %r1, 3
    jlt %r1, 10, loop
    exit
  )", 10, true);
}

TEST(LoopBoundsCountUp, ThirtyTwoBit) {
  // add32 + jmp32: 100 iterations.
  expect_bounded(R"(
    mov32 %r1, 0
  loop:
    add32 %r1, 1
    jlt32 %r1, 100, loop
    exit
  )", 202, true);
  // add32 + 64-bit compare of the zero-extended counter.
  expect_bounded(R"(
    mov32 %r1, 0
  loop:
    add32 %r1, 1
    jlt %r1, 100, loop
    exit
  )", 202, true);
  // 64-bit counter, 32-bit compare.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jlt32 %r1, 100, loop
    exit
  )", 202, true);
  // Signed 32-bit from -10.
  expect_bounded(R"(
    mov32 %r1, -10
  loop:
    add32 %r1, 2
    jslt32 %r1, 10, loop
    exit
  )", 22, true);
  // Counting up to the top of the 32-bit range cannot wrap with step 1.
  expect_bounded(R"(
    mov32 %r1, 0xfffffff0
  loop:
    add32 %r1, 1
    jlt32 %r1, 0xffffffff, loop
    exit
  )", 32, true);
}

TEST(LoopBoundsCountUp, ZeroExtensionByShiftsWithoutAlu32) {
  // clang -mcpu=v2 for an unsigned int counter: the tested copy is
  // zero-extended by a pair of shifts. 1 + 100 x 5 + 1.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    mov %r2, %r1
    lsh %r2, 32
    rsh %r2, 32
    jne %r2, 100, loop
    exit
  )", 502, true);
  // The same shifts by other amounts are not a zero-extension.
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    mov %r2, %r1
    lsh %r2, 32
    rsh %r2, 31
    jne %r2, 100, loop
    exit
  )", 1);
}

TEST(LoopBoundsCountUp, SignExtendedCopies) {
  // clang -mcpu=v2 for an int compared signed: from -10 to 10, 1 + 20 x 5 + 1.
  expect_bounded(R"(
    mov %r1, -10
  loop:
    add %r1, 1
    mov %r2, %r1
    lsh %r2, 32
    arsh %r2, 32
    jslt %r2, 10, loop
    exit
  )", 102, true);
  // movsx64_32 of a 32-bit counter: 1 + 100 x 3 + 1.
  expect_bounded(R"(
    mov32 %r1, 0
  loop:
    add32 %r1, 1
    movsx3264 %r2, %r1
    jsle %r2, 99, loop
    exit
  )", 302, true);
  // An unsigned 64-bit compare of a sign-extended value is refused.
  expect_unbounded(R"(
    mov32 %r1, 0
  loop:
    add32 %r1, 1
    movsx3264 %r2, %r1
    jlt %r2, 100, loop
    exit
  )", 1);
}

TEST(LoopBoundsCountUp, CopiedCounterAndStepThroughARegister) {
  // The tested register is a copy of the counter plus one; the step comes
  // from a register holding a constant.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    mov %r3, 2
    add %r1, %r3
    mov %r2, %r1
    add %r2, 1
    jlt %r2, 21, loop
    exit
  )", 0, false);
}

TEST(LoopBoundsCountDown, NotEqualZero) {
  expect_bounded(R"(
    mov %r1, 10
  loop:
    sub %r1, 1
    jne %r1, 0, loop
    exit
  )", 22, true);
  // The same with the count from the argument, guarded against 0.
  expect_bounded(R"(
    mov %r1, %r1
    and %r1, 31
    jeq %r1, 0, out
  loop:
    sub %r1, 1
    jne %r1, 0, loop
  out:
    exit
  )", 3 + 31 * 2 + 1, true);
}

TEST(LoopBoundsCountDown, GuardNarrowsTheSourceOperand) {
  // `if 0 >= n goto out` narrows n (the jump's src) to [1, 31] on the way in.
  expect_bounded(R"(
    mov %r2, %r1
    and %r2, 31
    mov %r3, 0
    jge %r3, %r2, out
  loop:
    sub %r2, 1
    jne %r2, 0, loop
  out:
    exit
  )", 4 + 31 * 2 + 1, true);
}

TEST(LoopBoundsCountDown, SignedGreaterThanZero) {
  // while (n > 0) n--; top test: 1 + 10 x 3 + 1 + 1.
  expect_bounded(R"(
    mov %r1, 10
  loop:
    jsle %r1, 0, out
    sub %r1, 1
    ja loop
  out:
    exit
  )", 33, true);
  // do n -= 2 while (n s> 0) from 9: 7, 5, 3, 1, -1: five iterations.
  expect_bounded(R"(
    mov %r1, 9
  loop:
    sub %r1, 2
    jsgt %r1, 0, loop
    exit
  )", 12, true);
  // Unsigned >= with a positive bound: 8, 6, 4, 2 stay, 0 leaves.
  expect_bounded(R"(
    mov %r1, 10
  loop:
    sub %r1, 2
    jge %r1, 2, loop
    exit
  )", 12, true);
  // Signed >= 0, top test: 10 .. 0 stay (11), -1 leaves.
  expect_bounded(R"(
    mov %r1, 10
  loop:
    jslt %r1, 0, out
    sub %r1, 1
    ja loop
  out:
    exit
  )", 1 + 11 * 3 + 1 + 1, true);
}

TEST(LoopBoundsRegisterBound, KnownRangeFromTheAnalysis) {
  // r2 in [0, 63]: at most 63 iterations: 3 + 63 x 3 + 1 + 2.
  expect_bounded(R"(
    mov %r2, %r1
    and %r2, 63
    mov %r3, 0
  loop:
    jge %r3, %r2, out
    add %r3, 1
    ja loop
  out:
    mov %r0, %r3
    exit
  )", 3 + 63 * 3 + 1 + 2, true);
  // Rotated with a guard, as clang emits `for (i = 0; i != n; i++)`.
  expect_bounded(R"(
    mov %r2, %r1
    and %r2, 15
    jeq %r2, 0, out
    mov %r3, 0
  loop:
    add %r3, 1
    jne %r3, %r2, loop
  out:
    exit
  )", 4 + 15 * 2 + 1, true);
}

TEST(LoopBoundsRegisterBound, StatedByTheCallersContexts) {
  // f is called with r1 = 3 and r1 = 7; the (stub) analysis states the
  // merged range [3, 7] at the test.
  // f: mov + 7 x (jge, add, ja) + jge + exit = 24; main: 1 + 1 + 24 + 1 + 1 + 24 + 1 = 53.
  const std::string text = R"(
    mov %r1, 3
    call local f
    mov %r1, 7
    call local f
    exit
  f:
    mov %r0, 0
  loop:
    jge %r0, %r1, done
    add %r0, 1
    ja loop
  done:
    exit
  )";
  expect_bounded(text, 53, false, {{{6, 1}, Scalar::from_urange(3, 7)}});
}

TEST(LoopBoundsShapes, HeaderIsTheFunctionEntry) {
  // No predecessor outside the loop: the initial value is unknown; from
  // UINT64_MAX the first increment wraps to 0, so 11 header runs.
  expect_bounded(R"(
  loop:
    add %r1, 1
    jlt %r1, 10, loop
    exit
  )", 11 * 2 + 1, false);
}

TEST(LoopBoundsShapes, CounterInCalleeSavedRegisterSurvivesCalls) {
  expect_bounded(R"(
    mov %r6, 0
  loop:
    call 1
    add %r6, 1
    jlt %r6, 4, loop
    exit
  )", 1 + 4 * 3 + 1, true);
}

TEST(LoopBoundsShapes, NestedLoopsMultiply) {
  // inner: 4 x 2; outer iteration: 1 + 8 + 2 = 11; 1 + 5 x 11 + 1 = 57.
  expect_bounded(R"(
    mov %r1, 0
  outer:
    mov %r2, 0
  inner:
    add %r2, 1
    jlt %r2, 4, inner
    add %r1, 1
    jlt %r1, 5, outer
    exit
  )", 57, true);
  // Three deep with top tests and a break out of the middle loop.
  expect_bounded(R"(
    mov %r1, 0
  l1:
    jge %r1, 3, out
    mov %r2, 0
  l2:
    jge %r2, 4, next1
    mov %r3, 0
  l3:
    add %r3, 1
    jlt %r3, 5, l3
    jeq %r2, 2, next1
    add %r2, 1
    ja l2
  next1:
    add %r1, 1
    ja l1
  out:
    exit
  )", 0, false);
}

TEST(LoopBoundsShapes, TwoExitsTakeTheBest) {
  // The break at i + 1 == 7 bounds the loop to 7 header runs, the i > 100 test to 102.
  // 1 + 6 x (jgt, add, jeq, ja) + (jgt, add, jeq) + exit = 29.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    jgt %r1, 100, out
    add %r1, 1
    jeq %r1, 7, out
    ja loop
  out:
    exit
  )", 29, true);
}

TEST(LoopBoundsShapes, TestInsideAnInnerLoopBoundsTheOuter) {
  // The outer counter r1 is tested in the inner loop's header, which
  // dominates the outer latch; r1 is not written by the inner loop.
  expect_bounded(R"(
    mov %r1, 0
  outer:
    mov %r2, 0
  inner:
    jgt %r1, 5, out
    add %r2, 1
    jlt %r2, 3, inner
    add %r1, 1
    ja outer
  out:
    exit
  )", 0, false);
}

TEST(LoopBoundsShapes, ContinueWithDifferentSteps) {
  // Paths add 1 or 2; the test is at the top: still bounded by the smallest step.
  expect_bounded(R"(
    mov %r1, 0
  loop:
    jge %r1, 20, out
    jset %r1, 1, odd
    add %r1, 2
    ja loop
  odd:
    add %r1, 1
    ja loop
  out:
    exit
  )", 0, false);
}

TEST(LoopBoundsShapes, ManyLoopsInSequence) {
  // 120 loops of 3 iterations: 120 x (1 + 3 x 2) + 1.
  std::string text;
  for (int k = 0; k < 120; ++k) {
    // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict
    // on `"literal" + std::string` chains.
    const std::string label = std::string(1, 'l').append(std::to_string(k));
    text.append("mov %r1, 0\n").append(label).append(":\nadd %r1, 1\njlt %r1, 3, ");
    text.append(label).append("\n");
  }
  text += "exit\n";
  expect_bounded(text, 120 * 7 + 1, true);
}

TEST(LoopBoundsShapes, DeepNest) {
  // Nine nested do-while loops of two iterations each, one counter per
  // register r1..r9: level d runs 2^d times; each run costs 1 (mov) on the
  // way in and 2 (add, jlt) on the way out.
  std::string text;
  for (int d = 1; d <= 9; ++d) text += "mov %r" + std::to_string(d) + ", 0\nn" + std::to_string(d) + ":\n";
  for (int d = 9; d >= 1; --d) {
    text += "add %r" + std::to_string(d) + ", 1\njlt %r" + std::to_string(d) + ", 2, n" + std::to_string(d) + "\n";
  }
  text += "exit\n";
  uint64_t expected = 1;  // exit
  for (int d = 1; d <= 9; ++d) expected += (uint64_t{1} << (d - 1)) * 1 + (uint64_t{1} << d) * 2;
  expect_bounded(text, expected, true);
}

// ------------------------------------------- back edges that are never taken

// The facts prove the back edge's branch never goes that way (Linux 6.1's
// loops1 "not-taken loop with back jump to 1st insn"): the header runs once.
TEST(LoopBoundsNeverTaken, BackEdgeTheFactsRuleOut) {
  expect_bounded(R"(
  start:
    mov %r0, 123
    jeq %r0, 4, start
    exit
  )", 3, true);
}

TEST(LoopBoundsNeverTaken, BackEdgeThatMayBeTakenIsStillALoop) {
  expect_unbounded(R"(
  start:
    mov %r0, %r1
    jeq %r0, 4, start
    exit
  )", 0);
}

// A path that never runs (r2 is always 5) would loop without stepping the
// counter; left out, every path that can be taken steps it.
TEST(LoopBoundsNeverTaken, DeadPathIsLeftOutOfTheStep) {
  // 2 + 10 x (jge, jne, add, ja) + jge + exit = 44.
  expect_bounded(R"(
    mov %r1, 0
    mov %r2, 5
  loop:
    jge %r1, 10, out
    jne %r2, 7, step
    ja loop
  step:
    add %r1, 1
    ja loop
  out:
    exit
  )", 44, true);
}

TEST(LoopBoundsNeverTaken, PathThatMayRunStillCountsAsAStepOfZero) {
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    jge %r1, 10, out
    jne %r2, 7, step
    ja loop
  step:
    add %r1, 1
    ja loop
  out:
    exit
  )", 1);
}

// The back edges carry a value that fails the exit test on the next run, so
// the header runs at most twice (Linux 6.1's calls "conditional call 5").
TEST(LoopBoundsSecondRun, BackEdgeValueFailsTheTest) {
  // r1 == 0: jeq, mov, ja, jeq, exit.
  expect_bounded(R"(
  loop:
    jeq %r1, 0, body
    exit
  body:
    mov %r1, 1
    ja loop
  )", 5, true);
  // Tested after an offset: 10 + 1 > 5. mov + (add, jgt, mov, ja) + add, jgt + exit.
  expect_bounded(R"(
    mov %r0, 0
  loop:
    add %r1, 1
    jgt %r1, 5, out
    mov %r1, 10
    ja loop
  out:
    exit
  )", 8, true);
  // 32-bit: the low half of 0x100000007 + 1 is 8.
  expect_bounded(R"(
  loop:
    add32 %r1, 1
    jlt32 %r1, 8, body
    exit
  body:
    lddw %r1, 0x100000007
    ja loop
  )", 7, true);
}

TEST(LoopBoundsSecondRun, BackEdgeValueThatPassesTheTestIsStillALoop) {
  // r1 = 0 every run: the loop never ends.
  expect_unbounded(R"(
  loop:
    jeq %r1, 0, body
    exit
  body:
    mov %r1, 0
    ja loop
  )", 0);
  // 5 - 1 <= 4 stays: the offset counts.
  expect_unbounded(R"(
    mov %r0, 0
  loop:
    sub %r1, 1
    jgt %r1, 4, out
    mov %r1, 5
    ja loop
  out:
    exit
  )", 1);
  // Some back edge carries a value that stays.
  expect_unbounded(R"(
  loop:
    jeq %r1, 0, body
    exit
  body:
    mov %r1, 1
    jne %r2, 0, loop
    mov %r1, 0
    ja loop
  )", 0);
}

// ---------------------------------------------------------------- rejected

TEST(LoopBoundsRejected, NoTestOnTheCounter) {
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    ldxdw %r2, [%r10-8]
    jne %r2, 0, loop
    exit
  )", 1);
}

TEST(LoopBoundsRejected, CounterNotMonotone) {
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    jgt %r1, 10, out
    jeq %r2, 0, down
    add %r1, 1
    ja loop
  down:
    sub %r1, 1
    ja loop
  out:
    exit
  )", 1);
}

TEST(LoopBoundsRejected, StepZeroOnSomePath) {
  expect_unbounded(R"(
    mov %r1, 0
    mov %r2, 0
  loop:
    jgt %r1, 10, out
    jeq %r2, 0, skip
    add %r1, 1
  skip:
    ja loop
  out:
    exit
  )", 2);
}

TEST(LoopBoundsRejected, NotEqualWithStepTwo) {
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 2
    jne %r1, 9, loop
    exit
  )", 1);
  // Even when the step would hit the bound: the rule is |step| = 1.
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 2
    jne %r1, 10, loop
    exit
  )", 1);
}

TEST(LoopBoundsRejected, NotEqualStartingOnTheWrongSide) {
  expect_unbounded(R"(
    mov %r1, 20
  loop:
    add %r1, 1
    jne %r1, 10, loop
    exit
  )", 1);
}

TEST(LoopBoundsRejected, UnsignedWrapPossible) {
  // r2 unknown: i < r2 with step 2 may step over UINT64_MAX.
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 2
    jlt %r1, %r2, loop
    exit
  )", 1);
  // i <= UINT64_MAX is always true.
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jle %r1, -1, loop
    exit
  )", 1);
  // 32-bit: step 2 below 0xffffffff may wrap (0xfffffffe + 2 = 0).
  expect_unbounded(R"(
    mov32 %r1, 0
  loop:
    add32 %r1, 2
    jlt32 %r1, 0xffffffff, loop
    exit
  )", 1);
  // A 32-bit counter compared in 64 bits with a bound that may exceed 2^32.
  expect_unbounded(R"(
    mov32 %r1, 0
  loop:
    add32 %r1, 1
    jlt %r1, %r2, loop
    exit
  )", 1);
  // Unsigned i >= 0 counting down is always true.
  expect_unbounded(R"(
    mov %r1, 10
  loop:
    sub %r1, 1
    jge %r1, 0, loop
    exit
  )", 1);
}

TEST(LoopBoundsRejected, InnerLoopWritesTheOuterCounter) {
  // The inner loop takes 3 off r1 per outer iteration, the outer latch adds
  // 1: the outer loop never ends.
  expect_unbounded(R"(
    mov %r1, 0
  outer:
    mov %r2, 0
  inner:
    sub %r1, 1
    add %r2, 1
    jlt %r2, 3, inner
    add %r1, 1
    jlt %r1, 5, outer
    exit
  )", 1);
}

TEST(LoopBoundsRejected, UpperHalfNotDescribed) {
  // sub32 wraps the low half below zero, the 64-bit add then carries into
  // the upper half: r1 stays above 2^32 for ~2^32 iterations, while its low
  // half alone would leave after five.
  expect_unbounded(R"(
    mov32 %r1, 10
  loop:
    sub32 %r1, 17
    add %r1, 16
    jgt %r1, 5, loop
    exit
  )", 1);
}

TEST(LoopBoundsRejected, StepsOfDifferentSizesWithNotEqual) {
  // Steps 1 or 2 (by the argument): 2 jumps over 101.
  expect_unbounded(R"(
    mov %r6, %r1
    mov %r1, 0
  loop:
    jeq %r6, 0, two
    add %r1, 1
    ja join
  two:
    add %r1, 2
  join:
    jne %r1, 101, loop
    exit
  )", 2);
}

TEST(LoopBoundsRejected, TestedRegisterFromDifferentBases) {
  // With r6 != 0 the tested r2 is a copy of r3, which never moves.
  expect_unbounded(R"(
    mov %r6, %r1
    mov %r1, 0
    mov %r3, 0
  loop:
    mov %r2, %r1
    jeq %r6, 0, skip
    mov %r2, %r3
  skip:
    add %r1, 1
    jlt %r2, 10, loop
    exit
  )", 3);
}

TEST(LoopBoundsRejected, BoundConstantDiffersByPath) {
  // r2 is 10 or 1000000 by path. (Conservative: a join of two constants is
  // not tracked, so even this bounded loop is refused.)
  expect_unbounded(R"(
    mov %r6, %r1
    mov %r1, 0
  loop:
    mov %r2, 10
    jeq %r6, 0, skip
    mov %r2, 1000000
  skip:
    add %r1, 1
    jlt %r1, %r2, loop
    exit
  )", 2);
}

TEST(LoopBoundsRejected, RegistersThatTradeValues) {
  // r1 and r2 swap, one adds 1 and the other takes 1 off: the tested value
  // alternates between -1 and 0 forever. r2's next value is r1's plus one,
  // which is no step of r2.
  expect_unbounded(R"(
    mov %r1, 0
    mov %r2, 0
  loop:
    mov %r3, %r2
    mov %r2, %r1
    add %r2, 1
    mov %r1, %r3
    sub %r1, 1
    jslt %r1, 10, loop
    exit
  )", 2);
}

TEST(LoopBoundsRejected, ThirtyTwoBitStepOnA64BitTest) {
  // add32 clears the upper half that the 64-bit test relies on: from
  // 2^32 + 5 the counter drops to 6 and then cycles below 2^32 + 10 forever.
  expect_unbounded(R"(
    lddw %r1, 0x100000005
    lddw %r2, 0x10000000a
  loop:
    jge %r1, %r2, out
    add32 %r1, 1
    ja loop
  out:
    exit
  )", 4);
}

TEST(LoopBoundsRejected, WrongDirection) {
  // Counting up while i > 5: only a wrap ends it (not accepted).
  expect_unbounded(R"(
    mov %r1, 10
  loop:
    add %r1, 1
    jgt %r1, 5, loop
    exit
  )", 1);
}

TEST(LoopBoundsRejected, BoundRegisterModifiedInTheLoop) {
  expect_unbounded(R"(
    mov %r1, 0
    mov %r2, 10
  loop:
    add %r1, 1
    add %r2, 1
    jlt %r1, %r2, loop
    exit
  )", 2);
}

TEST(LoopBoundsRejected, CounterClobberedByACall) {
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    call 1
    add %r1, 1
    jlt %r1, 10, loop
    exit
  )", 1);
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    call local f
    jlt %r1, 10, loop
    exit
  f:
    exit
  )", 1);
}

TEST(LoopBoundsRejected, CounterReloadedOrComputed) {
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    mul %r1, 1
    jlt %r1, 10, loop
    exit
  )", 1);
}

TEST(LoopBoundsRejected, TestNotOnEveryIteration) {
  // The exit test sits in one arm; the other arm loops without it.
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jeq %r2, 0, other
    jlt %r1, 10, loop
    exit
  other:
    ja loop
  )", 1);
}

TEST(LoopBoundsRejected, JsetIsNotABound) {
  expect_unbounded(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jset %r1, 0x100, out
    ja loop
  out:
    exit
  )", 1);
}

TEST(LoopBoundsRejected, ReportsTheUnboundedLoopOfANest) {
  // Inner unbounded.
  expect_unbounded(R"(
    mov %r1, 0
  outer:
    mov %r2, 0
  inner:
    add %r2, 0
    jlt %r2, 4, inner
    add %r1, 1
    jlt %r1, 5, outer
    exit
  )", 2);
  // Outer unbounded, inner fine.
  expect_unbounded(R"(
    mov %r1, 0
  outer:
    mov %r2, 0
  inner:
    add %r2, 1
    jlt %r2, 4, inner
    add %r1, 0
    jlt %r1, 5, outer
    exit
  )", 1);
  // In a callee.
  expect_unbounded(R"(
    call local f
    exit
  f:
    mov %r0, 0
  loop:
    jne %r0, 7, loop
    exit
  )", 3);
}

TEST(LoopBounds, OutOfMemoryIsAnError) {
  for (const char* text : {R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jlt %r1, 10, loop
    exit
  )", R"(
    mov %r6, 0
  outer:
    mov %r7, 0
  inner:
    call local f
    add %r7, 1
    jlt %r7, 3, inner
    call local g
    add %r6, 1
    jlt %r6, 4, outer
    exit
  f:
    call local g
    exit
  g:
    mov %r0, 0
  gl:
    add %r0, 1
    jlt %r0, 2, gl
    exit
  )"}) {
    SCOPED_TRACE(text);
    const auto a = analyze(text);
    ASSERT_EQ(a->error, "");
    ASSERT_TRUE(a->result.ok());
    const LoopFacts facts = a->oracle.facts();
    const size_t bound = loop_bounds_arena_bound(a->cfg);
    std::vector<uint8_t> memory(bound);
    Arena none(memory.data(), 0);
    EXPECT_EQ(bound_loops(a->cfg, facts, none).error, LoopBoundError::out_of_memory);
    for (size_t size = 0; size < bound; size += 8) {
      Arena small(memory.data(), size);
      const LoopBoundResult r = bound_loops(a->cfg, facts, small);
      if (r.error != LoopBoundError::out_of_memory) {
        EXPECT_EQ(r.error, LoopBoundError::ok);
        break;
      }
      EXPECT_EQ(small.used(), 0u);
    }
    Arena exact(memory.data(), bound);
    EXPECT_TRUE(bound_loops(a->cfg, facts, exact).ok());
  }
}

TEST(LoopBounds, TripLimitOption) {
  // clang's code for `for (__u32 i = 0; i < n; i++)` with n a u32 from the
  // packet (unsafe.bpf.c): bounded by 2^32 - 1 header runs, no more.
  const auto a = analyze(R"(
    mov32 %r1, %r1
    mov %r2, 0
    mov %r0, 0
    jeq %r1, 0, out
  loop:
    add %r0, %r2
    add %r2, 1
    mov %r3, %r2
    lsh %r3, 32
    rsh %r3, 32
    jgt %r1, %r3, loop
  out:
    exit
  )");
  ASSERT_EQ(a->error, "");
  ASSERT_TRUE(a->result.ok());
  const uint64_t trips = 0xffffffff;
  EXPECT_EQ(a->result.max_insns_executed, 4 + (trips - 1) * 6 + 6 + 1);
  const LoopFacts facts = a->oracle.facts();
  LoopBoundOptions options;
  options.max_trips = trips;
  EXPECT_TRUE(bound_loops(a->cfg, facts, options, a->arena).ok());
  options.max_trips = trips - 1;
  const LoopBoundResult r = bound_loops(a->cfg, facts, options, a->arena);
  EXPECT_EQ(r.error, LoopBoundError::unbounded_loop);
  EXPECT_EQ(r.pc, 4u);
  EXPECT_EQ(r.trips, trips);
  // A small count runs as bounded.
  for (const uint64_t n : {uint64_t{1}, uint64_t{2}, uint64_t{1000}}) {
    const RunResult run_result = execute(a->program, n);
    ASSERT_EQ(run_result.status, RunStatus::ok);
    EXPECT_EQ(run_result.insns_executed, 4 + n * 6 + 1);
  }
}

TEST(LoopBounds, SaturatedCostIsNoBound) {
  // An unknown 64-bit bound with step 1 cannot wrap, but the trip bound is
  // ~2^64 and the cost saturates: a count 64 bits cannot hold is no bound,
  // whatever the limits (here UINT64_MAX), so the loop is too_costly.
  const auto a = analyze(R"(
    mov %r1, 0
  loop:
    add %r1, 1
    jlt %r1, %r2, loop
    exit
  )");
  ASSERT_EQ(a->error, "");
  EXPECT_EQ(a->result.error, LoopBoundError::too_costly);
  EXPECT_EQ(a->result.pc, 1u);
  EXPECT_TRUE(a->result.loop_limit);
  EXPECT_EQ(a->result.max_insns_executed, UINT64_MAX);
}

// issue 11's loop: r1 wraps below zero, so the loop runs ~2^64 times.
TEST(LoopBounds, WrappingCounterIsNoBound) {
  const auto a = analyze(R"(
    mov %r1, 0
  loop:
    sub %r1, 1
    jgt %r1, 5, loop
    exit
  )");
  ASSERT_EQ(a->error, "");
  EXPECT_EQ(a->result.error, LoopBoundError::too_costly);
  EXPECT_EQ(a->result.pc, 1u);
}

// ---------------------------------------------------------------- trip_bound

TripTest up_test(StayRel rel, uint64_t initial, uint64_t bound, int64_t step, int64_t offset = 0,
                 Width w = Width::w64, bool is_signed = false) {
  TripTest t;
  t.stay = rel;
  t.is_signed = is_signed;
  t.compare = w;
  t.initial = Scalar::constant(initial);
  t.bound = Scalar::constant(bound);
  t.step_min = t.step_max = step;
  t.test_min = t.test_max = offset;
  return t;
}

uint64_t trips_of(const TripTest& t) {
  uint64_t n = 0;
  return trip_bound(t, n) ? n : 0;  // 0: refused
}

TEST(TripBound, ExactSmallCounts) {
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, 10, 1)), 11u);     // top test
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, 10, 1, 1)), 10u);  // bottom test
  EXPECT_EQ(trips_of(up_test(StayRel::le, 0, 10, 1)), 12u);
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, 10, 3)), 5u);      // 0 3 6 9 stay, 12 leaves
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 10, 10, 1)), 1u);
  EXPECT_EQ(trips_of(up_test(StayRel::ne, 0, 10, 1)), 11u);
  EXPECT_EQ(trips_of(up_test(StayRel::eq, 0, 0, 5)), 2u);
  EXPECT_EQ(trips_of(up_test(StayRel::gt, 10, 0, -1)), 11u);
  EXPECT_EQ(trips_of(up_test(StayRel::ge, 10, 1, -1)), 11u);
  EXPECT_EQ(trips_of(up_test(StayRel::ne, 10, 0, -1, -1)), 10u);
}

TEST(TripBound, WrapBoundaries64) {
  // bound_max + step_max - 1 <= UINT64_MAX: accepted exactly at the limit.
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, UINT64_MAX, 1)), UINT64_MAX);  // saturated
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, UINT64_MAX, 2)), 0u);
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, UINT64_MAX - 1, 2)), UINT64_MAX / 2 + 1);
  EXPECT_EQ(trips_of(up_test(StayRel::le, 0, UINT64_MAX, 1)), 0u);
  EXPECT_EQ(trips_of(up_test(StayRel::le, 0, UINT64_MAX - 1, 1)), UINT64_MAX);
  // Signed: the limit is INT64_MAX.
  const uint64_t smax = uint64_t{INT64_MAX};
  EXPECT_NE(trips_of(up_test(StayRel::lt, 0, smax, 1, 0, Width::w64, true)), 0u);
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, smax, 2, 0, Width::w64, true)), 0u);
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, smax - 1, 2, 0, Width::w64, true)), smax / 2 + 1);
  // Unsigned view of the same loop does not wrap there.
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, smax, 2)), smax / 2 + 2);
  // Counting down: i >= 0 (unsigned) is always true; i > 0 is fine.
  EXPECT_EQ(trips_of(up_test(StayRel::ge, 5, 0, -1)), 0u);
  EXPECT_EQ(trips_of(up_test(StayRel::gt, 5, 0, -1)), 6u);
  // Signed i >= INT64_MIN is always true.
  EXPECT_EQ(trips_of(up_test(StayRel::ge, 5, uint64_t{1} << 63, -1, 0, Width::w64, true)), 0u);
  // Signed i >= 0 from 100: 101 stays, then -1 leaves.
  EXPECT_EQ(trips_of(up_test(StayRel::ge, 100, 0, -1, 0, Width::w64, true)), 102u);
}

TEST(TripBound, WrapBoundaries32) {
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, 0xffffffff, 1, 0, Width::w32)), uint64_t{1} << 32);
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, 0xffffffff, 2, 0, Width::w32)), 0u);
  EXPECT_EQ(trips_of(up_test(StayRel::le, 0, 0xffffffff, 1, 0, Width::w32)), 0u);
  // Only the low half counts: a 64-bit initial of 2^32 + 5 is 5 in 32 bits.
  EXPECT_EQ(trips_of(up_test(StayRel::lt, (uint64_t{1} << 32) + 5, 10, 1, 0, Width::w32)), 6u);
  // s32: limit 0x7fffffff.
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, 0x7fffffff, 2, 0, Width::w32, true)), 0u);
  EXPECT_EQ(trips_of(up_test(StayRel::lt, 0, 0x7ffffffe, 2, 0, Width::w32, true)), 0x40000000u);
  // A step of 2^32 is 0 modulo 2^32: the tested value never changes.
  EXPECT_EQ(trips_of(up_test(StayRel::eq, 0, 0, int64_t{1} << 32, 0, Width::w32)), 0u);
}

TEST(TripBound, ZeroExtendedCounterWith64BitBound) {
  TripTest t = up_test(StayRel::lt, 0, 100, 1, 0, Width::w64);
  t.ext32 = Ext32::zero;
  EXPECT_EQ(trips_of(t), 101u);
  t.bound = Scalar::constant(uint64_t{1} << 32);  // never reached by a 32-bit counter
  EXPECT_EQ(trips_of(t), 0u);
  t.bound = Scalar::constant(0xffffffff);
  EXPECT_EQ(trips_of(t), uint64_t{1} << 32);
  // Signed 64-bit compare with a negative bound: i < -1 never holds.
  t.is_signed = true;
  t.bound = Scalar::constant(static_cast<uint64_t>(-1));
  EXPECT_EQ(trips_of(t), 1u);
  // Counting down while i > -1 (signed 64): always true for a zero-extended value.
  t = up_test(StayRel::gt, 10, static_cast<uint64_t>(-1), -1, 0, Width::w64, true);
  t.ext32 = Ext32::zero;
  EXPECT_EQ(trips_of(t), 0u);
  // != a bound above 2^32 - 1 is never reached.
  t = up_test(StayRel::ne, 0, uint64_t{1} << 32, 1, 0, Width::w64);
  t.ext32 = Ext32::zero;
  EXPECT_EQ(trips_of(t), 0u);
}

TEST(TripBound, SignExtendedCounterWith64BitBound) {
  TripTest t = up_test(StayRel::lt, static_cast<uint64_t>(-10), 10, 1, 0, Width::w64, true);
  t.ext32 = Ext32::sign;
  EXPECT_EQ(trips_of(t), 21u);
  t.bound = Scalar::constant(uint64_t{1} << 31);  // above every value: stays forever
  EXPECT_EQ(trips_of(t), 0u);
  t.bound = Scalar::constant((uint64_t{1} << 31) - 1);  // INT32_MAX: step 1 cannot wrap
  EXPECT_NE(trips_of(t), 0u);
  t.bound = Scalar::constant(static_cast<uint64_t>(-(int64_t{1} << 40)));  // below every value
  EXPECT_EQ(trips_of(t), 1u);
  t.is_signed = false;  // unsigned order of sign-extended values is not the counter's
  t.bound = Scalar::constant(10);
  EXPECT_EQ(trips_of(t), 0u);
  // Counting down to INT32_MIN (>= is always true) and to -5.
  t = up_test(StayRel::ge, 10, static_cast<uint64_t>(-(int64_t{1} << 31)), -1, 0, Width::w64, true);
  t.ext32 = Ext32::sign;
  EXPECT_EQ(trips_of(t), 0u);
  t.bound = Scalar::constant(static_cast<uint64_t>(-5));
  EXPECT_EQ(trips_of(t), 17u);
  // != a bound outside [INT32_MIN, INT32_MAX] is never reached.
  t = up_test(StayRel::ne, 0, uint64_t{1} << 31, 1, 0, Width::w64);
  t.ext32 = Ext32::sign;
  EXPECT_EQ(trips_of(t), 0u);
  t.bound = Scalar::constant(100);
  EXPECT_EQ(trips_of(t), 101u);
}

TEST(TripBound, RangesAndOffsets) {
  // Initial in [0, 5], bound in [10, 20], steps 1..3, top test: the slowest
  // start and step and the largest bound: (19 - 0) / 1 + 2 = 21.
  TripTest t;
  t.stay = StayRel::lt;
  t.initial = Scalar::from_urange(0, 5);
  t.bound = Scalar::from_urange(10, 20);
  t.step_min = 1;
  t.step_max = 3;
  EXPECT_EQ(trips_of(t), 21u);
  // A varying test offset [0, 2] with step 1 could stand still between tests: refused.
  t.step_max = 1;
  t.test_max = 2;
  EXPECT_EQ(trips_of(t), 0u);
  // With step 3 it still moves forward by at least 1: (19 - 0) / 1 + 2.
  t.step_min = t.step_max = 3;
  EXPECT_EQ(trips_of(t), 21u);
  // Offsets [0, 1] with step 1: two tests may see the same value.
  t = up_test(StayRel::lt, 0, 10, 1);
  t.test_max = 1;
  EXPECT_EQ(trips_of(t), 0u);
  // A 32-bit test offset beyond 2^32 is refused rather than reduced.
  t = up_test(StayRel::lt, 0, 10, 1, (int64_t{1} << 32) + 5, Width::w32);
  t.initial = Scalar::from_urange(0xfffffff9, 0xffffffff);
  EXPECT_EQ(trips_of(t), 0u);
  // Steps of both signs.
  t = up_test(StayRel::lt, 0, 10, 1);
  t.step_min = -1;
  EXPECT_EQ(trips_of(t), 0u);
  // != needs the start on the correct side for every pair of values.
  t = up_test(StayRel::ne, 0, 10, 1);
  t.initial = Scalar::from_urange(0, 11);
  EXPECT_EQ(trips_of(t), 0u);
  t.initial = Scalar::from_urange(0, 10);
  EXPECT_EQ(trips_of(t), 11u);
  // != in the signed view: from -5 up to 5.
  t = up_test(StayRel::ne, static_cast<uint64_t>(-5), 5, 1);
  EXPECT_EQ(trips_of(t), 11u);
  // The first tested value wraps for some initial values only: any start.
  t = up_test(StayRel::lt, 0, 10, 1, 1);
  t.initial = Scalar::unknown();
  EXPECT_EQ(trips_of(t), 11u);
}

// ---------------------------------------------------------------- differential

// Programs with loops, run with every argument in kArgs: the count must stay
// within the bound. (Every expect_bounded above does the same; these add
// argument-dependent trip counts.)
TEST(LoopBoundsDifferential, ArgumentDependentLoops) {
  const char* programs[] = {
      // Count down from arg & 255, 32-bit.
      R"(
        mov32 %r2, %r1
        and32 %r2, 255
      loop:
        jeq32 %r2, 0, out
        sub32 %r2, 1
        ja loop
      out:
        exit
      )",
      // Signed: from arg (any value) up to 50 with step 7, when arg s< 50.
      R"(
        mov %r2, %r1
        jsgt %r2, 50, out
        jslt %r2, -100, out
      loop:
        add %r2, 7
        jslt %r2, 50, loop
      out:
        exit
      )",
      // Nested, with helper calls in the inner loop.
      R"(
        mov %r6, 0
      outer:
        mov %r7, 0
      inner:
        jge %r7, 5, inner_done
        call 1
        add %r7, 1
        ja inner
      inner_done:
        add %r6, 1
        jlt %r6, 8, outer
        exit
      )",
      // Two counters, the loop ends at the first.
      R"(
        mov %r2, %r1
        and %r2, 1023
        mov %r3, 0
      loop:
        add %r3, 1
        sub %r2, 1
        jsle %r2, 0, out
        jlt %r3, 40, loop
      out:
        exit
      )",
  };
  for (const char* text : programs) expect_bounded(text);
}

// Random counting loops (seeded): initial value, step(s), compare, width,
// bound and test position drawn from values around the wrap points. Every
// accepted program whose bound is small enough to run must finish within it.
TEST(LoopBoundsDifferential, RandomCountingLoops) {
  uint64_t seed = 0x243f6a8885a308d3;
  auto next = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  const char* values[] = {"0", "1", "2", "5", "10", "-1", "-2", "-10", "0x7ffffffe", "0x7fffffff",
                          "0x80000000", "0xfffffff0", "0xffffffff", "100"};
  const char* wide[] = {"0x7ffffffffffffff0", "0x8000000000000005", "0xfffffffffffffff0", "0x100000005"};
  const char* jumps[] = {"jeq", "jne", "jgt", "jge", "jlt", "jle", "jsgt", "jsge", "jslt", "jsle"};
  int accepted = 0, ran = 0;
  for (int i = 0; i < 5000; ++i) {
    const bool alu32 = next(2) == 0, jmp32 = next(2) == 0, top = next(2) == 0, two_paths = next(3) == 0;
    const bool bound_in_reg = next(3) == 0;
    std::string text;
    if (next(5) == 0) {
      text += std::string("lddw %r1, ") + wide[next(4)] + "\n";
    } else {
      text += std::string(alu32 ? "mov32" : "mov") + " %r1, " + values[next(14)] + "\n";
    }
    const std::string bound = values[next(14)];
    if (bound_in_reg) text += "mov %r2, " + bound + "\n";
    const std::string operand = bound_in_reg ? "%r2" : bound;
    const std::string jump = std::string(jumps[next(10)]) + (jmp32 ? "32" : "");
    const std::string add = alu32 ? "add32" : "add";
    const int64_t step = static_cast<int64_t>(next(7)) - 3;
    const int64_t step2 = static_cast<int64_t>(next(7)) - 3;
    // The test reads r1 or an extended copy of it in r3.
    const char* copies[] = {"", "mov %r3, %r1\nlsh %r3, 32\nrsh %r3, 32\n",
                            "mov %r3, %r1\nlsh %r3, 32\narsh %r3, 32\n", "movsx3264 %r3, %r1\n",
                            "mov32 %r3, %r1\n"};
    const uint64_t copy = next(8) < 4 ? 0 : next(4) + 1;
    const std::string tested = copy == 0 ? "%r1" : "%r3";
    text += "loop:\n";
    if (top) text += std::string(copies[copy]) + jump + " " + tested + ", " + operand + ", out\n";
    if (two_paths) {
      text += "jeq %r6, 0, other\n" + add + " %r1, " + std::to_string(step2) + "\nja join\nother:\n";
    }
    text += add + " %r1, " + std::to_string(step) + "\n";
    if (two_paths) text += "join:\n";
    text += top ? std::string("ja loop\n") : copies[copy] + jump + " " + tested + ", " + operand + ", loop\n";
    text += "out:\nexit\n";
    // r6 picks the path: both settings are run.
    text = "mov %r6, %r1\n" + text;
    SCOPED_TRACE(text);
    const auto a = analyze(text);
    ASSERT_EQ(a->error, "");
    if (!a->result.ok()) {
      // No bound, or one 64 bits cannot count (too_costly at the default limits).
      ASSERT_TRUE(a->result.error == LoopBoundError::unbounded_loop ||
                  a->result.error == LoopBoundError::too_costly);
      continue;
    }
    ++accepted;
    if (a->result.max_insns_executed > (uint64_t{1} << 22)) continue;
    for (const uint64_t arg : {uint64_t{0}, uint64_t{1}}) {
      const RunResult r = execute(a->program, arg);
      ++ran;
      ASSERT_EQ(r.status, RunStatus::ok);
      ASSERT_LE(r.insns_executed, a->result.max_insns_executed);
    }
  }
  std::printf("random loops: %d accepted, %d runs\n", accepted, ran);
  // The generator must exercise both outcomes.
  EXPECT_GT(accepted, 300);
  EXPECT_GT(ran, 300);
}

}  // namespace
}  // namespace keel
