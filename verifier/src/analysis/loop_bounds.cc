// bound_loops(): per function, callees first (Function::depth ascending),
// and per loop, inner loops first (reverse pre-order):
//   1. a symbolic pass over one iteration of the loop finds, per register,
//      "value at the header + [lo, hi]" at every block end and back edge;
//   2. each exit test that runs on every iteration and compares such a
//      register with a loop-invariant bound gives a trip bound
//      (loop_trip.cc); the smallest wins, none is unbounded_loop;
//   3. the loop's worst-case cost, (trips - 1) x the longest iteration + the
//      longest path to an exit, makes it one node of the enclosing DAG;
//   4. the function's cost is the longest entry-to-exit path of its DAG.
// Both passes walk the loop's "units" in reverse post-order: the blocks
// whose innermost loop it is, and each directly nested loop as one unit at
// its header. RPO is a topological order of that collapsed graph once the
// loop's own back edges are dropped (entries to a nested loop go through its
// header; its exits start after its header in RPO).
//
// Counting (consistent with keel::run's insns_executed): one per executed
// instruction, a lddw once although it fills two slots; a helper call is
// one instruction (the helper's own run time is the embedder's budget); a
// BPF-to-BPF call is one plus the callee's bound, its exit included.
//
// FIXME: induction variables kept in stack slots (clang -O0 spills and
// reloads them every iteration) are not tracked: a load makes a register
// unknown, so such loops are refused.
// FIXME: a bound that exists only in memory (a map value or context field
// reloaded inside the loop) is refused; one loaded before the loop into a
// register the loop does not write is fine (the facts give its range).
// FIXME: a sign-extended 32-bit counter compared unsigned in 64 bits is
// refused (its values are not in counter order there).
#include "analysis/loop_bounds.h"

#include "analysis/loop_trip.h"
#include "support/carve.h"
#include "support/sort.h"

namespace keel {

namespace {

constexpr uint32_t kNone = Cfg::kNone;

uint64_t add_sat(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}
uint64_t mul_sat(uint64_t a, uint64_t b) {
  uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}
uint64_t max_of(uint64_t a, uint64_t b) { return a > b ? a : b; }

// Instruction queries (registers written, conditional jumps, block
// terminators) are isa/ops.h's and cfg.h's.

// ---- The symbolic value of a register relative to the loop header.

enum class SymKind : uint8_t {
  unknown,
  constant,  // the 64-bit value `lo` (as bits)
  rel64,     // base's header value + d (mod 2^64), d in [lo, hi]
  rel32,     // low 32 bits = base's header low 32 bits + d (mod 2^32), d in [lo, hi];
             // ext: the upper 32 bits are zero / copies of bit 31 / unknown
};

struct Sym {
  int64_t lo = 0, hi = 0;
  SymKind kind = SymKind::unknown;
  uint8_t base = 0;
  Ext32 ext = Ext32::none;
};

using State = Sym[kRegisterCount];

bool small(int64_t v) { return v >= -kMaxLoopDelta && v <= kMaxLoopDelta; }

Sym constant(uint64_t value) {
  Sym s;
  s.kind = SymKind::constant;
  s.lo = s.hi = static_cast<int64_t>(value);
  return s;
}

// x + k in 64 bits. A constant folds; a relation keeps its base (a 32-bit
// relation survives, since the low half of a 64-bit sum is the 32-bit sum,
// but a carry may change the upper half).
void shift64(Sym& s, int64_t k) {
  if (s.kind == SymKind::constant) {
    s = constant(static_cast<uint64_t>(s.lo) + static_cast<uint64_t>(k));
    return;
  }
  if (s.kind == SymKind::unknown) return;
  if (!small(k) || !small(s.lo + k) || !small(s.hi + k)) {  // |lo|, |k| <= 2^48: no overflow
    s = Sym{};
    return;
  }
  s.lo += k;
  s.hi += k;
  if (s.kind == SymKind::rel32) s.ext = Ext32::none;
}

// x + k in 32 bits (add32, sub32): the result is the low halves' sum,
// zero-extended. The 64-bit relation is lost — a 32-bit wrap is exactly what
// it cannot describe — but the modular 32-bit one holds whatever wraps, and
// loop_trip.cc reasons modulo 2^32 for it.
void shift32(Sym& s, int64_t k) {
  const int64_t k32 = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(k)));
  if (s.kind == SymKind::constant) {
    s = constant(static_cast<uint32_t>(static_cast<uint64_t>(s.lo) + static_cast<uint64_t>(k32)));
    return;
  }
  if (s.kind == SymKind::unknown) return;
  if (!small(s.lo + k32) || !small(s.hi + k32)) {
    s = Sym{};
    return;
  }
  s.lo += k32;
  s.hi += k32;
  s.kind = SymKind::rel32;
  s.ext = Ext32::zero;
}

