// Tests for keel::build_cfg() (verifier/src/cfg/cfg.cc). Programs are built
// in the decoded form (the decoder is tested on its own). Small shapes have
// their blocks, edges, RPO, dominators and loops written out by hand; random
// programs are checked against naive textbook definitions (dominator sets by
// fixpoint, reducibility as "acyclic without back edges", natural loops by
// backward search), computed here without the code under test.
#include "cfg/cfg.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace keel {
namespace {

constexpr uint32_t kNone = Cfg::kNone;
using Kind = Cfg::EdgeKind;

// ---- A tiny builder: jumps and calls take absolute targets.
struct Asm {
  std::vector<Insn> insns;
  uint32_t pc() const { return static_cast<uint32_t>(insns.size()); }
  Asm& put(Op op, uint8_t dst = 0, int32_t offset = 0, int64_t imm = 0) {
    insns.push_back(Insn{op, dst, 0, 0, offset, imm});
    return *this;
  }
  int32_t rel(uint32_t to) const { return static_cast<int32_t>(int64_t{to} - pc() - 1); }
  Asm& mov(uint8_t dst, int32_t imm) { return put(Op::mov64_imm, dst, 0, imm); }
  Asm& add(uint8_t dst, int32_t imm) { return put(Op::add64_imm, dst, 0, imm); }
  Asm& jcc(Op op, uint8_t dst, int32_t imm, uint32_t to) { return put(op, dst, rel(to), imm); }
  Asm& jeq(uint8_t dst, int32_t imm, uint32_t to) { return jcc(Op::jeq64_imm, dst, imm, to); }
  Asm& ja(uint32_t to) { return put(Op::ja, 0, rel(to)); }
  Asm& call(uint32_t to) { return put(Op::call_local, 0, rel(to)); }
  Asm& helper(int32_t id) { return put(Op::call_helper, 0, 0, id); }
  Asm& lddw(uint8_t dst, int64_t value) { return put(Op::lddw_imm64, dst, 0, value).put(Op::lddw_tail); }
  Asm& exit() { return put(Op::exit); }
};

// Owns the memory a Cfg points into, so it can be returned by value.
struct Built {
  std::vector<Insn> insns;
  std::unique_ptr<uint8_t[]> memory;
  size_t peak = 0, bound = 0;
  Cfg cfg;
  CfgResult result;
};

Built build(std::vector<Insn> insns, CfgOptions options = {}) {
  Built built;
  built.insns = std::move(insns);
  built.bound = cfg_arena_bound(static_cast<uint32_t>(built.insns.size()));
  built.memory.reset(new uint8_t[built.bound]);  // uninitialized: large bounds cost only what is touched
  Arena arena(built.memory.get(), built.bound);
  const Program program{built.insns.data(), static_cast<uint32_t>(built.insns.size())};
  built.result = build_cfg(program, options, arena, built.cfg);
  built.peak = arena.peak();
  EXPECT_LE(built.peak, built.bound);
  return built;
}
Built build(const Asm& a, CfgOptions options = {}) { return build(a.insns, options); }

CfgOptions keep_unreachable() {
  CfgOptions options;
  options.reject_unreachable = false;
  return options;
}

std::vector<std::pair<uint32_t, Kind>> succs(const Cfg& cfg, uint32_t b) {
  std::vector<std::pair<uint32_t, Kind>> out;
  for (const Cfg::Edge& e : cfg.successors(b)) {
    EXPECT_EQ(e.from, b);
    out.emplace_back(e.to, e.kind);
  }
  return out;
}
std::vector<uint32_t> preds(const Cfg& cfg, uint32_t b) {
  std::vector<uint32_t> out;
  for (uint32_t e : cfg.predecessors(b)) {
    EXPECT_EQ(cfg.edges[e].to, b);
    out.push_back(cfg.edges[e].from);
  }
  std::sort(out.begin(), out.end());
  return out;
}
std::vector<uint32_t> vec(Cfg::Span<uint32_t> s) { return {s.begin(), s.end()}; }
std::vector<uint32_t> sorted(Cfg::Span<uint32_t> s) {
  std::vector<uint32_t> v = vec(s);
  std::sort(v.begin(), v.end());
  return v;
}
std::pair<uint32_t, uint32_t> range(const Cfg& cfg, uint32_t b) { return {cfg.blocks[b].first, cfg.blocks[b].last}; }
std::vector<uint32_t> back_sources(const Cfg& cfg, uint32_t l) {
  std::vector<uint32_t> out;
  for (uint32_t e : cfg.loop_back_edges(l)) {
    EXPECT_EQ(cfg.edges[e].to, cfg.loops[l].header);
    out.push_back(cfg.edges[e].from);
  }
  std::sort(out.begin(), out.end());
  return out;
}
// Exits of loop l as (from, to) block pairs.
std::set<std::pair<uint32_t, uint32_t>> exits_of(const Cfg& cfg, uint32_t l) {
  std::set<std::pair<uint32_t, uint32_t>> out;
  for (const Cfg::LoopExit& x : cfg.loop_exit_candidates(l)) {
    if (cfg.leaves(x, l)) out.insert({cfg.edges[x.edge].from, cfg.edges[x.edge].to});
  }
  return out;
}

using Pairs = std::vector<std::pair<uint32_t, Kind>>;
using U = std::vector<uint32_t>;

// ---- Hand-checked shapes.

TEST(Cfg, StraightLineIsOneBlock) {
  Asm a;
  a.mov(0, 1).add(0, 2).helper(1).exit();
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.block_count, 1u);
  EXPECT_EQ(range(cfg, 0), std::make_pair(0u, 3u));
  EXPECT_EQ(cfg.edge_count, 0u);
  EXPECT_EQ(vec(cfg.function_rpo(0)), U{0});
  EXPECT_EQ(cfg.blocks[0].idom, kNone);
  EXPECT_FALSE(cfg.dominators);  // loop-free
  EXPECT_EQ(cfg.loop_count, 0u);
  EXPECT_EQ(cfg.function_count, 1u);
  EXPECT_EQ(cfg.max_call_depth, 1u);
  EXPECT_EQ(cfg.first_unreachable_pc, kNone);
  for (uint32_t pc = 0; pc < 4; ++pc) EXPECT_EQ(cfg.block_of(pc), 0u);
}

TEST(Cfg, StraightLineShortcutMatchesTheGeneralBuild) {
  // Without jump, call or lddw build_cfg takes a shortcut; with a lddw the
  // same one-block shape goes through the phases. Every field must agree.
  Asm plain;
  plain.mov(1, 5).mov(1, 5).mov(0, 0).exit();
  Asm with_lddw;
  with_lddw.lddw(1, 5).mov(0, 0).exit();
  const Built s = build(plain);
  const Built g = build(with_lddw);
  ASSERT_TRUE(s.result.ok() && g.result.ok());
  const Cfg& a = s.cfg;
  const Cfg& b = g.cfg;
  EXPECT_EQ(a.insn_count, b.insn_count);
  ASSERT_EQ(a.block_count, 1u);
  ASSERT_EQ(b.block_count, 1u);
  EXPECT_EQ(std::memcmp(&a.blocks[0], &b.blocks[0], sizeof(Cfg::Block)), 0);
  ASSERT_EQ(a.function_count, b.function_count);
  EXPECT_EQ(std::memcmp(&a.functions[0], &b.functions[0], sizeof(Cfg::Function)), 0);
  EXPECT_EQ(a.edge_count, b.edge_count);
  EXPECT_EQ(a.call_count, b.call_count);
  EXPECT_EQ(a.rpo_count, b.rpo_count);
  EXPECT_EQ(a.rpo[0], b.rpo[0]);
  EXPECT_EQ(a.loop_count, b.loop_count);
  EXPECT_EQ(a.max_call_depth, b.max_call_depth);
  EXPECT_EQ(a.first_unreachable_pc, b.first_unreachable_pc);
  EXPECT_EQ(a.lddw_count, 0u);
  EXPECT_EQ(b.lddw_count, 1u);
  for (uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.succ_offsets[i], b.succ_offsets[i]);
    EXPECT_EQ(a.pred_offsets[i], b.pred_offsets[i]);
  }
  EXPECT_EQ(a.back_edge_offsets[0], 0u);
  EXPECT_EQ(a.loop_block_offsets[0], 0u);
  EXPECT_EQ(a.exit_offsets[0], 0u);
  EXPECT_FALSE(a.dominators);
  EXPECT_FALSE(b.dominators);
  EXPECT_FALSE(a.dominates(0, 0));  // none built (ADR 0051)
  EXPECT_EQ(a.successors(0).size, 0u);
  EXPECT_EQ(a.predecessors(0).size, 0u);
  // A block that jumps to itself is not straight-line: it is a loop.
  Asm self;
  self.mov(0, 0).ja(0);
  const Built l = build(self);
  ASSERT_TRUE(l.result.ok());
  EXPECT_EQ(l.cfg.block_count, 1u);
  EXPECT_EQ(l.cfg.loop_count, 1u);
  EXPECT_TRUE(l.cfg.dominators);
  EXPECT_TRUE(l.cfg.dominates(0, 0));
  EXPECT_EQ(l.cfg.blocks[0].idom, kNone);
}

