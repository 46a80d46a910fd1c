// Derived induction variables (loop_clamp.h): finding a loop's stepped
// registers and counter test, and clamping them at its header.
#include "analysis/loop_clamp.h"

#include "isa/ops.h"

namespace keel {

namespace {

// The StayRel of a 64-bit compare with the immediate whose taken edge
// stays in the loop (`taken_stays`) or leaves it; false for other forms.
bool imm64_stay_relation(Op op, bool taken_stays, StayRel& rel, bool& is_signed) {
  JmpOp jmp;
  Width width;
  return jmp_of(op, jmp, width) && width == Width::w64 && !jump_uses_src(op) &&
         stay_relation(jmp, taken_stays, rel, is_signed);
}

}  // namespace

void find_clamp(const Cfg& cfg, const Insn* insns, uint32_t l, LoopClamp& c) {
  c = LoopClamp{};
  const Cfg::Loop& loop = cfg.loops[l];
  if (loop.subtree_end != l + 1) return;  // a nested loop runs its blocks many times per iteration
  // The nearest common dominator of the back-edge sources: a block runs on
  // every iteration that goes around when it dominates that one. It only
  // climbs the dominator tree, so this is O(back edges + loop depth).
  uint32_t latches = Cfg::kNone;
  for (uint32_t e : cfg.loop_back_edges(l)) {
    const uint32_t from = cfg.edges[e].from;
    if (latches == Cfg::kNone) {
      latches = from;
      continue;
    }
    while (latches != Cfg::kNone && !cfg.dominates(latches, from)) latches = cfg.blocks[latches].idom;
  }
  if (latches == Cfg::kNone) return;
  const auto on_every_iteration = [&](uint32_t b) { return cfg.dominates(b, latches); };
  uint16_t written = 0, twice = 0, stepped = 0;
  uint32_t step_block[kRegisterCount] = {};
  for (uint32_t b : cfg.loop_body(l)) {
    for (uint32_t pc = cfg.blocks[b].first; pc <= cfg.blocks[b].last; ++pc) {
      const Insn& insn = insns[pc];
      const uint16_t w = written_regs(insn);
      twice = static_cast<uint16_t>(twice | (written & w));
      written = static_cast<uint16_t>(written | w);
      if ((insn.op == Op::add64_imm || insn.op == Op::sub64_imm) && on_every_iteration(b)) {
        stepped = static_cast<uint16_t>(stepped | 1u << insn.dst);
        c.step[insn.dst] = insn.op == Op::add64_imm ? int64_t{insn.imm} : -int64_t{insn.imm};
        step_block[insn.dst] = b;
      }
    }
  }
  c.mask = static_cast<uint16_t>(stepped & ~twice);
  for (uint32_t t : cfg.loop_body(l)) {
    const Insn& jump = insns[cfg.blocks[t].last];
    const uint8_t r = jump.dst;
    if (!is_conditional_jump(jump.op) || (c.mask & 1u << r) == 0 || c.step[r] == 0 || !on_every_iteration(t)) continue;
    const Cfg::Span<Cfg::Edge> out = cfg.successors(t);
    if (out.size != 2) continue;
    const bool taken_stays = cfg.in_loop(out[1].to, l);
    if (taken_stays == cfg.in_loop(out[0].to, l)) continue;  // not an exit test
    if (!imm64_stay_relation(jump.op, taken_stays, c.stay, c.is_signed)) continue;
    const uint32_t a = step_block[r];
    if (a == t || (cfg.dominates(a, t))) {
      c.test_off = c.step[r];  // the step runs before the test (a jump writes nothing, so it ends the block)
    } else if (cfg.dominates(t, a)) {
      c.test_off = 0;
    } else {
      continue;
    }
    c.counter = r;
    c.bound = int64_t{jump.imm};  // a 64-bit compare with the sign-extended immediate
    c.usable = true;
    return;
  }
}

bool note_entry(LoopClamp& c, const RegState* regs) {
  bool grew = false;
  for (uint32_t r = 0; r < kRegisterCount; ++r) {
    if ((c.mask & 1u << r) == 0) continue;
    const RegState& x = regs[r];
    EntryRange n;
    n.kind = x.kind;
    n.frame = x.frame;
    n.region = x.region;
    const bool pointer = x.kind == RegKind::stack || x.kind == RegKind::map_value || x.kind == RegKind::mem;
    n.valid = (x.kind == RegKind::scalar || pointer) && !__builtin_add_overflow(x.value.smin, int64_t{pointer ? x.off : 0}, &n.lo) &&
              !__builtin_add_overflow(x.value.smax, int64_t{pointer ? x.off : 0}, &n.hi);
    EntryRange& o = c.entry[r];
    if (c.entered) {
      if (!o.valid) continue;
      if (!n.valid || n.kind != o.kind || n.frame != o.frame || n.region != o.region) {
        o.valid = false;
        grew = true;
        continue;
      }
      if (n.lo < o.lo) o.lo = n.lo, grew = true;
      if (n.hi > o.hi) o.hi = n.hi, grew = true;
    } else {
      o = n;
    }
  }
  const RegState& i = regs[c.counter];
  if (!c.entered) {
    c.counter_valid = i.kind == RegKind::scalar;
    c.counter_entry = i.value;
  } else if (c.counter_valid) {
    if (i.kind != RegKind::scalar) {
      c.counter_valid = false;
      grew = true;
    } else if (!leq(i.value, c.counter_entry)) {
      c.counter_entry = join(c.counter_entry, i.value);
      grew = true;
    }
  }
  c.entered = true;
  return grew;
}

void apply_clamp(const LoopClamp& c, RegState* regs) {
  if (!c.entered || !c.counter_valid) return;
  TripTest t;
  t.stay = c.stay;
  t.is_signed = c.is_signed;
  t.initial = c.counter_entry;
  t.bound = Scalar::constant(static_cast<uint64_t>(c.bound));
  t.step_min = t.step_max = c.step[c.counter];
  t.test_min = t.test_max = c.test_off;
  uint64_t trips = 0;
  if (!trip_bound(t, trips) || trips == 0 || trips > uint64_t{INT64_MAX}) return;
  for (uint32_t r = 0; r < kRegisterCount; ++r) {
    const EntryRange& in = c.entry[r];
    if ((c.mask & 1u << r) == 0 || !in.valid) continue;
    int64_t span = 0, lo = 0, hi = 0;
    if (__builtin_mul_overflow(c.step[r], static_cast<int64_t>(trips - 1), &span)) continue;
    if (__builtin_add_overflow(in.lo, span < 0 ? span : 0, &lo) || __builtin_add_overflow(in.hi, span > 0 ? span : 0, &hi)) continue;
    RegState& x = regs[r];
    if (x.kind != in.kind || (x.kind != RegKind::scalar && (x.frame != in.frame || x.region != in.region))) continue;
    const int64_t off = x.kind == RegKind::scalar ? 0 : int64_t{x.off};
    if (__builtin_sub_overflow(lo, off, &lo) || __builtin_sub_overflow(hi, off, &hi)) continue;
    Scalar v = x.value;
    Scalar a = Scalar::constant(static_cast<uint64_t>(lo));
    Scalar b = Scalar::constant(static_cast<uint64_t>(hi));
    // Empty means the state cannot reach the header; keeping it is sound.
    if (refine(JmpOp::jsge, Width::w64, true, v, a) && refine(JmpOp::jsle, Width::w64, true, v, b)) x.value = v;
  }
}

void find_loop_clamps(Engine& e, uint32_t fn, bool has_loops, LoopClamps& out) {
  const Cfg& cfg = e.cfg;
  const Cfg::Function& f = cfg.functions[fn];
  const uint32_t n = f.block_count;
  // A loop-free function (most are) pays for no probe: a LoopClamp is
  // several hundred bytes to clear.
  if (!has_loops || e.speculative) return;
  uint32_t clamp_count = 0;
  LoopClamp probe;
  for (uint32_t b = f.first_block; b < f.first_block + n; ++b) {
    if (!is_header(cfg, b)) continue;
    find_clamp(cfg, e.insns, cfg.blocks[b].loop, probe);
    if (probe.usable) ++clamp_count;
  }
  if (clamp_count != 0) {
    const size_t bytes = sizeof(uint32_t) * size_t{cfg.loop_count} + sizeof(LoopClamp) * size_t{clamp_count};
    void* memory = e.pool.allocate_raw(bytes);
    if (memory != nullptr) {
      out.bytes = bytes;
      out.clamps = static_cast<LoopClamp*>(memory);  // first: it needs 8-byte alignment
      out.clamp_of = reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(memory) + sizeof(LoopClamp) * size_t{clamp_count});
      uint32_t next = 0;
      for (uint32_t b = f.first_block; b < f.first_block + n; ++b) {
        if (!is_header(cfg, b)) continue;
        const uint32_t l = cfg.blocks[b].loop;
        // Through the probe: a header without a usable clamp after the
        // last usable one would otherwise write one past the array.
        find_clamp(cfg, e.insns, l, probe);
        out.clamp_of[l] = probe.usable ? next : Cfg::kNone;
        if (probe.usable) out.clamps[next++] = probe;
      }
    }
  }
}

void release_loop_clamps(StatePool& pool, LoopClamps& clamps) { pool.release_raw(clamps.clamps, clamps.bytes); }

}  // namespace keel