// mov32 (zero) and movsx64_32 (sign): the low half, extended.
Sym low32(const Sym& s, Ext32 ext) {
  Sym out = s;
  if (s.kind == SymKind::constant) {
    const uint32_t low = static_cast<uint32_t>(static_cast<uint64_t>(s.lo));
    return constant(ext == Ext32::sign ? static_cast<uint64_t>(int64_t{static_cast<int32_t>(low)}) : low);
  }
  if (s.kind == SymKind::rel64 || s.kind == SymKind::rel32) {
    out.kind = SymKind::rel32;
    out.ext = ext;
  }
  return out;
}

// Interval hull of two relations on the same base; anything else is unknown.
Sym join(const Sym& a, const Sym& b) {
  if (a.kind == SymKind::unknown || b.kind == SymKind::unknown) return Sym{};
  if (a.kind == SymKind::constant || b.kind == SymKind::constant) {
    return a.kind == b.kind && a.lo == b.lo ? a : Sym{};
  }
  if (a.base != b.base) return Sym{};
  Sym out;
  out.base = a.base;
  out.lo = a.lo < b.lo ? a.lo : b.lo;
  out.hi = a.hi > b.hi ? a.hi : b.hi;
  if (a.kind == SymKind::rel64 && b.kind == SymKind::rel64) {
    out.kind = SymKind::rel64;
  } else {  // a 64-bit relation implies the 32-bit one with the same delta
    out.kind = SymKind::rel32;
    const bool same = a.kind == SymKind::rel32 && b.kind == SymKind::rel32 && a.ext == b.ext;
    out.ext = same ? a.ext : Ext32::none;
  }
  return out;
}

void clobber(State& st, uint16_t regs) {
  for (uint8_t r = 0; r < kRegisterCount; ++r) {
    if (regs & reg_bit(r)) st[r] = Sym{};
  }
}

void transfer(const Insn& insn, State& st) {
  Sym& dst = st[insn.dst];
  const Sym& src = st[insn.src];
  const bool src_const = insn.src != insn.dst && src.kind == SymKind::constant;
  switch (insn.op) {
    case Op::mov64_imm: case Op::lddw_imm64: dst = constant(static_cast<uint64_t>(insn.imm)); return;
    case Op::mov32_imm: dst = constant(static_cast<uint32_t>(static_cast<uint64_t>(insn.imm))); return;
    case Op::mov64_reg: dst = src; return;
    case Op::mov32_reg: dst = low32(src, Ext32::zero); return;
    case Op::movsx64_32: dst = low32(src, Ext32::sign); return;
    case Op::add64_imm: shift64(dst, insn.imm); return;
    case Op::sub64_imm: shift64(dst, -insn.imm); return;  // imm is a sign-extended 32-bit value
    case Op::add32_imm: shift32(dst, insn.imm); return;
    case Op::sub32_imm: shift32(dst, -insn.imm); return;
    case Op::add64_reg:
    case Op::sub64_reg:
      if (!src_const || !small(src.lo)) break;
      shift64(dst, insn.op == Op::add64_reg ? src.lo : -src.lo);
      return;
    case Op::add32_reg:
    case Op::sub32_reg: {
      if (!src_const) break;
      const int64_t k = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(src.lo)));
      shift32(dst, insn.op == Op::add32_reg ? k : -k);
      return;
    }
    default: break;
  }
  clobber(st, written_regs(insn));
}

void transfer_block(const Cfg& cfg, uint32_t b, State& st) {
  const uint32_t last = cfg.blocks[b].last;
  for (uint32_t pc = cfg.blocks[b].first; pc <= last; ++pc) {
    const Insn& insn = cfg.insns[pc];
    // `r <<= 32; r >>= 32` (resp. `s>>=`) is how clang zero- (sign-)
    // extends a 32-bit value without ALU32 (-mcpu=v1/v2): exactly mov32 r, r
    // (movsx64_32 r, r).
    if (insn.op == Op::lsh64_imm && insn.imm == 32 && pc < last && cfg.insns[pc + 1].dst == insn.dst &&
        cfg.insns[pc + 1].imm == 32 &&
        (cfg.insns[pc + 1].op == Op::rsh64_imm || cfg.insns[pc + 1].op == Op::arsh64_imm)) {
      st[insn.dst] = low32(st[insn.dst], cfg.insns[pc + 1].op == Op::rsh64_imm ? Ext32::zero : Ext32::sign);
      ++pc;
      continue;
    }
    transfer(insn, st);
  }
}

void copy(State& to, const State& from) {
  for (uint32_t r = 0; r < kRegisterCount; ++r) to[r] = from[r];
}
void join_into(State& to, const State& from) {
  for (uint32_t r = 0; r < kRegisterCount; ++r) to[r] = join(to[r], from[r]);
}

// ---- Working memory.

struct Work {
  const Cfg& cfg;
  const LoopFacts& facts;
  uint64_t* dist;      // [block_count]: longest path to a block's start within the current scope
  uint32_t* unit_of;   // [block_count]: index of a block among the current loop's units
  uint16_t* written;   // [loop_count]: registers written anywhere in the loop, nested loops included
  uint64_t* loop_cost;  // [loop_count]: worst case from entering the header to leaving the loop
  uint64_t* fn_cost;   // [function_count]
  uint32_t* units;     // [max_units]
  State* states;       // [max_units]: symbolic state at each unit's start
  bool* seen;          // [max_units]
  const LoopBoundOptions* options;
  // The first place a cost passed a limit (kNone: none yet), and what passed it.
  uint32_t over_pc = kNone;
  uint64_t over_cost = 0;
  bool over_loop_limit = false;
};