TEST(Cfg, CountsLddwsReachableOrNot) {
  // (verify() checks map references only when there is a lddw.)
  Asm a;
  a.lddw(1, 7).mov(0, 0).exit().lddw(2, 8).exit();
  const Built b = build(a, keep_unreachable());
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  EXPECT_EQ(b.cfg.lddw_count, 2u);
  EXPECT_EQ(b.cfg.first_unreachable_pc, 4u);
  EXPECT_EQ(build(Asm().mov(0, 0).exit()).cfg.lddw_count, 0u);
}

TEST(Cfg, BuildingIntoAUsedCfgStartsOver) {
  // build_cfg fills `out` in place; one that holds an earlier graph (here
  // with a loop, a lddw and more blocks) must come out as a fresh build would.
  Asm looped;
  looped.mov(0, 0).lddw(1, 5);
  const uint32_t head = looped.pc();
  looped.add(0, 1).jcc(Op::jlt64_imm, 0, 10, head).exit();
  Built b = build(looped);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  ASSERT_EQ(b.cfg.loop_count, 1u);
  Asm straight;
  straight.mov(0, 1).add(0, 2).exit();
  std::vector<uint8_t> memory(cfg_arena_bound(straight.pc()));
  Arena arena(memory.data(), memory.size());
  const Program program{straight.insns.data(), straight.pc()};
  ASSERT_TRUE(build_cfg(program, arena, b.cfg).ok());
  const Cfg& cfg = b.cfg;
  EXPECT_EQ(cfg.insns, straight.insns.data());
  EXPECT_EQ(cfg.block_count, 1u);
  EXPECT_EQ(cfg.edge_count, 0u);
  EXPECT_EQ(cfg.loop_count, 0u);
  EXPECT_EQ(cfg.lddw_count, 0u);
  EXPECT_EQ(cfg.function_count, 1u);
  EXPECT_EQ(cfg.call_count, 0u);
  EXPECT_EQ(cfg.blocks[0].loop, kNone);
  EXPECT_EQ(cfg.first_unreachable_pc, kNone);
}

TEST(Cfg, IfElseDiamond) {
  Asm a;
  a.jeq(1, 0, 3)  // 0  B0
      .mov(0, 1)  // 1  B1
      .ja(4)      // 2
      .mov(0, 2)  // 3  B2
      .exit();    // 4  B3
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.block_count, 4u);
  EXPECT_EQ(range(cfg, 0), std::make_pair(0u, 0u));
  EXPECT_EQ(range(cfg, 1), std::make_pair(1u, 2u));
  EXPECT_EQ(range(cfg, 2), std::make_pair(3u, 3u));
  EXPECT_EQ(range(cfg, 3), std::make_pair(4u, 4u));
  EXPECT_EQ(succs(cfg, 0), (Pairs{{1, Kind::not_taken}, {2, Kind::taken}}));
  EXPECT_EQ(succs(cfg, 1), (Pairs{{3, Kind::jump}}));
  EXPECT_EQ(succs(cfg, 2), (Pairs{{3, Kind::fall}}));
  EXPECT_EQ(succs(cfg, 3), Pairs{});
  EXPECT_EQ(preds(cfg, 0), U{});
  EXPECT_EQ(preds(cfg, 3), (U{1, 2}));
  EXPECT_EQ(vec(cfg.function_rpo(0)), (U{0, 1, 2, 3}));
  // Loop-free: no dominator tree (ADR 0051).
  EXPECT_FALSE(cfg.dominators);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(cfg.blocks[i].idom, kNone);
    for (uint32_t j = 0; j < 4; ++j) EXPECT_FALSE(cfg.dominates(i, j));
  }
  EXPECT_EQ(cfg.loop_count, 0u);
}

// Inside a loop (the outer join jumps back to the entry), so that the
// dominator tree is built.
TEST(Cfg, NestedDiamondsInALoop) {
  Asm a;
  a.jeq(1, 0, 7)  // 0 B0 (loop header)
      .jeq(2, 0, 4)  // 1 B1
      .mov(0, 1)     // 2 B2
      .ja(5)         // 3
      .mov(0, 2)     // 4 B3
      .mov(3, 1)     // 5 B4 (inner join)
      .ja(8)         // 6
      .mov(0, 3)     // 7 B5
      .jeq(4, 0, 0)  // 8 B6 (outer join, latch)
      .exit();       // 9 B7
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.block_count, 8u);
  ASSERT_EQ(cfg.loop_count, 1u);
  EXPECT_TRUE(cfg.dominators);
  EXPECT_EQ(vec(cfg.function_rpo(0)), (U{0, 1, 2, 3, 4, 5, 6, 7}));
  const uint32_t idom[] = {kNone, 0, 1, 1, 1, 0, 0, 6};
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(cfg.blocks[i].idom, idom[i]) << "block " << i;
  EXPECT_EQ(preds(cfg, 4), (U{2, 3}));
  EXPECT_EQ(preds(cfg, 6), (U{4, 5}));
  EXPECT_TRUE(cfg.dominates(1, 4));
  EXPECT_FALSE(cfg.dominates(1, 6));
  EXPECT_TRUE(cfg.dominates(6, 7));
  EXPECT_TRUE(cfg.dominates(0, 0));
}

TEST(Cfg, WhileLoop) {
  Asm a;
  a.mov(1, 0)                          // 0 B0
      .jcc(Op::jge64_imm, 1, 10, 4)   // 1 B1 header
      .add(1, 1)                       // 2 B2
      .ja(1)                           // 3
      .exit();                         // 4 B3
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.block_count, 4u);
  ASSERT_EQ(cfg.loop_count, 1u);
  const Cfg::Loop& loop = cfg.loops[0];
  EXPECT_EQ(loop.header, 1u);
  EXPECT_EQ(loop.parent, kNone);
  EXPECT_EQ(loop.depth, 1u);
  EXPECT_EQ(loop.function, 0u);
  EXPECT_EQ(sorted(cfg.loop_body(0)), (U{1, 2}));
  EXPECT_EQ(back_sources(cfg, 0), U{2});
  EXPECT_EQ(exits_of(cfg, 0), (std::set<std::pair<uint32_t, uint32_t>>{{1, 3}}));
  EXPECT_EQ(cfg.blocks[0].loop, kNone);
  EXPECT_EQ(cfg.blocks[1].loop, 0u);
  EXPECT_EQ(cfg.blocks[2].loop, 0u);
  EXPECT_EQ(cfg.blocks[3].loop, kNone);
  EXPECT_TRUE(cfg.in_loop(2, 0));
  EXPECT_FALSE(cfg.in_loop(3, 0));
  EXPECT_EQ(cfg.blocks[3].idom, 1u);
}

TEST(Cfg, DoWhileLoopIsASelfLoop) {
  Asm a;
  a.mov(1, 0)                         // 0 B0
      .add(1, 1)                      // 1 B1 header and latch
      .jcc(Op::jlt64_imm, 1, 10, 1)  // 2
      .exit();                        // 3 B2
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.block_count, 3u);
  EXPECT_EQ(succs(cfg, 1), (Pairs{{2, Kind::not_taken}, {1, Kind::taken}}));
  ASSERT_EQ(cfg.loop_count, 1u);
  EXPECT_EQ(cfg.loops[0].header, 1u);
  EXPECT_EQ(cfg.loops[0].depth, 1u);
  EXPECT_EQ(sorted(cfg.loop_body(0)), U{1});
  EXPECT_EQ(back_sources(cfg, 0), U{1});
  EXPECT_EQ(exits_of(cfg, 0), (std::set<std::pair<uint32_t, uint32_t>>{{1, 2}}));
}

