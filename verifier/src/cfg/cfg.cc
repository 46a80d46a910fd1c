// Builds the CFG in phases, each linear or near-linear, none recursive:
//   1. function entries, leaders, blocks, edges, call sites (and a cheap
//      re-check of the decoder's guarantees);
//   2. reverse post-order per function (iterative DFS), counting the
//      retreating edges;
//   3. call graph: recursion, call depth; then unreachable code;
//   4. only where some edge retreats: dominators (Cooper-Harvey-Kennedy)
//      and the dominator tree's intervals; irreducible control flow;
//   5. the loop forest (natural loops merged per header, nested with a
//      union-find as in Havlak, "Nesting of Reducible and Irreducible Loops",
//      TOPLAS 1997), its pre-order, bodies, back edges and exits.
// Temporaries of a phase are released before the next one; cfg_arena_bound
// mirrors every allocation below.
#include "cfg/cfg.h"

#include "support/carve.h"

namespace keel {

const char* cfg_error_name(CfgError error) {
  switch (error) {
    case CfgError::ok: return "ok";
    case CfgError::out_of_memory: return "out_of_memory";
    case CfgError::unreachable: return "unreachable";
    case CfgError::irreducible_loop: return "irreducible_loop";
    case CfgError::recursion: return "recursion";
    case CfgError::too_deep_calls: return "too_deep_calls";
    case CfgError::invalid_program: return "invalid_program";
  }
  return "unknown";
}

namespace {

constexpr uint32_t kNone = Cfg::kNone;

// Bitsets over the slots, for phase 1: a bit per slot costs an eighth of
// what an array would to clear, and finding the set bits skips 64 slots at
// a time.
bool test_bit(const uint64_t* bits, uint32_t pc) { return ((bits[pc / 64] >> (pc % 64)) & 1u) != 0; }
void set_bit(uint64_t* bits, uint32_t pc) { bits[pc / 64] |= uint64_t{1} << (pc % 64); }
// The first set bit at or after `from`, or `n` when none.
uint32_t next_bit(const uint64_t* bits, uint32_t from, uint32_t n) {
  if (from >= n) return n;
  uint32_t word = from / 64;
  uint64_t rest = bits[word] & (~uint64_t{0} << (from % 64));
  const uint32_t words = (n + 63) / 64;
  while (rest == 0 && ++word < words) rest = bits[word];
  return rest == 0 ? n : word * 64 + static_cast<uint32_t>(__builtin_ctzll(rest));
}
// Set bits of x, inline (SWAR): __builtin_popcountll is a libgcc call on
// x86-64 without POPCNT, and the freestanding core links no libgcc.
constexpr uint32_t bit_count(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555u);
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return static_cast<uint32_t>((x * 0x0101010101010101u) >> 56);
}
static_assert(bit_count(0) == 0 && bit_count(~uint64_t{0}) == 64 && bit_count(0x8000000000000001u) == 2);

// The number of set bits before `pc`, in O(1): `before[w]` counts those in
// the words below w. With the leaders' bits, the block holding slot pc is
// rank(pc + 1) - 1 (Cfg::block_of's binary search made the edges of a
// program with n jumps cost n log n).
uint32_t rank(const uint64_t* bits, const uint32_t* before, uint32_t pc) {
  const uint64_t below = pc % 64 == 0 ? 0 : bits[pc / 64] << (64 - pc % 64);
  return before[pc / 64] + bit_count(below);
}

// decode() guarantees what this checks; a violation is a bug upstream, so a
// debug build stops at once while a release build still refuses cleanly.
CfgResult broken_contract(uint32_t pc) {
#ifndef NDEBUG
  __builtin_trap();
#endif
  return {CfgError::invalid_program, {pc}};
}

CfgResult fail(CfgError error, uint32_t pc) { return {error, {pc}}; }
constexpr CfgResult kOutOfMemory{CfgError::out_of_memory, {0}};

// Target of a jump or local call at `pc`, or -1 when outside [0, count).
int64_t target_of(const Insn& insn, uint32_t pc, uint32_t count) {
  const int64_t target = int64_t{pc} + 1 + insn.offset;
  return target >= 0 && target < int64_t{count} ? target : -1;
}

// Target of a lddw code_addr (BPF_PSEUDO_FUNC: imm relative to the next slot), or -1.
int64_t code_target_of(const Insn& insn, uint32_t pc, uint32_t count) {
  const int64_t target = int64_t{pc} + 1 + insn.imm;
  return target >= 0 && target < int64_t{count} ? target : -1;
}

// The same once checked.
uint32_t target(const Insn& insn, uint32_t pc) { return static_cast<uint32_t>(int64_t{pc} + 1 + insn.offset); }

struct Frame {
  uint32_t node, cursor;
};

// Sets bit pc, counting each bit once.
void mark(uint64_t* bits, uint32_t pc, uint32_t& count) {
  count += test_bit(bits, pc) ? 0 : 1;
  set_bit(bits, pc);
}

// The rare ops of phase 1's scan: jumps, calls, exit and both lddw slots.
// Everything else (ALU, loads, stores) neither ends a block nor starts one.
// They form one range of Op, so the scan tests two compares per slot rather
// than a table load; isa/ops.h's table checks the range at compile time.
constexpr bool control_or_lddw(Op op) { return is_control(op) || is_lddw(op) || op == Op::lddw_tail; }
constexpr bool is_control_or_lddw(Op op) { return op >= Op::jeq64_imm && op <= Op::lddw_tail; }
static_assert(op_range_is(Op::jeq64_imm, Op::lddw_tail, control_or_lddw),
              "jumps, calls, exit and lddw must stay one range of enum Op");

// The first slot from `at` on that is control or lddw. Four slots a round:
// one taken branch per four where most slots are neither (the loop's own
// cost was a branch per slot). The caller guarantees such a slot ahead (the
// last one), which stops the scan before it reads past it.
const Insn* next_control_or_lddw(const Insn* at) {
  while (!is_control_or_lddw(at[0].op) && !is_control_or_lddw(at[1].op) && !is_control_or_lddw(at[2].op) &&
         !is_control_or_lddw(at[3].op)) {
    at += 4;
  }
  while (!is_control_or_lddw(at->op)) ++at;
  return at;
}

// Phase 1's pass over the leaders: blocks in pc order (slot 0 leads the
// first), their call sites and edges (a conditional jump's not-taken edge
// first), and each target's count of incoming edges. A jump must stay in
// its function (whose slot range is known, while the target's block may
// not be laid out yet); a callee is the function entered at the target.
// `e` is the edges written.
// kCalls is false for one function without call sites (most programs):
// then every block is in function 0, no slot is a call, and every jump
// target is inside the function (the scan checked it is in [0, n), the
// function's range), so the loop drops those tests and counts; the
// blocks, edges and counts it writes are the ones the general loop would.
template <bool kCalls>
CfgResult fill_blocks(const Insn* insns, uint32_t n, const uint64_t* leaders, const uint64_t* entries,
                      const uint32_t* leaders_before, Cfg& cfg, uint32_t& e) {
  const uint32_t function_count = cfg.function_count, edge_count = cfg.edge_count;
  const auto block_at = [&](uint32_t pc) { return rank(leaders, leaders_before, pc + 1) - 1; };
  const auto function_at = [&](uint32_t entry) {
    return partition_index(uint32_t{1}, function_count, [&](uint32_t g) { return cfg.functions[g].entry <= entry; }) - 1;
  };
  // The arrays in locals: stores through them could otherwise alias cfg's
  // fields for the compiler.
  Cfg::Block* const blocks = cfg.blocks;
  Cfg::Edge* const edges = cfg.edges;
  uint32_t* const succ = cfg.succ_offsets;
  uint32_t* const preds = cfg.pred_offsets;
  uint32_t b = 0, f = 0, c = 0;
  e = 0;
  // The leaders after `first`, a word at a time: `rest` holds those of word
  // `word` not yet taken (slot 0, the first leader, taken at once).
  uint32_t word = 0;
  const uint32_t words = (n + 63) / 64;
  uint64_t rest = leaders[0] & ~uint64_t{1};
  for (uint32_t first = 0; first < n; ++b) {
    while (rest == 0 && ++word < words) rest = leaders[word];
    const uint32_t next_first = rest == 0 ? n : word * 64 + static_cast<uint32_t>(__builtin_ctzll(rest));
    rest &= rest - 1;
    if constexpr (kCalls) {
      if (function_count > 1 && b > 0 && test_bit(entries, first)) cfg.functions[++f].first_block = b;  // (slot 0 alone is an entry when one function)
      ++cfg.functions[f].block_count;
    }
    blocks[b] = {first, next_first - 1, f, kNone, kNone, kNone, 0, 0};
    if constexpr (kCalls) {
      for (uint32_t pc = first; cfg.call_count != 0 && pc < next_first; ++pc) {
        if (insns[pc].op != Op::call_local && insns[pc].op != Op::lddw_code_addr) continue;
        const uint32_t to = insns[pc].op == Op::call_local
                                ? target(insns[pc], pc)
                                : static_cast<uint32_t>(code_target_of(insns[pc], pc, n));
        if (cfg.functions[f].call_count++ == 0) cfg.functions[f].call_begin = c;
        cfg.calls[c++] = {pc, b, f, function_at(to)};
      }
    }
    const uint32_t last = next_first - 1;
    const uint32_t pc = insns[last].op == Op::lddw_tail ? last - 1 : last;  // terminator_pc
    const Op op = insns[pc].op;
    // The edge count carved above follows from decode()'s guarantees; a
    // block with more edges than are left breaks them (checked before the
    // write, as the count was before). With one function the scan's own
    // checks make the count exact, so there is nothing to check: every
    // jump and exit ends a block (the slot after it leads one; no jump
    // lands on a lddw tail, so a lddw and its tail share a block), so the
    // blocks ending in a conditional jump and in exit are those counted,
    // and the function's last block ends in exit or ja (no fall past it).
    if constexpr (kCalls) {
      const uint32_t out = op == Op::exit ? 0 : is_conditional_jump(op) ? 2 : 1;
      if (out > edge_count - e) return broken_contract(0);
    }
    if (op == Op::ja || is_conditional_jump(op)) {
      const uint32_t to_pc = target(insns[pc], pc);
      if constexpr (kCalls) {
        if (to_pc < cfg.functions[f].entry || to_pc >= cfg.functions[f].end) return broken_contract(pc);
      }
      const uint32_t to = block_at(to_pc);
      if (op != Op::ja) {
        edges[e++] = {b, b + 1, Cfg::EdgeKind::not_taken};
        ++preds[b + 1];
      }
      edges[e++] = {b, to, op == Op::ja ? Cfg::EdgeKind::jump : Cfg::EdgeKind::taken};
      ++preds[to];
    } else if (op != Op::exit) {
      edges[e++] = {b, b + 1, Cfg::EdgeKind::fall};
      ++preds[b + 1];
    }
    succ[b + 1] = e;
    first = next_first;
  }
  if constexpr (!kCalls) cfg.functions[0].block_count = b;
  return {};
}

// Phase 1. One scan marks function entries (slot 0 and every call_local
// target) and leaders (jump targets, the slot after a jump or exit) in two
// bitsets and counts what the arrays need; the blocks are then laid out from
// the leaders' bits alone. (The bitsets stay in the arena: the arrays after
// them are kept.) The RPO array is carved here too, filled by phase 2.
// `general` takes fill_blocks<true> for every program (build_cfg_general).
CfgResult build_blocks(const Program& program, Arena& arena, Cfg& cfg, bool general) {
  const uint32_t n = program.count;
  const Insn* insns = program.insns;
  uint64_t* leaders = nullptr;
  uint64_t* entries = nullptr;
  uint64_t* tails = nullptr;  // Cfg::lddw_tail_bits
  uint32_t* leaders_before = nullptr;  // rank()'s counts, filled once the leaders are known
  const uint32_t words = (n + 63) / 64;
  const bool bits_carved = carve(arena, [&](Carve& c) {
    c.take(leaders, words);
    c.take(entries, words);
    c.take(tails, words);
    c.take(leaders_before, words + size_t{1});
  });
  if (!bits_carved) return kOutOfMemory;
  cfg.lddw_tail_bits = tails;

  set_bit(leaders, 0);
  set_bit(entries, 0);
  // (The leaders are counted once all are marked, by the ranks' pass: a
  // test per mark cost more than a count per word.)
  uint32_t call_count = 0, function_count = 1, conditionals = 0, exits = 0;
  // The last slot ends a function (an exit or ja, or a lddw's tail that
  // the check below the loop reports), so it stops the skip loop, which then
  // needs no bound check.
  if (!is_control_or_lddw(insns[n - 1].op)) return broken_contract(n - 1);
  for (const Insn* at = insns; at < insns + n; ++at) {
    at = next_control_or_lddw(at);
    const Op op = at->op;
    const auto pc = static_cast<uint32_t>(at - insns);
    if (is_lddw(op)) {
      if (pc + 1 >= n || insns[pc + 1].op != Op::lddw_tail) return broken_contract(pc);
      ++cfg.lddw_count;
      set_bit(tails, pc + 1);  // (every lddw_tail is one: another is broken_contract below)
      if (op == Op::lddw_code_addr) {
        // A callback's address: its target is a function, and taking the
        // address counts as a call site of the function holding the lddw,
        // which the helper that runs the callback is in (analyze.cc), so
        // recursion, call depth, stack depth and the cost bound see it.
        const int64_t to = code_target_of(insns[pc], pc, n);
        if (to < 0 || insns[to].op == Op::lddw_tail) return broken_contract(pc);
        set_bit(leaders, static_cast<uint32_t>(to));
        mark(entries, static_cast<uint32_t>(to), function_count);
        ++call_count;
      }
      ++at;
    } else if (op == Op::lddw_tail) {
      return broken_contract(pc);
    } else if (op == Op::call_local) {
      const int64_t to = target_of(insns[pc], pc, n);
      if (to < 0 || insns[to].op == Op::lddw_tail) return broken_contract(pc);
      set_bit(leaders, static_cast<uint32_t>(to));
      mark(entries, static_cast<uint32_t>(to), function_count);
      ++call_count;
    } else if (op == Op::ja || is_conditional_jump(op) || op == Op::exit) {
      conditionals += is_conditional_jump(op) ? 1 : 0;
      exits += op == Op::exit ? 1 : 0;
      if (op != Op::exit) {
        // Staying inside the function is checked with the edges below.
        const int64_t to = target_of(insns[pc], pc, n);
        if (to < 0 || insns[to].op == Op::lddw_tail) return broken_contract(pc);
        set_bit(leaders, static_cast<uint32_t>(to));
      }
      if (pc + 1 < n) set_bit(leaders, pc + 1);
    }
  }
  uint32_t block_count = 0;
  for (uint32_t w = 0; w < words; ++w) {
    leaders_before[w] = block_count;
    block_count += bit_count(leaders[w]);
  }
  leaders_before[words] = block_count;
  // Every ja, conditional jump and exit ends a block (the slot after it
  // leads one); the other blocks fall through into a jump target. So the
  // edges number blocks + conditional jumps - exits, and every array but
  // the loops' can be carved at once.
  const uint32_t edge_count = block_count + conditionals - exits;
  // Not zeroed as a whole (the clearing cost as much as the writes): the
  // loop over the leaders below writes every field of every block, every
  // edge, every call site and succ_offsets[1..]; the counting sort writes
  // every pred_edges entry; phase 2 writes the RPO entries it counts.
  // Only what is counted up or read before it is written starts at zero:
  // the functions, succ_offsets[0] and the predecessor counts.
  const bool carved = carve_uninitialized(arena, [&](Carve& c) {
    c.take(cfg.functions, function_count);
    c.take(cfg.blocks, block_count);
    c.take(cfg.succ_offsets, block_count + size_t{1});
    c.take(cfg.rpo, block_count);
    c.take(cfg.edges, edge_count);
    c.take(cfg.pred_offsets, block_count + size_t{1});
    c.take(cfg.pred_edges, edge_count);
    c.take(cfg.calls, call_count);
  });
  if (!carved) return kOutOfMemory;
  __builtin_memset(cfg.functions, 0, sizeof(Cfg::Function) * function_count);
  __builtin_memset(cfg.pred_offsets, 0, sizeof(uint32_t) * (block_count + size_t{1}));
  cfg.succ_offsets[0] = 0;
  cfg.function_count = function_count;
  cfg.block_count = block_count;
  cfg.edge_count = edge_count;
  cfg.call_count = call_count;
  for (uint32_t f = 0, pc = 0; f < function_count; ++f, pc = next_bit(entries, pc + 1, n)) {
    if (f > 0) cfg.functions[f - 1].end = pc;
    cfg.functions[f].entry = pc;
  }
  cfg.functions[function_count - 1].end = n;
  // A function must not fall off its end.
  for (uint32_t f = 0; f < function_count; ++f) {
    const uint32_t end = cfg.functions[f].end;
    const Op last = insns[end - 1].op;
    if (last != Op::exit && last != Op::ja) return broken_contract(last == Op::lddw_tail ? end - 2 : end - 1);
  }

  uint32_t e = 0;
  const CfgResult filled = function_count == 1 && call_count == 0 && !general
                               ? fill_blocks<false>(insns, n, leaders, entries, leaders_before, cfg, e)
                               : fill_blocks<true>(insns, n, leaders, entries, leaders_before, cfg, e);
  if (!filled.ok()) return filled;
  if (e != edge_count) return broken_contract(0);

  // Predecessors: a counting sort of the edges by target. pred_offsets[t]
  // holds t's count; summed up to and including t it is the end of t's
  // group, and filling each group from its end, edges last to first,
  // leaves it at the group's start with the edges in order.
  for (uint32_t t = 0, sum = 0; t < block_count; ++t) {
    sum += cfg.pred_offsets[t];
    cfg.pred_offsets[t] = sum;
  }
  cfg.pred_offsets[block_count] = edge_count;
  uint32_t* const pred_offsets = cfg.pred_offsets;  // (locals: see build_rpo)
  uint32_t* const pred_edges = cfg.pred_edges;
  const Cfg::Edge* const edges = cfg.edges;
  for (uint32_t k = edge_count; k-- > 0;) pred_edges[--pred_offsets[edges[k].to]] = k;
  return {};
}

// Marks a block on the DFS stack: never an RPO index, those being below
// block_count (build_rpo refuses a count this large; build_small has at
// most 64 blocks).
constexpr uint32_t kOnStack = kNone - 1;

// Phase 2's walk of one function from `entry`: its post-order written from
// `end` down into rpo (each block's index stored as it finishes), edges to
// a block still on the stack counted in `retreating`; returns where the
// order begins. The block being walked (its node, the edges it has left)
// stays in registers: `stack` holds only the blocks below it, pushed when a
// successor is entered and resumed when that one finishes. Inline in both
// builders: a call per function costs a tiny program more than the walk.
[[gnu::always_inline]] inline uint32_t post_order(Cfg::Block* blocks, const Cfg::Edge* edges, const uint32_t* succ,
                                                  uint32_t* rpo, Frame* stack, uint32_t entry, uint32_t end,
                                                  uint32_t& retreating) {
  uint32_t at = end, depth = 0;
  uint32_t node = entry, cursor = succ[entry + 1] - succ[entry];
  const Cfg::Edge* out = edges + succ[entry];
  blocks[entry].rpo = kOnStack;
  for (;;) {
    if (cursor == 0) {  // node finishes
      rpo[--at] = node;
      blocks[node].rpo = at;
      if (depth == 0) return at;
      --depth;
      node = stack[depth].node;
      cursor = stack[depth].cursor;
      out = edges + succ[node];
      continue;
    }
    const uint32_t to = out[--cursor].to;
    const uint32_t seen = blocks[to].rpo;
    if (seen != kNone) {
      retreating += seen == kOnStack ? 1 : 0;
      continue;
    }
    blocks[to].rpo = kOnStack;
    stack[depth++] = {node, cursor};
    node = to;
    cursor = succ[to + 1] - succ[to];
    out = edges + succ[to];
  }
}

// Phase 2. Successors are visited last edge first so that, for an if/else,
// the RPO follows the pc order. `retreating` counts the edges to a block
// still on the DFS stack: the DFS's back edges, which are exactly the
// edges that do not go forward in the RPO it yields (a tree, forward or
// cross edge reaches a block that finishes first, so comes later in RPO).
// The post-order is written from the end of the function's share of
// Cfg::rpo down, so that when every block is reachable it is the RPO at
// once, each block's index known when it finishes.
CfgResult build_rpo(Arena& arena, Cfg& cfg, uint32_t& retreating) {
  // (This cannot fail: cfg_arena_bound of that many slots is hundreds of
  // gigabytes.)
  if (cfg.block_count >= kOnStack) return kOutOfMemory;
  const size_t mark = arena.mark();
  Frame* stack = arena.allocate_uninitialized<Frame>(cfg.block_count);  // each frame written when pushed
  if (stack == nullptr) return kOutOfMemory;
  uint32_t total = 0;
  retreating = 0;
  // The arrays in locals: stores through them could otherwise alias cfg's
  // fields for the compiler.
  Cfg::Block* const blocks = cfg.blocks;
  const Cfg::Edge* const edges = cfg.edges;
  const uint32_t* const succ = cfg.succ_offsets;
  uint32_t* const rpo = cfg.rpo;
  for (uint32_t f = 0; f < cfg.function_count; ++f) {
    Cfg::Function& function = cfg.functions[f];
    const uint32_t entry = function.first_block;
    const uint32_t end = total + function.block_count;  // (total <= first_block: end <= block_count)
    const uint32_t at = post_order(blocks, edges, succ, rpo, stack, entry, end, retreating);
    // Blocks that no path reaches leave the order short: move it down.
    const uint32_t count = end - at;
    for (uint32_t i = 0; at != total && i < count; ++i) {
      const uint32_t b = cfg.rpo[at + i];
      cfg.rpo[total + i] = b;
      cfg.blocks[b].rpo = total + i;
    }
    function.rpo_begin = total;
    function.rpo_count = count;
    total += count;
  }
  cfg.rpo_count = total;
  arena.release_to(mark);
  return {};
}

// Phase 3. A DFS of the call graph from the entry, following only calls in
// reachable blocks: a call to a function still on the stack is recursion;
// depths come out in post-order.
CfgResult check_calls(const CfgOptions& options, Arena& arena, Cfg& cfg) {
  const size_t mark = arena.mark();
  uint8_t* state = nullptr;  // 0 new, 1 on stack, 2 done
  Frame* stack = nullptr;
  const bool carved = carve(arena, [&](Carve& c) {
    c.take(state, cfg.function_count);
    c.take(stack, cfg.function_count);
  });
  if (!carved) return kOutOfMemory;
  uint32_t depth = 0;
  state[0] = 1;
  stack[depth++] = {0, 0};
  while (depth > 0) {
    Frame& top = stack[depth - 1];
    Cfg::Function& function = cfg.functions[top.node];
    if (top.cursor < function.call_count) {
      const Cfg::CallSite& call = cfg.calls[function.call_begin + top.cursor++];
      if (!cfg.reachable(call.block)) continue;
      if (state[call.callee] == 1) return fail(CfgError::recursion, call.pc);
      if (state[call.callee] == 0) {
        state[call.callee] = 1;
        stack[depth++] = {call.callee, 0};
      }
      continue;
    }
    function.depth = 1;
    for (const Cfg::CallSite& call : cfg.function_calls(top.node)) {
      const uint32_t through = cfg.functions[call.callee].depth + 1;
      if (cfg.reachable(call.block) && through > function.depth) function.depth = through;
    }
    state[top.node] = 2;
    --depth;
  }
  arena.release_to(mark);
  cfg.max_call_depth = cfg.functions[0].depth;

  // Too deep: follow a longest chain to the call that needs one frame too many.
  if (options.max_call_depth != 0 && cfg.max_call_depth > options.max_call_depth) {
    uint32_t f = 0;
    for (uint32_t frames = 1; cfg.functions[f].depth > 1; ++frames) {
      const Cfg::CallSite* deepest = nullptr;
      for (const Cfg::CallSite& call : cfg.function_calls(f)) {
        if (cfg.reachable(call.block) && cfg.functions[call.callee].depth + 1 == cfg.functions[f].depth) {
          deepest = &call;
          break;
        }
      }
      if (deepest == nullptr) break;  // cannot happen: depth came from such a call
      if (frames + 1 > options.max_call_depth) return fail(CfgError::too_deep_calls, deepest->pc);
      f = deepest->callee;
    }
  }

  // The first block that no path reaches, or in a function never called.
  // When every block is reachable in its function, the first block of the
  // first function never called (functions and blocks are both in pc order).
  const bool all_reachable = cfg.rpo_count == cfg.block_count;
  for (uint32_t f = 0; all_reachable && f < cfg.function_count; ++f) {
    if (cfg.functions[f].depth == 0) {
      cfg.first_unreachable_pc = cfg.functions[f].entry;
      if (options.reject_unreachable) return fail(CfgError::unreachable, cfg.first_unreachable_pc);
      break;
    }
  }
  for (uint32_t b = 0; !all_reachable && b < cfg.block_count; ++b) {
    if (!cfg.reachable(b) || cfg.functions[cfg.blocks[b].function].depth == 0) {
      cfg.first_unreachable_pc = cfg.blocks[b].first;
      if (options.reject_unreachable) return fail(CfgError::unreachable, cfg.first_unreachable_pc);
      break;
    }
  }
  return {};
}

// Cooper-Harvey-Kennedy's intersect: walks the two fingers up the current
// dominator tree until they meet; RPO indices order the walk.
uint32_t intersect(const Cfg& cfg, uint32_t a, uint32_t b) {
  while (a != b) {
    while (cfg.blocks[a].rpo > cfg.blocks[b].rpo) a = cfg.blocks[a].idom;
    while (cfg.blocks[b].rpo > cfg.blocks[a].rpo) b = cfg.blocks[b].idom;
  }
  return a;
}

// Phase 4, for a graph with a retreating edge (phase 2 counted them): a
// loop-free graph is reducible and nothing reads its dominators (ADR 0051).
// One CHK pass over each function's RPO, taking only predecessors
// already processed (those earlier in RPO): that computes the dominators of
// the graph without its retreating edges. If every retreating edge targets a
// block dominating its source — reducibility — adding those edges back
// changes no dominator, so the pass is exact and CHK's second pass would
// change nothing. Otherwise the graph is irreducible and rejected.
CfgResult build_dominators(Arena& arena, Cfg& cfg) {
  cfg.dominators = true;
  for (uint32_t f = 0; f < cfg.function_count; ++f) {
    const Cfg::Span<uint32_t> order = cfg.function_rpo(f);
    for (uint32_t i = 1; i < order.size; ++i) {
      const uint32_t b = order[i];
      uint32_t idom = kNone;
      const Cfg::Span<uint32_t> preds = cfg.predecessors(b);
      // Last predecessor first: on a chain of early exits to one block (the
      // usual "goto out"), each intersect then walks a single step.
      for (uint32_t k = preds.size; k-- > 0;) {
        const uint32_t p = cfg.edges[preds[k]].from;
        if (!cfg.reachable(p) || cfg.blocks[p].rpo >= cfg.blocks[b].rpo) continue;
        idom = idom == kNone ? p : intersect(cfg, p, idom);
      }
      cfg.blocks[b].idom = idom;  // never kNone: the DFS parent comes earlier in RPO
    }
  }

  // Dominator-tree intervals without child lists: subtree sizes bottom-up
  // (children follow parents in RPO), then each child takes the next free
  // range inside its parent's. Numbering starts at 1; unreachable blocks keep 0.
  const size_t mark = arena.mark();
  uint32_t* size = nullptr;
  uint32_t* next = nullptr;
  const bool carved = carve(arena, [&](Carve& c) {
    c.take(size, cfg.block_count);
    c.take(next, cfg.block_count);
  });
  if (!carved) return kOutOfMemory;
  uint32_t number = 1;
  for (uint32_t f = 0; f < cfg.function_count; ++f) {
    const Cfg::Span<uint32_t> order = cfg.function_rpo(f);
    for (uint32_t b : order) size[b] = 1;
    for (uint32_t i = order.size; i-- > 1;) size[cfg.blocks[order[i]].idom] += size[order[i]];
    for (uint32_t i = 0; i < order.size; ++i) {
      Cfg::Block& block = cfg.blocks[order[i]];
      if (i == 0) {
        block.dom_pre = number;
        number += size[order[i]];
      } else {
        block.dom_pre = next[block.idom];
        next[block.idom] += size[order[i]];
      }
      block.dom_end = block.dom_pre + size[order[i]];
      next[order[i]] = block.dom_pre + 1;
    }
  }
  arena.release_to(mark);

  // Every retreating edge must be a back edge.
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    if (!cfg.reachable(b)) continue;
    for (const Cfg::Edge& edge : cfg.successors(b)) {
      if (cfg.blocks[edge.to].rpo > cfg.blocks[b].rpo) continue;
      if (!cfg.dominates(edge.to, b)) return fail(CfgError::irreducible_loop, terminator_pc(cfg, b));
    }
  }
  return {};
}