// A cost of UINT64_MAX is a saturated sum or product: no bound at all, so it
// passes every limit, UINT64_MAX included.
bool passes(uint64_t cost, uint64_t limit) { return cost == UINT64_MAX || cost > limit; }

// Records the first cost that passes the program's limit, at `pc`.
void check_cost(Work& w, uint64_t cost, uint32_t pc) {
  if (w.over_pc == kNone && passes(cost, w.options->max_insns)) {
    w.over_pc = pc;
    w.over_cost = cost;
  }
}

// Runs of the callback called at `pc`: what the analysis saw there, else the
// helper's own limit.
uint64_t callback_runs(const Work& w, const Insn& insn, uint32_t pc) {
  uint64_t runs;
  if (callback_runs_at(w.facts, pc, runs)) return runs;
  return insn.imm == kHelperLoop ? w.options->loop_callback_runs : w.options->map_callback_runs;
}

// Instructions executed by one run of block b, callees included.
uint64_t block_cost(Work& w, uint32_t b) {
  const Cfg& cfg = w.cfg;
  // Without lddw and calls every slot is one instruction.
  if (cfg.lddw_count == 0 && cfg.call_count == 0) {
    return uint64_t{cfg.blocks[b].last} - cfg.blocks[b].first + 1;
  }
  uint64_t cost = 0;
  for (uint32_t pc = cfg.blocks[b].first; pc <= cfg.blocks[b].last; ++pc) {
    const Insn& insn = cfg.insns[pc];
    if (insn.op == Op::lddw_tail) continue;  // a lddw counts once
    cost = add_sat(cost, 1);
    if (insn.op == Op::call_local) {
      const uint32_t entry = static_cast<uint32_t>(int64_t{pc} + 1 + insn.offset);
      cost = add_sat(cost, w.fn_cost[cfg.blocks[cfg.block_of(entry)].function]);
      check_cost(w, cost, pc);
    } else if (calls_back(insn)) {
      // bpf_for_each_map_elem, bpf_loop: a callback whose address this
      // function takes (the analysis allows no other), run as often as the
      // analysis saw the helper allow at this call.
      uint64_t longest = 0;
      for (const Cfg::CallSite& call : cfg.function_calls(cfg.blocks[b].function)) {
        if (cfg.insns[call.pc].op == Op::lddw_code_addr) longest = max_of(longest, w.fn_cost[call.callee]);
      }
      cost = add_sat(cost, mul_sat(callback_runs(w, insn, pc), longest));
      check_cost(w, cost, pc);
    }
  }
  return cost;
}

// Sorts units by RPO (support/sort.h; reachable blocks have distinct RPO numbers).
void sort_by_rpo(const Cfg& cfg, uint32_t* a, uint32_t n) {
  heap_sort(a, n, [&](uint32_t x, uint32_t y) { return cfg.blocks[x].rpo < cfg.blocks[y].rpo; });
}

// The loop's own blocks and the headers of its direct children, in RPO;
// sets unit_of. Returns the count.
uint32_t collect_units(Work& w, uint32_t l) {
  const Cfg& cfg = w.cfg;
  uint32_t n = 0;
  for (uint32_t i = cfg.loop_block_offsets[l]; i < cfg.loop_block_offsets[l + 1]; ++i) {
    w.units[n++] = cfg.loop_blocks[i];
  }
  for (uint32_t c = l + 1; c < cfg.loops[l].subtree_end; c = cfg.loops[c].subtree_end) {
    w.units[n++] = cfg.loops[c].header;
  }
  sort_by_rpo(cfg, w.units, n);
  for (uint32_t i = 0; i < n; ++i) w.unit_of[w.units[i]] = i;
  return n;
}

// The directly nested loop of l that holds block b (b in l, not its own).
uint32_t child_holding(const Cfg& cfg, uint32_t l, uint32_t b) {
  uint32_t c = cfg.blocks[b].loop;
  while (cfg.loops[c].parent != l) c = cfg.loops[c].parent;
  return c;
}

bool value_along(const Work& w, const Cfg::Edge& e, uint8_t reg, Scalar& out);

// False when e leaves a conditional jump that the facts at the end of its
// source prove never goes that way. The facts hold on every run, so such an
// edge is never taken: a back edge behind one is no loop (Linux 6.1 never
// walks it either: is_branch_taken prunes the branch before push_stack).
bool edge_feasible(const Work& w, const Cfg::Edge& e) {
  if (e.kind != Cfg::EdgeKind::taken && e.kind != Cfg::EdgeKind::not_taken) return true;
  Scalar unused;
  return value_along(w, e, w.cfg.insns[terminator_pc(w.cfg, e.from)].dst, unused);
}

// ---- Step 1: the symbolic pass. Fills w.states (at unit starts) and `back`
// (the join over back edges). Edges the facts prove never taken are left
// out, so `back` and `latch_dom` (the nearest common dominator of the
// sources of the back edges that remain) describe only back edges that can
// be taken. False when none remains: the header then runs once per entry.