TEST(Cfg, NestedLoopsWithBreakOutOfBoth) {
  Asm a;
  a.mov(1, 0)                          // 0 B0
      .jcc(Op::jge64_imm, 1, 10, 9)   // 1 B1 outer header
      .mov(2, 0)                       // 2 B2
      .jcc(Op::jge64_imm, 2, 10, 7)   // 3 B3 inner header
      .jeq(3, 0, 9)                    // 4 B4 break out of both
      .add(2, 1)                       // 5 B5
      .ja(3)                           // 6
      .add(1, 1)                       // 7 B6
      .ja(1)                           // 8
      .exit();                         // 9 B7
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.block_count, 8u);
  ASSERT_EQ(cfg.loop_count, 2u);
  // Pre-order: the outer loop first.
  EXPECT_EQ(cfg.loops[0].header, 1u);
  EXPECT_EQ(cfg.loops[1].header, 3u);
  EXPECT_EQ(cfg.loops[0].parent, kNone);
  EXPECT_EQ(cfg.loops[1].parent, 0u);
  EXPECT_EQ(cfg.loops[0].depth, 1u);
  EXPECT_EQ(cfg.loops[1].depth, 2u);
  EXPECT_EQ(cfg.loops[0].subtree_end, 2u);
  EXPECT_EQ(cfg.loops[1].subtree_end, 2u);
  EXPECT_EQ(sorted(cfg.loop_body(0)), (U{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(sorted(cfg.loop_body(1)), (U{3, 4, 5}));
  EXPECT_EQ(back_sources(cfg, 0), U{6});
  EXPECT_EQ(back_sources(cfg, 1), U{5});
  EXPECT_EQ(exits_of(cfg, 0), (std::set<std::pair<uint32_t, uint32_t>>{{1, 7}, {4, 7}}));
  EXPECT_EQ(exits_of(cfg, 1), (std::set<std::pair<uint32_t, uint32_t>>{{3, 6}, {4, 7}}));
  EXPECT_EQ(cfg.blocks[2].loop, 0u);
  EXPECT_EQ(cfg.blocks[4].loop, 1u);
  EXPECT_TRUE(cfg.in_loop(4, 0));
  EXPECT_FALSE(cfg.in_loop(2, 1));
  EXPECT_FALSE(cfg.in_loop(7, 0));
}

TEST(Cfg, TwoBackEdgesMakeOneLoop) {
  Asm a;
  a.mov(1, 0)                         // 0 B0
      .add(1, 1)                      // 1 B1 header
      .jeq(1, 5, 1)                   // 2    continue (a self-loop edge)
      .jcc(Op::jlt64_imm, 1, 10, 1)  // 3 B2 second back edge
      .exit();                        // 4 B3
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.loop_count, 1u);
  EXPECT_EQ(cfg.loops[0].header, 1u);
  EXPECT_EQ(back_sources(cfg, 0), (U{1, 2}));
  EXPECT_EQ(sorted(cfg.loop_body(0)), (U{1, 2}));
  EXPECT_EQ(exits_of(cfg, 0), (std::set<std::pair<uint32_t, uint32_t>>{{2, 3}}));
}

TEST(Cfg, IrreducibleLoopWithTwoEntries) {
  // B0 enters the cycle B1 <-> B2 at both blocks.
  Asm a;
  a.jeq(1, 0, 3)                     // 0 B0
      .add(1, 1)                      // 1 B1
      .jcc(Op::jgt64_imm, 1, 10, 5)  // 2    falls into B2
      .add(1, 2)                      // 3 B2
      .ja(1)                          // 4    back to B1
      .exit();                        // 5 B3
  const Built b = build(a);
  EXPECT_EQ(b.result.error, CfgError::irreducible_loop);
  // The RPO is B0 B2 B1 B3, so B1 -> B2 is the retreating edge B2 does not
  // dominate; it is the fall-through of the branch at pc 2.
  EXPECT_EQ(b.result.pc, 2u);
}

TEST(Cfg, UnreachableAfterExit) {
  Asm a;
  a.mov(0, 0).exit().mov(0, 1).exit();
  const Built b = build(a);
  EXPECT_EQ(b.result.error, CfgError::unreachable);
  EXPECT_EQ(b.result.pc, 2u);
  const Built kept = build(a, keep_unreachable());
  ASSERT_TRUE(kept.result.ok());
  EXPECT_EQ(kept.cfg.first_unreachable_pc, 2u);
  EXPECT_TRUE(kept.cfg.reachable(0));
  EXPECT_FALSE(kept.cfg.reachable(1));
  EXPECT_EQ(kept.cfg.rpo_count, 1u);
  EXPECT_EQ(kept.cfg.blocks[1].idom, kNone);
  EXPECT_FALSE(kept.cfg.dominates(0, 1));
}

TEST(Cfg, UnreachableAfterJa) {
  Asm a;
  a.mov(0, 0).ja(4).mov(0, 1).mov(0, 2).exit();
  const Built b = build(a);
  EXPECT_EQ(b.result.error, CfgError::unreachable);
  EXPECT_EQ(b.result.pc, 2u);
}

TEST(Cfg, UnreachableLoopIsNotALoop) {
  Asm a;
  a.exit().add(1, 1).jeq(1, 0, 1).exit();
  const Built b = build(a, keep_unreachable());
  ASSERT_TRUE(b.result.ok());
  EXPECT_EQ(b.cfg.first_unreachable_pc, 1u);
  EXPECT_EQ(b.cfg.loop_count, 0u);
}

TEST(Cfg, LddwStaysInsideItsBlock) {
  Asm a;
  a.jeq(1, 0, 3)  // 0 B0
      .lddw(2, int64_t{1} << 40)  // 1-2 B1 ends with the lddw, falls through
      .lddw(3, 7)  // 3-4 B2
      .mov(0, 0)   // 5
      .exit();     // 6
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.block_count, 3u);
  EXPECT_EQ(range(cfg, 1), std::make_pair(1u, 2u));
  EXPECT_EQ(range(cfg, 2), std::make_pair(3u, 6u));
  EXPECT_EQ(cfg.block_of(2), 1u);
  EXPECT_EQ(cfg.block_of(4), 2u);
  EXPECT_EQ(succs(cfg, 1), (Pairs{{2, Kind::fall}}));
}

// main calls f (pc 1) and g (pc 3); f calls g (pc 6).
Asm three_functions() {
  Asm a;
  a.mov(1, 1)     // 0 main
      .call(5)    // 1
      .mov(2, 1)  // 2
      .call(8)    // 3
      .exit()     // 4
      .mov(0, 1)  // 5 f
      .call(8)    // 6
      .exit()     // 7
      .mov(0, 2)  // 8 g
      .exit();    // 9
  return a;
}

void check_structure(const Cfg& cfg);  // below, with the random programs

TEST(Cfg, SubprogramsAndCallSites) {
  const Built b = build(three_functions());
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  const Cfg& cfg = b.cfg;
  ASSERT_EQ(cfg.function_count, 3u);
  ASSERT_EQ(cfg.block_count, 3u);  // a call does not end a block
  check_structure(cfg);
  const uint32_t entry[] = {0, 5, 8}, end[] = {5, 8, 10}, depth[] = {3, 2, 1}, calls[] = {2, 1, 0};
  for (uint32_t f = 0; f < 3; ++f) {
    const Cfg::Function& fn = cfg.functions[f];
    EXPECT_EQ(fn.entry, entry[f]);
    EXPECT_EQ(fn.end, end[f]);
    EXPECT_EQ(fn.first_block, f);
    EXPECT_EQ(fn.block_count, 1u);
    EXPECT_EQ(fn.depth, depth[f]);
    EXPECT_EQ(fn.call_count, calls[f]);
    EXPECT_EQ(cfg.blocks[f].function, f);
    EXPECT_EQ(vec(cfg.function_rpo(f)), U{f});
    EXPECT_EQ(cfg.blocks[f].idom, kNone);
  }
  EXPECT_EQ(range(cfg, 0), std::make_pair(0u, 4u));
  ASSERT_EQ(cfg.call_count, 3u);
  const uint32_t pc[] = {1, 3, 6}, block[] = {0, 0, 1}, caller[] = {0, 0, 1}, callee[] = {1, 2, 2};
  for (uint32_t c = 0; c < 3; ++c) {
    EXPECT_EQ(cfg.calls[c].pc, pc[c]);
    EXPECT_EQ(cfg.calls[c].block, block[c]);
    EXPECT_EQ(cfg.calls[c].caller, caller[c]);
    EXPECT_EQ(cfg.calls[c].callee, callee[c]);
  }
  EXPECT_EQ(cfg.max_call_depth, 3u);
  EXPECT_EQ(succs(cfg, 0), Pairs{});  // no edge into another function
}

