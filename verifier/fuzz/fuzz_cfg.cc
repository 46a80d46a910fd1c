// fuzz_cfg: any bytes -> keel::decode -> keel::build_cfg (verifier/src/cfg/
// cfg.cc, internal to libkeel). Properties: no crash or UB; never
// invalid_program after a successful decode; never out_of_memory with
// cfg_arena_bound() bytes, and a peak within it; smaller arenas give the
// same answer or out_of_memory; the options relax exactly the checks they
// name; a success is a well-formed graph (blocks tile the program, edges
// match the terminators, idoms dominate, loop headers dominate their bodies,
// call sites name their callees); build_cfg's shortcuts build the graph
// build_cfg_general does.
#include <cstdint>
#include <cstring>
#include <memory>

#include "cfg/cfg.h"
#include "fuzz_check.h"
#include "keel/decode.h"

namespace {

using keel::Cfg;
using keel::CfgError;
using keel::CfgOptions;
using keel::CfgResult;
using keel::Op;
using keel::Program;

constexpr uint32_t kMaxInsns = 4096;
constexpr uint32_t kNone = Cfg::kNone;

bool is_conditional(Op op) { return op >= Op::jeq64_imm && op < Op::ja; }
uint32_t target(const keel::Insn& insn, uint32_t pc) { return static_cast<uint32_t>(int64_t{pc} + 1 + insn.offset); }

struct Built {
  CfgResult result;
  Cfg cfg;
  std::unique_ptr<uint8_t[]> memory;
};

Built build(const Program& program, const CfgOptions& options, size_t arena_bytes) {
  Built b;
  b.memory.reset(new uint8_t[arena_bytes == 0 ? 1 : arena_bytes]);
  keel::Arena arena(b.memory.get(), arena_bytes);
  b.result = keel::build_cfg(program, options, arena, b.cfg);
  KEEL_FUZZ_CHECK(b.result.error <= CfgError::invalid_program);
  KEEL_FUZZ_CHECK(std::strcmp(keel::cfg_error_name(b.result.error), "invalid") != 0);
  KEEL_FUZZ_CHECK(b.result.error != CfgError::invalid_program);  // decode()'s guarantees hold
  KEEL_FUZZ_CHECK(arena.peak() <= keel::cfg_arena_bound(program.count));
  if (!b.result.ok() && b.result.error != CfgError::out_of_memory) KEEL_FUZZ_CHECK(b.result.pc < program.count);
  return b;
}

bool same(const CfgResult& a, const CfgResult& b) { return a.error == b.error && a.pc == b.pc; }

template <class T>
bool same_entries(const T* a, const T* b, uint32_t count) {
  return count == 0 || std::memcmp(a, b, sizeof(T) * count) == 0;
}

// build_cfg's shortcuts (a straight line, a small forward program) against
// build_cfg_general, the phases alone: the same result and, on success, the
// same graph in every array (the straight line's null lddw_tail_bits reads
// as all zero; Edge is compared by field, having padding).
void check_same_as_general(const Program& p, const Built& fast, const CfgOptions& options, size_t bytes) {
  Built general;
  general.memory.reset(new uint8_t[bytes]);
  keel::Arena arena(general.memory.get(), bytes);
  general.result = keel::build_cfg_general(p, options, arena, general.cfg);
  KEEL_FUZZ_CHECK(same(fast.result, general.result));
  if (!fast.result.ok()) return;
  const Cfg& a = fast.cfg;
  const Cfg& b = general.cfg;
  KEEL_FUZZ_CHECK(a.block_count == b.block_count && a.edge_count == b.edge_count && a.rpo_count == b.rpo_count);
  KEEL_FUZZ_CHECK(a.function_count == b.function_count && a.call_count == b.call_count && a.loop_count == b.loop_count);
  KEEL_FUZZ_CHECK(same_entries(a.blocks, b.blocks, a.block_count));
  for (uint32_t e = 0; e < a.edge_count; ++e) {
    KEEL_FUZZ_CHECK(a.edges[e].from == b.edges[e].from && a.edges[e].to == b.edges[e].to &&
                    a.edges[e].kind == b.edges[e].kind);
  }
  KEEL_FUZZ_CHECK(same_entries(a.succ_offsets, b.succ_offsets, a.block_count + 1));
  KEEL_FUZZ_CHECK(same_entries(a.pred_offsets, b.pred_offsets, a.block_count + 1));
  KEEL_FUZZ_CHECK(same_entries(a.pred_edges, b.pred_edges, a.edge_count));
  KEEL_FUZZ_CHECK(same_entries(a.rpo, b.rpo, a.rpo_count));
  KEEL_FUZZ_CHECK(same_entries(a.functions, b.functions, a.function_count));
  KEEL_FUZZ_CHECK(same_entries(a.calls, b.calls, a.call_count));
  KEEL_FUZZ_CHECK(same_entries(a.loops, b.loops, a.loop_count));
  KEEL_FUZZ_CHECK(same_entries(a.loop_block_offsets, b.loop_block_offsets, a.loop_count + 1));
  KEEL_FUZZ_CHECK(same_entries(a.back_edge_offsets, b.back_edge_offsets, a.loop_count + 1));
  KEEL_FUZZ_CHECK(same_entries(a.exit_offsets, b.exit_offsets, a.loop_count + 1));
  if (a.loop_count != 0) {
    const uint32_t bodies = a.loop_block_offsets[a.loop_count], backs = a.back_edge_offsets[a.loop_count];
    KEEL_FUZZ_CHECK(same_entries(a.loop_blocks, b.loop_blocks, bodies));
    KEEL_FUZZ_CHECK(same_entries(a.back_edges, b.back_edges, backs));
    KEEL_FUZZ_CHECK(same_entries(a.exits, b.exits, a.exit_offsets[a.loop_count]));
  }
  for (uint32_t w = 0; w < (p.count + 63) / 64; ++w) {
    KEEL_FUZZ_CHECK((a.lddw_tail_bits == nullptr ? 0 : a.lddw_tail_bits[w]) ==
                    (b.lddw_tail_bits == nullptr ? 0 : b.lddw_tail_bits[w]));
  }
  KEEL_FUZZ_CHECK(a.lddw_count == b.lddw_count && a.max_call_depth == b.max_call_depth);
  KEEL_FUZZ_CHECK(a.first_unreachable_pc == b.first_unreachable_pc && a.dominators == b.dominators);
}

void check_graph(const Program& p, const Cfg& g, const CfgOptions& options) {
  KEEL_FUZZ_CHECK(g.insns == p.insns && g.insn_count == p.count);
  KEEL_FUZZ_CHECK(g.block_count >= 1 && g.block_count <= p.count);
  KEEL_FUZZ_CHECK(g.function_count >= 1 && g.functions[0].entry == 0);
  if (options.max_call_depth != 0) KEEL_FUZZ_CHECK(g.max_call_depth <= options.max_call_depth);
  if (options.reject_unreachable) KEEL_FUZZ_CHECK(g.first_unreachable_pc == kNone);

  // Blocks tile the program in pc order, never starting on a lddw tail.
  for (uint32_t b = 0; b < g.block_count; ++b) {
    const Cfg::Block& block = g.blocks[b];
    KEEL_FUZZ_CHECK(block.first <= block.last && block.last < p.count);
    KEEL_FUZZ_CHECK(block.first == (b == 0 ? 0 : g.blocks[b - 1].last + 1));
    KEEL_FUZZ_CHECK(p.insns[block.first].op != Op::lddw_tail);
    KEEL_FUZZ_CHECK(block.function < g.function_count);
    for (uint32_t pc = block.first; pc <= block.last; ++pc) KEEL_FUZZ_CHECK(g.block_of(pc) == b);
    // Only the last instruction transfers control (calls return).
    for (uint32_t pc = block.first; pc < block.last; ++pc) {
      const Op op = p.insns[pc].op;
      KEEL_FUZZ_CHECK(op != Op::exit && op != Op::ja && !is_conditional(op));
    }
  }
  KEEL_FUZZ_CHECK(g.blocks[g.block_count - 1].last == p.count - 1);

  // Functions: contiguous blocks, entry first.
  for (uint32_t f = 0; f < g.function_count; ++f) {
    const Cfg::Function& fn = g.functions[f];
    KEEL_FUZZ_CHECK(fn.entry < fn.end && fn.end <= p.count);
    KEEL_FUZZ_CHECK(fn.first_block + fn.block_count <= g.block_count && fn.block_count >= 1);
    KEEL_FUZZ_CHECK(g.blocks[fn.first_block].first == fn.entry);
    KEEL_FUZZ_CHECK(g.blocks[fn.first_block + fn.block_count - 1].last + 1 == fn.end);
    for (uint32_t b = fn.first_block; b < fn.first_block + fn.block_count; ++b)
      KEEL_FUZZ_CHECK(g.blocks[b].function == f);
    KEEL_FUZZ_CHECK(fn.rpo_begin + fn.rpo_count <= g.rpo_count);
    if (fn.rpo_count != 0) KEEL_FUZZ_CHECK(g.rpo[fn.rpo_begin] == fn.first_block);
  }

  // Edges follow the terminators; predecessors list them again.
  for (uint32_t b = 0; b < g.block_count; ++b) {
    const uint32_t last = g.blocks[b].last;
    const uint32_t pc = p.insns[last].op == Op::lddw_tail ? last - 1 : last;
    const keel::Insn& insn = p.insns[pc];
    const auto succ = g.successors(b);
    for (const Cfg::Edge& e : succ) KEEL_FUZZ_CHECK(e.from == b && e.to < g.block_count);
    if (insn.op == Op::exit) {
      KEEL_FUZZ_CHECK(succ.size == 0);
    } else if (insn.op == Op::ja) {
      KEEL_FUZZ_CHECK(succ.size == 1 && succ[0].kind == Cfg::EdgeKind::jump);
      KEEL_FUZZ_CHECK(g.blocks[succ[0].to].first == target(insn, pc));
    } else if (is_conditional(insn.op)) {
      KEEL_FUZZ_CHECK(succ.size == 2 && succ[0].kind == Cfg::EdgeKind::not_taken &&
                      succ[1].kind == Cfg::EdgeKind::taken);
      KEEL_FUZZ_CHECK(g.blocks[succ[0].to].first == last + 1);
      KEEL_FUZZ_CHECK(g.blocks[succ[1].to].first == target(insn, pc));
    } else {
      KEEL_FUZZ_CHECK(succ.size == 1 && succ[0].kind == Cfg::EdgeKind::fall);
      KEEL_FUZZ_CHECK(g.blocks[succ[0].to].first == last + 1);
    }
    for (const Cfg::Edge& e : succ) KEEL_FUZZ_CHECK(g.blocks[e.to].function == g.blocks[b].function);
    for (const uint32_t e : g.predecessors(b)) KEEL_FUZZ_CHECK(e < g.edge_count && g.edges[e].to == b);
  }

  // Dominators, built exactly when the graph has a loop (ADR 0051): each
  // reachable block's idom dominates it and comes earlier in RPO. Without
  // them every edge goes forward in RPO and nothing dominates.
  KEEL_FUZZ_CHECK(g.dominators == (g.loop_count != 0));
  for (uint32_t b = 0; b < g.block_count; ++b) {
    const Cfg::Block& block = g.blocks[b];
    const Cfg::Function& fn = g.functions[block.function];
    if (!g.reachable(b)) {
      KEEL_FUZZ_CHECK(!options.reject_unreachable);
      continue;
    }
    if (!g.dominators) {
      KEEL_FUZZ_CHECK(block.idom == kNone && !g.dominates(b, b));
      for (const Cfg::Edge& e : g.successors(b)) KEEL_FUZZ_CHECK(g.blocks[e.to].rpo > block.rpo);
      continue;
    }
    KEEL_FUZZ_CHECK(g.dominates(b, b) && g.dominates(fn.first_block, b));
    if (b == fn.first_block) {
      KEEL_FUZZ_CHECK(block.idom == kNone);
    } else {
      KEEL_FUZZ_CHECK(block.idom < g.block_count && g.dominates(block.idom, b));
      KEEL_FUZZ_CHECK(g.blocks[block.idom].rpo < block.rpo);
    }
  }

  // Loops: the header dominates the body; back edges come home to it.
  for (uint32_t l = 0; l < g.loop_count; ++l) {
    const Cfg::Loop& loop = g.loops[l];
    KEEL_FUZZ_CHECK(loop.header < g.block_count && loop.subtree_end > l && loop.subtree_end <= g.loop_count);
    KEEL_FUZZ_CHECK(loop.depth == (loop.parent == kNone ? 1 : g.loops[loop.parent].depth + 1));
    KEEL_FUZZ_CHECK(g.in_loop(loop.header, l));
    for (const uint32_t b : g.loop_body(l)) KEEL_FUZZ_CHECK(b < g.block_count && g.dominates(loop.header, b));
    KEEL_FUZZ_CHECK(g.loop_back_edges(l).size >= 1);
    for (const uint32_t e : g.loop_back_edges(l)) KEEL_FUZZ_CHECK(e < g.edge_count && g.edges[e].to == loop.header);
    for (const Cfg::LoopExit& exit : g.loop_exit_candidates(l)) {
      KEEL_FUZZ_CHECK(exit.edge < g.edge_count);
      if (g.leaves(exit, l)) KEEL_FUZZ_CHECK(!g.in_loop(g.edges[exit.edge].to, l));
    }
  }

  // Call sites: a call_local in the block, its callee the function at the
  // target; or a lddw of a function's address (BPF_PSEUDO_FUNC, a callback
  // for a helper such as bpf_loop: imm counts from the next slot), which
  // counts as a call of that function by the one holding the lddw.
  for (uint32_t c = 0; c < g.call_count; ++c) {
    const Cfg::CallSite& call = g.calls[c];
    KEEL_FUZZ_CHECK(call.pc < p.count);
    const keel::Insn& at = p.insns[call.pc];
    KEEL_FUZZ_CHECK(at.op == Op::call_local || at.op == Op::lddw_code_addr);
    const uint32_t to = at.op == Op::call_local ? target(at, call.pc) : static_cast<uint32_t>(int64_t{call.pc} + 1 + at.imm);
    KEEL_FUZZ_CHECK(g.block_of(call.pc) == call.block && g.blocks[call.block].function == call.caller);
    KEEL_FUZZ_CHECK(call.callee < g.function_count && g.functions[call.callee].entry == to);
    KEEL_FUZZ_CHECK(c == 0 || g.calls[c - 1].pc < call.pc);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  keel::DecodeOptions decode_options;
  decode_options.max_insns = kMaxInsns;
  std::unique_ptr<uint8_t[]> decode_memory(new uint8_t[size / 8 * 16 + 64 + size / 8 * 4]);
  keel::Arena decode_arena(decode_memory.get(), size / 8 * 20 + 64);
  Program program;
  if (!keel::decode(data, size, decode_options, decode_arena, program).ok()) return 0;

  // The documented bound is always enough.
  const size_t bound = keel::cfg_arena_bound(program.count);
  const CfgOptions defaults;
  const Built reference = build(program, defaults, bound);
  KEEL_FUZZ_CHECK(reference.result.error != CfgError::out_of_memory);
  if (reference.result.ok()) check_graph(program, reference.cfg, defaults);
  check_same_as_general(program, reference, defaults, bound);

  // Smaller arenas: the same answer, or out_of_memory.
  for (const size_t bytes : {size_t{0}, size_t{64}, bound / 8, bound / 2}) {
    const Built b = build(program, defaults, bytes);
    KEEL_FUZZ_CHECK(b.result.error == CfgError::out_of_memory || same(b.result, reference.result));
    if (b.result.ok()) check_graph(program, b.cfg, defaults);
  }

  // Unreachable code allowed: an `unreachable` rejection becomes a success
  // (or a later check's error) that reports the same first unreachable pc.
  {
    CfgOptions lenient = defaults;
    lenient.reject_unreachable = false;
    const Built b = build(program, lenient, bound);
    KEEL_FUZZ_CHECK(b.result.error != CfgError::out_of_memory && b.result.error != CfgError::unreachable);
    check_same_as_general(program, b, lenient, bound);
    if (reference.result.error == CfgError::unreachable) {
      KEEL_FUZZ_CHECK(b.result.ok() || b.result.error == CfgError::irreducible_loop);
      if (b.result.ok()) KEEL_FUZZ_CHECK(b.cfg.first_unreachable_pc == reference.result.pc);
    } else {
      KEEL_FUZZ_CHECK(same(b.result, reference.result));
      if (b.result.ok()) KEEL_FUZZ_CHECK(b.cfg.first_unreachable_pc == kNone);
    }
    if (b.result.ok()) check_graph(program, b.cfg, lenient);
  }

  // No call depth limit: too_deep_calls disappears, nothing else changes before it.
  {
    CfgOptions unlimited = defaults;
    unlimited.max_call_depth = 0;
    const Built b = build(program, unlimited, bound);
    KEEL_FUZZ_CHECK(b.result.error != CfgError::out_of_memory && b.result.error != CfgError::too_deep_calls);
    if (reference.result.error != CfgError::too_deep_calls) KEEL_FUZZ_CHECK(same(b.result, reference.result));
    if (b.result.ok()) {
      check_graph(program, b.cfg, unlimited);
      KEEL_FUZZ_CHECK((b.cfg.max_call_depth > keel::kMaxCallDepth) == (reference.result.error == CfgError::too_deep_calls));
    }
  }
  return 0;
}