bool symbolic_pass(Work& w, uint32_t l, uint32_t n, State& back, uint32_t& latch_dom) {
  const Cfg& cfg = w.cfg;
  const uint32_t header = cfg.loops[l].header;
  latch_dom = kNone;
  for (uint32_t i = 0; i < n; ++i) w.seen[i] = false;
  for (uint8_t r = 0; r < kRegisterCount; ++r) {
    Sym& s = w.states[0][r];  // units[0] is the header: it dominates the loop
    s = Sym{};
    s.kind = SymKind::rel64;
    s.base = r;
  }
  w.seen[0] = true;
  bool any_back = false;
  auto deliver = [&](const Cfg::Edge& e, const State& st) {
    if (!edge_feasible(w, e)) return;
    const uint32_t to = e.to;
    if (to == header) {
      if (any_back) join_into(back, st); else copy(back, st);
      any_back = true;
      if (latch_dom == kNone) latch_dom = e.from;
      while (!cfg.dominates(latch_dom, e.from)) latch_dom = cfg.blocks[latch_dom].idom;  // stays in the loop
    } else if (cfg.in_loop(to, l)) {
      const uint32_t u = w.unit_of[to];
      if (w.seen[u]) join_into(w.states[u], st); else copy(w.states[u], st);
      w.seen[u] = true;
    }  // else: an exit of l
  };
  State cur;
  for (uint32_t i = 0; i < n; ++i) {
    if (!w.seen[i]) continue;
    const uint32_t b = w.units[i];
    copy(cur, w.states[i]);
    const uint32_t inner = cfg.blocks[b].loop;
    if (inner == l) {
      transfer_block(cfg, b, cur);
      for (const Cfg::Edge& e : cfg.successors(b)) deliver(e, cur);
    } else {
      // A nested loop: registers it never writes keep their entry value in
      // every block of it; the others are unknown there (no inner fixpoint).
      clobber(cur, w.written[inner]);
      for (const Cfg::LoopExit& x : cfg.loop_exit_candidates(inner)) {
        if (cfg.leaves(x, inner)) deliver(cfg.edges[x.edge], cur);
      }
    }
  }
  return any_back;
}

// The symbolic state at the end of block s (in loop l, before its jump).
void state_at_end(const Work& w, uint32_t l, uint32_t s, State& out) {
  const Cfg& cfg = w.cfg;
  if (cfg.blocks[s].loop == l) {
    copy(out, w.states[w.unit_of[s]]);
    transfer_block(cfg, s, out);
    return;
  }
  const uint32_t c = child_holding(cfg, l, s);
  copy(out, w.states[w.unit_of[cfg.loops[c].header]]);
  clobber(out, w.written[c]);
}

Scalar fact(const Work& w, uint32_t block, uint8_t reg) {
  Scalar s;
  // "No scalar there" (a pointer, say) or "never reached": the register is
  // still some 64-bit number, so any value is a sound description.
  if (!scalar_at_block_exit(w.facts, block, reg, s)) return Scalar::unknown();
  return s;
}

// The value of `reg` along edge e: the fact at the end of its source,
// narrowed by the source's conditional jump (facts are given before it).
// False when the jump can never take this edge.
bool value_along(const Work& w, const Cfg::Edge& e, uint8_t reg, Scalar& out) {
  out = fact(w, e.from, reg);
  if (e.kind != Cfg::EdgeKind::taken && e.kind != Cfg::EdgeKind::not_taken) return true;
  const Insn& insn = w.cfg.insns[terminator_pc(w.cfg, e.from)];
  JmpOp jmp;
  Width width;
  if (!jmp_of(insn.op, jmp, width)) return true;
  const bool uses_src = jump_uses_src(insn.op);
  if (insn.dst != reg && !(uses_src && insn.src == reg)) return true;
  Scalar a = fact(w, e.from, insn.dst);
  Scalar b = uses_src ? fact(w, e.from, insn.src) : Scalar::constant(static_cast<uint64_t>(insn.imm));
  if (!refine(jmp, width, e.kind == Cfg::EdgeKind::taken, a, b)) return false;
  out = insn.dst == reg ? a : b;
  return true;
}

// The join of what `reg` holds along the header's incoming edges that can
// be taken: from outside the loop (`back` false: the value when the loop is
// entered; the function's entry counts as unknown) or the back edges (what
// the header sees on its later runs; the facts hold on every run, so on the
// last one before each later run). Unknown when there is none.
Scalar header_value(const Work& w, uint32_t l, uint8_t reg, bool back) {
  const Cfg& cfg = w.cfg;
  bool any = false;
  Scalar value = Scalar::unknown();
  for (uint32_t e : cfg.predecessors(cfg.loops[l].header)) {
    const Cfg::Edge& edge = cfg.edges[e];
    if (!cfg.reachable(edge.from) || cfg.in_loop(edge.from, l) != back) continue;
    Scalar s;
    if (!value_along(w, edge, reg, s)) continue;
    value = any ? join(value, s) : s;
    any = true;
  }
  // A header that is its function's first block is also entered by the calls.
  const uint32_t f = cfg.loops[l].function;
  Scalar s;
  if (!back && cfg.functions[f].first_block == cfg.loops[l].header) {
    if (!scalar_at_function_entry(w.facts, f, reg, s)) return Scalar::unknown();
    value = any ? join(value, s) : s;
  }
  return value;
}