TEST(Cfg, CallDepthLimit) {
  CfgOptions options;
  options.max_call_depth = 3;
  EXPECT_TRUE(build(three_functions(), options).result.ok());
  options.max_call_depth = 2;
  const Built b = build(three_functions(), options);
  EXPECT_EQ(b.result.error, CfgError::too_deep_calls);
  EXPECT_EQ(b.result.pc, 6u);  // main -> f -> g: the third frame
  options.max_call_depth = 0;  // no limit
  EXPECT_TRUE(build(three_functions(), options).result.ok());
}

TEST(Cfg, DefaultCallDepthIsLinuxs) {
  // A chain of 9 functions: 9 frames, one more than MAX_CALL_FRAMES.
  Asm a;
  for (uint32_t f = 0; f < 8; ++f) a.call(a.pc() + 2).exit();
  a.exit();
  const Built b = build(a);
  EXPECT_EQ(b.result.error, CfgError::too_deep_calls);
  EXPECT_EQ(b.result.pc, 14u);  // the call in the eighth function
  CfgOptions options;
  options.max_call_depth = 9;
  const Built ok = build(a, options);
  ASSERT_TRUE(ok.result.ok());
  EXPECT_EQ(ok.cfg.max_call_depth, 9u);
}

TEST(Cfg, DirectRecursion) {
  Asm a;
  a.call(2).exit().call(2).exit();
  const Built b = build(a);
  EXPECT_EQ(b.result.error, CfgError::recursion);
  EXPECT_EQ(b.result.pc, 2u);
}

TEST(Cfg, RecursionInsideTheOnlyBlock) {
  // A call of slot 0 adds no block: the program is one block, but not one
  // without calls (build_cfg's single-block shortcut must not take it).
  Asm a;
  a.mov(0, 0).call(0).exit();
  const Built b = build(a);
  EXPECT_EQ(b.result.error, CfgError::recursion);
  EXPECT_EQ(b.result.pc, 1u);
}

TEST(Cfg, MutualRecursion) {
  Asm a;
  a.call(2).exit()  // main -> f
      .call(4).exit()  // f -> g
      .mov(0, 0).call(2).exit();  // g -> f
  const Built b = build(a);
  EXPECT_EQ(b.result.error, CfgError::recursion);
  EXPECT_EQ(b.result.pc, 5u);
}

TEST(Cfg, RecursionInDeadCodeIsOnlyUnreachable) {
  Asm a;
  a.exit().call(1).exit();  // pc 1 is a function calling itself that nobody calls
  EXPECT_EQ(build(a).result.error, CfgError::unreachable);
  EXPECT_EQ(build(a).result.pc, 1u);
  const Built kept = build(a, keep_unreachable());
  ASSERT_TRUE(kept.result.ok());
  EXPECT_EQ(kept.cfg.functions[1].depth, 0u);
  EXPECT_EQ(kept.cfg.max_call_depth, 1u);
}

TEST(Cfg, DeadCallSitesAreNotFollowed) {
  Asm a;
  a.ja(2).call(3).exit()  // pc 1: a dead call to f
      .call(3).exit();    // f at 3 calls itself
  const Built b = build(a, keep_unreachable());
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  EXPECT_EQ(b.cfg.max_call_depth, 1u);
  EXPECT_EQ(b.cfg.first_unreachable_pc, 1u);
  ASSERT_EQ(b.cfg.call_count, 2u);  // still recorded
  EXPECT_EQ(b.cfg.calls[0].callee, 1u);
}

TEST(Cfg, FunctionCalledOnlyFromDeadCodeIsUnreachable) {
  Asm a;
  a.exit().call(3).exit().mov(0, 0).exit();
  const Built b = build(a);
  EXPECT_EQ(b.result.error, CfgError::unreachable);
  EXPECT_EQ(b.result.pc, 1u);
  Asm live;
  live.call(3).exit().exit().mov(0, 0).exit();  // pc 2 dead, function at 3 called
  EXPECT_EQ(build(live).result.pc, 2u);
}

TEST(Cfg, LoopInsideCallee) {
  Asm a;
  a.call(2).exit()                    // main
      .mov(1, 0)                      // 2 f: B1
      .add(1, 1)                      // 3 B2 header
      .jcc(Op::jlt64_imm, 1, 4, 3)   // 4
      .exit();                        // 5 B3
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  ASSERT_EQ(b.cfg.loop_count, 1u);
  EXPECT_EQ(b.cfg.loops[0].function, 1u);
  EXPECT_EQ(b.cfg.loops[0].header, 2u);
  EXPECT_EQ(b.cfg.functions[1].first_block, 1u);
  EXPECT_EQ(b.cfg.functions[1].block_count, 3u);
}

TEST(Cfg, ErrorNamesAreStable) {
  EXPECT_STREQ(cfg_error_name(CfgError::ok), "ok");
  EXPECT_STREQ(cfg_error_name(CfgError::out_of_memory), "out_of_memory");
  EXPECT_STREQ(cfg_error_name(CfgError::unreachable), "unreachable");
  EXPECT_STREQ(cfg_error_name(CfgError::irreducible_loop), "irreducible_loop");
  EXPECT_STREQ(cfg_error_name(CfgError::recursion), "recursion");
  EXPECT_STREQ(cfg_error_name(CfgError::too_deep_calls), "too_deep_calls");
  EXPECT_STREQ(cfg_error_name(CfgError::invalid_program), "invalid_program");
}

// decode() rules these out; a debug build traps, a release build refuses.
void expect_contract_violation(const Asm& a, uint32_t pc) {
  std::vector<uint8_t> memory(cfg_arena_bound(a.pc()));
  Arena arena(memory.data(), memory.size());
  Cfg cfg;
  CfgResult result;
  const Program program{a.insns.data(), a.pc()};
  EXPECT_DEBUG_DEATH(result = build_cfg(program, arena, cfg), "");
#ifdef NDEBUG
  EXPECT_EQ(result.error, CfgError::invalid_program);
  EXPECT_EQ(result.pc, pc);
#else
  (void)pc;
#endif
}

TEST(CfgDeathTest, DecoderGuaranteesAreChecked) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Asm into_tail;
  into_tail.jeq(1, 0, 2).lddw(1, 1).exit();
  expect_contract_violation(into_tail, 0);
  Asm falls_off;
  falls_off.mov(0, 0);
  expect_contract_violation(falls_off, 0);
  Asm out_of_function;
  out_of_function.call(3).jeq(1, 0, 3).exit().exit();
  expect_contract_violation(out_of_function, 1);
  Asm lone_tail;
  lone_tail.put(Op::lddw_tail).exit();
  expect_contract_violation(lone_tail, 0);
}

// ---- Naive reference for random single-function programs, computed on the
// instructions themselves (one node per executable slot), so it shares no
// code with build_cfg. Blocks are chains, so block-level answers must match
// the answers for their first instructions.

struct Reference {
  uint32_t n = 0;  // slots
  std::vector<std::vector<uint32_t>> succ, pred;
  std::vector<bool> reachable;
  std::vector<std::vector<bool>> dom;  // dom[b][a]: a dominates b
  bool reducible = true;
  std::map<uint32_t, std::set<uint32_t>> loops;  // header -> body (slots)
  bool is_back(uint32_t u, uint32_t v) const { return dom[u][v]; }
};