uint32_t find(uint32_t* parent, uint32_t x) {
  uint32_t root = x;
  while (parent[root] != root) root = parent[root];
  while (parent[x] != root) {
    const uint32_t up = parent[x];
    parent[x] = root;
    x = up;
  }
  return root;
}

bool is_back_edge(const Cfg& cfg, const Cfg::Edge& edge) {
  // Reducible by now: every retreating edge is a back edge.
  return cfg.reachable(edge.from) && cfg.blocks[edge.to].rpo <= cfg.blocks[edge.from].rpo;
}

// Phase 5. Loops are first numbered by header RPO, so an enclosing loop
// (whose header dominates the inner one's) has the lower number; walking
// them from the highest number, each loop's body is found backwards from
// its back edges, and an already-built inner loop is entered as one node
// (its header's predecessors), joined to this loop in the union-find.
// The loop arrays that have a size before the forest is built (zeroed).
CfgResult carve_loops(Arena& arena, Cfg& cfg, uint32_t loop_count, uint32_t back_count) {
  const bool carved = carve(arena, [&](Carve& c) {
    c.take(cfg.loops, loop_count);
    c.take(cfg.back_edge_offsets, loop_count + size_t{1});
    c.take(cfg.back_edges, back_count);
    c.take(cfg.loop_block_offsets, loop_count + size_t{1});
    c.take(cfg.exit_offsets, loop_count + size_t{1});
  });
  if (!carved) return kOutOfMemory;
  cfg.loop_count = loop_count;
  return {};
}