StayRel swap_sides(StayRel r) {  // a OP b == b OP' a
  switch (r) {
    case StayRel::lt: return StayRel::gt;
    case StayRel::le: return StayRel::ge;
    case StayRel::gt: return StayRel::lt;
    case StayRel::ge: return StayRel::le;
    default: return r;
  }
}

// One exit test: the loop stays while `counter REL bound` holds. The bound
// is the immediate (bound_reg == kNoReg) or a register.
constexpr uint8_t kNoReg = 0xff;

bool try_test(const Work& w, uint32_t l, uint32_t test_block, const State& st, const State& back,
              uint8_t counter, uint8_t bound_reg, int64_t imm, StayRel rel, bool is_signed, Width width,
              uint64_t& trips) {
  const Sym& tested = st[counter];
  if (tested.kind != SymKind::rel64 && tested.kind != SymKind::rel32) return false;
  const uint8_t base = tested.base;
  const Sym& step = back[base];
  // The base must be an induction register: its next header value is its
  // current one plus a step.
  if ((step.kind != SymKind::rel64 && step.kind != SymKind::rel32) || step.base != base) return false;
  TripTest t;
  t.stay = rel;
  t.is_signed = is_signed;
  t.compare = width;
  if (width == Width::w64) {
    if (tested.kind == SymKind::rel64 && step.kind == SymKind::rel64) {
      t.ext32 = Ext32::none;
    } else if (tested.kind == SymKind::rel32 && tested.ext != Ext32::none) {
      t.ext32 = tested.ext;
    } else {
      return false;  // the upper half is not described
    }
  }
  if (bound_reg == kNoReg) {
    t.bound = Scalar::constant(static_cast<uint64_t>(imm));
  } else if (st[bound_reg].kind == SymKind::constant) {
    t.bound = Scalar::constant(static_cast<uint64_t>(st[bound_reg].lo));  // the same value every iteration
  } else if ((w.written[l] & reg_bit(bound_reg)) == 0) {
    t.bound = fact(w, test_block, bound_reg);  // invariant: one value for the whole run of the loop
  } else {
    return false;
  }
  t.initial = header_value(w, l, base, false);
  t.step_min = step.lo;
  t.step_max = step.hi;
  t.test_min = tested.lo;
  t.test_max = tested.hi;
  return trip_bound(t, trips);
}

// The value `reg` holds at the end of test block s on the header's second
// and later runs: `header value + [lo, hi]` with the header value from
// `later`; a constant or a register the loop never writes as it is. For a
// 32-bit relation only the low half is right, so only a 32-bit compare may use it.
Scalar later_run_value(const Work& w, uint32_t l, uint32_t s, const State& st, uint8_t reg, Width width,
                       const Scalar (&later)[kRegisterCount]) {
  const Sym& sym = st[reg];
  if (sym.kind == SymKind::constant) return Scalar::constant(static_cast<uint64_t>(sym.lo));
  if ((w.written[l] & reg_bit(reg)) == 0) return fact(w, s, reg);
  if (sym.kind == SymKind::rel64 || (sym.kind == SymKind::rel32 && width == Width::w32)) {
    // |lo|, |hi| <= 2^48 (kMaxLoopDelta); the sum wraps as the register does.
    return alu(AluOp::add, Width::w64, later[sym.base], Scalar::from_srange(sym.lo, sym.hi));
  }
  return Scalar::unknown();
}