Reference reference(const std::vector<Insn>& insns) {
  Reference r;
  r.n = static_cast<uint32_t>(insns.size());
  r.succ.resize(r.n);
  r.pred.resize(r.n);
  for (uint32_t pc = 0; pc < r.n; ++pc) {
    const Insn& insn = insns[pc];
    const uint32_t to = static_cast<uint32_t>(int64_t{pc} + 1 + insn.offset);
    if (insn.op == Op::lddw_tail || insn.op == Op::exit) continue;
    if (insn.op == Op::lddw_imm64) {
      r.succ[pc].push_back(pc + 2);
    } else if (insn.op == Op::ja) {
      r.succ[pc].push_back(to);
    } else if (insn.op == Op::jeq64_imm) {
      r.succ[pc].push_back(pc + 1);
      r.succ[pc].push_back(to);
    } else {
      r.succ[pc].push_back(pc + 1);
    }
    for (uint32_t s : r.succ[pc]) r.pred[s].push_back(pc);
  }
  r.reachable.assign(r.n, false);
  std::vector<uint32_t> work{0};
  r.reachable[0] = true;
  while (!work.empty()) {
    const uint32_t b = work.back();
    work.pop_back();
    for (uint32_t s : r.succ[b]) {
      if (!r.reachable[s]) r.reachable[s] = true, work.push_back(s);
    }
  }
  // Dominator sets: the textbook fixpoint.
  r.dom.assign(r.n, std::vector<bool>(r.n, true));
  r.dom[0].assign(r.n, false);
  r.dom[0][0] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 1; b < r.n; ++b) {
      if (!r.reachable[b]) continue;
      std::vector<bool> d(r.n, true);
      for (uint32_t p : r.pred[b]) {
        if (!r.reachable[p]) continue;
        for (uint32_t a = 0; a < r.n; ++a) d[a] = d[a] && r.dom[p][a];
      }
      d[b] = true;
      if (d != r.dom[b]) r.dom[b] = d, changed = true;
    }
  }
  // Reducible iff the reachable graph without back edges (target dominates
  // source) is acyclic.
  std::vector<uint32_t> indegree(r.n, 0);
  uint32_t reachable_count = 0;
  for (uint32_t u = 0; u < r.n; ++u) {
    if (!r.reachable[u]) continue;
    ++reachable_count;
    for (uint32_t v : r.succ[u]) indegree[v] += !r.is_back(u, v);
  }
  std::vector<uint32_t> ready{0};
  uint32_t seen = 0;
  while (!ready.empty()) {
    const uint32_t u = ready.back();
    ready.pop_back();
    ++seen;
    for (uint32_t v : r.succ[u]) {
      if (!r.is_back(u, v) && --indegree[v] == 0) ready.push_back(v);
    }
  }
  r.reducible = seen == reachable_count;
  // Natural loops, merged per header: the header plus everything reaching a
  // back edge's source without passing the header.
  for (uint32_t u = 0; u < r.n; ++u) {
    if (!r.reachable[u]) continue;
    for (uint32_t h : r.succ[u]) {
      if (!r.is_back(u, h)) continue;
      std::set<uint32_t>& body = r.loops[h];
      body.insert(h);
      std::vector<uint32_t> stack;
      if (body.insert(u).second) stack.push_back(u);
      while (!stack.empty()) {
        const uint32_t x = stack.back();
        stack.pop_back();
        for (uint32_t p : r.pred[x]) {
          if (r.reachable[p] && body.insert(p).second) stack.push_back(p);
        }
      }
    }
  }
  return r;
}

// Checks blocks, RPO, dominators and loops of a single-function `cfg`.
void check_against_reference(const Cfg& cfg, const Reference& r) {
  auto first = [&](uint32_t b) { return cfg.blocks[b].first; };
  auto block = [&](uint32_t pc) { return cfg.block_of(pc); };
  const Cfg::Span<uint32_t> order = cfg.function_rpo(0);
  uint32_t reachable_count = 0;
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    reachable_count += r.reachable[first(b)];
    ASSERT_EQ(cfg.reachable(b), r.reachable[first(b)]) << "block " << b;
  }
  ASSERT_EQ(order.size, reachable_count);
  EXPECT_EQ(order[0], 0u);
  for (uint32_t i = 0; i < order.size; ++i) EXPECT_EQ(cfg.blocks[order[i]].rpo, i);
  // Dominators exactly when the graph has a loop (ADR 0051); without, no
  // edge may go backwards in RPO (which is what makes it loop-free) and
  // nothing dominates.
  EXPECT_EQ(cfg.dominators, !r.loops.empty());
  if (!cfg.dominators) {
    for (uint32_t b = 0; b < cfg.block_count; ++b) {
      EXPECT_EQ(cfg.blocks[b].idom, kNone);
      EXPECT_EQ(cfg.blocks[b].dom_pre, cfg.blocks[b].dom_end);
      if (!cfg.reachable(b)) continue;
      for (const Cfg::Edge& e : cfg.successors(b)) EXPECT_LT(cfg.blocks[b].rpo, cfg.blocks[e.to].rpo);
      for (uint32_t a = 0; a < cfg.block_count; ++a) EXPECT_FALSE(cfg.dominates(a, b));
    }
  }
  for (uint32_t b = 0; cfg.dominators && b < cfg.block_count; ++b) {
    if (!cfg.reachable(b)) continue;
    for (uint32_t a = 0; a < cfg.block_count; ++a) {
      EXPECT_EQ(cfg.dominates(a, b), r.reachable[first(a)] && r.dom[first(b)][first(a)]) << a << " dom " << b;
    }
    // idom: a strict dominator that every other strict dominator dominates.
    const uint32_t idom = cfg.blocks[b].idom;
    if (b == 0) {
      EXPECT_EQ(idom, kNone);
      continue;
    }
    ASSERT_NE(idom, kNone);
    EXPECT_TRUE(r.dom[first(b)][first(idom)]);
    EXPECT_NE(idom, b);
    for (uint32_t a = 0; a < cfg.block_count; ++a) {
      if (a != b && r.reachable[first(a)] && r.dom[first(b)][first(a)]) {
        EXPECT_TRUE(cfg.dominates(a, idom));
      }
    }
    // Non-back edges go forward in RPO.
    for (const Cfg::Edge& e : cfg.successors(b)) {
      if (!r.dom[first(b)][first(e.to)]) {
        EXPECT_LT(cfg.blocks[b].rpo, cfg.blocks[e.to].rpo);
      }
    }
  }
  std::map<uint32_t, uint32_t> loop_of_header;  // header slot -> loop
  for (uint32_t l = 0; l < cfg.loop_count; ++l) loop_of_header[first(cfg.loops[l].header)] = l;
  ASSERT_EQ(loop_of_header.size(), r.loops.size());
  for (const auto& [h, body] : r.loops) {
    ASSERT_TRUE(loop_of_header.count(h)) << "header " << h;
    const uint32_t l = loop_of_header[h];
    std::set<uint32_t> want, got;
    for (uint32_t pc : body) want.insert(block(pc));
    for (uint32_t b : cfg.loop_body(l)) got.insert(b);
    EXPECT_EQ(got, want) << "loop at " << h;
    EXPECT_EQ(cfg.loop_body(l).size, want.size());
    for (uint32_t b = 0; b < cfg.block_count; ++b) EXPECT_EQ(cfg.in_loop(b, l), want.count(b) == 1);
    // Parent: the smallest other loop containing this one; depth: loops containing the header.
    uint32_t depth = 0, parent = kNone;
    size_t parent_size = SIZE_MAX;
    for (const auto& [h2, body2] : r.loops) {
      if (!body2.count(h)) continue;
      ++depth;
      if (h2 != h && body2.size() < parent_size) parent = loop_of_header[h2], parent_size = body2.size();
    }
    EXPECT_EQ(cfg.loops[l].depth, depth);
    EXPECT_EQ(cfg.loops[l].parent, parent);
    EXPECT_TRUE(parent == kNone || parent < l);  // pre-order
    std::set<uint32_t> latches, got_latches;
    std::set<std::pair<uint32_t, uint32_t>> exits;
    for (uint32_t u : body) {
      for (uint32_t v : r.succ[u]) {
        if (v == h && r.is_back(u, h)) latches.insert(block(u));
        if (!body.count(v)) exits.insert({block(u), block(v)});
      }
    }
    for (uint32_t e : cfg.loop_back_edges(l)) got_latches.insert(cfg.edges[e].from);
    EXPECT_EQ(got_latches, latches);
    EXPECT_EQ(exits_of(cfg, l), exits);
  }
  for (uint32_t b = 0; b < cfg.block_count; ++b) {  // innermost loop
    uint32_t inner = kNone;
    size_t size = SIZE_MAX;
    for (const auto& [h, body] : r.loops) {
      if (body.count(first(b)) && body.size() < size) inner = loop_of_header[h], size = body.size();
    }
    EXPECT_EQ(cfg.blocks[b].loop, inner) << "block " << b;
  }
}

