// The fixpoint: the textbook worklist over one function's blocks. Blocks
// are visited lowest reverse-post-order position first, so a loop-free
// function is one pass; each block's instructions run through the transfer
// functions (transfer.cc, memory.cc, calls.cc, branch.cc) and the result is
// merged into each successor's entry state, which puts the successor on
// the worklist when it grew. Entry states of blocks that can never be
// revisited are recycled right after their visit, which keeps the live
// state count small (design.md, "Cost bound"). Three refinements are
// delegated: which entry state a merge joins (partitions.h), the clamps of
// stepped registers at loop headers (loop_clamp.h), and calls (call_frames.cc).
#include "analysis/fixpoint.h"

#include <cstring>

#include "analysis/constants.h"
#include "analysis/step_log.h"
#include "isa/ops.h"
#include "support/carve.h"

namespace keel {
namespace {

uint32_t pos_of(const Fixpoint& fx, uint32_t b) { return fx.e.cfg.blocks[b].rpo - fx.rpo_begin; }

// Whether block `local` holds an entry state or a group of them: what
// release_partitions would release. Most blocks hold none once visited
// (a block never revisited gives its states up at its visit), so the
// check saves an out-of-line call per block.
bool holds_entries(const Fixpoint& fx, uint32_t local) {
  return fx.entries.entry[local] != nullptr || fx.entries.group[local] != 0;
}

// Puts block b on the worklist. A function without loop blocks has no
// worklist in a release build: analyze_function scans its RPO positions
// instead (see there); a debug build keeps the worklist to check the scan.
void set_pending(Fixpoint& fx, uint32_t b) {
#ifdef NDEBUG
  if (fx.first_loop_pos == Cfg::kNone) return;
#endif
  const uint32_t p = pos_of(fx, b);
  fx.pending[p / 64] |= uint64_t{1} << (p % 64);
  if (p < fx.cursor) fx.cursor = p;
}

// A state for an entry slot with the contents of `incoming`: the caller's
// own `*donor` when it has one to give (nothing reads it after the merge,
// see merge()), which saves a copy; else a copy. The two are the same state:
// a copy is exact (StatePool::copy) and only the spare spill capacity, which
// no analysis result depends on, may differ. *donor is nullptr once taken.
State* take_or_copy(StatePool& pool, const State& incoming, State** donor) {
  if (donor != nullptr && *donor == &incoming) {
    State* taken = *donor;
    *donor = nullptr;
    return taken;
  }
  return pool.copy(incoming);
}

// Joins `incoming` into the existing entry state `slot` (partition p) of
// `target`, widened at a loop header from its third visit. `donor`: see merge().
bool join_at(Fixpoint& fx, uint32_t target, State*& slot, uint32_t p, const State& incoming, uint32_t pc,
             State** donor) {
  Engine& e = fx.e;
  const uint32_t local = target - fx.base;
  if (slot == nullptr) {
    slot = take_or_copy(e.pool, incoming, donor);
    if (slot == nullptr) return e.oom(pc);
    fx.entries.dirty[local] = static_cast<uint8_t>(fx.entries.dirty[local] | (1u << p));
    set_pending(fx, target);
    return true;
  }
  if (state_leq(incoming, *slot, e.maps)) return true;
  if (is_header(e.cfg, target) && fx.visits[local] == 1 && fx.entries.dirty[local] == 0 &&
      e.cfg.in_loop(e.cfg.block_of(pc), e.cfg.blocks[target].loop)) {
    // The first back edge into a header whose one visit ran the entry state
    // through: that visit already sent the first run to its successors,
    // whose entry states only grow, so later runs start from the back
    // edges' states alone (the first iteration peeled, as Linux walks it
    // apart from the rest). A register the loop writes before its back edge
    // is then not joined with its value from before the loop (uninit, say)
    // on exits only a later run takes (loops1 "bounded loop that jumps out
    // rather than in"). Once per header per analysis of its function.
    State* later = take_or_copy(e.pool, incoming, donor);
    if (later == nullptr) return e.oom(pc);
    e.pool.release(slot);
    slot = later;
    fx.entries.dirty[local] = static_cast<uint8_t>(fx.entries.dirty[local] | (1u << p));
    set_pending(fx, target);
    return true;
  }
  // FIXME: design.md promises one narrowing pass after widening; not done
  // yet (precision only: the widened states are sound). Registers stepped
  // beside a counter are narrowed by their proven range (merge).
  const bool widen = is_header(e.cfg, target) && fx.visits[local] >= 2;
  if (!join_into(e.pool, slot, incoming, widen, e.maps)) return e.oom(pc);
  fx.entries.dirty[local] = static_cast<uint8_t>(fx.entries.dirty[local] | (1u << p));
  set_pending(fx, target);
  return true;
}

// Merges `incoming`, a state leaving pc, into the entry of block `target`:
// into the partition it belongs to (partitions.h), met with the proven
// range of stepped registers at a header that has a clamp (loop_clamp.h).
// `donor`, when not nullptr, points at the caller's owning pointer to
// `incoming`, which the caller gives up: the merge may keep that state as
// the entry state rather than copy it (and then sets *donor to nullptr);
// otherwise it is left to the caller, unchanged, to release.
// merge() is the inline first case and this the general one (out of line:
// its calls would make every merge save and restore their registers).
[[gnu::noinline]] bool merge_into_entries(Fixpoint& fx, uint32_t target, const State& incoming, uint32_t pc,
                                          State** donor) {
  Engine& e = fx.e;
  const uint32_t local = target - fx.base;
  const uint32_t p = partition_of(fx, target, incoming);
  if (p == kPartitions) return e.oom(pc);
  State** at = slot_of(fx.entries, local, p);
  if (at == nullptr) {
    if (!add_group(fx.entries, e.pool, local)) return e.oom(pc);
    at = slot_of(fx.entries, local, p);
  }
  State*& slot = *at;
  LoopClamp* clamp = fx.clamps.at_header(e.cfg, target);
  if (clamp == nullptr) return join_at(fx, target, slot, p, incoming, pc, donor);
  // A loop header with stepped registers (loop_clamp.h).
  LoopClamp& c = *clamp;
  const bool grew = !e.cfg.in_loop(e.cfg.block_of(pc), e.cfg.blocks[target].loop) && note_entry(c, incoming.top().regs);
  // The clamp changes the state merged: a donated one is clamped in place
  // (the caller no longer reads it), else a copy.
  State* in = take_or_copy(e.pool, incoming, donor);
  if (in == nullptr) return e.oom(pc);
  apply_clamp(c, in->top().regs);
  const bool ok = join_at(fx, target, slot, p, *in, pc, &in);
  e.pool.release(in);
  if (ok) apply_clamp(c, slot->top().regs);
  if (ok && grew) {  // the back edges' clamps must see the grown entry values
    fx.entries.dirty[local] = static_cast<uint8_t>(fx.entries.dirty[local] | (1u << p));
    set_pending(fx, target);
  }
  return ok;
}

inline bool merge(Fixpoint& fx, uint32_t target, const State& incoming, uint32_t pc, State** donor = nullptr) {
  const uint32_t local = target - fx.base;
  State*& first = fx.entries.entry[local];
  if (first == nullptr && fx.clamps.at_header(fx.e.cfg, target) == nullptr) {
    // The first state into a block (in loop-free code, every edge but the
    // second and later ones into a join), without the calls the general
    // path makes. It gives what that path gives: partition_of returns 0
    // whenever partition 0's slot is empty (it returns the first p whose
    // slot is empty or agrees, checking p = 0 first, and 0 when not
    // partitioned), slot_of(.., 0) is `first`, no clamp applies, and
    // join_at with an empty slot takes or copies `incoming` into it, marks
    // partition 0 dirty and puts the block on the worklist.
#ifndef NDEBUG
    // A debug build asks the general path's partition_of on every such
    // merge (with partition 0 empty it changes nothing).
    if (partition_of(fx, target, incoming) != 0) __builtin_trap();
#endif
    first = take_or_copy(fx.e.pool, incoming, donor);
    if (first == nullptr) return fx.e.oom(pc);
    fx.entries.dirty[local] = static_cast<uint8_t>(fx.entries.dirty[local] | 1u);
    set_pending(fx, target);
    return true;
  }
  return merge_into_entries(fx, target, incoming, pc, donor);
}

// The scalar registers leaving block b, for the loop bounds (loop_facts.h,
// step 3), when the bounds read this block: joined in this call context's
// local facts, which commit_facts adds to the program's at the fixpoint.
void record_block_facts(Fixpoint& fx, uint32_t b, const State& s) {
  const uint32_t index = fx.facts.index[b];
  if (index == Cfg::kNone) return;
  ExitFacts& f = fx.local[index - fx.facts.fn_first[fx.fn]];
  const RegState* regs = s.top().regs;
  if (f.seen != 0 && is_header(fx.e.cfg, b)) {
    // A peeled header's later visits no longer see the first run (join_at):
    // the facts keep every visit's.
    uint32_t valid = 0;
    for (uint32_t r = 0; r < kRegisterCount; ++r) {
      if (((f.valid >> r) & 1u) != 0 && regs[r].kind == RegKind::scalar) {
        valid |= 1u << r;
        f.regs[r] = join(f.regs[r], regs[r].value);
      }
    }
    f.valid = valid;
    return;
  }
  f.seen = 1;
  f.valid = 0;
  for (uint32_t r = 0; r < kRegisterCount; ++r) {
    if (regs[r].kind == RegKind::scalar) {
      f.valid |= 1u << r;
      f.regs[r] = regs[r].value;
    }
  }
}

// (Inline: most programs have no loop, so no facts to record.)
inline void record_facts(Fixpoint& fx, uint32_t b, const State& s) {
  if (fx.facts.index != nullptr) record_block_facts(fx, b, s);
}

// describe_state(): the join of every state entering trace_pc. States of
// different call depths (a callee reached from several depths) keep the first.
bool capture(Engine& e, const State& s, uint32_t pc) {
  if (e.trace == nullptr) {
    e.trace = e.pool.copy(s);
    return e.trace != nullptr || e.oom(pc);
  }
  if (e.trace->frame_count != s.frame_count) return true;
  return join_into(e.pool, e.trace, s, false, e.maps) || e.oom(pc);
}

// Instructions RFC 9669 has and Linux 6.1 does not (added in 6.6); ja
// only as gotol, which newer_than_linux_6_1 tells apart by its class.
constexpr bool newer_op(Op op) {
  switch (op) {
    case Op::sdiv64_imm: case Op::sdiv64_reg: case Op::sdiv32_imm: case Op::sdiv32_reg:
    case Op::smod64_imm: case Op::smod64_reg: case Op::smod32_imm: case Op::smod32_reg:
    case Op::movsx64_8: case Op::movsx64_16: case Op::movsx64_32: case Op::movsx32_8:
    case Op::movsx32_16: case Op::ldxsb: case Op::ldxsh: case Op::ldxsw: case Op::bswap16:
    case Op::bswap32: case Op::bswap64: case Op::callx: case Op::ja:
      return true;
    default:
      return false;
  }
}

// newer_op as a bit per Op value (256 bits, so that any byte indexes it):
// one load and a shift per instruction under linux_rules, where the switch
// cost a jump table's range check and indirect jump.
struct OpBits {
  uint64_t words[4] = {};
};
constexpr OpBits newer_ops() {
  OpBits bits;
  for (uint32_t op = 0; op < kOpCount; ++op) {
    if (newer_op(static_cast<Op>(op))) bits.words[op / 64] |= uint64_t{1} << (op % 64);
  }
  return bits;
}
inline constexpr OpBits kNewerOps = newer_ops();
static_assert(kOpCount <= 256);

bool newer_than_linux_6_1(const Insn& insn) {
  const auto op = static_cast<uint8_t>(insn.op);
  if (((kNewerOps.words[op / 64] >> (op % 64)) & 1u) == 0) return false;
  return insn.op != Op::ja || opcode::class_of(insn.opcode) == opcode::cls_jmp32;  // gotol
}

bool step(Engine& e, State*& s, const Insn& insn, uint32_t pc) {
  switch (op_class(insn.op)) {
    case OpClass::alu: return step_alu(e, *s, insn, pc);
    case OpClass::lddw: return step_lddw(e, *s, insn, pc);
    case OpClass::load: return step_load(e, s, insn, pc);
    case OpClass::store_imm: case OpClass::store_reg: return step_store(e, s, insn, pc);
    case OpClass::legacy_load: return step_legacy_load(e, *s, insn, pc);
    case OpClass::atomic: return step_atomic(e, s, insn, pc);
    case OpClass::call_helper: return step_helper(e, s, insn, pc);
    default: break;
  }
  // callx (dst holds the helper id, as LLVM encodes it): a known constant
  // id is a helper call like any other.
  if (!check_init(e, *s, insn.dst, pc)) return false;
  const RegState& target = s->regs()[insn.dst];
  if (!target.is_const()) return e.fail(pc, Reason::helper_argument, insn.dst);
  Insn call = insn;
  call.op = Op::call_helper;
  call.imm = static_cast<int64_t>(target.value.bits.value);
  return step_helper(e, s, call, pc);
}

// The instructions of block b from state w, then the merges into its
// successors. w may move (a call replaces it) or be given to a successor's
// entry (nullptr then); the caller releases it.
bool transfer_block(Fixpoint& fx, uint32_t b, State*& w) {
  Engine& e = fx.e;
  const Cfg& cfg = e.cfg;
  const Cfg::Block& block = cfg.blocks[b];
  bool ok = true;
  bool terminated = false;
  // Read once per block rather than per instruction (the compiler reloads
  // them after every store the transfer functions make); none of them
  // changes during an analysis (verify.cc sets trace_pc before it).
  const uint32_t trace_pc = e.trace_pc;
  const StepLog* const step_log = e.options.step_log;
  const bool linux_rules = e.options.linux_rules;
  // Whether nothing in this block is captured or logged (nearly always):
  // then neither the per-instruction test below nor the end of a constant
  // run need trace_pc or step_log (a run ends at the block's end, as the
  // general expression gives when trace_pc is outside the block).
  // (trace_pc - first > last - first, unsigned: trace_pc outside [first, last].)
  const bool unobserved = step_log == nullptr && trace_pc - block.first > block.last - block.first;
  ConstantRun constants(linux_rules, e.guards != nullptr);
  for (uint32_t pc = block.first; ok && pc <= block.last; ++pc) {
    const Insn& insn = e.insns[pc];
    if (insn.op == Op::lddw_tail) continue;
    if (!unobserved && (pc == trace_pc || step_log != nullptr)) {
      constants.flush(w->regs());
      if (pc == trace_pc && !capture(e, *w, pc)) {
        ok = false;
        break;
      }
      if (step_log != nullptr) log_step(*step_log, *w, pc);
    }
    // Constant ALU runs, most of straight-line code, up to the next pc to
    // capture at. No instruction that RFC 9669 has and Linux 6.1 lacks
    // folds (sdiv, smod and movsx do not), so the check below may come after.
    if (ConstantRun::may_fold(insn, w->regs())) {
      uint32_t end = block.last + 1;
      if (!unobserved) {
        if (trace_pc > pc && trace_pc <= block.last) end = trace_pc;
        if (step_log != nullptr) end = pc + 1;  // the trace sees every instruction
      }
      const uint32_t next = constants.fold_run(e.insns, pc, end, w->regs());
      if (next != pc) {
        pc = next - 1;
        continue;
      }
    }
    constants.flush(w->regs());
    if (linux_rules && newer_than_linux_6_1(insn)) {
      ok = e.fail(pc, Reason::unsupported_instruction);
      break;
    }
    if (insn.op == Op::exit) {
      record_facts(fx, b, *w);
      ok = do_exit(fx, *w, pc);
      terminated = true;
      break;
    }
    if (insn.op == Op::ja || is_conditional_jump(insn.op)) {
      record_facts(fx, b, *w);
      const Cfg::Span<Cfg::Edge> out = cfg.successors(b);
      for (uint32_t i = 0; i < out.size; ++i) {
        const Cfg::Edge& edge = out[i];
        if (!ok) break;
        if (edge.kind == Cfg::EdgeKind::jump) {
          // The last edge's merge may keep w (nothing reads it afterwards).
          ok = merge(fx, edge.to, *w, pc, i + 1 == out.size ? &w : nullptr);
          continue;
        }
        // The last edge refines w itself, which nothing reads afterwards
        // (the caller only releases it), saving a state copy per branch;
        // not under speculative_paths, which merges w unrefined below.
        const bool in_place = i + 1 == out.size && !e.speculative;
        State* branch = in_place ? w : e.pool.copy(*w);
        if (branch == nullptr) {
          ok = e.oom(pc);
          break;
        }
        bool feasible = true;
        ok = refine_branch(e, *branch, insn, pc, edge.kind == Cfg::EdgeKind::taken, feasible);
        // The refined state is not read after its merge (w only by the
        // speculative merge below, which is not in_place): it may become
        // the successor's entry state (merge's donor). The owner is w
        // itself when in place.
        if (ok && feasible) ok = merge(fx, edge.to, *branch, pc, in_place ? &w : &branch);
        // A branch ruled out still runs under misprediction (Spectre v1):
        // analyse it with the state before the comparison.
        if (ok && !feasible && e.speculative) ok = merge(fx, edge.to, *w, pc);
        if (!in_place) e.pool.release(branch);
      }
      terminated = true;
      break;
    }
    if (calls_back(insn)) {
      ok = do_callback(fx, w, insn, pc);
      continue;
    }
    if (insn.op == Op::call_local) {
      bool returns = true;
      ok = do_call(fx, w, pc, returns);
      if (ok && !returns) {
        terminated = true;
        break;
      }
      continue;
    }
    ok = step(e, w, insn, pc);
  }
  if (ok && !terminated) {
    constants.flush(w->regs());
    record_facts(fx, b, *w);
    // The last merge may keep w itself (nothing reads it afterwards).
    const Cfg::Span<Cfg::Edge> out = cfg.successors(b);
    for (uint32_t i = 0; ok && i < out.size; ++i) ok = merge(fx, out[i].to, *w, block.last, i + 1 == out.size ? &w : nullptr);
  }
  return ok;
}

bool visit_block(Fixpoint& fx, uint32_t b) {
  Engine& e = fx.e;
  const Cfg::Block& block = e.cfg.blocks[b];
  const uint32_t local = b - fx.base;
  ++fx.visits[local];
  const uint32_t pos = pos_of(fx, b);
  const bool revisitable = block.loop != Cfg::kNone ||
                           (fx.first_loop_pos != Cfg::kNone && pos > fx.first_loop_pos && pos < fx.last_loop_pos);
  bool ok = true;
  // The dirty partitions in ascending order, re-reading the bits after each
  // visit (transfer_block's merges may set them): the lowest dirty one at or
  // above p, found with one ctz rather than a test per partition.
  for (uint32_t p = 0; ok && p < kPartitions; ++p) {
    const uint32_t pending = fx.entries.dirty[local] & (0xffu << p);
    if (pending == 0) break;
    p = static_cast<uint32_t>(__builtin_ctz(pending));
    fx.entries.dirty[local] = static_cast<uint8_t>(fx.entries.dirty[local] & ~(1u << p));
    if (++e.iterations > e.options.max_iterations) return e.fail(block.first, Reason::too_complex);
    // A block that is never visited again runs on its entry state itself:
    // nothing merges into it any more, so the state need not be copied.
    State** slot = slot_of(fx.entries, local, p);  // transfer_block's merges may move the groups
    State* w = *slot;
    if (revisitable) {
      w = e.pool.copy(*w);
      if (w == nullptr) return e.oom(block.first);
    } else {
      *slot = nullptr;
    }
    ok = transfer_block(fx, b, w);
    e.pool.release(w);
  }
  if (!revisitable && holds_entries(fx, local)) release_partitions(fx.entries, e.pool, local);
  return ok;
}

void commit_facts(Fixpoint& fx) {
  LoopFacts& t = fx.facts;
  if (t.index == nullptr) return;
  for (uint32_t i = 0; i < t.fn_count[fx.fn]; ++i) join_facts(t.facts[t.fn_first[fx.fn] + i], fx.local[i]);
}

// The scalar registers a function is entered with, for a loop headed by its
// first block (loop_bounds.cc's initial value when entered from outside).
void record_entry_facts(LoopFacts& t, uint32_t fn, const State& s) {
  if (t.entries == nullptr) return;
  ExitFacts f{};
  f.seen = 1;
  const RegState* regs = s.top().regs;
  for (uint32_t r = 0; r < kRegisterCount; ++r) {
    if (regs[r].kind == RegKind::scalar) {
      f.valid |= 1u << r;
      f.regs[r] = regs[r].value;
    }
  }
  join_facts(t.entries[fn], f);
}

// The arrays of one function's fixpoint (Fixpoint's local, entries.entry,
// pending, visits, entries.group and entries.dirty) in one zeroed block. A
// function of a few blocks (most programs) keeps them on the stack: a pool
// chunk would cost a take, a clear and a give-back, much of what verifying
// a tiny program costs.
struct FixpointScratch {
  alignas(8) uint8_t small[128];
  void* pooled = nullptr;  // the block when it is not `small`
  size_t bytes = 0;

