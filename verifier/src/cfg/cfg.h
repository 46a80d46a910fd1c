// Stage 2: decoded Program -> control-flow graph. Per function (the entry and
// every call_local target): basic blocks, successor and predecessor lists,
// reverse post-order, natural loops and, in a graph with a loop, the
// dominator tree; for the program: call sites and the call graph
// (recursion, call depth). Internal to libkeel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "isa/ops.h"
#include "keel/arena.h"
#include "keel/isa.h"
#include "keel/result.h"
#include "support/search.h"

namespace keel {

enum class CfgError : uint8_t {
  ok,
  out_of_memory,     // the arena is smaller than the CFG needs (cfg_arena_bound is always enough)
  unreachable,       // pc = first slot no path from the entry reaches (Linux: "unreachable insn N")
  irreducible_loop,  // pc = instruction whose edge closes a cycle its target does not dominate
  recursion,         // pc = a call_local on a cycle of the call graph (direct or mutual)
  too_deep_calls,    // pc = the call that needs frame CfgOptions::max_call_depth + 1
  invalid_program,   // pc = where a guarantee of decode() does not hold (never after decode())
};

// Stable snake_case name ("irreducible_loop").
const char* cfg_error_name(CfgError error);

// Helpers that call a BPF function whose address a lddw code_addr took
// (uapi bpf.h ids): bpf_for_each_map_elem runs it once per element,
// bpf_loop up to nr_loops times.
inline constexpr int32_t kHelperForEachMapElem = 164;
inline constexpr int32_t kHelperLoop = 181;
inline constexpr bool calls_back(const Insn& insn) {
  return insn.op == Op::call_helper && (insn.imm == kHelperForEachMapElem || insn.imm == kHelperLoop);
}

struct CfgErrorDetail {
  uint32_t pc = 0;
};
using CfgResult = Result<CfgError, CfgErrorDetail>;

struct CfgOptions {
  /// Reject code no path reaches, as Linux does; when false, Cfg::first_unreachable_pc tells.
  bool reject_unreachable = true;
  /// Most frames on one call chain, the entry's included (Linux MAX_CALL_FRAMES: 8); 0 = no limit.
  uint32_t max_call_depth = kMaxCallDepth;
};

// All arrays live in the arena passed to build_cfg. Blocks tile the program
// in pc order, so a function's blocks are contiguous and its entry block is
// the first. Indices are uint32; kNone marks "no such block/loop".
struct Cfg {
  static constexpr uint32_t kNone = UINT32_MAX;

  // A view of part of one of the arrays below.
  template <class T>
  struct Span {
    const T* data = nullptr;
    uint32_t size = 0;
    const T* begin() const { return data; }
    const T* end() const { return data + size; }
    const T& operator[](uint32_t i) const { return data[i]; }
  };

  enum class EdgeKind : uint8_t {
    fall,       // the next instruction, after a non-jump (calls included)
    jump,       // ja
    not_taken,  // conditional jump, condition false (always a block's first edge)
    taken,      // conditional jump, condition true (always its second edge)
  };
  struct Edge {
    uint32_t from, to;  // blocks
    EdgeKind kind;
  };
  struct Block {
    uint32_t first, last;    // slot range, inclusive; a lddw's two slots are never split
    uint32_t function;
    uint32_t rpo;            // index into Cfg::rpo; kNone when unreachable in its function
    uint32_t idom;           // immediate dominator; kNone for the entry and unreachable blocks,
                             // and for every block when !Cfg::dominators
    uint32_t loop;           // innermost loop containing the block, kNone outside loops
    uint32_t dom_pre, dom_end;  // this block's dominator subtree is dom_pre numbers [dom_pre, dom_end);
                                // 0, 0 when unreachable or !Cfg::dominators
  };
  struct Function {
    uint32_t entry, end;            // slot range [entry, end)
    uint32_t first_block, block_count;
    uint32_t rpo_begin, rpo_count;  // reachable blocks in reverse post-order: rpo[rpo_begin...]
    uint32_t call_begin, call_count;  // its call sites: calls[call_begin...], in pc order
    uint32_t depth;                 // frames on the longest chain it starts (1 = calls nothing); 0 if never called
  };
  // A call_local, or a lddw code_addr taking a callback's address (the
  // helper that calls it runs in the same function: call_frames.cc).
  struct CallSite {
    uint32_t pc, block;
    uint32_t caller, callee;  // functions
  };
  struct Loop {
    uint32_t header;       // block; a loop is all back edges into one header (merged natural loops)
    uint32_t parent;       // enclosing loop, kNone at top level
    uint32_t depth;        // 1 at top level
    uint32_t subtree_end;  // loops are in pre-order: [index, subtree_end) are this loop and the ones inside
    uint32_t function;
  };
  // An edge leaving the innermost loop of its source. It leaves every loop on
  // the source's chain whose depth is above keep_depth (the depth of the
  // innermost loop containing both ends, 0 when none).
  struct LoopExit {
    uint32_t edge;
    uint32_t keep_depth;
  };

