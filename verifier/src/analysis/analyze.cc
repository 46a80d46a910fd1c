// The fixpoint. Blocks are visited lowest reverse-post-order position
// first, so a loop-free function is one pass; block-entry states of blocks
// that can never be revisited are recycled right after their visit, which
// keeps the live state count small (design.md, "Cost bound").
#include "analysis/analyze.h"

#include <cstring>

#include "analysis/constants.h"

namespace keel {
namespace {

struct Run {
  Engine& e;
  LoopFactTable& table;
  uint32_t fn;
  uint32_t base;        // first block
  uint32_t rpo_begin;
  uint32_t first_loop_pos = Cfg::kNone, last_loop_pos = 0;
  State** entry = nullptr;    // [block_count]: a block's entry state (its first partition)
  uint32_t* group = nullptr;  // [block_count]: 1 + the index in `extra` of its other partitions, 0 = none
  uint8_t* dirty = nullptr;   // [block_count]: bit p = partition p changed since the block's last visit
  State** extra = nullptr;    // groups of kPartitions - 1 entry states, for the few blocks that split
  uint32_t* free_groups = nullptr;  // released groups (1 + index), free_count of them
  uint32_t extra_capacity = 0, extra_used = 0, free_count = 0;
  uint32_t* visits = nullptr;
  uint64_t* pending = nullptr;
  ExitFacts* local = nullptr;
  uint32_t cursor = 0;
  State* exit_state = nullptr;
};

bool run_function(Engine& e, LoopFactTable& table, uint32_t fn, State* entry_state, State*& exit_out);

bool is_header(const Cfg& cfg, uint32_t b) {
  const uint32_t l = cfg.blocks[b].loop;
  return l != Cfg::kNone && cfg.loops[l].header == b;
}

uint32_t pos_of(const Run& run, uint32_t b) { return run.e.cfg.blocks[b].rpo - run.rpo_begin; }

void set_pending(Run& run, uint32_t b) {
  const uint32_t p = pos_of(run, b);
  run.pending[p / 64] |= uint64_t{1} << (p % 64);
  if (p < run.cursor) run.cursor = p;
}

bool is_cond_jump(Op op) { return op >= Op::jeq64_imm && op < Op::ja; }

// ---- Path partitions --------------------------------------------------------------
//
// The path sensitivity correlated branches need. A flag set differently on
// two paths and tested after they meet (`r3 = 0` on one, `r3 = -22` on the
// other, a few blocks of other work, then `if r3 != 0`; or a header length
// of 14 or 18 that a packet check and the accesses after it both add) is
// lost by the join where the paths meet: the test then sees both values,
// and each successor gets what neither path alone allows (Linux walks each
// path separately). Likewise a register that holds a pointer on one path
// and another kind of value on the other (a map value or a stack buffer,
// chosen by a flag) is unusable after the join. So a block keeps up to
// kPartitions entry states, told apart by the constants they hold in the
// registers that a conditional jump at most kPartitionDistance blocks
// ahead depends on, and by the registers used as pointers as far ahead
// that their join would make unusable (Engine::partition_flags); states
// that agree on them are joined as before, and each partition is visited
// on its own. Once the flag is tested or overwritten, the states agree
// again and join. Loop blocks, and the blocks whose exit facts the loop
// bounds read, keep one state. The cost is at most kPartitions visits per
// block visit (design.md, "Cost bound").
constexpr uint32_t kPartitions = 8;
constexpr uint32_t kPartitionDistance = 4;
constexpr uint32_t kFlagBits = 10;  // r0-r9 per set in Engine::partition_flags
constexpr uint32_t kFlagMask = (1u << kFlagBits) - 1;

// Unprivileged programs are not partitioned: Linux rejects one pointer
// arithmetic instruction run with different maps, offsets or scalars on
// different paths (update_alu_sanitation_state: "tried to add from
// different maps, paths or scalars"), which a join reproduces and
// partitions would hide.
bool partitioned(const Run& run, uint32_t b) {
  const Engine& e = run.e;
  return e.partition_flags != nullptr && e.options.privileged && e.partition_flags[b] != 0 &&
         e.cfg.blocks[b].loop == Cfg::kNone && (run.table.index == nullptr || run.table.index[b] == Cfg::kNone);
}

// Whether a and b belong to one partition of a block with partition flags
// `flags`: the same constants (or both no constant) in the registers tested
// or used as a load/store base ahead (an offset of 14 or 18 matters as much
// as a flag), and no such register nor call argument that their join would
// make unusable (a pointer on one path, something else on the other).
bool same_partition(const State& a, const State& b, uint32_t flags, const MapTable& maps) {
  const uint32_t exact = (flags | flags >> kFlagBits) & kFlagMask;
  const uint32_t usable = exact | ((flags >> (2 * kFlagBits)) & kFlagMask);
  const RegState* x = a.top().regs;
  const RegState* y = b.top().regs;
  for (uint32_t r = 0; r < kFlagBits; ++r) {
    if (((usable >> r) & 1u) == 0) continue;
    if (x[r].kind == RegKind::scalar && y[r].kind == RegKind::scalar) {
      if (((exact >> r) & 1u) == 0) continue;
      const bool cx = x[r].value.is_const();
      if (cx != y[r].value.is_const() || (cx && x[r].value.bits.value != y[r].value.bits.value)) return false;
      continue;
    }
    if (x[r].kind == y[r].kind && x[r].region == y[r].region && x[r].frame == y[r].frame) continue;
    const RegKind joined = join_reg(x[r], y[r], false, maps).kind;
    if (joined == RegKind::mixed || joined == RegKind::uninit) return false;
  }
  return true;
}

// Partition p's entry state of block `local` (a slot of `entry` or of its
// group), or nullptr when p > 0 and the block has no group yet.
State** slot_of(Run& run, uint32_t local, uint32_t p) {
  if (p == 0) return &run.entry[local];
  const uint32_t g = run.group[local];
  return g == 0 ? nullptr : &run.extra[size_t{g - 1} * (kPartitions - 1) + p - 1];
}

// Gives block `local` a group of empty slots (recycled, or grown by doubling).
bool add_group(Run& run, uint32_t local) {
  StatePool& pool = run.e.pool;
  if (run.free_count == 0 && run.extra_used == run.extra_capacity) {
    const uint32_t capacity = run.extra_capacity == 0 ? 16 : run.extra_capacity * 2;
    const size_t per = (kPartitions - 1) * sizeof(State*) + sizeof(uint32_t);
    void* memory = pool.allocate_raw(capacity * per);
    if (memory == nullptr) return false;
    State** slots = static_cast<State**>(memory);
    uint32_t* free_groups = reinterpret_cast<uint32_t*>(slots + size_t{capacity} * (kPartitions - 1));
    if (run.extra != nullptr) {
      std::memcpy(slots, run.extra, size_t{run.extra_used} * (kPartitions - 1) * sizeof(State*));
      pool.release_raw(run.extra, run.extra_capacity * per);
    }
    run.extra = slots;
    run.free_groups = free_groups;
    run.extra_capacity = capacity;
  }
  run.group[local] = run.free_count != 0 ? run.free_groups[--run.free_count] : ++run.extra_used;
  for (uint32_t p = 1; p < kPartitions; ++p) *slot_of(run, local, p) = nullptr;
  return true;
}

void release_partitions(Run& run, uint32_t local) {
  for (uint32_t p = 0; p < kPartitions; ++p) {
    State** slot = slot_of(run, local, p);
    if (slot == nullptr) break;
    run.e.pool.release(*slot);
    *slot = nullptr;
  }
  if (run.group[local] != 0) {
    run.free_groups[run.free_count++] = run.group[local];
    run.group[local] = 0;
  }
}

// The partition of `target` that `incoming` joins: the one it agrees
// with, else a free one, else the last (which then holds a join of keys).
uint32_t partition_of(Run& run, uint32_t target, const State& incoming) {
  if (!partitioned(run, target)) return 0;
  const uint32_t local = target - run.base;
  const uint32_t flags = run.e.partition_flags[target];
  for (uint32_t p = 0; p < kPartitions; ++p) {
    State** slot = slot_of(run, local, p);
    if (slot == nullptr || *slot == nullptr || same_partition(**slot, incoming, flags, run.e.maps)) return p;
  }
  return kPartitions - 1;
}

bool merge(Run& run, uint32_t target, const State& incoming, uint32_t pc) {
  Engine& e = run.e;
  const uint32_t local = target - run.base;
  const uint32_t p = partition_of(run, target, incoming);
  State** at = slot_of(run, local, p);
  if (at == nullptr) {
    if (!add_group(run, local)) return e.oom(pc);
    at = slot_of(run, local, p);
  }
  State*& slot = *at;
  if (slot == nullptr) {
    slot = e.pool.copy(incoming);
    if (slot == nullptr) return e.oom(pc);
    run.dirty[local] = static_cast<uint8_t>(run.dirty[local] | (1u << p));
    set_pending(run, target);
    return true;
  }
  if (state_leq(incoming, *slot, e.maps)) return true;
  // FIXME: design.md promises one narrowing pass after widening; not done
  // yet (precision only: the widened states are sound).
  const bool widen = is_header(e.cfg, target) && run.visits[local] >= 2;
  if (!join_into(e.pool, slot, incoming, widen, e.maps)) return e.oom(pc);
  run.dirty[local] = static_cast<uint8_t>(run.dirty[local] | (1u << p));
  set_pending(run, target);
  return true;
}

void record_facts(Run& run, uint32_t b, const State& s) {
  const uint32_t index = run.table.index == nullptr ? Cfg::kNone : run.table.index[b];
  if (index == Cfg::kNone) return;
  ExitFacts& f = run.local[index - run.table.fn_first[run.fn]];
  f.seen = 1;
  f.valid = 0;
  const RegState* regs = s.top().regs;
  for (uint32_t r = 0; r < kRegisterCount; ++r) {
    if (regs[r].kind == RegKind::scalar) {
      f.valid |= 1u << r;
      f.regs[r] = regs[r].value;
    }
  }
}

bool do_exit(Run& run, State& s, uint32_t pc) {
  Engine& e = run.e;
  if (s.frame_count > 1) {
    if (run.exit_state == nullptr) {
      run.exit_state = e.pool.copy(s);
      return run.exit_state != nullptr || e.oom(pc);
    }
    return join_into(e.pool, run.exit_state, s, false, e.maps) || e.oom(pc);
  }
  if (!check_init(e, s, 0, pc)) return false;
  const RegState& r0 = s.regs()[0];
  const bool ranged = e.type.return_min != INT64_MIN || e.type.return_max != INT64_MAX;
  Detail d;
  d.kind = static_cast<uint8_t>(r0.kind);
  if (r0.kind != RegKind::scalar) {
    if (!e.options.privileged) return e.fail(pc, Reason::pointer_leak, 0, d);
    if (ranged) return e.fail(pc, Reason::bad_return_value, 0, d);
    return true;
  }
  d.min = r0.value.smin;
  d.max = r0.value.smax;
  if (r0.value.smin < e.type.return_min || r0.value.smax > e.type.return_max) {
    return e.fail(pc, Reason::bad_return_value, 0, d);
  }
  return true;
}

// BPF-to-BPF call: a fresh frame with r1-r5, the callee analysed with this
// state, then r0 from its exits and r1-r5 clobbered (the callee's frame gone).
bool do_call(Run& run, State*& s, uint32_t pc, bool& returns) {
  Engine& e = run.e;
  returns = true;
  if (!e.options.privileged) return e.fail(pc, Reason::unprivileged_call);
  const Cfg& cfg = e.cfg;
  uint32_t low = 0;
  uint32_t high = cfg.call_count;
  while (low < high) {
    const uint32_t mid = low + (high - low) / 2;
    if (cfg.calls[mid].pc < pc) low = mid + 1; else high = mid;
  }
  if (low >= cfg.call_count || cfg.calls[low].pc != pc) return e.fail(pc, Reason::too_complex);
  const uint32_t callee = cfg.calls[low].callee;
  if (s->frame_count >= kMaxCallDepth) return e.fail(pc, Reason::call_depth);
  State* c = e.pool.copy(*s, 2, 1);
  if (c == nullptr) return e.oom(pc);
  const uint32_t caller_frame = s->frame_count - 1u;
  Frame& frame = c->frames()[c->frame_count - 1];
  for (RegState& r : frame.regs) r = make_uninit();
  for (uint32_t r = 1; r <= 5; ++r) frame.regs[r] = s->frames()[caller_frame].regs[r];
  frame.regs[10] = make_pointer(RegKind::stack);
  frame.regs[10].frame = static_cast<uint8_t>(c->frame_count - 1);
  std::memset(frame.tags, kTagUninit, sizeof(frame.tags));
  frame.function = callee;
  frame.call_pc = pc;
  State* ret = nullptr;
  if (!run_function(e, run.table, callee, c, ret)) return false;
  if (ret == nullptr) {  // no path of the callee returns
    returns = false;
    return true;
  }
  const uint32_t top = ret->frame_count - 1u;
  const RegState r0 = ret->frames()[top].regs[0];
  if (r0.kind == RegKind::stack && r0.frame == top) {
    // "cannot return stack pointer to the caller frame"
    e.pool.release(ret);
    return e.fail(pc, Reason::pointer_leak, 0, Detail{.kind = static_cast<uint8_t>(r0.kind)});
  }
  State* back = e.pool.allocate(top, ret->spill_count + 2u);
  if (back == nullptr) return e.oom(pc);
  std::memcpy(back->frames(), ret->frames(), top * sizeof(Frame));
  for (uint32_t i = 0; i < ret->spill_count; ++i) {
    if (ret->spills()[i].frame < top) back->spills()[back->spill_count++] = ret->spills()[i];
  }
  e.pool.release(ret);
  RegState* regs = back->regs();
  regs[0] = r0;
  for (uint32_t r = 1; r <= 5; ++r) regs[r] = make_uninit();
  e.pool.release(s);
  s = back;
  return true;
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

// Instructions RFC 9669 has and Linux 6.1 does not (added in 6.6).
bool newer_than_linux_6_1(const Insn& insn) {
  switch (insn.op) {
    case Op::sdiv64_imm: case Op::sdiv64_reg: case Op::sdiv32_imm: case Op::sdiv32_reg:
    case Op::smod64_imm: case Op::smod64_reg: case Op::smod32_imm: case Op::smod32_reg:
    case Op::movsx64_8: case Op::movsx64_16: case Op::movsx64_32: case Op::movsx32_8:
    case Op::movsx32_16: case Op::ldxsb: case Op::ldxsh: case Op::ldxsw: case Op::bswap16:
    case Op::bswap32: case Op::bswap64: case Op::callx:
      return true;
    case Op::ja:
      return opcode::class_of(insn.opcode) == opcode::cls_jmp32;  // gotol
    default:
      return false;
  }
}

bool step(Engine& e, State*& s, const Insn& insn, uint32_t pc) {
  const Op op = insn.op;
  if (op < Op::jeq64_imm) {
    return step_alu(e, *s, insn, pc);
  }
  if (op >= Op::lddw_imm64 && op <= Op::lddw_map_idx_value) return step_lddw(e, *s, insn, pc);
  if (op >= Op::ldxb && op <= Op::ldxsw) return step_load(e, s, insn, pc);
  if (op >= Op::stb && op <= Op::stxdw) return step_store(e, s, insn, pc);
  if (op >= Op::ld_abs_b && op <= Op::ld_ind_w) return step_legacy_load(e, *s, insn, pc);
  if (op >= Op::atomic32_add && op <= Op::atomic64_cmpxchg) return step_atomic(e, s, insn, pc);
  if (op == Op::call_helper) return step_helper(e, s, insn, pc);
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
// successors. w may move (a call replaces it); the caller releases it.
bool run_block(Run& run, uint32_t b, State*& w) {
  Engine& e = run.e;
  const Cfg& cfg = e.cfg;
  const Cfg::Block& block = cfg.blocks[b];
  bool ok = true;
  bool terminated = false;
  ConstantRun constants(e.options.linux_rules);
  for (uint32_t pc = block.first; ok && pc <= block.last; ++pc) {
    const Insn& insn = e.insns[pc];
    if (insn.op == Op::lddw_tail) continue;
    if (pc == e.trace_pc) {
      constants.flush(w->regs());
      if (!capture(e, *w, pc)) {
        ok = false;
        break;
      }
    }
    // Constant ALU runs, most of straight-line code, up to the next pc to
    // capture at. No instruction that RFC 9669 has and Linux 6.1 lacks
    // folds (sdiv, smod and movsx do not), so the check below may come after.
    if (ConstantRun::may_fold(insn)) {
      const uint32_t end = e.trace_pc > pc && e.trace_pc <= block.last ? e.trace_pc : block.last + 1;
      const uint32_t next = constants.fold_run(e.insns, pc, end, w->regs());
      if (next != pc) {
        pc = next - 1;
        continue;
      }
    }
    constants.flush(w->regs());
    if (e.options.linux_rules && newer_than_linux_6_1(insn)) {
      ok = e.fail(pc, Reason::unsupported_instruction);
      break;
    }
    if (insn.op == Op::exit) {
      record_facts(run, b, *w);
      ok = do_exit(run, *w, pc);
      terminated = true;
      break;
    }
    if (insn.op == Op::ja || is_cond_jump(insn.op)) {
      record_facts(run, b, *w);
      for (const Cfg::Edge& edge : cfg.successors(b)) {
        if (!ok) break;
        if (edge.kind == Cfg::EdgeKind::jump) {
          ok = merge(run, edge.to, *w, pc);
          continue;
        }
        State* branch = e.pool.copy(*w);
        if (branch == nullptr) {
          ok = e.oom(pc);
          break;
        }
        bool feasible = true;
        ok = refine_branch(e, *branch, insn, pc, edge.kind == Cfg::EdgeKind::taken, feasible);
        if (ok && feasible) ok = merge(run, edge.to, *branch, pc);
        // A branch ruled out still runs under misprediction (Spectre v1):
        // analyse it with the state before the comparison.
        if (ok && !feasible && e.options.speculative_paths) ok = merge(run, edge.to, *w, pc);
        e.pool.release(branch);
      }
      terminated = true;
      break;
    }
    if (insn.op == Op::call_local) {
      bool returns = true;
      ok = do_call(run, w, pc, returns);
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
    record_facts(run, b, *w);
    for (const Cfg::Edge& edge : cfg.successors(b)) {
      if (ok) ok = merge(run, edge.to, *w, block.last);
    }
  }
  return ok;
}

bool visit_block(Run& run, uint32_t b) {
  Engine& e = run.e;
  const Cfg::Block& block = e.cfg.blocks[b];
  const uint32_t local = b - run.base;
  ++run.visits[local];
  const uint32_t pos = pos_of(run, b);
  const bool revisitable = block.loop != Cfg::kNone ||
                           (run.first_loop_pos != Cfg::kNone && pos > run.first_loop_pos && pos < run.last_loop_pos);
  bool ok = true;
  for (uint32_t p = 0; ok && p < kPartitions; ++p) {
    if (((run.dirty[local] >> p) & 1u) == 0) continue;
    run.dirty[local] = static_cast<uint8_t>(run.dirty[local] & ~(1u << p));
    if (++e.iterations > e.options.max_iterations) return e.fail(block.first, Reason::too_complex);
    // A block that is never visited again runs on its entry state itself:
    // nothing merges into it any more, so the state need not be copied.
    State** slot = slot_of(run, local, p);  // run_block's merges may move the groups
    State* w = *slot;
    if (revisitable) {
      w = e.pool.copy(*w);
      if (w == nullptr) return e.oom(block.first);
    } else {
      *slot = nullptr;
    }
    ok = run_block(run, b, w);
    e.pool.release(w);
  }
  if (!revisitable) release_partitions(run, local);
  return ok;
}

void commit_facts(Run& run) {
  LoopFactTable& t = run.table;
  if (t.index == nullptr) return;
  for (uint32_t i = 0; i < t.fn_count[run.fn]; ++i) {
    const ExitFacts& from = run.local[i];
    if (from.seen == 0) continue;
    ExitFacts& to = t.facts[t.fn_first[run.fn] + i];
    if (to.seen == 0) {
      to = from;
      continue;
    }
    to.valid &= from.valid;
    for (uint32_t r = 0; r < kRegisterCount; ++r) {
      if ((to.valid >> r) & 1u) to.regs[r] = join(to.regs[r], from.regs[r]);
    }
  }
}

bool run_function(Engine& e, LoopFactTable& table, uint32_t fn, State* entry_state, State*& exit_out) {
  const Cfg& cfg = e.cfg;
  const Cfg::Function& f = cfg.functions[fn];
  Run run{e, table, fn, f.first_block, f.rpo_begin};
  const uint32_t n = f.block_count;
  const uint32_t words = (f.rpo_count + 63) / 64;
  const uint32_t nf = table.index == nullptr ? 0 : table.fn_count[fn];
  const size_t bytes = sizeof(ExitFacts) * nf + sizeof(State*) * n + sizeof(uint64_t) * words +
                       sizeof(uint32_t) * n * 2 + n;
  void* scratch = e.pool.allocate_raw(bytes);
  if (scratch == nullptr) {
    e.pool.release(entry_state);
    return e.oom(f.entry);
  }
  uint8_t* cursor = static_cast<uint8_t*>(scratch);
  run.local = reinterpret_cast<ExitFacts*>(cursor);
  cursor += sizeof(ExitFacts) * nf;
  run.entry = reinterpret_cast<State**>(cursor);
  cursor += sizeof(State*) * n;
  run.pending = reinterpret_cast<uint64_t*>(cursor);
  cursor += sizeof(uint64_t) * words;
  run.visits = reinterpret_cast<uint32_t*>(cursor);
  cursor += sizeof(uint32_t) * n;
  run.group = reinterpret_cast<uint32_t*>(cursor);
  cursor += sizeof(uint32_t) * n;
  run.dirty = cursor;
  for (uint32_t i = 0; i < f.rpo_count; ++i) {
    const uint32_t b = cfg.rpo[f.rpo_begin + i];
    if (cfg.blocks[b].loop != Cfg::kNone) {
      if (run.first_loop_pos == Cfg::kNone) run.first_loop_pos = i;
      run.last_loop_pos = i;
    }
  }
  run.entry[0] = entry_state;
  run.dirty[0] = 1;
  set_pending(run, f.first_block);
  bool ok = true;
  while (ok) {
    uint32_t p = run.cursor;
    uint32_t word = p / 64;
    uint64_t bits = word < words ? run.pending[word] & (~uint64_t{0} << (p % 64)) : 0;
    while (bits == 0 && ++word < words) bits = run.pending[word];
    if (bits == 0) break;
    p = word * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
    run.pending[word] &= ~(uint64_t{1} << (p % 64));
    run.cursor = p;
    ok = visit_block(run, cfg.rpo[f.rpo_begin + p]);
  }
  if (ok) commit_facts(run);
  for (uint32_t i = 0; i < n; ++i) release_partitions(run, i);
  if (run.extra != nullptr) {
    e.pool.release_raw(run.extra, run.extra_capacity * ((kPartitions - 1) * sizeof(State*) + sizeof(uint32_t)));
  }
  e.pool.release_raw(scratch, bytes);
  if (!ok) {
    e.pool.release(run.exit_state);
    return false;
  }
  exit_out = run.exit_state;
  return true;
}

// Registers an instruction may write (a superset only partitions less).
uint16_t written_by(const Insn& insn) {
  const Op op = insn.op;
  const auto bit = [](uint32_t r) { return static_cast<uint16_t>(1u << r); };
  if (op < Op::jeq64_imm || (op >= Op::ldxb && op <= Op::ldxsw) ||
      (op >= Op::lddw_imm64 && op <= Op::lddw_map_idx_value)) {
    return bit(insn.dst);
  }
  if ((op >= Op::stb && op <= Op::stxdw) || op == Op::lddw_tail || op == Op::exit || op == Op::ja ||
      is_cond_jump(op)) {
    return 0;
  }
  if (op >= Op::atomic32_add && op <= Op::atomic64_cmpxchg) return static_cast<uint16_t>(bit(insn.src) | bit(0));
  return 0x3f;  // calls and legacy packet loads: r0-r5
}

// Backward over one instruction: the registers whose values before it the
// test ahead depends on, given those after it (`live`). ALU results depend
// on their operands, so a flag shifted or copied before its test (`r1 = r4;
// r1 >>= 32; if r1 != 0`) still counts.
uint16_t flags_before(const Insn& insn, uint16_t live) {
  const Op op = insn.op;
  const auto bit = [](uint32_t r) { return static_cast<uint16_t>(1u << r); };
  if (is_cond_jump(op)) {
    const bool reg = (static_cast<uint32_t>(op) - static_cast<uint32_t>(Op::jeq64_imm)) % 2 == 1;
    return static_cast<uint16_t>(live | bit(insn.dst) | (reg ? bit(insn.src) : 0));
  }
  if (op >= Op::jeq64_imm) return static_cast<uint16_t>(live & ~written_by(insn));
  if ((live & bit(insn.dst)) == 0) return live;
  uint16_t before = static_cast<uint16_t>(live & ~bit(insn.dst));
  if (op >= Op::neg64) {
    const bool movsx = op >= Op::movsx64_8 && op <= Op::movsx32_16;
    return static_cast<uint16_t>(before | bit(movsx ? insn.src : insn.dst));
  }
  const uint32_t o = static_cast<uint32_t>(op);
  if (o / 4 != static_cast<uint32_t>(Op::mov64_imm) / 4) before = static_cast<uint16_t>(before | bit(insn.dst));
  if ((o % 4) % 2 == 1) before = static_cast<uint16_t>(before | bit(insn.src));
  return before;
}

// Backward over one instruction: the registers whose values before it are
// the base of a load or store ahead, given those after it; through ALU
// results as flags_before (`r4 = r2; r4 += r5; *(u16 *)(r4 + 2)` counts r5).
uint16_t bases_before(const Insn& insn, uint16_t live) {
  const Op op = insn.op;
  const auto bit = [](uint32_t r) { return static_cast<uint16_t>(1u << r); };
  if (op >= Op::ldxb && op <= Op::ldxsw) return static_cast<uint16_t>((live & ~bit(insn.dst)) | bit(insn.src));
  if (op >= Op::stb && op <= Op::stxdw) return static_cast<uint16_t>(live | bit(insn.dst));
  if (op >= Op::atomic32_add && op <= Op::atomic64_cmpxchg) {
    return static_cast<uint16_t>((live & ~written_by(insn)) | bit(insn.dst));
  }
  if (op >= Op::jeq64_imm) return static_cast<uint16_t>(live & ~written_by(insn));
  return flags_before(insn, live);
}

// The same for the arguments of calls (r1-r5, which may be pointers).
uint16_t arguments_before(const Insn& insn, uint16_t live) {
  const Op op = insn.op;
  if (op == Op::call_helper || op == Op::call_local || op == Op::callx) {
    return static_cast<uint16_t>((live & ~0x3f) | 0x3e);
  }
  if (op >= Op::jeq64_imm) return static_cast<uint16_t>(live & ~written_by(insn));
  return flags_before(insn, live);
}

// Engine::partition_flags: per block, three sets of r0-r9 (r10 is the frame
// pointer on every path), kFlagBits bits each: the registers whose values
// at its entry the conditional jump of it or of a block at most
// kPartitionDistance edges further depends on; those a load or store as
// far ahead uses as its base; those a call as far ahead takes as
// arguments. Computed once: kPartitionDistance backward passes over the
// instructions. `next` has room for block_count entries.
void compute_partition_flags(const Engine& e, uint32_t* flags, uint32_t* next) {
  const Cfg& cfg = e.cfg;
  const uint32_t n = cfg.block_count;
  std::memset(flags, 0, n * sizeof(uint32_t));
  for (uint32_t step = 0; step <= kPartitionDistance; ++step) {
    for (uint32_t b = 0; b < n; ++b) {
      const Cfg::Block& block = cfg.blocks[b];
      uint32_t later = 0;
      for (const Cfg::Edge& edge : cfg.successors(b)) later |= flags[edge.to];
      uint16_t tested = static_cast<uint16_t>(later & kFlagMask);
      uint16_t bases = static_cast<uint16_t>((later >> kFlagBits) & kFlagMask);
      uint16_t arguments = static_cast<uint16_t>((later >> (2 * kFlagBits)) & kFlagMask);
      for (uint32_t pc = block.last + 1; pc-- > block.first;) {
        tested = flags_before(e.insns[pc], tested);
        bases = bases_before(e.insns[pc], bases);
        arguments = arguments_before(e.insns[pc], arguments);
      }
      next[b] = (tested & kFlagMask) | (bases & kFlagMask) << kFlagBits | (arguments & kFlagMask) << (2 * kFlagBits);
    }
    std::memcpy(flags, next, n * sizeof(uint32_t));
  }
}

// Partitions matter only below a join; without one the flags would never
// be read, and computing them costs several passes over the
// instructions (most of the analysis of a straight line).
bool has_join(const Cfg& cfg) {
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    if (cfg.pred_offsets[b + 1] - cfg.pred_offsets[b] >= 2) return true;
  }
  return false;
}

bool analyze_with_flags(Engine& e, LoopFactTable& table, State* entry) {
  size_t bytes = 0;
  void* flags = nullptr;
  if (has_join(e.cfg) && e.options.privileged) {  // partitioned() is false otherwise
    bytes = sizeof(uint32_t) * size_t{e.cfg.block_count};
    flags = e.pool.allocate_raw(bytes);
    void* next = e.pool.allocate_raw(bytes);
    if (flags == nullptr || next == nullptr) {
      e.pool.release_raw(flags, bytes);
      e.pool.release(entry);
      return e.oom(0);
    }
    compute_partition_flags(e, static_cast<uint32_t*>(flags), static_cast<uint32_t*>(next));
    e.pool.release_raw(next, bytes);
    e.partition_flags = static_cast<uint32_t*>(flags);
  }
  State* exit_state = nullptr;
  const bool ok = run_function(e, table, 0, entry, exit_state);
  e.partition_flags = nullptr;
  e.pool.release_raw(flags, bytes);
  if (!ok) return false;
  e.pool.release(exit_state);
  return true;
}

}  // namespace

bool analyze(Engine& e, LoopFactTable& table, State* entry) {
  const size_t kinds_bytes = e.insn_count;
  void* kinds = e.pool.allocate_raw(kinds_bytes);
  if (kinds == nullptr) {
    e.pool.release(entry);
    return e.oom(0);
  }
  e.access_kinds = static_cast<uint8_t*>(kinds);
  const bool ok = analyze_with_flags(e, table, entry);
  e.access_kinds = nullptr;
  e.pool.release_raw(kinds, kinds_bytes);
  return ok;
}

}  // namespace keel