// Structure shared by every function: tiling, block_of, CSR consistency.
void check_structure(const Cfg& cfg) {
  uint32_t pc = 0;
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    EXPECT_EQ(cfg.blocks[b].first, pc);
    for (; pc <= cfg.blocks[b].last; ++pc) EXPECT_EQ(cfg.block_of(pc), b);
  }
  EXPECT_EQ(pc, cfg.insn_count);
  std::multiset<uint32_t> from_succ, from_pred;
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    for (uint32_t e = cfg.succ_offsets[b]; e < cfg.succ_offsets[b + 1]; ++e) from_succ.insert(e);
    for (uint32_t e : cfg.predecessors(b)) from_pred.insert(e);
  }
  EXPECT_EQ(from_succ, from_pred);
  EXPECT_EQ(from_succ.size(), cfg.edge_count);
  // Each block's predecessors in edge order.
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    const std::vector<uint32_t> preds(cfg.predecessors(b).begin(), cfg.predecessors(b).end());
    EXPECT_TRUE(std::is_sorted(preds.begin(), preds.end())) << "block " << b;
  }
  // The RPO is exactly the reverse post-order of a depth-first search from
  // each function's entry that takes a block's successors last edge first
  // (so an if/else follows the pc order), written here as the recursion.
  for (uint32_t f = 0; f < cfg.function_count; ++f) {
    std::vector<bool> seen(cfg.block_count, false);
    std::vector<uint32_t> post;
    std::function<void(uint32_t)> visit = [&](uint32_t b) {
      seen[b] = true;
      const Cfg::Span<Cfg::Edge> succ = cfg.successors(b);
      for (uint32_t i = succ.size; i-- > 0;) {
        if (!seen[succ[i].to]) visit(succ[i].to);
      }
      post.push_back(b);
    };
    visit(cfg.functions[f].first_block);
    const std::vector<uint32_t> want(post.rbegin(), post.rend());
    EXPECT_EQ(vec(cfg.function_rpo(f)), want) << "function " << f;
    for (uint32_t i = 0; i < want.size(); ++i) EXPECT_EQ(cfg.blocks[want[i]].rpo, cfg.functions[f].rpo_begin + i);
  }
}

// Random single-function programs: conditional jumps, ja, exits, lddw, in
// any shape the decoder accepts (irreducible and unreachable ones too).
std::vector<Insn> random_program(std::mt19937& rng, uint32_t size) {
  std::vector<bool> tail(size, false);
  std::vector<Insn> insns;
  while (insns.size() + 1 < size) {
    if (insns.size() + 3 < size && rng() % 8 == 0) {
      insns.push_back(Insn{Op::lddw_imm64, 1, 0, 0, 0, 5});
      tail[insns.size()] = true;
      insns.push_back(Insn{Op::lddw_tail, 0, 0, 0, 0, 0});
      continue;
    }
    const uint32_t kind = static_cast<uint32_t>(rng() % 6);
    insns.push_back(Insn{kind < 2 ? Op::jeq64_imm : kind == 2 ? Op::ja : kind == 3 ? Op::exit : Op::add64_imm,
                         1, 0, 0, 0, 1});
  }
  insns.push_back(Insn{rng() % 2 ? Op::exit : Op::ja, 0, 0, 0, 0, 0});
  for (uint32_t pc = 0; pc < size; ++pc) {
    Insn& insn = insns[pc];
    if (insn.op != Op::ja && insn.op != Op::jeq64_imm) continue;
    uint32_t to;
    do {
      to = static_cast<uint32_t>(rng() % size);
    } while (tail[to] || (insn.op == Op::ja && to == pc));
    insn.offset = static_cast<int32_t>(int64_t{to} - pc - 1);
  }
  return insns;
}

TEST(CfgRandom, AgreesWithNaiveDefinitions) {
  std::mt19937 rng(1234);
  uint32_t irreducible = 0, with_loops = 0, nested = 0;
  for (uint32_t round = 0; round < 4000; ++round) {
    const uint32_t size = 2 + static_cast<uint32_t>(rng() % 40);
    const std::vector<Insn> insns = random_program(rng, size);
    const Reference r = reference(insns);
    const Built b = build(insns, keep_unreachable());
    if (!r.reducible) {
      ++irreducible;
      EXPECT_EQ(b.result.error, CfgError::irreducible_loop) << "round " << round;
      continue;
    }
    ASSERT_TRUE(b.result.ok()) << "round " << round << ": " << cfg_error_name(b.result.error);
    check_structure(b.cfg);
    check_against_reference(b.cfg, r);
    with_loops += b.cfg.loop_count > 0;
    for (uint32_t l = 0; l < b.cfg.loop_count; ++l) nested += b.cfg.loops[l].depth > 1;
    if (HasFailure()) FAIL() << "round " << round;
  }
  // The generator must actually produce the interesting shapes.
  EXPECT_GT(irreducible, 100u);
  EXPECT_GT(with_loops, 500u);
  EXPECT_GT(nested, 100u);
}

// ---- The small forward shortcut against the general build.

// build_cfg_general of the same program, in memory of its own.
Built build_general(std::vector<Insn> insns, CfgOptions options = {}) {
  Built built;
  built.insns = std::move(insns);
  built.bound = cfg_arena_bound(static_cast<uint32_t>(built.insns.size()));
  built.memory.reset(new uint8_t[built.bound]);
  Arena arena(built.memory.get(), built.bound);
  const Program program{built.insns.data(), static_cast<uint32_t>(built.insns.size())};
  built.result = build_cfg_general(program, options, arena, built.cfg);
  built.peak = arena.peak();
  return built;
}

template <class T>
bool same_array(const T* a, const T* b, uint32_t count) {
  if (count == 0) return true;
  if (a == nullptr || b == nullptr) return a == b;
  return std::memcmp(a, b, sizeof(T) * count) == 0;
}