  const Insn* insns = nullptr;
  uint32_t insn_count = 0;
  Block* blocks = nullptr;
  uint32_t block_count = 0;
  Edge* edges = nullptr;            // grouped by source block
  uint32_t edge_count = 0;
  uint32_t* succ_offsets = nullptr;  // [block_count + 1]: b's edges are [succ_offsets[b], succ_offsets[b + 1])
  uint32_t* pred_offsets = nullptr;  // [block_count + 1], into pred_edges
  uint32_t* pred_edges = nullptr;    // edge indices grouped by target block
  uint32_t* rpo = nullptr;           // blocks, per function in Function order
  uint32_t rpo_count = 0;
  Function* functions = nullptr;     // [0] is the entry; the rest in pc order
  uint32_t function_count = 0;
  CallSite* calls = nullptr;         // in pc order
  uint32_t call_count = 0;
  Loop* loops = nullptr;
  uint32_t loop_count = 0;
  uint32_t* loop_block_offsets = nullptr;  // [loop_count + 1], into loop_blocks
  uint32_t* loop_blocks = nullptr;         // blocks grouped by innermost loop, loops in order
  uint32_t* back_edge_offsets = nullptr;   // [loop_count + 1], into back_edges
  uint32_t* back_edges = nullptr;          // edge indices grouped by loop
  uint32_t* exit_offsets = nullptr;        // [loop_count + 1], into exits
  LoopExit* exits = nullptr;               // grouped by the innermost loop of the edge's source
  uint32_t lddw_count = 0;                 // lddw instructions (two slots each), reachable or not
  // Bit pc set when slot pc is a lddw's second slot ([insn_count / 64
  // rounded up] words); nullptr for a straight line (which has no lddw).
  const uint64_t* lddw_tail_bits = nullptr;
  uint32_t max_call_depth = 0;             // frames on the longest call chain from the entry
  uint32_t first_unreachable_pc = kNone;
  // Whether the dominator tree (Block::idom, dom_pre, dom_end) was built:
  // exactly when some edge retreats in RPO, i.e. the graph has a loop
  // (loop_count > 0; an irreducible one is rejected). Only the loop passes
  // read dominators, and on loop-free code computing them was about a third
  // of build_cfg (ADR 0051). Without them dominates() is false for every pair.
  bool dominators = false;