  static void layout(Carve& c, Fixpoint& fx, uint32_t blocks, uint32_t words, uint32_t facts) {
    c.take(fx.local, facts);
    c.take(fx.entries.entry, blocks);
    c.take(fx.pending, words);
    c.take(fx.visits, blocks);
    c.take(fx.entries.group, blocks);
    c.take(fx.entries.dirty, blocks);
  }

  // Hands the arrays to fx; false when the pool is exhausted.
  bool take(Fixpoint& fx, StatePool& pool, uint32_t blocks, uint32_t words, uint32_t facts) {
    Carve sizing;
    layout(sizing, fx, blocks, words, facts);
    bytes = sizing.size();
    uint8_t* base = small;
    if (bytes <= sizeof(small)) {
      __builtin_memset(small, 0, sizeof(small));
    } else {
      pooled = pool.allocate_raw(bytes);
      if (pooled == nullptr) return false;
      base = static_cast<uint8_t*>(pooled);
    }
    Carve block(base);
    layout(block, fx, blocks, words, facts);
    return true;
  }

  void release(StatePool& pool) { pool.release_raw(pooled, bytes); }  // nullptr (nothing) when on the stack
};

// The lowest pending position at or above fx.cursor, taken off the
// worklist; false when the worklist is empty.
bool next_pending(Fixpoint& fx, uint32_t words, uint32_t& position) {
  uint32_t p = fx.cursor;
  uint32_t word = p / 64;
  uint64_t bits = word < words ? fx.pending[word] & (~uint64_t{0} << (p % 64)) : 0;
  while (bits == 0 && ++word < words) bits = fx.pending[word];
  if (bits == 0) return false;
  p = word * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
  fx.pending[word] &= ~(uint64_t{1} << (p % 64));
  fx.cursor = p;
  position = p;
  return true;
}

}  // namespace

bool analyze_function(Engine& e, LoopFacts& facts, const PartitionPlan& plan, uint32_t fn, State* entry_state,
                      State*& exit_out) {
  const Cfg& cfg = e.cfg;
  const Cfg::Function& f = cfg.functions[fn];
  record_entry_facts(facts, fn, *entry_state);
  Fixpoint fx{e, facts, plan, fn, f.first_block, f.rpo_begin};
  const uint32_t n = f.block_count;
  const uint32_t words = (f.rpo_count + 63) / 64;
  FixpointScratch scratch;
  if (!scratch.take(fx, e.pool, n, words, facts.index == nullptr ? 0 : facts.fn_count[fn])) {
    e.pool.release(entry_state);
    return e.oom(f.entry);
  }
  for (uint32_t i = 0; i < f.rpo_count; ++i) {
    const uint32_t b = cfg.rpo[f.rpo_begin + i];
    if (cfg.blocks[b].loop != Cfg::kNone) {
      if (fx.first_loop_pos == Cfg::kNone) fx.first_loop_pos = i;
      fx.last_loop_pos = i;
    }
  }
  find_loop_clamps(e, fn, fx.first_loop_pos != Cfg::kNone, fx.clamps);
  fx.entries.entry[0] = entry_state;
  fx.entries.dirty[0] = 1;
  set_pending(fx, f.first_block);
  bool ok = true;
  // Without loop blocks, a scan of the RPO positions in ascending order,
  // visiting those whose block has a dirty partition, visits what the
  // worklist would, in the same order. Every merge goes forward in RPO (an
  // edge that does not retreats, which puts its ends in a loop), so a
  // block's entries are all filled before the scan reaches it and none
  // after: the worklist (lowest pending position first) visits positions in
  // ascending order too. A position is pending exactly when its block has a
  // dirty partition: every merge that marks one dirty also puts the block
  // on the worklist (join_at, merge; partitions.cc's collapse only moves a
  // dirty bit within a block already pending), and nothing clears either
  // before the block's one visit, which takes every dirty partition. A
  // debug build runs the worklist beside the scan and traps where they
  // part. (One loop for both, so that visit_block has one call site.)
  const bool scan = fx.first_loop_pos == Cfg::kNone;
  const uint8_t* const dirty = fx.entries.dirty;
  const uint32_t* const order = cfg.rpo + f.rpo_begin;
  uint32_t next = 0;  // the scan's next position
  while (ok) {
    uint32_t p = 0;
    if (scan) {
      while (next < f.rpo_count && dirty[order[next] - fx.base] == 0) ++next;
#ifndef NDEBUG
      uint32_t q = 0;
      const bool pending = next_pending(fx, words, q);
      if (pending != (next < f.rpo_count) || (pending && q != next)) __builtin_trap();
#endif
      if (next == f.rpo_count) break;
      p = next++;
    } else if (!next_pending(fx, words, p)) {
      break;
    }
    ok = visit_block(fx, order[p]);
  }
  if (ok) commit_facts(fx);
  // After a whole run over a function without loop blocks, no block holds
  // an entry state: every merge goes forward in RPO (an edge that does not
  // is a retreating one, which puts its ends in a loop), so each block's
  // entries are all filled, and marked dirty, before its one visit, which
  // takes every dirty partition and then releases the rest (visit_block,
  // `revisitable` false); a block that gets an entry is put on the
  // worklist, and the run ends only when the worklist is empty. The sweep
  // is needed after a failure, or with loop blocks, whose visits keep them.
  const bool sweep = !ok || fx.first_loop_pos != Cfg::kNone;
  for (uint32_t i = 0; sweep && i < n; ++i) {
    if (holds_entries(fx, i)) release_partitions(fx.entries, e.pool, i);
  }
#ifndef NDEBUG
  for (uint32_t i = 0; !sweep && i < n; ++i) {  // a debug build checks the argument above on every run
    if (holds_entries(fx, i)) __builtin_trap();
  }
#endif
  release_groups(fx.entries, e.pool);
  release_loop_clamps(e.pool, fx.clamps);
  scratch.release(e.pool);
  if (!ok) {
    e.pool.release(fx.exit_state);
    return false;
  }
  exit_out = fx.exit_state;
  return true;
}

bool analyze(Engine& e, LoopFacts& facts, State* entry) {
  // A small program's on the stack, as analyze_function's worklists.
  alignas(8) uint8_t small[64];
  const size_t kinds_bytes = e.insn_count <= sizeof(small) ? 0 : e.insn_count;
  void* kinds = small;
  if (kinds_bytes == 0) {
    __builtin_memset(small, 0, sizeof(small));
  } else {
    kinds = e.pool.allocate_raw(kinds_bytes);
    if (kinds == nullptr) {
      e.pool.release(entry);
      return e.oom(0);
    }
  }
  e.access_kinds = static_cast<uint8_t*>(kinds);
  PartitionPlan plan;
  bool ok = plan_partitions(e, plan);
  if (!ok) {
    e.pool.release(entry);
    e.oom(0);
  } else {
    State* exit_state = nullptr;
    ok = analyze_function(e, facts, plan, 0, entry, exit_state);
    release_plan(e.pool, plan);
    if (ok) e.pool.release(exit_state);
  }
  e.access_kinds = nullptr;
  if (kinds_bytes != 0) e.pool.release_raw(kinds, kinds_bytes);
  return ok;
}

}  // namespace keel