// Loop-free code (no retreating edge: phase 2 counted them) has an empty
// forest: the offset arrays, all 0, and no scan of the edges.
CfgResult no_loops(Arena& arena, Cfg& cfg) { return carve_loops(arena, cfg, 0, 0); }

CfgResult build_loops(Arena& arena, Cfg& cfg) {
  uint32_t loop_count = 0, back_count = 0;
  constexpr uint32_t kHeader = 0;  // marks headers in Block::loop before they are numbered
  for (uint32_t e = 0; e < cfg.edge_count; ++e) {
    if (!is_back_edge(cfg, cfg.edges[e])) continue;
    ++back_count;
    Cfg::Block& header = cfg.blocks[cfg.edges[e].to];
    if (header.loop == kNone) {
      header.loop = kHeader;
      ++loop_count;
    }
  }
  const CfgResult carved = carve_loops(arena, cfg, loop_count, back_count);
  if (!carved.ok() || loop_count == 0) return carved;  // (no loop: the offsets are all 0 already)

  const size_t mark = arena.mark();
  uint32_t* header_of = nullptr;  // by first numbering
  uint32_t *parent = nullptr, *sets = nullptr, *renumber = nullptr, *subtree = nullptr;
  uint32_t *stamp = nullptr, *stack = nullptr;
  const bool scratch_carved = carve(arena, [&](Carve& c) {
    c.take(header_of, loop_count);
    c.take(parent, loop_count);
    c.take(sets, loop_count);
    c.take(renumber, loop_count);
    c.take(subtree, loop_count);
    c.take(stamp, cfg.block_count);
    c.take(stack, cfg.block_count);
  });
  if (!scratch_carved) return kOutOfMemory;

  for (uint32_t i = 0, l = 0; i < cfg.rpo_count; ++i) {
    const uint32_t b = cfg.rpo[i];
    if (cfg.blocks[b].loop == kNone) continue;
    cfg.blocks[b].loop = l;
    header_of[l] = b;
    parent[l] = kNone;
    sets[l] = l;
    ++l;
  }

  for (uint32_t l = loop_count; l-- > 0;) {
    const uint32_t header = header_of[l], mine = l + 1;  // stamp values are loop + 1
    uint32_t depth = 0;
    auto push_preds = [&](uint32_t b) {
      for (uint32_t e : cfg.predecessors(b)) {
        const uint32_t p = cfg.edges[e].from;
        if (!cfg.reachable(p) || stamp[p] == mine) continue;
        stamp[p] = mine;  // each block is pushed once per loop: the stack never overflows
        stack[depth++] = p;
      }
    };
    stamp[header] = mine;
    for (uint32_t e : cfg.predecessors(header)) {  // the back edges' sources (a self-loop adds nothing)
      const uint32_t p = cfg.edges[e].from;
      if (!is_back_edge(cfg, cfg.edges[e]) || stamp[p] == mine) continue;
      stamp[p] = mine;
      stack[depth++] = p;
    }
    while (depth > 0) {
      const uint32_t b = stack[--depth];
      const uint32_t inner = cfg.blocks[b].loop;
      if (inner == kNone) {
        cfg.blocks[b].loop = l;
        push_preds(b);
        continue;
      }
      const uint32_t outermost = find(sets, inner);
      if (outermost == l) continue;
      parent[outermost] = l;
      sets[outermost] = l;
      push_preds(header_of[outermost]);
    }
  }

  // Pre-order: parents have lower numbers, so sizes accumulate backwards and
  // ranges are handed out forwards (`sets` now holds each loop's next free slot).
  for (uint32_t l = 0; l < loop_count; ++l) subtree[l] = 1;
  for (uint32_t l = loop_count; l-- > 0;) {
    if (parent[l] != kNone) subtree[parent[l]] += subtree[l];
  }
  for (uint32_t l = 0, top = 0; l < loop_count; ++l) {
    if (parent[l] == kNone) {
      renumber[l] = top;
      top += subtree[l];
    } else {
      renumber[l] = sets[parent[l]];
      sets[parent[l]] += subtree[l];
    }
    sets[l] = renumber[l] + 1;
  }
  for (uint32_t l = 0; l < loop_count; ++l) {
    cfg.loops[renumber[l]] = {header_of[l], parent[l] == kNone ? kNone : renumber[parent[l]], 0,
                              renumber[l] + subtree[l], cfg.blocks[header_of[l]].function};
  }
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    if (cfg.blocks[b].loop != kNone) cfg.blocks[b].loop = renumber[cfg.blocks[b].loop];
  }
  arena.release_to(mark);
  for (uint32_t l = 0; l < loop_count; ++l) {
    Cfg::Loop& loop = cfg.loops[l];
    loop.depth = loop.parent == kNone ? 1 : cfg.loops[loop.parent].depth + 1;
  }

  // Bodies, back edges and exits: counting sorts by loop.
  uint32_t body_count = 0, exit_count = 0;
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    const uint32_t inner = cfg.blocks[b].loop;
    if (inner == kNone) continue;
    ++cfg.loop_block_offsets[inner + 1];
    ++body_count;
    for (const Cfg::Edge& edge : cfg.successors(b)) {
      if (!cfg.in_loop(edge.to, inner)) {
        ++cfg.exit_offsets[inner + 1];
        ++exit_count;
      }
    }
  }
  for (uint32_t e = 0; e < cfg.edge_count; ++e) {
    if (is_back_edge(cfg, cfg.edges[e])) ++cfg.back_edge_offsets[cfg.blocks[cfg.edges[e].to].loop + 1];
  }
  const bool bodies_carved = carve(arena, [&](Carve& c) {
    c.take(cfg.loop_blocks, body_count);
    c.take(cfg.exits, exit_count);
  });
  if (!bodies_carved) return kOutOfMemory;

  uint32_t* offsets[] = {cfg.loop_block_offsets, cfg.back_edge_offsets, cfg.exit_offsets};
  for (uint32_t* o : offsets) {
    for (uint32_t l = 0; l < loop_count; ++l) o[l + 1] += o[l];
  }
  for (uint32_t i = 0; i < cfg.rpo_count; ++i) {  // bodies in RPO
    const uint32_t b = cfg.rpo[i], inner = cfg.blocks[b].loop;
    if (inner != kNone) cfg.loop_blocks[cfg.loop_block_offsets[inner]++] = b;
  }
  for (uint32_t e = 0; e < cfg.edge_count; ++e) {
    if (is_back_edge(cfg, cfg.edges[e])) cfg.back_edges[cfg.back_edge_offsets[cfg.blocks[cfg.edges[e].to].loop]++] = e;
  }
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    const uint32_t inner = cfg.blocks[b].loop;
    if (inner == kNone) continue;
    for (uint32_t e = cfg.succ_offsets[b]; e < cfg.succ_offsets[b + 1]; ++e) {
      const uint32_t to = cfg.edges[e].to;
      if (cfg.in_loop(to, inner)) continue;
      // The innermost loop holding both ends: the target's own, or (when the
      // edge enters it through its header) an enclosing one. Reducibility
      // makes this at most one step up.
      uint32_t common = cfg.blocks[to].loop;
      while (common != kNone && !cfg.in_loop(b, common)) common = cfg.loops[common].parent;
      cfg.exits[cfg.exit_offsets[inner]++] = {e, common == kNone ? 0 : cfg.loops[common].depth};
    }
  }
  for (uint32_t* o : offsets) {
    for (uint32_t l = loop_count; l > 0; --l) o[l] = o[l - 1];
    o[0] = 0;
  }
  return {};
}