  Span<Edge> successors(uint32_t b) const {
    return {edges + succ_offsets[b], succ_offsets[b + 1] - succ_offsets[b]};
  }
  Span<uint32_t> predecessors(uint32_t b) const {  // edge indices
    return {pred_edges + pred_offsets[b], pred_offsets[b + 1] - pred_offsets[b]};
  }
  Span<uint32_t> function_rpo(uint32_t f) const {
    return {rpo + functions[f].rpo_begin, functions[f].rpo_count};
  }
  Span<CallSite> function_calls(uint32_t f) const {
    return {calls + functions[f].call_begin, functions[f].call_count};
  }
  // The block holding slot pc (< insn_count): a binary search, the blocks
  // tiling the program in pc order.
  uint32_t block_of(uint32_t pc) const {
    // The last block after the first that starts at or before pc, else 0.
    return partition_index(uint32_t{1}, block_count, [&](uint32_t b) { return blocks[b].first <= pc; }) - 1;
  }
  bool reachable(uint32_t b) const { return blocks[b].rpo != kNone; }
  // O(1) through the dominator tree's pre-order intervals. Reflexive when
  // `dominators`; false for every pair otherwise (empty intervals).
  bool dominates(uint32_t a, uint32_t b) const {
    return reachable(a) && reachable(b) && blocks[a].dom_pre <= blocks[b].dom_pre &&
           blocks[b].dom_pre < blocks[a].dom_end;
  }
  bool in_loop(uint32_t b, uint32_t loop) const {
    const uint32_t inner = blocks[b].loop;
    return inner != kNone && loop <= inner && inner < loops[loop].subtree_end;
  }
  // Every block of the loop, nested loops' included.
  Span<uint32_t> loop_body(uint32_t l) const {
    const uint32_t begin = loop_block_offsets[l];
    return {loop_blocks + begin, loop_block_offsets[loops[l].subtree_end] - begin};
  }
  Span<uint32_t> loop_back_edges(uint32_t l) const {
    return {back_edges + back_edge_offsets[l], back_edge_offsets[l + 1] - back_edge_offsets[l]};
  }
  // Exits of the loop and of the loops inside it; those that leave `l`
  // itself satisfy leaves(exit, l).
  Span<LoopExit> loop_exit_candidates(uint32_t l) const {
    const uint32_t begin = exit_offsets[l];
    return {exits + begin, exit_offsets[loops[l].subtree_end] - begin};
  }
  bool leaves(const LoopExit& exit, uint32_t l) const { return exit.keep_depth < loops[l].depth; }
};

// The instruction that ends block `b`: its last slot, or the first slot of
// the lddw that ends it (whose second slot is the block's last).
inline uint32_t terminator_pc(const Cfg& cfg, uint32_t b) {
  const uint32_t last = cfg.blocks[b].last;
  return cfg.insns[last].op == Op::lddw_tail ? last - 1 : last;
}

// The slots of block b that are a lddw's second half: a count of
// Cfg::lddw_tail_bits over the block's slots, a word at a time (0 without
// the bits). Most blocks lie in one word, and most words hold no tail.
inline uint32_t lddw_tails_in_block(const Cfg& cfg, uint32_t b) {
  const uint32_t first = cfg.blocks[b].first, last = cfg.blocks[b].last;
  const uint64_t* bits = cfg.lddw_tail_bits;
  if (bits == nullptr) return 0;
  const uint32_t first_word = first / 64, last_word = last / 64;
  uint64_t w = bits[first_word] & (~uint64_t{0} << (first % 64));  // from `first` on
  uint32_t count = 0;
  for (uint32_t word = first_word; word < last_word; w = bits[++word]) {
    for (; w != 0; w &= w - 1) ++count;  // tails are sparse: a step per tail
  }
  for (w &= ~uint64_t{0} >> (63 - last % 64); w != 0; w &= w - 1) ++count;  // up to `last`
  return count;
}

// Builds the CFG of `program` (which must outlive `out`) from `arena`; on
// failure `out` holds a partial graph, not to be used. Checks run in this
// order: decode()'s guarantees, recursion, too_deep_calls, unreachable,
// irreducible_loop (out_of_memory can come at any point). Recursion and call
// depth follow only calls in reachable code.
// Cost: O(n + e) for blocks, edges, RPO, loops (up to inverse Ackermann for
// the loop forest's union-find); where an edge retreats (and only there:
// Cfg::dominators), dominators by Cooper-Harvey-Kennedy, "A Simple, Fast
// Dominance Algorithm" (2001), one pass on RPO (on a reducible graph, the
// only kind accepted, it is exact), O(n * dominator-tree depth) in the
// worst case and linear on chains of early exits.
// Loops are natural loops (Aho-Sethi-Ullman, "Compilers" §9.6): a retreating
// edge in RPO whose target does not dominate its source is irreducible_loop.
// Linux accepts some irreducible shapes through its path-sensitive search;
// keel rejects them on purpose, since its loop bounding needs one header per loop.
[[nodiscard]] CfgResult build_cfg(const Program& program, const CfgOptions& options, Arena& arena,
                                  Cfg& out);
[[nodiscard]] inline CfgResult build_cfg(const Program& program, Arena& arena, Cfg& out) {
  return build_cfg(program, CfgOptions{}, arena, out);
}
// build_cfg without its shortcuts (a straight line, a small forward
// program, phase 1's block fill for one function without calls): phases
// 1-5 for every program, in their general form. For tests that compare the
// shortcuts with the general build; the same graph and result.
[[nodiscard]] CfgResult build_cfg_general(const Program& program, const CfgOptions& options, Arena& arena,
                                          Cfg& out);

// Upper bound on the arena bytes build_cfg takes (its peak, temporaries
// included) for a program of n = `insn_count` slots: 204 n + 276, from
//   4 per slot      the leader, entry and lddw-tail bitsets (7n / 16 + 32: a loose term)
//   36 per slot     a Function or a CallSite (each needs a slot of its own)
//   76 per block    Block 32, two CSR offsets 8, rpo 4, two edges (12 + 4 in pred_edges)
//   60 per block    loops if every block headed one: Loop 20, three offsets 12,
//                   a body entry 4, two back edges 8, two exit entries 16
//   28 per block    temporaries (the loop-forest phase, the largest)
//   276             the "+ 1" of five offset arrays, and alignment (< 8 per allocation)
// with blocks <= slots. Real use is far lower: about n / 4 + 52 B + 16 E
// for loop-free code with B blocks and E edges; a straight line takes
// n / 4 + ~150.
size_t cfg_arena_bound(uint32_t insn_count);

}  // namespace keel