// Every field of two graphs of one program, and whether each array exists
// (a reader tests Cfg::lddw_tail_bits, loop_blocks and exits for null).
void expect_same_cfg(const Cfg& a, const Cfg& b) {
  EXPECT_EQ(a.insn_count, b.insn_count);
  ASSERT_EQ(a.block_count, b.block_count);
  ASSERT_EQ(a.edge_count, b.edge_count);
  ASSERT_EQ(a.rpo_count, b.rpo_count);
  ASSERT_EQ(a.function_count, b.function_count);
  ASSERT_EQ(a.call_count, b.call_count);
  ASSERT_EQ(a.loop_count, b.loop_count);
  EXPECT_TRUE(same_array(a.blocks, b.blocks, a.block_count)) << "blocks";
  for (uint32_t e = 0; e < a.edge_count; ++e) {  // (field by field: Edge has padding)
    EXPECT_EQ(a.edges[e].from, b.edges[e].from) << "edge " << e;
    EXPECT_EQ(a.edges[e].to, b.edges[e].to) << "edge " << e;
    EXPECT_EQ(a.edges[e].kind, b.edges[e].kind) << "edge " << e;
  }
  EXPECT_TRUE(same_array(a.succ_offsets, b.succ_offsets, a.block_count + 1)) << "succ_offsets";
  EXPECT_TRUE(same_array(a.pred_offsets, b.pred_offsets, a.block_count + 1)) << "pred_offsets";
  EXPECT_TRUE(same_array(a.pred_edges, b.pred_edges, a.edge_count)) << "pred_edges";
  EXPECT_TRUE(same_array(a.rpo, b.rpo, a.rpo_count)) << "rpo";
  EXPECT_TRUE(same_array(a.functions, b.functions, a.function_count)) << "functions";
  EXPECT_TRUE(same_array(a.calls, b.calls, a.call_count)) << "calls";
  EXPECT_TRUE(same_array(a.loops, b.loops, a.loop_count)) << "loops";
  EXPECT_TRUE(same_array(a.loop_block_offsets, b.loop_block_offsets, a.loop_count + 1)) << "loop_block_offsets";
  EXPECT_TRUE(same_array(a.back_edge_offsets, b.back_edge_offsets, a.loop_count + 1)) << "back_edge_offsets";
  EXPECT_TRUE(same_array(a.exit_offsets, b.exit_offsets, a.loop_count + 1)) << "exit_offsets";
  EXPECT_EQ(a.loop_blocks == nullptr, b.loop_blocks == nullptr);
  EXPECT_EQ(a.exits == nullptr, b.exits == nullptr);
  EXPECT_EQ(a.back_edges == nullptr, b.back_edges == nullptr);
  EXPECT_EQ(a.lddw_count, b.lddw_count);
  // (The straight-line shortcut leaves the tail bits null, which readers
  // take as all zero.)
  for (uint32_t w = 0; w < (a.insn_count + 63) / 64; ++w) {
    EXPECT_EQ(a.lddw_tail_bits == nullptr ? 0 : a.lddw_tail_bits[w], b.lddw_tail_bits == nullptr ? 0 : b.lddw_tail_bits[w])
        << "lddw_tail_bits word " << w;
  }
  EXPECT_EQ(a.max_call_depth, b.max_call_depth);
  EXPECT_EQ(a.first_unreachable_pc, b.first_unreachable_pc);
  EXPECT_EQ(a.dominators, b.dominators);
}

// Builds `insns` both ways, with unreachable code rejected and kept; true
// when the shortcut's shape (at most 64 slots, no backward jump, no call)
// applies, so that callers can count what they covered.
bool expect_shortcut_matches(const std::vector<Insn>& insns) {
  bool small = insns.size() <= 64 && insns.back().op == Op::exit;
  for (uint32_t pc = 0; pc < insns.size(); ++pc) {
    const Op op = insns[pc].op;
    if (op == Op::call_local || op == Op::lddw_code_addr) small = false;
    if ((op == Op::ja || is_conditional_jump(op)) && insns[pc].offset < 0) small = false;
  }
  for (const CfgOptions& options : {CfgOptions{}, keep_unreachable()}) {
    const Built fast = build(insns, options);
    const Built general = build_general(insns, options);
    EXPECT_EQ(fast.result.error, general.result.error);
    EXPECT_EQ(fast.result.pc, general.result.pc);
    if (fast.result.ok() && general.result.ok()) expect_same_cfg(fast.cfg, general.cfg);
    if (small && fast.result.ok()) {
      EXPECT_LT(fast.peak, general.peak) << "the shortcut was not taken";
    }
  }
  return small;
}

TEST(CfgShortcut, SmallForwardShortcutMatchesTheGeneralBuild) {
  // Hand-written shapes: an if/else, an if without else, a chain of early
  // exits, a lddw before and inside branches, unreachable code, a jump by
  // 0, the 64-slot edge and one past it, a helper call between blocks.
  std::vector<Asm> shapes(9);
  shapes[0].mov(0, 10).jeq(0, 5, 4).mov(0, 0).ja(5).mov(0, 1).exit();
  shapes[1].mov(0, 0).jeq(1, 0, 3).mov(0, 1).exit();
  shapes[2].jeq(1, 0, 6).jeq(1, 1, 6).jeq(1, 2, 6).mov(0, 0).exit().exit().mov(0, 1).exit();
  shapes[3].lddw(2, 7).jeq(2, 0, 6).lddw(3, 1).mov(0, 0).exit();
  shapes[4].mov(0, 0).exit().mov(0, 1).exit();
  shapes[5].mov(0, 0).jeq(1, 0, 2).ja(3).exit();
  shapes[6].helper(1).jeq(0, 0, 4).helper(2).mov(0, 0).exit();
  for (uint32_t i = 0; i < 31; ++i) shapes[7].jeq(1, static_cast<int32_t>(i), 62).mov(0, 1);
  shapes[7].mov(0, 0).exit();  // 64 slots
  for (uint32_t i = 0; i < 32; ++i) shapes[8].jeq(1, static_cast<int32_t>(i), 64).mov(0, 1);
  shapes[8].exit();  // 65: past the shortcut
  ASSERT_EQ(shapes[7].pc(), 64u);
  ASSERT_EQ(shapes[8].pc(), 65u);
  for (size_t i = 0; i < shapes.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(expect_shortcut_matches(shapes[i].insns), i != 8);
  }
  // Random ones, forward-only half of the time so that most take the shortcut.
  std::mt19937 rng(77);
  uint32_t small = 0, unreachable = 0;
  for (uint32_t round = 0; round < 3000; ++round) {
    std::vector<Insn> insns = random_program(rng, 2 + static_cast<uint32_t>(rng() % 70));
    if (round % 2 == 0) {  // every jump retargeted forward, to a slot that is no lddw tail
      const auto n = static_cast<uint32_t>(insns.size());
      insns.back() = Insn{Op::exit, 0, 0, 0, 0, 0};
      for (uint32_t pc = 0; pc + 1 < n; ++pc) {
        Insn& insn = insns[pc];
        if (insn.op != Op::ja && insn.op != Op::jeq64_imm) continue;
        uint32_t to;
        do {
          to = pc + 1 + static_cast<uint32_t>(rng() % (n - pc - 1));
        } while (insns[to].op == Op::lddw_tail);
        insn.offset = static_cast<int32_t>(to - pc - 1);
      }
    }
    small += expect_shortcut_matches(insns) ? 1 : 0;
    unreachable += build(insns, keep_unreachable()).cfg.first_unreachable_pc != kNone ? 1 : 0;
    if (HasFailure()) FAIL() << "round " << round;
  }
  EXPECT_GT(small, 800u);
  EXPECT_GT(unreachable, 300u);
}

// Phase 1's block fill for one function without calls (fill_blocks<false>,
// which build_cfg takes past the small shortcut: more than 64 slots, or a
// backward jump) against its general form, which build_cfg_general always
// takes: random programs of up to 300 slots, loops and lddw included.
TEST(CfgShortcut, OneFunctionFillMatchesTheGeneralFill) {
  std::mt19937 rng(91);
  uint32_t large = 0, with_loops = 0;
  for (uint32_t round = 0; round < 3000; ++round) {
    const std::vector<Insn> insns = random_program(rng, 2 + static_cast<uint32_t>(rng() % 300));
    for (const CfgOptions& options : {CfgOptions{}, keep_unreachable()}) {
      const Built fast = build(insns, options);
      const Built general = build_general(insns, options);
      EXPECT_EQ(fast.result.error, general.result.error);
      EXPECT_EQ(fast.result.pc, general.result.pc);
      if (fast.result.ok() && general.result.ok()) expect_same_cfg(fast.cfg, general.cfg);
      with_loops += fast.result.ok() && fast.cfg.loop_count > 0 ? 1 : 0;
    }
    large += insns.size() > 64 ? 1 : 0;
    if (HasFailure()) FAIL() << "round " << round;
  }
  EXPECT_GT(large, 2000u);
  EXPECT_GT(with_loops, 100u);
}

// Builds `a` in arenas of 0, 1, 2, ... bytes, each exactly that many on the
// heap (so ASan sees any write past the arena), up to `limit`: every size
// that fails must fail with out_of_memory, and the first that works must
// be the build's peak. Returns that build (its arena size in Built::bound).
Built smallest_build(const Asm& a, size_t limit) {
  for (size_t size = 0;; ++size) {
    Built built;
    built.insns = a.insns;
    built.bound = size;
    built.memory.reset(new uint8_t[size == 0 ? 1 : size]);
    Arena arena(built.memory.get(), size);
    const Program program{built.insns.data(), a.pc()};
    built.result = build_cfg(program, arena, built.cfg);
    built.peak = arena.peak();
    EXPECT_LE(built.peak, size);
    if (built.result.ok()) {
      EXPECT_EQ(built.peak, size);  // the first size that works is exactly the need
      return built;
    }
    EXPECT_EQ(built.result.error, CfgError::out_of_memory) << "size " << size;
    if (built.result.error != CfgError::out_of_memory || size >= limit) {
      ADD_FAILURE() << "no size up to " << limit << " builds";
      return built;
    }
  }
}