// Step 2: the smallest trip bound over the loop's exit tests; latch_dom is
// the nearest common dominator of the sources of the back edges that can
// be taken (symbolic_pass).
bool trip_count(const Work& w, uint32_t l, const State& back, uint32_t latch_dom, uint64_t& best) {
  const Cfg& cfg = w.cfg;
  bool found = false;
  State st;
  Scalar later[kRegisterCount];
  bool later_known = false;
  // The test must run on every iteration: its block must dominate latch_dom.
  for (const Cfg::LoopExit& x : cfg.loop_exit_candidates(l)) {
    if (!cfg.leaves(x, l)) continue;
    const Cfg::Edge& exit = cfg.edges[x.edge];
    if (exit.kind != Cfg::EdgeKind::taken && exit.kind != Cfg::EdgeKind::not_taken) continue;
    const uint32_t s = exit.from;
    if (!cfg.dominates(s, latch_dom)) continue;
    const Insn& insn = cfg.insns[terminator_pc(cfg, s)];
    JmpOp jmp;
    Width width;
    if (!jmp_of(insn.op, jmp, width)) continue;
    // A loop whose second run leaves here runs its header at most twice:
    // Linux 6.1 walks the first iteration and finds the back edge's branch
    // not taken on the next (is_branch_taken), whatever the counter.
    state_at_end(w, l, s, st);
    if (!later_known) {
      for (uint8_t r = 0; r < kRegisterCount; ++r) later[r] = header_value(w, l, r, true);
      later_known = true;
    }
    const bool uses_src = jump_uses_src(insn.op);
    Scalar a = later_run_value(w, l, s, st, insn.dst, width, later);
    Scalar b = uses_src ? later_run_value(w, l, s, st, insn.src, width, later)
                        : Scalar::constant(static_cast<uint64_t>(insn.imm));
    if (!refine(jmp, width, exit.kind == Cfg::EdgeKind::not_taken, a, b)) {
      best = found && best < 2 ? best : 2;
      found = true;
    }
    StayRel rel;
    bool is_signed;
    // The loop stays on the edge that is not the exit.
    if (!stay_relation(jmp, exit.kind == Cfg::EdgeKind::not_taken, rel, is_signed)) continue;
    uint64_t trips;
    if (try_test(w, l, s, st, back, insn.dst, uses_src ? insn.src : kNoReg, insn.imm, rel, is_signed, width,
                 trips)) {
      best = found && best < trips ? best : trips;
      found = true;
    }
    if (uses_src && try_test(w, l, s, st, back, insn.src, insn.dst, 0, swap_sides(rel), is_signed, width, trips)) {
      best = found && best < trips ? best : trips;
      found = true;
    }
  }
  return found;
}

// Step 3: longest paths within loop l, whose units are w.units[0, n).
void loop_cost(Work& w, uint32_t l, uint32_t n, uint64_t trips) {
  const Cfg& cfg = w.cfg;
  const uint32_t header = cfg.loops[l].header;
  uint64_t iteration = 0, leaving = 0;
  for (uint32_t i = 0; i < n; ++i) w.dist[w.units[i]] = 0;
  auto reach = [&](uint32_t to, uint64_t length) {
    if (to == header) {
      iteration = max_of(iteration, length);
    } else if (cfg.in_loop(to, l)) {
      w.dist[to] = max_of(w.dist[to], length);
    } else {
      leaving = max_of(leaving, length);
    }
  };
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t b = w.units[i];
    const uint32_t inner = cfg.blocks[b].loop;
    if (inner == l) {
      const uint64_t length = add_sat(w.dist[b], block_cost(w, b));
      for (const Cfg::Edge& e : cfg.successors(b)) reach(e.to, length);
    } else {
      const uint64_t length = add_sat(w.dist[b], w.loop_cost[inner]);
      for (const Cfg::LoopExit& x : cfg.loop_exit_candidates(inner)) {
        if (cfg.leaves(x, inner)) reach(cfg.edges[x.edge].to, length);
      }
    }
  }
  // The header runs at most `trips` times per entry: every run but the last
  // goes round (at most `iteration`, since each ends at a back edge), the
  // last one leaves (at most `leaving`).
  w.loop_cost[l] = add_sat(mul_sat(trips - 1, iteration), leaving);
  const uint32_t header_pc = cfg.blocks[header].first;
  if (w.over_pc == kNone && passes(w.loop_cost[l], w.options->max_loop_insns)) {
    w.over_pc = header_pc;
    w.over_cost = w.loop_cost[l];
    w.over_loop_limit = true;
  }
  check_cost(w, w.loop_cost[l], header_pc);
}

// Step 4: longest entry-to-exit path of function f, top-level loops collapsed.
uint64_t function_cost(Work& w, uint32_t f) {
  const Cfg& cfg = w.cfg;
  const Cfg::Span<uint32_t> order = cfg.function_rpo(f);
  for (uint32_t b : order) w.dist[b] = 0;
  uint64_t longest = 0;
  for (uint32_t b : order) {
    const uint32_t inner = cfg.blocks[b].loop;
    if (inner == kNone) {
      const uint64_t length = add_sat(w.dist[b], block_cost(w, b));
      check_cost(w, length, cfg.blocks[b].first);
      const Cfg::Span<Cfg::Edge> succ = cfg.successors(b);
      if (succ.size == 0) longest = max_of(longest, length);  // ends in exit
      for (const Cfg::Edge& e : succ) w.dist[e.to] = max_of(w.dist[e.to], length);
    } else if (cfg.loops[inner].header == b && cfg.loops[inner].parent == kNone) {
      const uint64_t length = add_sat(w.dist[b], w.loop_cost[inner]);
      check_cost(w, length, cfg.blocks[b].first);
      for (const Cfg::LoopExit& x : cfg.loop_exit_candidates(inner)) {
        if (cfg.leaves(x, inner)) {
          const uint32_t to = cfg.edges[x.edge].to;
          w.dist[to] = max_of(w.dist[to], length);
        }
      }
    }
  }
  return longest;
}

// Slots of block b that are a lddw's second half (block_cost counts a lddw
// once).
uint32_t lddw_tails(const Cfg& cfg, uint32_t b) {
  uint32_t tails = 0;
  for (uint32_t pc = cfg.blocks[b].first; pc <= cfg.blocks[b].last; ++pc) {
    tails += cfg.insns[pc].op == Op::lddw_tail ? 1u : 0u;
  }
  return tails;
}

