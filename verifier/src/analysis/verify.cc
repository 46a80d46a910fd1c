// Stage "verify": decode() has run; build the CFG, analyze, check
// the combined stack depth, bound the loops. Maps every stage's error onto
// a Reason.
#include "keel/verify.h"

#include <cstring>

#include "analysis/analyze.h"
#include "analysis/loop_bounds.h"
#include "support/carve.h"

namespace keel {

namespace {

Reason from_cfg(CfgError error) {
  switch (error) {
    case CfgError::ok: return Reason::ok;
    case CfgError::out_of_memory: return Reason::out_of_memory;
    case CfgError::unreachable: return Reason::unreachable_code;
    case CfgError::irreducible_loop: return Reason::irreducible_loop;
    case CfgError::recursion: return Reason::recursion;
    case CfgError::too_deep_calls: return Reason::call_depth;
    case CfgError::invalid_program: return Reason::too_complex;  // never after decode()
  }
  return Reason::too_complex;
}

// The program may be safe, but its worst case is past a limit or not a
// bound at all (a saturated count), so verify() cannot promise one: it is
// too_complex, with the limit and the cost in the detail (verify.h).
void too_costly(Verdict& v, uint32_t pc, uint64_t cost, uint64_t limit, bool loop) {
  v.reason = Reason::too_complex;
  v.pc = pc;
  v.max_insns_executed = 0;
  v.detail.kind = loop ? kTooComplexLoopInsns : kTooComplexInsns;
  v.detail.min = limit > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(limit);
  v.detail.max = cost > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(cost);
}

// The hardening an accepted unprivileged program needs, written to `out`
// when the caller gave one; returns the slots that need any.
uint32_t export_guards(const GuardState* guards, uint32_t count, SpecGuard* out) {
  uint32_t needed = 0;
  for (uint32_t pc = 0; pc < count; ++pc) {
    const GuardState& g = guards[pc];
    if (g.flags != 0) ++needed;
    if (out == nullptr) continue;
    out[pc] = SpecGuard{};
    if (g.flags == 0) continue;
    out[pc].flags = g.flags;
    if ((g.flags & (kGuardMaskSrc | kGuardMaskDst)) != 0) {
      out[pc].min = g.mask_min;
      out[pc].max = g.mask_max;
      out[pc].target = g.common_min;
    }
  }
  return needed;
}

// Linux 6.1 check_max_stack_depth: along every call chain the frames'
// depths, each rounded up to 32 bytes (at least 32), sum to at most 512.
uint32_t chain_depth(const Cfg& cfg, const uint32_t* use, uint32_t* total) {
  for (uint32_t f = 0; f < cfg.function_count; ++f) total[f] = 0;
  // Callees before callers: relax until stable (the call graph is a DAG of
  // depth <= kMaxCallDepth, so kMaxCallDepth + 1 rounds suffice; one
  // without calls).
  const uint32_t rounds = cfg.call_count == 0 ? 1 : kMaxCallDepth + 1;
  for (uint32_t round = 0; round < rounds; ++round) {
    for (uint32_t f = 0; f < cfg.function_count; ++f) {
      uint32_t deepest = 0;
      for (const Cfg::CallSite& call : cfg.function_calls(f)) {
        if (total[call.callee] > deepest) deepest = total[call.callee];
      }
      const uint32_t own = use[f] == 0 ? 32 : (use[f] + 31) / 32 * 32;
      total[f] = own + deepest;
    }
  }
  return total[0];
}

}  // namespace

namespace {

// verify() and describe_state(): the whole pipeline; with `trace` set, the
// states entering trace->pc are rendered into trace's buffer at the end.
struct Trace {
  uint32_t pc;
  char* buffer;
  size_t size;
  size_t needed;
};

[[nodiscard]] Verdict verify_pipeline(const Program& program, const ProgramType& type,
                                      const VerifyOptions& options, Arena& arena, Trace* trace) {
  Verdict verdict;
  Cfg cfg;
  CfgOptions cfg_options;
  cfg_options.reject_unreachable = options.reject_unreachable;
  const CfgResult built = build_cfg(program, cfg_options, arena, cfg);
  if (!built.ok()) {
    verdict.reason = from_cfg(built.error);
    verdict.pc = built.pc;
    return verdict;
  }
  StatePool pool(arena);
  uint32_t* stack_use = nullptr;
  uint32_t* totals = nullptr;
  (void)carve(arena, [&](Carve& c) {  // both stay nullptr when the arena is full
    c.take(stack_use, cfg.function_count + size_t{1});
    c.take(totals, cfg.function_count + size_t{1});
  });
  // The loop story's data (loop_facts.h): laid out for this CFG here,
  // filled by the fixpoint, read by bound_loops.
  LoopFacts loop_facts;
  if (stack_use == nullptr || totals == nullptr || !build_loop_facts(cfg, arena, loop_facts)) {
    verdict.reason = Reason::out_of_memory;
    return verdict;
  }
  Engine e{.insns = program.insns,
           .insn_count = program.count,
           .type = type,
           .options = options,
           .cfg = cfg,
           .pool = pool,
           .maps = MapTable{options.maps, options.map_count, options.privileged},
           .stack_use = stack_use};
  e.speculative = options.speculative_paths || !options.privileged;
  if (!options.privileged) {
    // The hardening of every slot (ADR 0015): 56 bytes per slot, unprivileged programs only.
    e.guards = arena.allocate<GuardState>(program.count);
    if (e.guards == nullptr) {
      verdict.reason = Reason::out_of_memory;
      return verdict;
    }
    std::memset(e.guards, 0, sizeof(GuardState) * program.count);
  }
  if (cfg.lddw_count != 0 && !check_map_references(e)) return e.verdict;  // only lddw names maps
  State* entry = pool.allocate(1, 4);
  if (entry == nullptr) {
    verdict.reason = Reason::out_of_memory;
    return verdict;
  }
  Frame& frame = entry->frames()[0];
  // One memset for the whole frame: uninit registers and stack tags are all
  // zero bytes (11 register stores of 88 bytes each cost more).
  static_assert(kTagUninit == 0 && static_cast<uint8_t>(RegKind::uninit) == 0);
  std::memset(&frame, 0, sizeof(frame));
  frame.function = 0;
  frame.call_pc = 0;
  frame.stack_low = kStackSize;  // the stack is all kTagUninit (state.h's watermark)
  frame.regs[1] = make_pointer(RegKind::ctx);
  frame.regs[10] = make_pointer(RegKind::stack);
  if (type.r2_is_ctx_size) frame.regs[2] = make_scalar(Scalar::constant(type.ctx_size));
  if (trace != nullptr) e.trace_pc = trace->pc;
  const bool analysed = analyze(e, loop_facts, entry);
  if (trace != nullptr) trace->needed = render_state(e.trace, trace->buffer, trace->size);
  if (!analysed) return e.verdict;
  if (e.ids_exhausted) {
    e.fail(0, Reason::too_complex);
    return e.verdict;
  }
  if (e.guards != nullptr) verdict.spec_guards = export_guards(e.guards, program.count, options.spec_guards);
  verdict.stack_depth = chain_depth(cfg, stack_use, totals);
  if (verdict.stack_depth > kStackSize) {
    verdict.reason = Reason::stack_out_of_bounds;
    verdict.detail.limit = kStackSize;
    verdict.detail.max = verdict.stack_depth;
    return verdict;
  }
  if (cfg.block_count == 1 && cfg.loop_count == 0 && cfg.call_count == 0) {
    // One block ending in exit, run once: every slot but a lddw's second
    // is an instruction (what bound_loops would find, without its setup).
    verdict.max_insns_executed = uint64_t{program.count} - cfg.lddw_count;
    if (verdict.max_insns_executed > options.max_insns_bound) {
      too_costly(verdict, program.count - 1, verdict.max_insns_executed, options.max_insns_bound, false);
    }
    return verdict;
  }
  LoopBoundOptions bound_options;
  bound_options.max_loop_insns = options.max_loop_insns;
  bound_options.max_insns = options.max_insns_bound;
  bound_options.map_callback_runs = 0;
  for (uint32_t m = 0; m < options.map_count; ++m) {
    if (options.maps[m].max_entries > bound_options.map_callback_runs) {
      bound_options.map_callback_runs = options.maps[m].max_entries;
    }
  }
  const LoopBoundResult bounds = bound_loops(cfg, loop_facts, bound_options, arena);
  if (bounds.error == LoopBoundError::too_costly) {
    too_costly(verdict, bounds.pc, bounds.max_insns_executed, bounds.limit, bounds.loop_limit);
    return verdict;
  }
  if (!bounds.ok()) {
    verdict.reason = bounds.error == LoopBoundError::out_of_memory ? Reason::out_of_memory
                                                                   : Reason::unbounded_loop;
    verdict.pc = bounds.pc;
    verdict.detail.limit = bounds.pc;
    return verdict;
  }
  verdict.max_insns_executed = bounds.max_insns_executed;
  return verdict;
}

}  // namespace

Verdict verify(const Program& program, const ProgramType& type, const VerifyOptions& options,
               Arena& arena) {
  return verify_pipeline(program, type, options, arena, nullptr);
}

size_t describe_state(const Program& program, const ProgramType& type, const VerifyOptions& options,
                      Arena& arena, uint32_t pc, char* buffer, size_t size) {
  Trace trace{pc, buffer, size, 0};
  const Verdict v = verify_pipeline(program, type, options, arena, &trace);
  if (trace.needed == 0 && v.reason != Reason::ok && v.pc != pc) {
    // Stopped before reaching pc (or failed before the analysis ran).
    return render_state(nullptr, buffer, size);
  }
  return trace.needed;
}

}  // namespace keel
