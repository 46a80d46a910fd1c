// Calls that push a frame, and the exits that pop one: BPF-to-BPF calls
// (do_call), callbacks of bpf_loop / bpf_for_each_map_elem (do_callback),
// and exit (do_exit). A callee is analysed by a fixpoint of its own per
// call site (analyze_function). Helper calls are calls.cc's.
#include <cstring>

#include "analysis/fixpoint.h"
#include "support/search.h"

namespace keel {

namespace {

// The exit of a callback (a frame made by a helper call): Linux 6.1
// prepare_func_exit checks R0 ("At callback return the register R0 ...":
// a scalar whose tnum lies in [0, 1]); and, as check_reference_leak, no
// reference acquired in the callback may outlive it: it runs again, and
// the caller's code never sees what it holds.
bool check_callback_exit(Engine& e, const State& s, uint32_t pc) {
  if (!check_init(e, s, 0, pc)) return false;
  const RegState& r0 = s.top().regs[0];
  Detail d;
  d.kind = static_cast<uint8_t>(r0.kind);
  d.min = r0.value.smin;
  d.max = r0.value.smax;
  d.allowed_min = 0;
  d.allowed_max = 1;
  if (r0.kind != RegKind::scalar || r0.value.umax > 1 || (r0.value.bits.value | r0.value.bits.mask) > 1) {
    return e.fail(pc, Reason::bad_return_value, 0, d);
  }
  const State* entry = e.callback_entry;
  if (entry == nullptr) return true;
  for (uint32_t i = 0; i < s.ref_count; ++i) {
    if (!entry->holds(s.refs[i])) return check_reference_leak(e, s, pc);
  }
  if (s.refs_lost > entry->refs_lost) return check_reference_leak(e, s, pc);
  return true;
}

}  // namespace

bool do_exit(Fixpoint& fx, State& s, uint32_t pc) {
  Engine& e = fx.e;
  if (s.frame_count > 1) {
    if (e.insns[s.top().call_pc].op == Op::call_helper && !check_callback_exit(e, s, pc)) return false;
    if (fx.exit_state == nullptr) {
      fx.exit_state = e.pool.copy(s);
      return fx.exit_state != nullptr || e.oom(pc);
    }
    return join_into(e.pool, fx.exit_state, s, false, e.maps) || e.oom(pc);
  }
  if (!check_reference_leak(e, s, pc)) return false;
  if (!check_init(e, s, 0, pc)) return false;
  const RegState& r0 = s.regs()[0];
  const bool ranged = e.type.return_min != INT64_MIN || e.type.return_max != INT64_MAX;
  Detail d;
  d.kind = static_cast<uint8_t>(r0.kind);
  d.allowed_min = e.type.return_min;
  d.allowed_max = e.type.return_max;
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
bool do_call(Fixpoint& fx, State*& s, uint32_t pc, bool& returns) {
  Engine& e = fx.e;
  returns = true;
  if (!e.options.privileged) return e.fail(pc, Reason::unprivileged_call);
  const Cfg& cfg = e.cfg;
  const uint32_t low = lower_bound_index(cfg.call_count, pc, [&](uint32_t i) { return cfg.calls[i].pc; });
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
  clear_stack(frame);
  frame.function = callee;
  frame.call_pc = pc;
  State* ret = nullptr;
  if (!analyze_function(e, fx.facts, fx.plan, callee, c, ret)) return false;
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
  back->copy_refs(*ret);  // references live across frames (Linux copies them back on return)
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

namespace {

// The function whose address (entry pc `entry`) a lddw code_addr of
// function `fn` takes, or Cfg::kNone: a callback must be one taken in the
// function that passes it, which is what the cost bound assumes
// (loop_bounds.cc, block_cost).
uint32_t callback_of(const Engine& e, uint32_t fn, uint32_t entry) {
  for (const Cfg::CallSite& call : e.cfg.function_calls(fn)) {
    if (e.insns[call.pc].op == Op::lddw_code_addr && e.cfg.functions[call.callee].entry == entry) return call.callee;
  }
  return Cfg::kNone;
}

// Maps whose elements bpf_for_each_map_elem visits (Linux 6.1: those whose
// map_ops set map_set_for_each_callback_args; "callback function not
// allowed for map" otherwise).
bool iterable_map(MapType type) {
  return type == MapType::array || type == MapType::percpu_array || type == MapType::hash ||
         type == MapType::percpu_hash || type == MapType::lru_hash || type == MapType::lru_percpu_hash;
}

}  // namespace

// bpf_loop and bpf_for_each_map_elem (Linux 6.1 check_helper_call ->
// __check_func_call with a callback: set_loop_callback_state,
// set_map_elem_callback_state). The callback is analysed as a frame on top
// of the caller's with r1-r5 set as the helper passes them. It may run any
// number of times, and a run changes the caller's state (its stack through
// the ctx pointer, packet pointers a helper makes stale): so, unlike Linux
// 6.1, which analyses it once, keel analyses it until the caller's state
// after a run adds nothing to the one before (joined, widened from the
// third run): each run starts from every state an earlier one can leave,
// and the caller goes on from all of them (zero runs included). The helper
// returns an integer (the runs, or -errno).
bool do_callback(Fixpoint& fx, State*& s, const Insn& insn, uint32_t pc) {
  Engine& e = fx.e;
  const int32_t id = static_cast<int32_t>(insn.imm);
  const HelperSlot* slot = find_helper(e.type, id);
  if (slot == nullptr || slot->proto == nullptr ||
      (slot->gate == HelperGate::privileged && !e.options.privileged) || slot->proto->args[1] != ArgKind::func) {
    return step_helper(e, s, insn, pc);  // names the refusal (or another platform's helper of that id)
  }
  for (uint32_t reg = 1; reg <= 4; ++reg) {
    if (!check_init(e, *s, reg, pc)) return false;
  }
  const RegState* regs = s->regs();
  auto bad = [&](uint32_t reg, Reason reason = Reason::helper_argument) {
    Detail d;
    d.kind = static_cast<uint8_t>(regs[reg].kind);
    d.min = regs[reg].value.smin;
    d.max = regs[reg].value.smax;
    return e.fail(pc, reason, static_cast<int32_t>(reg), d);
  };
  uint64_t runs = uint64_t{1} << 23;  // BPF_MAX_LOOPS: bpf_loop refuses more (-E2BIG)
  uint32_t map = 0;
  if (id == kHelperLoop) {
    // nr_loops, ARG_ANYTHING (a u32).
    if (regs[1].kind != RegKind::scalar && !e.options.privileged) return bad(1, Reason::pointer_leak);
    if (regs[1].kind == RegKind::scalar && regs[1].value.umax < runs) runs = regs[1].value.umax;
  } else {
    if (regs[1].kind != RegKind::map_ptr) return bad(1);
    map = regs[1].region;
    if (!iterable_map(e.options.maps[map].type)) return bad(1);
    runs = e.options.maps[map].max_entries;
  }
  // The loop-bound pass charges the callback this many runs at this site.
  if (CallbackSite* site = find_callback_site(fx.facts, pc); site != nullptr && runs > site->runs) {
    site->runs = runs;
  }
  // ARG_PTR_TO_FUNC: the address of a function, as lddw code_addr gives it.
  if (regs[2].kind != RegKind::func || regs[2].off != 0) return bad(2);
  const uint32_t callee = callback_of(e, s->top().function, regs[2].region);
  if (callee == Cfg::kNone) return bad(2, Reason::unsupported_helper);
  // ARG_PTR_TO_STACK_OR_NULL: the callback's ctx.
  if (regs[3].kind != RegKind::stack && !regs[3].is_null()) return bad(3);
  // flags: both helpers return -EINVAL for any but 0 without calling back;
  // keel asks for the constant 0 (Linux 6.1 leaves it to run time).
  if (!regs[4].is_null()) return bad(4);
  if (s->frame_count >= kMaxCallDepth) return e.fail(pc, Reason::call_depth);

  State* caller = e.pool.copy(*s);  // the caller's state before some run of the callback
  if (caller == nullptr) return e.oom(pc);
  const State* saved_entry = e.callback_entry;
  // Widening settles the bounds at once, a tnum one bit a round: a 64-bit
  // value needs up to 64 rounds (as a loop header needs visits).
  constexpr uint32_t kMaxRounds = 256;
  for (uint32_t round = 0;; ++round) {
    if (round == kMaxRounds) {
      e.pool.release(caller);
      return e.fail(pc, Reason::too_complex);
    }
    State* c = e.pool.copy(*caller, 2, 1);
    if (c == nullptr) {
      e.pool.release(caller);
      return e.oom(pc);
    }
    const uint32_t caller_frame = c->frame_count - 2u;
    const RegState* from = c->frames()[caller_frame].regs;
    Frame& frame = c->frames()[c->frame_count - 1];
    for (RegState& r : frame.regs) r = make_uninit();
    if (id == kHelperLoop) {
      // The index, below nr_loops (Linux 6.1 leaves it unknown).
      frame.regs[1] = make_scalar(Scalar::from_urange(0, runs == 0 ? 0 : runs - 1));
      frame.regs[2] = from[3];
    } else {
      frame.regs[1] = make_pointer(RegKind::map_ptr, map);
      // PTR_TO_MAP_KEY is read-only memory keel has no kind for: the key
      // may be passed on but not read (a false reject, never a write).
      frame.regs[2].kind = RegKind::mixed;
      frame.regs[3] = make_pointer(RegKind::map_value, map);
      frame.regs[4] = from[3];
    }
    frame.regs[10] = make_pointer(RegKind::stack);
    frame.regs[10].frame = static_cast<uint8_t>(c->frame_count - 1);
    clear_stack(frame);
    frame.function = callee;
    frame.call_pc = pc;
    e.callback_entry = caller;
    State* ret = nullptr;
    const bool ok = analyze_function(e, fx.facts, fx.plan, callee, c, ret);
    e.callback_entry = saved_entry;
    if (!ok) {
      e.pool.release(caller);
      return false;
    }
    if (ret == nullptr) break;  // no run returns: only zero runs do
    const uint32_t top = ret->frame_count - 1u;
    State* back = e.pool.allocate(top, ret->spill_count + 2u);
    if (back == nullptr) {
      e.pool.release(ret);
      e.pool.release(caller);
      return e.oom(pc);
    }
    std::memcpy(back->frames(), ret->frames(), top * sizeof(Frame));
    back->copy_refs(*ret);
    for (uint32_t i = 0; i < ret->spill_count; ++i) {
      if (ret->spills()[i].frame < top) back->spills()[back->spill_count++] = ret->spills()[i];
    }
    e.pool.release(ret);
    const bool done = state_leq(*back, *caller, e.maps);
    const bool joined = done || join_into(e.pool, caller, *back, round >= 2, e.maps);
    e.pool.release(back);
    if (!joined) {
      e.pool.release(caller);
      return e.oom(pc);
    }
    if (done) break;
  }
  RegState* out = caller->regs();
  for (uint32_t reg = 1; reg <= 5; ++reg) out[reg] = make_uninit();
  out[0] = make_scalar(Scalar::unknown());
  e.pool.release(s);
  s = caller;
  return true;
}

// describe_state(): the join of every state entering trace_pc. States of

}  // namespace keel