// The same from the CFG's bitset of tails (a word per 64 slots rather
// than a test per slot: this scan was half of bound_loops on the corpus).
// A debug build compares it with the scan on every block.
uint32_t lddw_tails_fast(const Cfg& cfg, uint32_t b) {
  if (cfg.lddw_tail_bits == nullptr) return lddw_tails(cfg, b);
  const uint32_t tails = lddw_tails_in_block(cfg, b);
#ifndef NDEBUG
  if (tails != lddw_tails(cfg, b)) __builtin_trap();
#endif
  return tails;
}

// function_cost of the common case: one function without loops or call
// sites (Cfg::call_count: local calls and callback addresses), no longer
// than options.max_insns slots. Every block then costs its slots less its
// lddw tails (block_cost: with no call site, a call_local cannot occur and
// a helper that calls back finds no callback address in the function, so
// adds 0 runs x 0), and no path, which runs each slot at most once, can
// pass the limit, so check_cost would record nothing and no sum saturates:
// only the longest path is left to find (a third of function_cost's
// instructions). loop_bounds_test compares the two, with and without lddw.
// (Instantiated per kLddw, so that the loop without lddw stays as tight as
// before it took them.)
// Found backwards: in post-order (Cfg::rpo read from its end), every
// successor of a block comes before it (no loop), so w.dist[b] is the
// longest run from b's first slot to an exit, its own slots plus its
// longest successor's run (0 when it ends in exit). The entry's is the
// longest path from the entry, the maximum over the paths the forward form
// took (distance to an exit block plus that block's slots); each distance
// is written before any read, without zeroing, and an edge costs a load
// rather than a load and a store.
template <bool kLddw>
uint64_t longest_path(Work& w) {
  const Cfg& cfg = w.cfg;
  const Cfg::Span<uint32_t> order = cfg.function_rpo(0);
  const Cfg::Block* const blocks = cfg.blocks;
  const Cfg::Edge* const edges = cfg.edges;
  const uint32_t* const succ = cfg.succ_offsets;
  uint64_t* const dist = w.dist;
  for (uint32_t i = order.size; i-- > 0;) {
    const uint32_t b = order[i];
    // At most two edges leave a block (a conditional jump's), so no loop.
    const uint32_t first = succ[b], out = succ[b + 1] - first;
    uint64_t after = out == 0 ? 0 : dist[edges[first].to];
    if (out == 2) after = max_of(after, dist[edges[first + 1].to]);
    uint64_t length = after + (blocks[b].last - blocks[b].first + 1);
    if constexpr (kLddw) length -= lddw_tails_fast(cfg, b);
    dist[b] = length;
  }
  return dist[order[0]];
}

LoopBoundResult too_costly(const Work& w) {
  LoopBoundResult result;
  result.error = LoopBoundError::too_costly;
  result.pc = w.over_pc;
  result.max_insns_executed = w.over_cost;
  result.loop_limit = w.over_loop_limit;
  result.limit = w.over_loop_limit ? w.options->max_loop_insns : w.options->max_insns;
  return result;
}

}  // namespace

size_t loop_bounds_arena_bound(const Cfg& cfg) {
  const uint64_t blocks = cfg.block_count, loops = cfg.loop_count, functions = cfg.function_count;
  const uint64_t per_block = sizeof(uint64_t) + sizeof(uint32_t)         // dist, unit_of
                             + sizeof(uint32_t) + sizeof(State) + 1;     // units, states, seen (units <= blocks)
  const uint64_t per_loop = sizeof(uint16_t) + sizeof(uint64_t);        // written, loop_cost
  // fn_cost, order, loop range (2), depth buckets (call depth <= functions).
  const uint64_t per_function = sizeof(uint64_t) + 4 * sizeof(uint32_t);
  constexpr uint64_t kAllocations = 12, kAlignmentSlack = 16;  // one block now: padding < 8 per array
  const uint64_t bytes = per_block * blocks + per_loop * loops + per_function * (functions + 2) +
                         kAllocations * kAlignmentSlack;
  return bytes > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(bytes);
}

