// The fixpoint. Blocks are visited lowest reverse-post-order position
// first, so a loop-free function is one pass; block-entry states of blocks
// that can never be revisited are recycled right after their visit, which
// keeps the live state count small (design.md, "Cost bound").
#include "analysis/analyze.h"

#include <cstring>

namespace keel {
namespace {

struct Run {
  Engine& e;
  LoopFactTable& table;
  uint32_t fn;
  uint32_t base;        // first block
  uint32_t rpo_begin;
  uint32_t first_loop_pos = Cfg::kNone, last_loop_pos = 0;
  State** entry = nullptr;
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

bool merge(Run& run, uint32_t target, const State& incoming, uint32_t pc) {
  Engine& e = run.e;
  State*& slot = run.entry[target - run.base];
  if (slot == nullptr) {
    slot = e.pool.copy(incoming);
    if (slot == nullptr) return e.oom(pc);
    set_pending(run, target);
    return true;
  }
  if (state_leq(incoming, *slot, e.maps)) return true;
  // FIXME: design.md promises one narrowing pass after widening; not done
  // yet (precision only: the widened states are sound).
  const bool widen = is_header(e.cfg, target) && run.visits[target - run.base] >= 2;
  if (!join_into(e.pool, slot, incoming, widen, e.maps)) return e.oom(pc);
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

bool is_cond_jump(Op op) { return op >= Op::jeq64_imm && op < Op::ja; }

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
    return try_fast_alu(*s, insn, e.options.linux_rules) || step_alu(e, *s, insn, pc);
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

bool visit_block(Run& run, uint32_t b) {
  Engine& e = run.e;
  const Cfg& cfg = e.cfg;
  const Cfg::Block& block = cfg.blocks[b];
  if (++e.iterations > e.options.max_iterations) return e.fail(block.first, Reason::too_complex);
  const uint32_t local = b - run.base;
  ++run.visits[local];
  State* w = e.pool.copy(*run.entry[local]);
  if (w == nullptr) return e.oom(block.first);
  bool ok = true;
  bool terminated = false;
  for (uint32_t pc = block.first; ok && pc <= block.last; ++pc) {
    const Insn& insn = e.insns[pc];
    if (insn.op == Op::lddw_tail) continue;
    if (pc == e.trace_pc && !capture(e, *w, pc)) {
      ok = false;
      break;
    }
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
    record_facts(run, b, *w);
    for (const Cfg::Edge& edge : cfg.successors(b)) {
      if (ok) ok = merge(run, edge.to, *w, block.last);
    }
  }
  e.pool.release(w);
  const uint32_t p = pos_of(run, b);
  const bool revisitable = block.loop != Cfg::kNone ||
                           (run.first_loop_pos != Cfg::kNone && p > run.first_loop_pos && p < run.last_loop_pos);
  if (!revisitable) {
    e.pool.release(run.entry[local]);
    run.entry[local] = nullptr;
  }
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
                       sizeof(uint32_t) * n;
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
  for (uint32_t i = 0; i < f.rpo_count; ++i) {
    const uint32_t b = cfg.rpo[f.rpo_begin + i];
    if (cfg.blocks[b].loop != Cfg::kNone) {
      if (run.first_loop_pos == Cfg::kNone) run.first_loop_pos = i;
      run.last_loop_pos = i;
    }
  }
  run.entry[0] = entry_state;
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
  for (uint32_t i = 0; i < n; ++i) e.pool.release(run.entry[i]);
  e.pool.release_raw(scratch, bytes);
  if (!ok) {
    e.pool.release(run.exit_state);
    return false;
  }
  exit_out = run.exit_state;
  return true;
}

}  // namespace

bool analyze(Engine& e, LoopFactTable& table, State* entry) {
  State* exit_state = nullptr;
  if (!run_function(e, table, 0, entry, exit_state)) return false;
  e.pool.release(exit_state);
  return true;
}

}  // namespace keel