// A program that is one block without calls (a call of slot 0 would be
// recursion) has a trivial RPO and call graph, and no loop unless the block
// jumps to itself, as phases 2-5 would find; running them would cost more
// than the rest of verifying such a program. Sets what they would (the
// arrays are carved), but for the dominators, which the caller sets when
// the block loops.
void order_single_block(Cfg& cfg) {
  cfg.rpo[0] = 0;
  cfg.rpo_count = 1;
  Cfg::Function& function = cfg.functions[0];
  function.rpo_begin = 0;
  function.rpo_count = 1;
  function.depth = 1;
  cfg.max_call_depth = 1;
  cfg.blocks[0].rpo = 0;
}

CfgResult finish_single_block(Arena& arena, Cfg& cfg) {
  order_single_block(cfg);
  if (cfg.edge_count == 0) return no_loops(arena, cfg);
  // Its only edge is a ja to itself (a block that ends otherwise has no
  // successor in a one-block program): a loop, whose header is the entry.
  cfg.dominators = true;
  cfg.blocks[0].dom_pre = 1;  // the dominator tree's numbering starts at 1
  cfg.blocks[0].dom_end = 2;
  return build_loops(arena, cfg);
}

// Straight-line code (no jump, call or lddw; one exit, the last slot): the
// graph is one block with no edge and no loop, so every array is carved at
// once and filled here, with neither bitset nor the phases above (whose
// fixed cost is most of verifying a tiny program). False when the program
// is not straight-line; it is then built as any other.
bool build_straight_line(const Program& program, Arena& arena, Cfg& cfg, CfgResult& result) {
  const Insn* insns = program.insns;
  const uint32_t n = program.count;
  if (insns[n - 1].op != Op::exit) return false;
  // The exit at the last slot stops the scan.
  if (next_control_or_lddw(insns) != insns + n - 1) return false;
  const bool carved = carve(arena, [&](Carve& c) {
    c.take(cfg.functions, 1);
    c.take(cfg.blocks, 1);
    c.take(cfg.succ_offsets, 2);
    c.take(cfg.rpo, 1);
    c.take(cfg.edges, 0);
    c.take(cfg.pred_offsets, 2);
    c.take(cfg.pred_edges, 0);
    c.take(cfg.calls, 0);
    c.take(cfg.loops, 0);
    c.take(cfg.back_edge_offsets, 1);
    c.take(cfg.back_edges, 0);
    c.take(cfg.loop_block_offsets, 1);
    c.take(cfg.exit_offsets, 1);
  });
  if (!carved) {
    result = kOutOfMemory;
    return true;
  }
  // The arrays are zeroed: only the non-zero fields are written.
  cfg.function_count = 1;
  cfg.block_count = 1;
  cfg.functions[0].end = n;
  cfg.functions[0].block_count = 1;
  cfg.blocks[0] = {0, n - 1, 0, 0, kNone, kNone, 0, 0};
  order_single_block(cfg);
  result = {};
  return true;
}

