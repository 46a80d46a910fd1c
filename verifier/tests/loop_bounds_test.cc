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

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/loop_trip.h"
#include "isa/ops.h"
#include "cfg/cfg.h"
#include "domain/scalar.h"
#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/text.h"

namespace keel {
namespace {

using RegFile = std::array<Scalar, kRegisterCount>;

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
      // Unary Ops other than movsx ignore src.
      const Scalar src = op_info(op).reads_src ? st[insn.src] : Scalar::constant(static_cast<uint64_t>(insn.imm));
      st[insn.dst] = alu(op, st[insn.dst], src);
    } else if (op == Op::lddw_imm64) {
      st[insn.dst] = Scalar::constant(static_cast<uint64_t>(insn.imm));
    } else if (is_call(op) || is_legacy_load(op)) {
      clobber_caller_saved(st);
    } else if (is_atomic(op)) {  // (a superset of what they write: the oracle stays simple)
      st[insn.src] = Scalar::unknown();
      st[0] = Scalar::unknown();
    } else if (is_lddw(op) || is_load(op)) {
      st[insn.dst] = Scalar::unknown();
    }
  }

  // The state along edge e out of a block whose exit state is `out`; false if infeasible.
  bool along(const Cfg::Edge& e, const RegFile& out, RegFile& st) const {
    st = out;
    if (e.kind != Cfg::EdgeKind::taken && e.kind != Cfg::EdgeKind::not_taken) return true;
    const Insn& insn = cfg->insns[terminator_pc(*cfg, e.from)];
    JmpOp jmp;
    Width w;
    if (!jmp_of(insn.op, jmp, w)) return true;
    Scalar a = out[insn.dst];
    Scalar b = jump_uses_src(insn.op) ? out[insn.src] : Scalar::constant(static_cast<uint64_t>(insn.imm));
    if (!refine(jmp, w, e.kind == Cfg::EdgeKind::taken, a, b)) return false;
    if (jump_uses_src(insn.op) && insn.src != insn.dst) st[insn.src] = b;
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

// ---------------------------------------------------------------- data cases
//
// Most cases are a program and its expected bound: data/loop_bounds/*.data
// (the format is at the top of each file), one test per case named
// <file>_<case>, run by expect_bounded / expect_unbounded above.

struct LoopCase {
  std::string name;   // <file>_<case>: the test's name
  std::string where;  // file:line of the case's `==`
  std::string text;   // the program
  bool bounded = true;
  uint64_t bound = 0;  // 0: any bound
  bool exact = false;
  uint32_t pc = 0;     // unbounded: where
  std::string error;   // a malformed case: why
};

// Prints the case's name when a parameterized test fails.
void PrintTo(const LoopCase& c, std::ostream* os) { *os << c.where; }

// "3 + 31 * 2 + 1": a sum of products of decimal numbers; false when `text` is not one.
bool sum_of_products(const std::string& text, uint64_t& out) {
  out = 0;
  uint64_t product = 1;
  bool digits = false;
  uint64_t number = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char ch = i < text.size() ? text[i] : '+';
    if (ch >= '0' && ch <= '9') {
      number = number * 10 + static_cast<uint64_t>(ch - '0');
      digits = true;
    } else if (ch == '+' || ch == '*') {
      if (!digits) return false;
      product *= number;
      if (ch == '+') {
        out += product;
        product = 1;
      }
      number = 0;
      digits = false;
    } else if (ch != ' ') {
      return false;
    }
  }
  return true;
}

// The expectation line of a case: "-- bounded [N] [exact]" or "-- unbounded pc P".
void parse_expectation(const std::string& line, LoopCase& c) {
  std::string rest;
  if (line.rfind("-- bounded", 0) == 0) {
    c.bounded = true;
    rest = line.substr(10);
    const size_t exact = rest.find("exact");
    if (exact != std::string::npos) {
      c.exact = true;
      rest.erase(exact);
    }
    if (rest.find_first_not_of(' ') != std::string::npos && !sum_of_products(rest, c.bound)) {
      c.error = "bad bound '" + rest + "'";
    }
  } else if (line.rfind("-- unbounded pc ", 0) == 0) {
    c.bounded = false;
    uint64_t pc = 0;
    if (!sum_of_products(line.substr(16), pc)) c.error = "bad pc in '" + line + "'";
    c.pc = static_cast<uint32_t>(pc);
  } else {
    c.error = "unknown line '" + line + "'";
  }
}

std::vector<LoopCase> load_cases() {
  std::vector<LoopCase> cases;
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = std::filesystem::path(KEEL_TEST_DATA) / "loop_bounds";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".data") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string line;
    uint32_t number = 0;
    bool in_asm = false;
    LoopCase* c = nullptr;
    while (std::getline(in, line)) {
      ++number;
      if (line.rfind("== ", 0) == 0) {
        cases.push_back(LoopCase{});
        c = &cases.back();
        c->name = file.stem().string() + "_" + line.substr(3);
        c->where = file.filename().string() + ":" + std::to_string(number);
        c->error = "no expectation line";
        in_asm = false;
      } else if (line.empty() || line[0] == '#') {
        if (in_asm) c->text += line + "\n";
      } else if (c == nullptr) {
        cases.push_back(LoopCase{});
        cases.back().name = "bad_" + file.stem().string();
        cases.back().where = file.filename().string() + ":" + std::to_string(number);
        cases.back().error = "text before the first case";
        break;
      } else if (line == "-- asm") {
        in_asm = true;
      } else if (line.rfind("-- ", 0) == 0) {
        in_asm = false;
        c->error.clear();
        parse_expectation(line, *c);
      } else if (in_asm) {
        c->text += line + "\n";
      } else {
        c->error = "unexpected line " + std::to_string(number);
      }
    }
  }
  return cases;
}