TEST(CfgShortcut, SmallForwardShortcutRunsOutOfMemoryCleanly) {
  // Below its one block the shortcut reports out_of_memory, whatever the
  // size; the first size that works is its whole need, below the general
  // build's.
  Asm a;
  a.mov(0, 10).jeq(0, 5, 4).lddw(1, 2).ja(5).mov(0, 1).exit();
  const Built general = build_general(a.insns);
  ASSERT_TRUE(general.result.ok());
  const Built smallest = smallest_build(a, general.peak);
  ASSERT_TRUE(smallest.result.ok());
  EXPECT_LT(smallest.bound, general.peak);
  expect_same_cfg(smallest.cfg, general.cfg);
}

// ---- Scale, memory and cost.

TEST(CfgScale, MillionInstructionStraightLine) {
  Asm a;
  a.insns.reserve(1u << 20);
  for (uint32_t i = 0; i + 1 < (1u << 20); ++i) a.mov(0, static_cast<int32_t>(i));
  a.exit();
  const auto start = std::chrono::steady_clock::now();
  const Built b = build(a);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(b.result.ok());
  EXPECT_EQ(b.cfg.block_count, 1u);
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  EXPECT_LT(b.peak, 1u << 20);  // the leader and entry bitsets (n / 4) and a little more
}

TEST(CfgScale, HundredThousandDiamonds) {
  Asm a;
  for (uint32_t i = 0; i < 100000; ++i) {
    const uint32_t at = a.pc();
    a.jeq(1, static_cast<int32_t>(i), at + 3).mov(0, 1).ja(at + 4).mov(0, 2);
  }
  a.exit();
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  EXPECT_EQ(b.cfg.block_count, 300001u);
  EXPECT_EQ(b.cfg.loop_count, 0u);
  EXPECT_FALSE(b.cfg.dominators);
  // The same inside a loop (the last join jumps back to the entry): the
  // dominator tree is built, in linear time.
  Asm looped;
  for (uint32_t i = 0; i < 100000; ++i) {
    const uint32_t at = looped.pc();
    looped.jeq(1, static_cast<int32_t>(i), at + 3).mov(0, 1).ja(at + 4).mov(0, 2);
  }
  looped.jeq(2, 0, 0).exit();
  const auto start = std::chrono::steady_clock::now();
  const Built l = build(looped);
  ASSERT_TRUE(l.result.ok()) << cfg_error_name(l.result.error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(l.cfg.block_count, 300002u);
  EXPECT_EQ(l.cfg.loop_count, 1u);
  EXPECT_TRUE(l.cfg.dominators);
  EXPECT_EQ(l.cfg.blocks[300000].idom, 300000u - 3);  // the last diamond's head
  EXPECT_EQ(l.cfg.blocks[300001].idom, 300000u);
}

TEST(CfgScale, HundredThousandEarlyExitsToOneBlock) {
  // if (r1 == i) goto out; ... out: exit — the shape that makes a naive
  // predecessor order quadratic in Cooper-Harvey-Kennedy.
  // The exit block jumps back to the entry, so that dominators are built.
  const uint32_t count = 200000;
  Asm a;
  for (uint32_t i = 0; i < count; ++i) a.jeq(1, static_cast<int32_t>(i), count + 1);
  a.exit().jeq(2, 0, 0).exit();
  const auto start = std::chrono::steady_clock::now();
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(b.cfg.dominators);
  EXPECT_EQ(b.cfg.blocks[count + 1].idom, 0u);
  EXPECT_EQ(preds(b.cfg, count + 1).size(), count);
}

TEST(CfgScale, DeeplyNestedLoopsWithBreaks) {
  // k nested loops, each body breaking out of all of them: exits stay linear.
  const uint32_t k = 20000;
  Asm a;
  // header i at pc 2i: "jeq r1, i, out" then the next header; the innermost
  // latch jumps back, and each level's latch is a ja to its header.
  const uint32_t out = 2 * k + k;  // headers + breaks, then k latches
  for (uint32_t i = 0; i < k; ++i) a.add(1, 1).jeq(2, 0, out);
  for (uint32_t i = k; i-- > 0;) a.jcc(Op::jlt64_imm, 1, 100, 2 * i);
  a.exit();
  const auto start = std::chrono::steady_clock::now();
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok()) << cfg_error_name(b.result.error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(b.cfg.loop_count, k);
  EXPECT_EQ(b.cfg.loops[k - 1].depth, k);
  EXPECT_EQ(b.cfg.loops[k - 1].parent, k - 2);
  // The innermost loop's exits: its break and its latch's fall-through.
  EXPECT_EQ(exits_of(b.cfg, k - 1).size(), 2u);
  // The outermost loop is left by every break and its own latch's fall-through.
  EXPECT_EQ(exits_of(b.cfg, 0).size(), k + 1);
  EXPECT_EQ(b.cfg.loop_body(0).size, b.cfg.block_count - 1);
}

TEST(CfgMemory, BoundHoldsWhenEverySlotIsABlock) {
  // Every slot a conditional jump: blocks = slots, edges = 2 * blocks.
  const uint32_t n = 50000;
  Asm a;
  for (uint32_t i = 0; i + 1 < n; ++i) a.jeq(1, 0, i + 1);
  a.exit();
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok());
  EXPECT_EQ(b.cfg.block_count, n);
  EXPECT_LE(b.peak, b.bound);
  EXPECT_GT(b.peak, b.bound / 4);  // the bound is not absurdly loose
}

TEST(CfgMemory, EveryArenaSizeBelowTheNeedIsOutOfMemory) {
  Asm a;
  a.mov(1, 0)                          // 0
      .call(15)                        // 1
      .lddw(2, 9)                      // 2-3
      .jcc(Op::jge64_imm, 1, 10, 14)  // 4 outer header
      .mov(3, 0)                       // 5
      .jcc(Op::jge64_imm, 3, 10, 12)  // 6 inner header
      .jeq(4, 0, 10)                   // 7 diamond
      .add(3, 1)                       // 8
      .ja(11)                          // 9
      .add(3, 2)                       // 10
      .ja(6)                           // 11 inner latch
      .add(1, 1)                       // 12
      .ja(4)                           // 13 outer latch
      .exit()                          // 14
      .jeq(1, 0, 17)                   // 15 f
      .mov(0, 1)                       // 16
      .exit();                         // 17
  const Built reference_build = build(a);
  ASSERT_TRUE(reference_build.result.ok()) << cfg_error_name(reference_build.result.error);
  ASSERT_EQ(reference_build.cfg.loop_count, 2u);
  // The bound must always be enough.
  const Built smallest = smallest_build(a, cfg_arena_bound(a.pc()));
  ASSERT_TRUE(smallest.result.ok());
  EXPECT_EQ(smallest.cfg.block_count, reference_build.cfg.block_count);
  EXPECT_EQ(smallest.cfg.loop_count, 2u);
  EXPECT_LE(smallest.bound, cfg_arena_bound(a.pc()));
}

TEST(CfgMemory, ArenaBoundIsTheDocumentedFormula) {
  for (uint32_t n : {0u, 1u, 1000u, 1u << 20}) EXPECT_EQ(cfg_arena_bound(n), 204u * n + 276u) << n;
}

TEST(CfgMemory, ThousandInstructionStraightLineIsSmall) {
  // docs/verifier/design.md: the whole verification of a 1000-instruction
  // straight line fits in 32 KiB; the CFG takes a few of them.
  Asm a;
  for (uint32_t i = 0; i < 999; ++i) a.mov(0, static_cast<int32_t>(i));
  a.exit();
  const Built b = build(a);
  ASSERT_TRUE(b.result.ok());
  EXPECT_LE(b.peak, 4u * 1000 + 128);
}

}  // namespace
}  // namespace keel