// A small forward program: at most 64 slots (each bitset one word), every
// jump forward (offset >= 0, so its target is after it), no call_local and
// no lddw code_addr (one function, no call site). Its graph is built here
// in one arena block, from a word of leaders, without phases 1-5's separate
// bitsets, ranks, temporaries and per-function loops, whose fixed cost was
// most of verifying such a program. False, having written nothing, when
// the program is not of that shape (or breaks a guarantee of decode(),
// which the general build then reports); it is then built as any other.
// Why the graph is the one build_phases builds, field for field:
//  - the scan marks the same leaders (slot 0, jump targets, the slot after
//    a jump or exit) and lddw tails, and lays out the same blocks and edges
//    in the same order (phase 1's loop over the leaders, with block_at a
//    count of the leaders up to the target: the same rank);
//  - every edge goes forward in pc order (a fall to the next block, a jump
//    to a later slot), so no edge reaches a block on the DFS stack (those
//    are all earlier): phase 2's DFS, run here the same way (last edge
//    first, post-order written from the end), counts no retreating edge;
//  - phase 3 with one function and no call site: depth 1, max_call_depth
//    1 (never past a limit, which is 0 or at least 1), and the first
//    unreachable block as check_calls finds it;
//  - phase 4 runs only for a retreating edge, and phase 5 takes no_loops:
//    the loop arrays empty, their offsets 0, no dominators.
// cfg_test's SmallForwardShortcutMatchesTheGeneralBuild compares every
// array with build_cfg_general's on its programs and random ones, and
// fuzz_cfg on every input it decodes.
bool build_small(const Program& program, const CfgOptions& options, Arena& arena, Cfg& cfg, CfgResult& result) {
  const Insn* insns = program.insns;
  const uint32_t n = program.count;
  if (n > 64 || insns[n - 1].op != Op::exit) return false;
  uint64_t leaders = 1, tails = 0;
  uint32_t conditionals = 0, exits = 0, lddws = 0;
  for (uint32_t pc = 0; pc < n; ++pc) {
    const Op op = insns[pc].op;
    if (!is_control_or_lddw(op)) continue;
    if (is_lddw(op)) {
      if (op == Op::lddw_code_addr || pc + 1 >= n || insns[pc + 1].op != Op::lddw_tail) return false;
      tails |= uint64_t{1} << (pc + 1);
      ++lddws;
      ++pc;
      continue;
    }
    if (op == Op::exit) {
      ++exits;
    } else if (op == Op::ja || is_conditional_jump(op)) {
      if (insns[pc].offset < 0) return false;
      const int64_t to = target_of(insns[pc], pc, n);
      if (to < 0 || insns[to].op == Op::lddw_tail) return false;
      conditionals += op == Op::ja ? 0 : 1;
      leaders |= uint64_t{1} << to;
    } else if (op == Op::call_helper || op == Op::callx) {
      continue;  // neither ends a block
    } else {
      return false;  // call_local, or a lddw tail without its lddw
    }
    if (pc + 1 < n) leaders |= uint64_t{1} << (pc + 1);
  }
  // Every exit and conditional jump ends a block (the slot after it leads
  // one, or it is the last), as in phase 1's count.
  const uint32_t block_count = bit_count(leaders);
  const uint32_t edge_count = block_count + conditionals - exits;
  // One block, laid out here rather than by a Carve (whose sizing pass
  // and rounding were a tenth of this function): the tail word, then
  // arrays whose elements are all 4-byte fields, so none needs padding.
  // The loop arrays are empty; their three offset arrays, each [0] = 0,
  // share one zero entry, at which the empty arrays point too (a reader
  // takes none of their entries).
  static_assert(alignof(Cfg::Function) == 4 && alignof(Cfg::Block) == 4 && alignof(Cfg::Edge) == 4);
  static_assert(sizeof(Cfg::Function) % 4 == 0 && sizeof(Cfg::Block) % 4 == 0 && sizeof(Cfg::Edge) % 4 == 0);
  const size_t bytes = sizeof(uint64_t) + sizeof(Cfg::Function) + sizeof(Cfg::Block) * block_count +
                       sizeof(uint32_t) * (3 * size_t{block_count} + 2) +  // succ_offsets, rpo, pred_offsets
                       (sizeof(Cfg::Edge) + sizeof(uint32_t)) * edge_count + sizeof(uint32_t);  // edges, pred_edges, zero
  uint64_t* const tail_bits = arena.allocate_uninitialized<uint64_t>((bytes + 7) / 8);
  if (tail_bits == nullptr) {
    result = kOutOfMemory;
    return true;
  }
#ifndef NDEBUG
  __builtin_memset(tail_bits, 0xa5, (bytes + 7) / 8 * 8);  // as carve_uninitialized's debug pattern
#endif
  auto* place = reinterpret_cast<uint8_t*>(tail_bits + 1);
  const auto take = [&place]<class T>(T*& out, size_t count) {
    out = reinterpret_cast<T*>(place);
    place += sizeof(T) * count;
  };
  take(cfg.functions, 1);
  take(cfg.blocks, block_count);
  take(cfg.succ_offsets, block_count + size_t{1});
  take(cfg.rpo, block_count);
  take(cfg.edges, edge_count);
  take(cfg.pred_offsets, block_count + size_t{1});
  take(cfg.pred_edges, edge_count);
  uint32_t* zero = nullptr;
  take(zero, 1);
  *zero = 0;
  cfg.calls = reinterpret_cast<Cfg::CallSite*>(zero);
  cfg.loops = reinterpret_cast<Cfg::Loop*>(zero);
  cfg.back_edges = zero;
  cfg.back_edge_offsets = zero;
  cfg.loop_block_offsets = zero;
  cfg.exit_offsets = zero;
  *tail_bits = tails;
  cfg.lddw_tail_bits = tail_bits;
  cfg.lddw_count = lddws;
  cfg.function_count = 1;
  cfg.block_count = block_count;
  cfg.edge_count = edge_count;
  Cfg::Block* const blocks = cfg.blocks;
  Cfg::Edge* const edges = cfg.edges;
  uint32_t* const succ = cfg.succ_offsets;
  uint32_t* const pred_offsets = cfg.pred_offsets;
  for (uint32_t b = 0; b <= block_count; ++b) pred_offsets[b] = 0;
  // The block holding slot pc: the leaders up to pc, less one.
  const auto block_at = [&](uint32_t pc) { return bit_count(leaders & ((uint64_t{2} << pc) - 1)) - 1; };
  uint32_t e = 0;
  succ[0] = 0;
  uint64_t rest = leaders;
  for (uint32_t b = 0; b < block_count; ++b) {
    const auto first = static_cast<uint32_t>(__builtin_ctzll(rest));
    rest &= rest - 1;
    const uint32_t next_first = rest == 0 ? n : static_cast<uint32_t>(__builtin_ctzll(rest));
    blocks[b] = {first, next_first - 1, 0, kNone, kNone, kNone, 0, 0};
    const uint32_t pc = terminator_pc(cfg, b);
    const Op op = insns[pc].op;
    if (op == Op::ja || is_conditional_jump(op)) {
      const uint32_t to = block_at(target(insns[pc], pc));
      if (op != Op::ja) {
        edges[e++] = {b, b + 1, Cfg::EdgeKind::not_taken};
        ++pred_offsets[b + 1];
      }
      edges[e++] = {b, to, op == Op::ja ? Cfg::EdgeKind::jump : Cfg::EdgeKind::taken};
      ++pred_offsets[to];
    } else if (op != Op::exit) {
      edges[e++] = {b, b + 1, Cfg::EdgeKind::fall};
      ++pred_offsets[b + 1];
    }
    succ[b + 1] = e;
  }
  // Predecessors: phase 1's counting sort.
  for (uint32_t t = 0, sum = 0; t < block_count; ++t) {
    sum += pred_offsets[t];
    pred_offsets[t] = sum;
  }
  pred_offsets[block_count] = edge_count;
  for (e = edge_count; e-- > 0;) cfg.pred_edges[--pred_offsets[edges[e].to]] = e;

  // Phase 2's DFS, its stack here: at most 64 blocks. Forward edges never
  // reach a block on the stack, so nothing retreats.
  Frame stack[64];
  uint32_t* const rpo = cfg.rpo;
  uint32_t retreating = 0;
  const uint32_t at = post_order(blocks, edges, succ, rpo, stack, 0, block_count, retreating);
  const uint32_t count = block_count - at;
  for (uint32_t i = 0; at != 0 && i < count; ++i) {  // blocks no path reaches left the order short
    const uint32_t b = rpo[at + i];
    rpo[i] = b;
    blocks[b].rpo = i;
  }
  cfg.rpo_count = count;
  cfg.functions[0] = {0, n, 0, block_count, 0, count, 0, 0, 1};
  cfg.max_call_depth = 1;
  result = {};
  for (uint32_t b = 0; count != block_count && b < block_count; ++b) {
    if (!cfg.reachable(b)) {
      cfg.first_unreachable_pc = blocks[b].first;
      if (options.reject_unreachable) result = fail(CfgError::unreachable, cfg.first_unreachable_pc);
      break;
    }
  }
  return true;
}

