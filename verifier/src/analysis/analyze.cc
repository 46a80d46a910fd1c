// The fixpoint. Blocks are visited lowest reverse-post-order position
// first, so a loop-free function is one pass; block-entry states of blocks
// that can never be revisited are recycled right after their visit, which
// keeps the live state count small (design.md, "Cost bound").
#include "analysis/analyze.h"

#include <cstring>

#include "analysis/constants.h"
#include "analysis/loop_trip.h"
#include "analysis/step_log.h"
#include "support/search.h"

namespace keel {
namespace {

// ---- Derived induction variables ------------------------------------------------
//
// Widening at a loop header sends every growing bound to its extreme, so a
// register stepped beside the counter (clang's `p += 4` next to `i += 1`,
// `i < 16` tested) loses its bound: the exit test bounds only the counter.
// For a loop with no nested loop, a register whose only write in the loop is
// `r += c` (or `r -= c`) in a block that dominates every back-edge source
// changes by exactly c from one header run to the next. When an exit test in
// a block that also dominates every back-edge source compares such a counter
// with an immediate, loop_trip's trip_bound gives N >= the header runs per
// entry (the arithmetic the termination proof uses, from the counter's entry
// values). So at the k-th header run (k <= N) every such register holds its
// entry value + (k - 1) * c, exactly (mod 2^64): it lies in
// [entry min, entry max] + c * [0, N - 1] whenever that sum does not wrap.
// That is a fact about every run, so meeting the header state with it (on
// each merge into the header, after the join and the widening) loses no
// concrete state. The entry values are joined from the merges that enter the
// header from outside the loop; when they grow the body runs again, so the
// fixpoint's last back-edge merges use the final ones. Not under
// speculative_paths: a mispredicted exit test runs one more iteration.
struct EntryRange {
  RegKind kind = RegKind::uninit;
  uint8_t frame = 0;
  bool valid = false;
  uint32_t region = 0;
  int64_t lo = 0, hi = 0;  // scalars: the value; pointers: fixed + variable offset
};
struct LoopClamp {
  uint16_t mask = 0;  // registers stepped by step[r] on every path around the loop, written nowhere else in it
  uint8_t counter = 0;
  bool usable = false;  // a counter and its exit test were found
  bool entered = false;  // some entry from outside has been seen
  bool counter_valid = false;
  bool is_signed = false;
  StayRel stay = StayRel::lt;
  int64_t bound = 0;
  int64_t test_off = 0;
  int64_t step[kRegisterCount] = {};
  Scalar counter_entry;
  EntryRange entry[kRegisterCount];
};

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
  uint32_t* clamp_of = nullptr;  // [cfg.loop_count]: index in clamps of this function's loops, kNone for none
  LoopClamp* clamps = nullptr;    // the loops with stepped registers and a counter test
  uint32_t cursor = 0;
  State* exit_state = nullptr;
};

bool run_function(Engine& e, LoopFactTable& table, uint32_t fn, State* entry_state, State*& exit_out);

bool is_header(const Cfg& cfg, uint32_t b) {
  const uint32_t l = cfg.blocks[b].loop;
  return l != Cfg::kNone && cfg.loops[l].header == b;
}

uint16_t written_by(const Insn& insn);
bool is_cond_jump(Op op);

// The StayRel of a 64-bit compare with the immediate whose taken edge
// stays in the loop (`taken_stays`) or leaves it; false for other forms.
bool imm64_stay_relation(Op op, bool taken_stays, StayRel& rel, bool& is_signed) {
  JmpOp jmp;
  Width width;
  return jmp_of(op, jmp, width) && width == Width::w64 && !jump_uses_src(op) &&
         stay_relation(jmp, taken_stays, rel, is_signed);
}

// The syntactic part of the derived induction variables (the section
// comment above Run): the stepped registers and a counter test of loop l.
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
      const uint16_t w = written_by(insn);
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
    if (!is_cond_jump(jump.op) || (c.mask & 1u << r) == 0 || c.step[r] == 0 || !on_every_iteration(t)) continue;
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

// Joins the entry values of `regs` (a header's incoming state from outside
// the loop) into c; true when they grew.
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

// Meets the stepped registers of `regs` (a header state) with their range
// over the proven header runs; nothing when no trip bound is proven.
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
// chosen by a flag) is unusable after the join, and so is one NULL on one
// path and not on the other that a test of another value, not of the
// pointer, proves non-NULL where it is used. So a block keeps up to
// kPartitions entry states, told apart by the constants they hold in the
// registers that a conditional jump at most kPartitionDistance blocks
// ahead depends on, and by the pointers that their join would make
// unusable (Engine::partition_flags); states that agree on them are joined
// as before, and each partition is visited on its own. Once the flag is
// tested or overwritten, the states agree again and join. Loop blocks, and
// the blocks whose exit facts the loop bounds read, keep one state. The
// cost is at most kPartitions visits per block visit (design.md, "Cost
// bound").
//
// Constants are compared only as far as kPartitionDistance: a flag tested
// much later would keep partitions of every value it took for long. A
// pointer of two kinds is compared wherever it is used ahead, however far
// (cilium keeps `state = lookup() ?: &tmp` across a hundred blocks before
// the copy that reads it), and also in a stack slot when a fill of that slot
// ahead feeds a load/store base or a call argument (cilium spills that
// pointer before the copy). Both cost little: states of one kind at a
// pointer agree, so they split only where the program really mixes kinds,
// and they join again once the pointer is dead. The slots are one 64-bit
// set per block (Engine::partition_slots), not a set of the three kinds per
// slot: only what a fill feeds ahead counts, and the key compares a slot
// only when one of the two states holds a pointer spill there. Telling NULL
// from non-NULL adds no state beyond kPartitions per block, and no pass:
// it is one more way two states at a block disagree (join_keeps_use).
constexpr uint32_t kPartitions = 8;
constexpr uint32_t kPartitionDistance = 4;
constexpr uint32_t kFlagBits = 10;  // r0-r9 per set in Engine::partition_flags
constexpr uint32_t kFlagMask = (1u << kFlagBits) - 1;
constexpr uint32_t kUncheckedShift = 3 * kFlagBits;  // Ahead::unchecked in Engine::partition_flags

// Unprivileged programs are not partitioned: Linux rejects one pointer
// arithmetic instruction run with different maps, offsets or scalars on
// different paths (update_alu_sanitation_state: "tried to add from
// different maps, paths or scalars"), which a join reproduces and
// partitions would hide.
bool partitioned(const Run& run, uint32_t b) {
  const Engine& e = run.e;
  return e.partition_flags != nullptr && e.options.privileged &&
         (e.partition_flags[b] != 0 || (e.partition_slots != nullptr && e.partition_slots[2 * size_t{b}] != 0)) &&
         e.cfg.blocks[b].loop == Cfg::kNone && (run.table.index == nullptr || run.table.index[b] == Cfg::kNone);
}

// Whether the join of x and y is as usable as each (a pointer on one path
// and something else on the other, or two maps that do not join, is not).
bool join_keeps_use(const RegState& x, const RegState& y, const MapTable& maps, bool unchecked) {
  // (Pointers that depend on different references do not join: state.cc.)
  if (x.kind == y.kind && x.region == y.region && x.frame == y.frame && x.ref == y.ref) return true;
  const RegState joined = join_reg(x, y, false, maps);
  if (joined.kind == RegKind::mixed || joined.kind == RegKind::uninit) return false;
  // A pointer that is NULL on one path and not on the other becomes
  // maybe-NULL, which no load, store or non-NULL argument takes: when the
  // program knows which path it is on from another value (cilium's
  // `info = lookup(); found = info && ...;` tested far ahead, lib/nodeport.h),
  // only separate partitions keep that knowledge. Both maybe-NULL already,
  // or a NULL test of the pointer itself ahead (not `unchecked`): the join
  // loses nothing.
  if (!unchecked) return true;
  const bool x_non_null = x.is_pointer() && !x.maybe_null();
  const bool y_non_null = y.is_pointer() && !y.maybe_null();
  return !joined.maybe_null() || (!x_non_null && !y_non_null);
}

// What a fill of `slot` of s's top frame gives, as join_into sees it: the
// spill, NULL for bytes known zero, else nothing a pointer joins with.
RegState slot_value(const State& s, uint32_t slot) {
  const Spill* spill = s.find_spill(s.frame_count - 1u, slot);
  if (spill != nullptr) return spill->reg;
  RegState none;
  none.kind = RegKind::mixed;
  const uint8_t* tags = s.top().tags + slot * 8;
  for (uint32_t i = 0; i < 8; ++i) {
    if (tags[i] != kTagZero) return none;
  }
  return make_scalar(Scalar::constant(0));
}

// What joining a and b loses at a block with partition flags `flags` and
// slot sets `slot_sets` (Engine::partition_slots: the pointer slots, then
// the unchecked ones); 0 when they belong to one partition. A pointer used
// ahead, in a register or in one of the slots, that the join makes unusable costs
// kLossPointer; a constant that differs (or is a constant on one side only)
// kLossHere in a register the block's own jump tests (`here`), kLossTested
// in one tested further ahead, kLossOffset in one only used as a base (an
// offset of 14 or 18 matters as much as a flag, but a join of two offsets
// may still pass the check that uses it). With `first`, any loss returns.
constexpr uint32_t kLossOffset = 1;
constexpr uint32_t kLossTested = 2;
constexpr uint32_t kLossHere = 4;
constexpr uint32_t kLossPointer = 8;
constexpr uint64_t kNoSlots[2] = {0, 0};  // a function without stack fills

uint32_t join_loss(const State& a, const State& b, uint64_t flags, const uint64_t* slot_sets, uint32_t here,
                   const MapTable& maps, bool first) {
  const uint32_t tested = flags & kFlagMask;
  const uint32_t exact = (flags | flags >> kFlagBits) & kFlagMask;
  const uint32_t usable = exact | ((flags >> (2 * kFlagBits)) & kFlagMask);
  const uint32_t unchecked = (flags >> kUncheckedShift) & kFlagMask;
  const RegState* x = a.top().regs;
  const RegState* y = b.top().regs;
  uint32_t loss = 0;
  for (uint32_t r = 0; r < kFlagBits; ++r) {
    if (((usable >> r) & 1u) == 0) continue;
    if (x[r].kind == RegKind::scalar && y[r].kind == RegKind::scalar) {
      if (((exact >> r) & 1u) == 0) continue;
      const bool cx = x[r].value.is_const();
      if (cx == y[r].value.is_const() && (!cx || x[r].value.bits.value == y[r].value.bits.value)) continue;
      loss += ((here >> r) & 1u) != 0 ? kLossHere : ((tested >> r) & 1u) != 0 ? kLossTested : kLossOffset;
    } else if (!join_keeps_use(x[r], y[r], maps, ((unchecked >> r) & 1u) != 0)) {
      loss += kLossPointer;
    }
    if (first && loss != 0) return loss;
  }
  uint64_t slots = slot_sets[0];
  if (slots == 0 || (a.spill_count == 0 && b.spill_count == 0)) return loss;
  const uint32_t top = a.frame_count - 1u;
  for (; slots != 0; slots &= slots - 1) {
    const uint32_t slot = static_cast<uint32_t>(__builtin_ctzll(slots));
    const Spill* sx = a.find_spill(top, slot);
    const Spill* sy = b.find_spill(top, slot);
    const bool px = sx != nullptr && sx->reg.kind != RegKind::scalar;
    const bool py = sy != nullptr && sy->reg.kind != RegKind::scalar;
    if ((px || py) &&
        !join_keeps_use(slot_value(a, slot), slot_value(b, slot), maps, ((slot_sets[1] >> slot) & 1u) != 0)) {
      loss += kLossPointer;
      if (first) return loss;
    }
  }
  return loss;
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
  if (run.group[local] == 0) {  // one entry state (most blocks): nothing else to look at
    run.e.pool.release(run.entry[local]);
    run.entry[local] = nullptr;
    return;
  }
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

uint16_t flags_before(const Insn& insn, uint16_t live);

// All partitions of `target` hold states and `incoming` belongs to none:
// joins the two of these kPartitions + 1 states whose join loses least
// (join_loss), rather than whatever comes last, so that two offsets are
// joined before a flag tested here and a flag before a pointer. Returns
// the partition `incoming` joins (a freed one when two others were joined),
// or kPartitions when the arena is exhausted. In loop-free code every merge
// into a block comes before its visit, so this costs no visit.
uint32_t make_room(Run& run, uint32_t target, const State& incoming, uint64_t flags, const uint64_t* slots) {
  const uint32_t local = target - run.base;
  const Cfg::Block& block = run.e.cfg.blocks[target];
  uint16_t here = 0;  // at the block's entry: what its own jump tests (a flag may be shifted first)
  for (uint32_t pc = block.last + 1; pc-- > block.first;) here = flags_before(run.e.insns[pc], here);
  uint32_t best = UINT32_MAX;
  uint32_t into = 0;
  uint32_t from = kPartitions;  // kPartitions: `incoming`
  for (uint32_t i = 0; i < kPartitions; ++i) {
    for (uint32_t j = i + 1; j <= kPartitions; ++j) {
      const State& other = j == kPartitions ? incoming : **slot_of(run, local, j);
      const uint32_t loss = join_loss(**slot_of(run, local, i), other, flags, slots, here, run.e.maps, false);
      if (loss < best) {
        best = loss;
        into = i;
        from = j;
      }
    }
  }
  if (from == kPartitions) return into;
  State** to = slot_of(run, local, into);
  State** gone = slot_of(run, local, from);
  if (!join_into(run.e.pool, *to, **gone, false, run.e.maps)) return kPartitions;
  run.e.pool.release(*gone);
  *gone = nullptr;
  run.dirty[local] = static_cast<uint8_t>((run.dirty[local] | 1u << into) & ~(1u << from));
  return from;
}

// The partition of `target` that `incoming` joins: the one it agrees
// with, else a free one, else make_room's; kPartitions when the arena is
// exhausted.
uint32_t partition_of(Run& run, uint32_t target, const State& incoming) {
  if (!partitioned(run, target)) return 0;
  const uint32_t local = target - run.base;
  const uint64_t flags = run.e.partition_flags[target];
  const uint64_t* slots = run.e.partition_slots != nullptr ? run.e.partition_slots + 2 * size_t{target} : kNoSlots;
  for (uint32_t p = 0; p < kPartitions; ++p) {
    State** slot = slot_of(run, local, p);
    if (slot == nullptr || *slot == nullptr || join_loss(**slot, incoming, flags, slots, 0, run.e.maps, true) == 0) {
      return p;
    }
  }
  return make_room(run, target, incoming, flags, slots);
}

// Joins `incoming` into the existing entry state `slot` (partition p) of
// `target`, widened at a loop header from its third visit.
bool join_at(Run& run, uint32_t target, State*& slot, uint32_t p, const State& incoming, uint32_t pc) {
  Engine& e = run.e;
  const uint32_t local = target - run.base;
  if (slot == nullptr) {
    slot = e.pool.copy(incoming);
    if (slot == nullptr) return e.oom(pc);
    run.dirty[local] = static_cast<uint8_t>(run.dirty[local] | (1u << p));
    set_pending(run, target);
    return true;
  }
  if (state_leq(incoming, *slot, e.maps)) return true;
  if (is_header(e.cfg, target) && run.visits[local] == 1 && run.dirty[local] == 0 &&
      e.cfg.in_loop(e.cfg.block_of(pc), e.cfg.blocks[target].loop)) {
    // The first back edge into a header whose one visit ran the entry state
    // through: that visit already sent the first run to its successors,
    // whose entry states only grow, so later runs start from the back
    // edges' states alone (the first iteration peeled, as Linux walks it
    // apart from the rest). A register the loop writes before its back edge
    // is then not joined with its value from before the loop (uninit, say)
    // on exits only a later run takes (loops1 "bounded loop that jumps out
    // rather than in"). Once per header per analysis of its function.
    State* later = e.pool.copy(incoming);
    if (later == nullptr) return e.oom(pc);
    e.pool.release(slot);
    slot = later;
    run.dirty[local] = static_cast<uint8_t>(run.dirty[local] | (1u << p));
    set_pending(run, target);
    return true;
  }
  // FIXME: design.md promises one narrowing pass after widening; not done
  // yet (precision only: the widened states are sound). Registers stepped
  // beside a counter are narrowed by their proven range (merge).
  const bool widen = is_header(e.cfg, target) && run.visits[local] >= 2;
  if (!join_into(e.pool, slot, incoming, widen, e.maps)) return e.oom(pc);
  run.dirty[local] = static_cast<uint8_t>(run.dirty[local] | (1u << p));
  set_pending(run, target);
  return true;
}

LoopClamp* header_clamp(Run& run, uint32_t target) {
  if (run.clamps == nullptr || !is_header(run.e.cfg, target)) return nullptr;
  const uint32_t index = run.clamp_of[run.e.cfg.blocks[target].loop];
  return index == Cfg::kNone ? nullptr : &run.clamps[index];
}

bool merge(Run& run, uint32_t target, const State& incoming, uint32_t pc) {
  Engine& e = run.e;
  const uint32_t local = target - run.base;
  const uint32_t p = partition_of(run, target, incoming);
  if (p == kPartitions) return e.oom(pc);
  State** at = slot_of(run, local, p);
  if (at == nullptr) {
    if (!add_group(run, local)) return e.oom(pc);
    at = slot_of(run, local, p);
  }
  State*& slot = *at;
  LoopClamp* clamp = header_clamp(run, target);
  if (clamp == nullptr) return join_at(run, target, slot, p, incoming, pc);
  // A loop header with stepped registers (the section comment above Run).
  LoopClamp& c = *clamp;
  const bool grew = !e.cfg.in_loop(e.cfg.block_of(pc), e.cfg.blocks[target].loop) && note_entry(c, incoming.top().regs);
  State* in = e.pool.copy(incoming);
  if (in == nullptr) return e.oom(pc);
  apply_clamp(c, in->top().regs);
  const bool ok = join_at(run, target, slot, p, *in, pc);
  e.pool.release(in);
  if (ok) apply_clamp(c, slot->top().regs);
  if (ok && grew) {  // the back edges' clamps must see the grown entry values
    run.dirty[local] = static_cast<uint8_t>(run.dirty[local] | (1u << p));
    set_pending(run, target);
  }
  return ok;
}

void record_facts(Run& run, uint32_t b, const State& s) {
  const uint32_t index = run.table.index == nullptr ? Cfg::kNone : run.table.index[b];
  if (index == Cfg::kNone) return;
  ExitFacts& f = run.local[index - run.table.fn_first[run.fn]];
  const RegState* regs = s.top().regs;
  if (f.seen != 0 && is_header(run.e.cfg, b)) {
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

bool do_exit(Run& run, State& s, uint32_t pc) {
  Engine& e = run.e;
  if (s.frame_count > 1) {
    if (e.insns[s.top().call_pc].op == Op::call_helper && !check_callback_exit(e, s, pc)) return false;
    if (run.exit_state == nullptr) {
      run.exit_state = e.pool.copy(s);
      return run.exit_state != nullptr || e.oom(pc);
    }
    return join_into(e.pool, run.exit_state, s, false, e.maps) || e.oom(pc);
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
bool do_callback(Run& run, State*& s, const Insn& insn, uint32_t pc) {
  Engine& e = run.e;
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
  if (CallbackSite* site = find_callback_site(run.table, pc); site != nullptr && runs > site->runs) {
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
    std::memset(frame.tags, kTagUninit, sizeof(frame.tags));
    frame.function = callee;
    frame.call_pc = pc;
    e.callback_entry = caller;
    State* ret = nullptr;
    const bool ok = run_function(e, run.table, callee, c, ret);
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
  ConstantRun constants(e.options.linux_rules, e.guards != nullptr);
  for (uint32_t pc = block.first; ok && pc <= block.last; ++pc) {
    const Insn& insn = e.insns[pc];
    if (insn.op == Op::lddw_tail) continue;
    if (pc == e.trace_pc || e.options.step_log != nullptr) {
      constants.flush(w->regs());
      if (pc == e.trace_pc && !capture(e, *w, pc)) {
        ok = false;
        break;
      }
      if (e.options.step_log != nullptr) log_step(*e.options.step_log, *w, pc);
    }
    // Constant ALU runs, most of straight-line code, up to the next pc to
    // capture at. No instruction that RFC 9669 has and Linux 6.1 lacks
    // folds (sdiv, smod and movsx do not), so the check below may come after.
    if (ConstantRun::may_fold(insn)) {
      uint32_t end = e.trace_pc > pc && e.trace_pc <= block.last ? e.trace_pc : block.last + 1;
      if (e.options.step_log != nullptr) end = pc + 1;  // the trace sees every instruction
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
      const Cfg::Span<Cfg::Edge> out = cfg.successors(b);
      for (uint32_t i = 0; i < out.size; ++i) {
        const Cfg::Edge& edge = out[i];
        if (!ok) break;
        if (edge.kind == Cfg::EdgeKind::jump) {
          ok = merge(run, edge.to, *w, pc);
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
        if (ok && feasible) ok = merge(run, edge.to, *branch, pc);
        // A branch ruled out still runs under misprediction (Spectre v1):
        // analyse it with the state before the comparison.
        if (ok && !feasible && e.speculative) ok = merge(run, edge.to, *w, pc);
        if (!in_place) e.pool.release(branch);
      }
      terminated = true;
      break;
    }
    if (calls_back(insn)) {
      ok = do_callback(run, w, insn, pc);
      continue;
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
  // The dirty partitions in ascending order, re-reading the bits after each
  // visit (run_block's merges may set them): the lowest dirty one at or
  // above p, found with one ctz rather than a test per partition.
  for (uint32_t p = 0; ok && p < kPartitions; ++p) {
    const uint32_t pending = run.dirty[local] & (0xffu << p);
    if (pending == 0) break;
    p = static_cast<uint32_t>(__builtin_ctz(pending));
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

// Facts seen on another path or call context: what both say.
void join_facts(ExitFacts& to, const ExitFacts& from) {
  if (from.seen == 0) return;
  if (to.seen == 0) {
    to = from;
    return;
  }
  to.valid &= from.valid;
  for (uint32_t r = 0; r < kRegisterCount; ++r) {
    if ((to.valid >> r) & 1u) to.regs[r] = join(to.regs[r], from.regs[r]);
  }
}

void commit_facts(Run& run) {
  LoopFactTable& t = run.table;
  if (t.index == nullptr) return;
  for (uint32_t i = 0; i < t.fn_count[run.fn]; ++i) join_facts(t.facts[t.fn_first[run.fn] + i], run.local[i]);
}

// The scalar registers a function is entered with, for a loop headed by its
// first block (loop_bounds.cc's initial value when entered from outside).
void record_entry_facts(LoopFactTable& t, uint32_t fn, const State& s) {
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

bool run_function(Engine& e, LoopFactTable& table, uint32_t fn, State* entry_state, State*& exit_out) {
  const Cfg& cfg = e.cfg;
  const Cfg::Function& f = cfg.functions[fn];
  record_entry_facts(table, fn, *entry_state);
  Run run{e, table, fn, f.first_block, f.rpo_begin};
  const uint32_t n = f.block_count;
  const uint32_t words = (f.rpo_count + 63) / 64;
  const uint32_t nf = table.index == nullptr ? 0 : table.fn_count[fn];
  const size_t bytes = sizeof(ExitFacts) * nf + sizeof(State*) * n + sizeof(uint64_t) * words +
                       sizeof(uint32_t) * n * 2 + n;
  // A function of a few blocks (most programs) keeps them on the stack:
  // a pool chunk would cost a take, a clear and a give-back, much of what
  // verifying a tiny program costs.
  alignas(8) uint8_t small[128];
  void* scratch = nullptr;
  if (bytes <= sizeof(small)) {
    __builtin_memset(small, 0, sizeof(small));
  } else {
    scratch = e.pool.allocate_raw(bytes);
    if (scratch == nullptr) {
      e.pool.release(entry_state);
      return e.oom(f.entry);
    }
  }
  static_assert(alignof(ExitFacts) <= 8 && alignof(State*) <= 8);
  uint8_t* cursor = scratch != nullptr ? static_cast<uint8_t*>(scratch) : small;
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
  // Precision only: without room the loops are analysed as before.
  size_t clamp_bytes = 0;
  uint32_t clamp_count = 0;
  LoopClamp probe;
  if (run.first_loop_pos != Cfg::kNone && !e.speculative) {
    for (uint32_t b = f.first_block; b < f.first_block + n; ++b) {
      if (!is_header(cfg, b)) continue;
      find_clamp(cfg, e.insns, cfg.blocks[b].loop, probe);
      if (probe.usable) ++clamp_count;
    }
  }
  if (clamp_count != 0) {
    clamp_bytes = sizeof(uint32_t) * size_t{cfg.loop_count} + sizeof(LoopClamp) * size_t{clamp_count};
    void* memory = e.pool.allocate_raw(clamp_bytes);
    if (memory == nullptr) {
      clamp_bytes = 0;
    } else {
      run.clamps = static_cast<LoopClamp*>(memory);  // first: it needs 8-byte alignment
      run.clamp_of = reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(memory) + sizeof(LoopClamp) * size_t{clamp_count});
      uint32_t next = 0;
      for (uint32_t b = f.first_block; b < f.first_block + n; ++b) {
        if (!is_header(cfg, b)) continue;
        const uint32_t l = cfg.blocks[b].loop;
        // Through the probe: a header without a usable clamp after the
        // last usable one would otherwise write one past the array.
        find_clamp(cfg, e.insns, l, probe);
        run.clamp_of[l] = probe.usable ? next : Cfg::kNone;
        if (probe.usable) run.clamps[next++] = probe;
      }
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
  e.pool.release_raw(run.clamps, clamp_bytes);
  e.pool.release_raw(scratch, bytes);  // nullptr (nothing) when on the stack
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

// Backward over an ALU instruction (op < jeq64_imm): the registers its
// result depends on replace it in `live`, so a flag shifted or copied before
// its test (`r1 = r4; r1 >>= 32; if r1 != 0`) still counts, and so do both
// parts of a base (`r4 = r2; r4 += r5; *(u16 *)(r4 + 2)` counts r2 and r5).
uint16_t alu_before(const Insn& insn, uint16_t live) {
  const Op op = insn.op;
  const auto bit = [](uint32_t r) { return static_cast<uint16_t>(1u << r); };
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

// Backward over one instruction: the registers whose values before it the
// test ahead depends on, given those after it (`live`).
uint16_t flags_before(const Insn& insn, uint16_t live) {
  const Op op = insn.op;
  if (is_cond_jump(op)) {
    const bool reg = (static_cast<uint32_t>(op) - static_cast<uint32_t>(Op::jeq64_imm)) % 2 == 1;
    return static_cast<uint16_t>(live | 1u << insn.dst | (reg ? 1u << insn.src : 0u));
  }
  if (op >= Op::jeq64_imm) return static_cast<uint16_t>(live & ~written_by(insn));
  return alu_before(insn, live);
}

// The 8-byte stack slot (tags index / 8) at r10 + offset, or kSlotCount.
uint32_t stack_slot(int32_t offset) {
  return offset < -static_cast<int32_t>(kStackSize) || offset >= 0
             ? kSlotCount
             : static_cast<uint32_t>(offset + static_cast<int32_t>(kStackSize)) / 8;
}

// The argument registers of a call: those of the helper's prototype (the
// others may hold anything), r1-r5 for other calls. `known` caches the
// helpers of ids below 256 (bit 0 set once looked up).
uint16_t call_arguments(const Engine& e, const Insn& insn, uint8_t* known) {
  if (insn.op != Op::call_helper) return 0x3e;
  const uint64_t id = static_cast<uint64_t>(insn.imm);
  if (id < 256 && known[id] != 0) return known[id] & 0x3e;
  uint16_t used = 0x3e;
  const HelperSlot* helper = find_helper(e.type, static_cast<int32_t>(insn.imm));
  if (helper != nullptr && helper->proto != nullptr) {
    used = 0;
    for (uint32_t i = 0; i < 5; ++i) {
      if (helper->proto->args[i] != ArgKind::none) used = static_cast<uint16_t>(used | 1u << (i + 1));
    }
  }
  if (id < 256) known[id] = static_cast<uint8_t>(used | 1u);
  return used;
}

// What compute_partition_flags carries backward from the blocks ahead:
// registers a conditional jump tests, registers a load or store uses as its
// base, registers used as pointers (bases and call arguments), and the
// stack slots whose fill is used as a pointer. `unchecked` and
// `unchecked_slots`, subsets of the last two, leave out what a NULL test
// (`if rN == 0`, 64-bit) of the register comes before the use: a pointer
// NULL on one path and not on another splits partitions only where no test
// of its own tells them apart (cilium re-tests `info` often; join_loss).
struct Ahead {
  uint16_t tested = 0;
  uint16_t bases = 0;
  uint16_t pointers = 0;
  uint16_t unchecked = 0;
  uint64_t slots = 0;
  uint64_t unchecked_slots = 0;
};

// Backward over one instruction. A fill of a pointer register adds its
// slot; a spill into a slot of the set adds the spilled register, and any
// store to the slot removes it. Only r10-based accesses are followed (a
// copy of r10 only partitions less).
void step_back(const Engine& e, const Insn& insn, Ahead& a, uint8_t* known) {
  const Op op = insn.op;
  const auto bit = [](uint32_t r) { return static_cast<uint16_t>(1u << r); };
  if (op < Op::jeq64_imm) {
    if (((a.tested | a.bases | a.pointers) & bit(insn.dst)) == 0) return;  // most of them
    a.tested = alu_before(insn, a.tested);
    a.bases = alu_before(insn, a.bases);
    a.pointers = alu_before(insn, a.pointers);
    a.unchecked = alu_before(insn, a.unchecked);
    return;
  }
  if (is_cond_jump(op)) {
    a.tested = flags_before(insn, a.tested);
    if ((op == Op::jeq64_imm || op == Op::jne64_imm) && insn.imm == 0) {
      a.unchecked &= static_cast<uint16_t>(~bit(insn.dst));  // a NULL test: both ways know
    }
    return;
  }
  if (op >= Op::ldxb && op <= Op::ldxsw) {
    if (op == Op::ldxdw && insn.src == 10 && (a.pointers & bit(insn.dst)) != 0 && insn.offset % 8 == 0) {
      const uint32_t slot = stack_slot(insn.offset);
      if (slot < kSlotCount) a.slots |= uint64_t{1} << slot;
      if (slot < kSlotCount && (a.unchecked & bit(insn.dst)) != 0) a.unchecked_slots |= uint64_t{1} << slot;
    }
    const uint16_t kept = static_cast<uint16_t>(~bit(insn.dst));
    a.tested &= kept;
    a.bases = static_cast<uint16_t>((a.bases & kept) | bit(insn.src));
    a.pointers = static_cast<uint16_t>((a.pointers & kept) | bit(insn.src));
    a.unchecked = static_cast<uint16_t>((a.unchecked & kept) | bit(insn.src));
    return;
  }
  if (op >= Op::stb && op <= Op::stxdw) {
    if (insn.dst == 10 && a.slots != 0) {
      const int32_t size = 1 << ((static_cast<uint32_t>(op) - static_cast<uint32_t>(Op::stb)) % 4);
      const uint32_t last = stack_slot(insn.offset + size - 1);
      for (uint32_t slot = stack_slot(insn.offset); slot <= last && slot < kSlotCount; ++slot) {
        if (((a.slots >> slot) & 1u) == 0) continue;
        a.slots &= ~(uint64_t{1} << slot);
        const bool unchecked = ((a.unchecked_slots >> slot) & 1u) != 0;
        a.unchecked_slots &= ~(uint64_t{1} << slot);
        if (op == Op::stxdw && insn.offset % 8 == 0) {
          a.pointers = static_cast<uint16_t>(a.pointers | bit(insn.src));
          if (unchecked) a.unchecked = static_cast<uint16_t>(a.unchecked | bit(insn.src));
        }
      }
    }
    a.bases = static_cast<uint16_t>(a.bases | bit(insn.dst));
    a.pointers = static_cast<uint16_t>(a.pointers | bit(insn.dst));
    a.unchecked = static_cast<uint16_t>(a.unchecked | bit(insn.dst));
    return;
  }
  const uint16_t kept = static_cast<uint16_t>(~written_by(insn));
  a.tested &= kept;
  a.bases &= kept;
  a.pointers &= kept;
  a.unchecked &= kept;
  if (op >= Op::atomic32_add && op <= Op::atomic64_cmpxchg) {
    a.bases = static_cast<uint16_t>(a.bases | bit(insn.dst));
    a.pointers = static_cast<uint16_t>(a.pointers | bit(insn.dst));
    a.unchecked = static_cast<uint16_t>(a.unchecked | bit(insn.dst));
  } else if (op == Op::call_helper || op == Op::call_local || op == Op::callx) {
    const uint16_t arguments = call_arguments(e, insn, known);
    a.pointers = static_cast<uint16_t>(a.pointers | arguments);
    a.unchecked = static_cast<uint16_t>(a.unchecked | arguments);
  }
}

// Engine::partition_flags: per block, three sets of r0-r9 (r10 is the frame
// pointer on every path), kFlagBits bits each: the registers whose values
// at its entry the conditional jump of it or of a block at most
// kPartitionDistance edges further depends on; those a load or store as
// far ahead uses as its base; those used as pointers (bases, call
// arguments) at any distance before they are overwritten. And, when
// `slots` is not null, Engine::partition_slots: the stack slots whose fill
// ahead is used as a pointer (step_back). Computed once: kPartitionDistance
// + 1 backward passes over the instructions, blocks in post-order so that
// the unbounded sets need one pass for loop-free code and one more per loop
// nesting level (a set cut short only partitions less). `next` has room for
// block_count entries. A fourth set (kUncheckedShift) and the second slot
// set of each block (slots[2b + 1]) are Ahead's unchecked ones.
void compute_partition_flags(const Engine& e, uint64_t* flags, uint64_t* next, uint64_t* slots) {
  const Cfg& cfg = e.cfg;
  const uint32_t n = cfg.block_count;
  std::memset(flags, 0, n * sizeof(uint64_t));
  std::memset(next, 0, n * sizeof(uint64_t));
  uint8_t known[256];
  std::memset(known, 0, sizeof(known));
  constexpr uint32_t kPointerShift = 2 * kFlagBits;
  for (uint32_t step = 0; step <= kPartitionDistance; ++step) {
    bool slots_changed = false;
    for (uint32_t i = cfg.rpo_count; i-- > 0;) {
      const uint32_t b = cfg.rpo[i];
      const Cfg::Block& block = cfg.blocks[b];
      uint64_t later = 0;
      uint64_t now = 0;  // this pass's sets of the successors already done
      Ahead a;
      for (const Cfg::Edge& edge : cfg.successors(b)) {
        later |= flags[edge.to];
        now |= next[edge.to];
        if (slots != nullptr) {
          a.slots |= slots[2 * size_t{edge.to}];
          a.unchecked_slots |= slots[2 * size_t{edge.to} + 1];
        }
      }
      a.tested = static_cast<uint16_t>(later & kFlagMask);
      a.bases = static_cast<uint16_t>((later >> kFlagBits) & kFlagMask);
      a.pointers = static_cast<uint16_t>(((later | now) >> kPointerShift) & kFlagMask);
      a.unchecked = static_cast<uint16_t>(((later | now) >> kUncheckedShift) & kFlagMask);
      for (uint32_t pc = block.last + 1; pc-- > block.first;) step_back(e, e.insns[pc], a, known);
      next[b] = (a.tested & kFlagMask) | uint64_t{a.bases & kFlagMask} << kFlagBits |
                uint64_t{a.pointers & kFlagMask} << kPointerShift | uint64_t{a.unchecked & kFlagMask} << kUncheckedShift;
      if (slots != nullptr) {
        slots_changed = slots_changed || slots[2 * size_t{b}] != a.slots || slots[2 * size_t{b} + 1] != a.unchecked_slots;
        slots[2 * size_t{b}] = a.slots;
        slots[2 * size_t{b} + 1] = a.unchecked_slots;
      }
    }
    // A pass that changed nothing leaves the next one the same inputs
    // (flags, next and slots), so every later pass would repeat it.
    if (!slots_changed && std::memcmp(flags, next, n * sizeof(uint64_t)) == 0) break;
    std::memcpy(flags, next, n * sizeof(uint64_t));
  }
}

// Whether any instruction fills a register from an 8-byte stack slot: only
// then can Engine::partition_slots be other than empty.
bool has_stack_fill(const Engine& e) {
  for (uint32_t pc = 0; pc < e.insn_count; ++pc) {
    if (e.insns[pc].op == Op::ldxdw && e.insns[pc].src == 10) return true;
  }
  return false;
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
  size_t slot_bytes = 0;
  void* flags = nullptr;
  void* slots = nullptr;
  if (has_join(e.cfg) && e.options.privileged) {  // partitioned() is false otherwise
    bytes = sizeof(uint64_t) * size_t{e.cfg.block_count};
    slot_bytes = has_stack_fill(e) ? 2 * sizeof(uint64_t) * size_t{e.cfg.block_count} : 0;
    flags = e.pool.allocate_raw(bytes);
    void* next = e.pool.allocate_raw(bytes);
    slots = slot_bytes != 0 ? e.pool.allocate_raw(slot_bytes) : nullptr;
    if (flags == nullptr || next == nullptr || (slot_bytes != 0 && slots == nullptr)) {
      e.pool.release_raw(flags, bytes);
      e.pool.release_raw(next, bytes);
      e.pool.release_raw(slots, slot_bytes);
      e.pool.release(entry);
      return e.oom(0);
    }
    compute_partition_flags(e, static_cast<uint64_t*>(flags), static_cast<uint64_t*>(next),
                            static_cast<uint64_t*>(slots));
    e.pool.release_raw(next, bytes);
    e.partition_flags = static_cast<uint64_t*>(flags);
    e.partition_slots = static_cast<uint64_t*>(slots);
  }
  State* exit_state = nullptr;
  const bool ok = run_function(e, table, 0, entry, exit_state);
  e.partition_flags = nullptr;
  e.partition_slots = nullptr;
  e.pool.release_raw(slots, slot_bytes);
  e.pool.release_raw(flags, bytes);
  if (!ok) return false;
  e.pool.release(exit_state);
  return true;
}

}  // namespace

bool analyze(Engine& e, LoopFactTable& table, State* entry) {
  // A small program's on the stack, as run_function's worklists.
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
  const bool ok = analyze_with_flags(e, table, entry);
  e.access_kinds = nullptr;
  if (kinds_bytes != 0) e.pool.release_raw(kinds, kinds_bytes);
  return ok;
}

bool function_entry_scalar(const LoopFactTable& table, uint32_t function, uint8_t reg, Scalar& out) {
  if (table.entries == nullptr || reg >= kRegisterCount) return false;
  const ExitFacts& f = table.entries[function];
  if (f.seen == 0 || ((f.valid >> reg) & 1u) == 0) return false;
  out = f.regs[reg];
  return true;
}

CallbackSite* find_callback_site(const LoopFactTable& table, uint32_t pc) {
  const uint32_t low =
      lower_bound_index(table.callback_count, pc, [&](uint32_t i) { return table.callbacks[i].pc; });
  return low < table.callback_count && table.callbacks[low].pc == pc ? &table.callbacks[low] : nullptr;
}

}  // namespace keel