LoopBoundResult bound_loops(const Cfg& cfg, const LoopFacts& facts, const LoopBoundOptions& options,
                            Arena& arena) {
  const size_t mark = arena.mark();
  LoopBoundResult result;
  struct Release {
    Arena& arena;
    size_t mark;
    ~Release() { arena.release_to(mark); }
  } release{arena, mark};

  // The common small program, one function without loops: nothing to bound
  // and no callee to cost first, so its cost is its longest path alone.
  if (cfg.loop_count == 0 && cfg.function_count == 1) {
    Work w{cfg, facts, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &options};
    const bool longest_only = cfg.call_count == 0 && cfg.insn_count <= options.max_insns;
    // longest_path sets every distance it reads (those of the successors of
    // reachable blocks, which post-order visits first) before reading it.
    w.dist = longest_only ? arena.allocate_uninitialized<uint64_t>(cfg.block_count)
                          : arena.allocate<uint64_t>(cfg.block_count);
    if (w.dist == nullptr) {
      result.error = LoopBoundError::out_of_memory;
      return result;
    }
#ifndef NDEBUG
    // A debug build fills the distances with a pattern, so that one read
    // before it is set gives a wrong length (loop_bounds_test compares).
    if (longest_only) __builtin_memset(w.dist, 0xa5, sizeof(uint64_t) * cfg.block_count);
#endif
    if (longest_only) {
      result.max_insns_executed = cfg.lddw_count == 0 ? longest_path<false>(w) : longest_path<true>(w);
      return result;
    }
    result.max_insns_executed = function_cost(w, 0);
    return w.over_pc == kNone ? result : too_costly(w);
  }

  // Units of a loop: its own blocks plus one per direct child.
  uint32_t max_units = 0;  // (without loops the per-loop arrays stay empty)
  for (uint32_t l = 0; l < cfg.loop_count; ++l) {
    uint32_t n = cfg.loop_block_offsets[l + 1] - cfg.loop_block_offsets[l];
    for (uint32_t c = l + 1; c < cfg.loops[l].subtree_end; c = cfg.loops[c].subtree_end) ++n;
    if (n > max_units) max_units = n;
  }
  const uint32_t functions = cfg.function_count;
  Work w{cfg, facts, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &options};
  uint32_t* order = nullptr;      // functions by depth, callees first
  uint32_t* by_depth = nullptr;   // counting sort buckets
  uint32_t* loop_first = nullptr;  // per function: its loops are [loop_first, loop_end)
  uint32_t* loop_end = nullptr;
  const uint32_t max_depth = cfg.max_call_depth;
  const bool carved = carve(arena, [&](Carve& c) {
    c.take(w.dist, cfg.block_count);
    c.take(w.unit_of, cfg.block_count);
    c.take(w.written, cfg.loop_count);
    c.take(w.loop_cost, cfg.loop_count);
    c.take(w.fn_cost, functions);
    c.take(w.units, max_units);
    c.take(w.states, max_units);
    c.take(w.seen, max_units);
    c.take(order, functions);
    c.take(by_depth, size_t{max_depth} + 2);
    c.take(loop_first, functions);
    c.take(loop_end, functions);
  });
  if (!carved) {
    result.error = LoopBoundError::out_of_memory;
    return result;
  }

  // Registers written per loop: own blocks, then added into the parent
  // (children have higher numbers than their parent).
  for (uint32_t l = cfg.loop_count; l-- > 0;) {
    for (uint32_t i = cfg.loop_block_offsets[l]; i < cfg.loop_block_offsets[l + 1]; ++i) {
      const Cfg::Block& block = cfg.blocks[cfg.loop_blocks[i]];
      for (uint32_t pc = block.first; pc <= block.last; ++pc) w.written[l] |= written_regs(cfg.insns[pc]);
    }
    if (cfg.loops[l].parent != kNone) w.written[cfg.loops[l].parent] |= w.written[l];
  }

  // Loops of a function are contiguous in pre-order (top-level loops follow
  // header RPO, which is grouped by function); the range is checked per loop anyway.
  for (uint32_t f = 0; f < functions; ++f) loop_first[f] = loop_end[f] = 0;
  for (uint32_t l = cfg.loop_count; l-- > 0;) {
    const uint32_t f = cfg.loops[l].function;
    if (loop_end[f] == 0) loop_end[f] = l + 1;
    loop_first[f] = l;
  }

  // Callees first: a callee's depth is below its caller's (Function::depth).
  // Depth 0 means never called: dead code that the safety analysis does not run.
  for (uint32_t f = 0; f < functions; ++f) {
    if (cfg.functions[f].depth <= max_depth) ++by_depth[cfg.functions[f].depth + 1];
  }
  for (uint32_t d = 0; d <= max_depth; ++d) by_depth[d + 1] += by_depth[d];
  for (uint32_t f = 0; f < functions; ++f) {
    if (cfg.functions[f].depth <= max_depth) order[by_depth[cfg.functions[f].depth]++] = f;
  }

  for (uint32_t i = 0; i < functions; ++i) {
    const uint32_t f = order[i];
    if (cfg.functions[f].depth == 0) continue;
    for (uint32_t l = loop_end[f]; l-- > loop_first[f];) {  // inner loops first
      if (cfg.loops[l].function != f) continue;
      State back;
      const uint32_t n = collect_units(w, l);
      uint32_t latch_dom = kNone;
      uint64_t trips = 1;  // no back edge can be taken: one run per entry
      const bool proven = !symbolic_pass(w, l, n, back, latch_dom) || trip_count(w, l, back, latch_dom, trips);
      if (!proven || trips > options.max_trips) {
        result.error = LoopBoundError::unbounded_loop;
        result.pc = cfg.blocks[cfg.loops[l].header].first;
        result.trips = proven ? trips : 0;
        return result;
      }
      loop_cost(w, l, n, trips);
      if (w.over_pc != kNone) return too_costly(w);
    }
    w.fn_cost[f] = function_cost(w, f);
    if (w.over_pc != kNone) return too_costly(w);
  }
  result.max_insns_executed = w.fn_cost[0];
  return result;
}

}  // namespace keel