// Phases 1-5, for any program but a straight line. Not inlined into
// build_cfg: the registers its loops need would make every call save and
// restore them, a straight line's included.
[[gnu::noinline]] CfgResult build_phases(const Program& program, const CfgOptions& options, Arena& arena,
                                         Cfg& cfg, bool general = false) {
  CfgResult result = build_blocks(program, arena, cfg, general);
  if (result.ok() && cfg.block_count == 1 && cfg.call_count == 0) return finish_single_block(arena, cfg);
  uint32_t retreating = 0;
  if (result.ok()) result = build_rpo(arena, cfg, retreating);
  if (result.ok()) result = check_calls(options, arena, cfg);
  if (result.ok() && retreating != 0) result = build_dominators(arena, cfg);
  if (result.ok()) result = retreating == 0 ? no_loops(arena, cfg) : build_loops(arena, cfg);
  return result;
}

// Any program but a straight line: the small forward shortcut, else the
// phases. Not inlined into build_cfg, for the reason build_phases is not.
[[gnu::noinline]] CfgResult build_branchy(const Program& program, const CfgOptions& options, Arena& arena,
                                          Cfg& cfg) {
  CfgResult result;
  if (build_small(program, options, arena, cfg, result)) return result;
  return build_phases(program, options, arena, cfg);
}