const std::vector<LoopCase>& all_cases() {
  static const std::vector<LoopCase> cases = load_cases();
  return cases;
}

class LoopBoundsData : public ::testing::TestWithParam<LoopCase> {};

TEST_P(LoopBoundsData, Case) {
  const LoopCase& c = GetParam();
  SCOPED_TRACE(c.where);
  ASSERT_EQ(c.error, "");
  ASSERT_NE(c.text, "");
  if (c.bounded) {
    expect_bounded(c.text, c.bound, c.exact);
  } else {
    expect_unbounded(c.text, c.pc);
  }
}

INSTANTIATE_TEST_SUITE_P(Files, LoopBoundsData, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<LoopCase>& param) { return param.param.name; });

// The data files are where they should be and hold every case (81 when
// they moved out of this file): a missing directory must not pass as zero tests.
TEST(LoopBoundsDataFiles, Present) { EXPECT_GE(all_cases().size(), 81u) << KEEL_TEST_DATA; }

// ---------------------------------------------------------------- cases built in code

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

// ---------------------------------------------------------------- rejected

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
// Loop-free programs without call sites, no longer than max_insns, take
// bound_loops' shortcut (longest_path), lddw or not; with a lower max_insns
// (still above the longest path) they take function_cost. Both must give
// the longest path, counted here on the instructions themselves (all jumps
// go forward; a lddw is one instruction in two slots). Early exits make the
// longest path follow a taken edge.
TEST(LoopBoundsDifferential, LongestPathShortcutIsFunctionCost) {
  uint64_t seed = 0x13198a2e03707344;
  auto next = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  for (int i = 0; i < 300; ++i) {
    const uint32_t length = 4 + static_cast<uint32_t>(next(60));
    std::string text;
    for (uint32_t pc = 0; pc < length; ++pc) {
      text.append("l").append(std::to_string(pc)).append(":\n");
      std::string target = "l";
      target.append(std::to_string(pc + 1 + next(length - pc)));
      switch (next(12)) {
        case 0: case 1: case 2:
          text.append("jeq %r1, ").append(std::to_string(next(3))).append(", ").append(target).append("\n");
          break;
        case 3: case 4: text.append("jgt %r1, %r2, ").append(target).append("\n"); break;
        case 6: text.append("lddw %r3, ").append(std::to_string(next(1u << 20) << 32 | 1)).append("\n"); break;
        case 7: {  // an early exit, which the taken edge (a block's second) jumps over
          const std::string at = std::to_string(pc);
          text.append("jne %r1, 9, x").append(at).append("\nexit\nx").append(at).append(":\n");
          break;
        }
        case 5: {  // an if/else, whose ja skips the else
          const std::string at = std::to_string(pc);
          text.append("jeq %r1, 7, e").append(at).append("\nadd %r0, 1\nja j").append(at);
          text.append("\ne").append(at).append(":\nadd %r0, 2\nj").append(at).append(":\n");
          break;
        }
        default: text.append("add %r0, 1\n"); break;
      }
    }
    text.append("l").append(std::to_string(length)).append(":\nexit\n");
    const auto a = analyze(text);
    ASSERT_EQ(a->error, "") << text;
    ASSERT_TRUE(a->result.ok()) << text;
    // The reference: each slot's longest run to an exit.
    const uint32_t n = a->program.count;
    std::vector<uint64_t> longest(n + 1, 0);
    for (uint32_t pc = n; pc-- > 0;) {
      const Insn& insn = a->program.insns[pc];
      const uint32_t to = static_cast<uint32_t>(int64_t{pc} + 1 + insn.offset);
      if (insn.op == Op::lddw_tail) continue;  // never a start: a lddw runs on past it
      longest[pc] = 1 + (insn.op == Op::exit                ? 0
                         : insn.op == Op::ja                ? longest[to]
                         : is_conditional_jump(insn.op)     ? std::max(longest[pc + 1], longest[to])
                         : insn.op == Op::lddw_imm64        ? longest[pc + 2]
                                                            : longest[pc + 1]);
    }
    EXPECT_EQ(a->result.max_insns_executed, longest[0]) << text;
    // function_cost: max_insns below the slot count but not below the
    // longest path (which needs a jump or a lddw to be shorter).
    if (longest[0] < n) {
      LoopBoundOptions options;
      options.max_insns = longest[0];
      const LoopBoundResult slow = bound_loops(a->cfg, a->oracle.facts(), options, a->arena);
      ASSERT_TRUE(slow.ok()) << text;
      EXPECT_EQ(slow.max_insns_executed, longest[0]) << text;
      options.max_insns = longest[0] - 1;  // and one below: too costly
      EXPECT_EQ(bound_loops(a->cfg, a->oracle.facts(), options, a->arena).error, LoopBoundError::too_costly)
          << text;
    }
    // A lddw first (one more instruction on every path).
    const auto with_lddw = analyze("lddw %r3, 5\n" + text);
    ASSERT_EQ(with_lddw->error, "") << text;
    ASSERT_TRUE(with_lddw->result.ok()) << text;
    EXPECT_EQ(with_lddw->result.max_insns_executed, longest[0] + 1) << text;
  }
}

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