// Built in place: a fresh Cfg is already empty, and clearing one (GCC
// zeroes a struct this size with `rep stos`) costs as much as the whole
// graph of a tiny program. One that a build filled before is cleared.
void start_in_place(const Program& program, Cfg& cfg) {
  if (cfg.insns != nullptr) cfg = Cfg{};
  cfg.insns = program.insns;
  cfg.insn_count = program.count;
}

}  // namespace

CfgResult build_cfg(const Program& program, const CfgOptions& options, Arena& arena, Cfg& out) {
  if (program.insns == nullptr || program.count == 0) return broken_contract(0);
  start_in_place(program, out);
  CfgResult result;
  if (build_straight_line(program, arena, out, result)) return result;
  return build_branchy(program, options, arena, out);
}

CfgResult build_cfg_general(const Program& program, const CfgOptions& options, Arena& arena, Cfg& out) {
  if (program.insns == nullptr || program.count == 0) return broken_contract(0);
  start_in_place(program, out);
  return build_phases(program, options, arena, out, true);
}

size_t cfg_arena_bound(uint32_t insn_count) {
  // Worst case of every count: blocks B <= n, edges E <= 2B, functions +
  // call sites <= n (each needs a slot of its own: a call, or a function's
  // final exit/ja), loops L <= B, body entries <= B, back edges and exit
  // entries <= E. Terms follow the allocations above, in order.
  const uint64_t n = insn_count, blocks = n, edges = 2 * blocks, loops = blocks;
  const uint64_t function_or_call = sizeof(Cfg::Function) > sizeof(Cfg::CallSite) ? sizeof(Cfg::Function)
                                                                                  : sizeof(Cfg::CallSite);
  uint64_t bytes = 4 * n                                         // bitsets and their ranks (7n / 16 + 32)
                   + function_or_call * n                        // functions, calls
                   + sizeof(Cfg::Block) * blocks + 4 * (blocks + 1)  // blocks, succ_offsets
                   + (sizeof(Cfg::Edge) + 4) * edges + 4 * (blocks + 1)  // edges, pred_edges, pred_offsets
                   + 4 * blocks                                  // rpo
                   + sizeof(Cfg::Loop) * loops + 3 * 4 * (loops + 1)  // loops, three offset arrays
                   + 4 * edges                                   // back_edges
                   + 4 * blocks + sizeof(Cfg::LoopExit) * edges;  // loop_blocks, exits
  // Temporaries, one phase at a time: the largest.
  const uint64_t rpo_stack = sizeof(Frame) * blocks;
  const uint64_t call_graph = (1 + sizeof(Frame)) * n;
  const uint64_t dominator_tree = 2 * 4 * blocks;
  const uint64_t loop_forest = 5 * 4 * loops + 2 * 4 * blocks;
  uint64_t scratch = rpo_stack > call_graph ? rpo_stack : call_graph;
  scratch = dominator_tree > scratch ? dominator_tree : scratch;
  scratch = loop_forest > scratch ? loop_forest : scratch;
  bytes += scratch;
  constexpr uint64_t kAllocations = 32, kAlignmentSlack = 8;  // 28 arrays, padding < 8 each
  bytes += kAllocations * kAlignmentSlack;
  return bytes > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(bytes);
}

}  // namespace keel
