// Path partitions (partitions.h): the store of a block's partitioned entry
// states, and the key that tells which one an incoming state joins.
#include "analysis/partitions.h"

#include <cstring>

#include "analysis/fixpoint.h"

namespace keel {

namespace {

// Unprivileged programs are not partitioned: Linux rejects one pointer
// arithmetic instruction run with different maps, offsets or scalars on
// different paths (update_alu_sanitation_state: "tried to add from
// different maps, paths or scalars"), which a join reproduces and
// partitions would hide.
// (plan_partitions leaves the plan empty for them, so plan.flags is null.)
// Most merges go where the plan compares nothing: a block whose flags and
// slot set are empty is one test.
bool partitioned(const Fixpoint& fx, uint32_t b) {
  const PartitionPlan& plan = fx.plan;
  if (plan.flags == nullptr) return false;
  if ((plan.flags[b] | (plan.slots != nullptr ? plan.slots[2 * size_t{b}] : 0)) == 0) return false;
  return fx.e.cfg.blocks[b].loop == Cfg::kNone && (fx.facts.index == nullptr || fx.facts.index[b] == Cfg::kNone);
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
// spill (`spill`, find_spill's answer for that slot, which the caller has
// already asked), NULL for bytes known zero, else nothing a pointer joins
// with; `scratch` holds the last two when returned.
const RegState& slot_value(const State& s, uint32_t slot, const Spill* spill, RegState& scratch) {
  if (spill != nullptr) return spill->reg;
  scratch = RegState{};
  scratch.kind = RegKind::mixed;
  const uint8_t* tags = s.top().tags + slot * 8;
  for (uint32_t i = 0; i < 8; ++i) {
    if (tags[i] != kTagZero) return scratch;
  }
  scratch = make_scalar(Scalar::constant(0));
  return scratch;
}

// What joining a and b loses at a block with partition flags `flags` and
// slot sets `slot_sets` (PartitionPlan::slots: the pointer slots, then
// the unchecked ones); 0 when they belong to one partition. A pointer used
// ahead, in a register or in one of the slots, that the join makes unusable costs
// kLossPointer; a constant that differs (or is a constant on one side only,
// in a register a load or store ahead uses as its base) kLossHere in a register the block's own jump tests (`here`), kLossTested
// in one tested further ahead, kLossOffset in one only used as a base (an
// offset of 14 or 18 matters as much as a flag, but a join of two offsets
// may still pass the check that uses it). Returns as soon as the loss
// reaches `limit` (the losses only add up, so the full loss is then at
// least `limit` too): 1 asks only whether the two states share a
// partition, make_room passes the least loss found so far.
constexpr uint32_t kLossOffset = 1;
constexpr uint32_t kLossTested = 2;
constexpr uint32_t kLossHere = 4;
constexpr uint32_t kLossPointer = 8;
constexpr uint64_t kNoSlots[2] = {0, 0};  // a function without stack fills

// A pointer that a check ahead may still refine: a NULL test, or a
// packet bounds check. Which paths check it may go with a flag.
bool check_pending(const RegState& r) {
  return r.maybe_null() || r.kind == RegKind::packet || r.kind == RegKind::packet_meta;
}

// Whether a and b, which hold different constants in one register that a
// test ahead reads (a flag), differ in nothing that the flag could be
// telling apart: the other registers of the top frame that differ are
// scalars on both sides and no base ahead (`bases`, PartitionPlan::flags);
// the callers' registers, pointers, stack bytes, spills and references
// are the same; and no pointer among them awaits a check (check_pending).
// Their join loses only how the flag goes with those scalars, which
// nothing ahead uses to reach memory, so it is worth no partition
// (lathist's inlined log2l: ADR 0058).
bool flag_beside_scalars_only(const State& a, const State& b, uint32_t bases) {
  if (a.frame_count != b.frame_count || a.spill_count != b.spill_count || a.ref_count != b.ref_count ||
      a.refs_lost != b.refs_lost || std::memcmp(a.refs, b.refs, a.ref_count * sizeof(a.refs[0])) != 0) {
    return false;
  }
  for (uint32_t f = 0; f < a.frame_count; ++f) {
    const Frame& fa = a.frames()[f];
    const Frame& fb = b.frames()[f];
    const uint32_t may_differ = f + 1 == a.frame_count ? ~bases : 0;
    for (uint32_t r = 0; r < kRegisterCount; ++r) {
      const RegState& x = fa.regs[r];
      const RegState& y = fb.regs[r];
      if (std::memcmp(&x, &y, sizeof(RegState)) == 0) {
        if (check_pending(x)) return false;
      } else if (((may_differ >> r) & 1u) == 0 || !x.is_scalar() || !y.is_scalar()) {
        return false;
      }
    }
    const uint32_t low = fa.stack_low < fb.stack_low ? fa.stack_low : fb.stack_low;
    if (fa.spilled != fb.spilled || std::memcmp(fa.tags + low, fb.tags + low, kStackSize - low) != 0) return false;
  }
  for (uint32_t i = 0; i < a.spill_count; ++i) {
    if (check_pending(a.spills()[i].reg)) return false;
  }
  return std::memcmp(a.spills(), b.spills(), a.spill_count * sizeof(Spill)) == 0;
}

// The spill of `slot` in frame `frame` of s, whose entries start at
// `base` (State::spill_index(frame, 0)) and whose mask is `mask`: the
// spill index's lookup (State::find_spill) inline, the frame's base
// counted once per state rather than per slot.
inline const Spill* spill_in(const State& s, uint32_t base, uint64_t mask, uint32_t slot) {
  return ((mask >> slot) & 1u) != 0 ? s.spills() + base + bits::count(mask & bits::below(slot)) : nullptr;
}

// (kAny: limit is 1, known at compile time, for partition_of's test.)
template <bool kAny>
uint32_t join_loss(const State& a, const State& b, uint64_t flags, const uint64_t* slot_sets, uint32_t here,
                   const MapTable& maps, uint32_t limit) {
  if constexpr (kAny) limit = 1;
  const uint32_t tested = flags & kFlagMask;
  const uint32_t exact = (flags | flags >> kFlagBits) & kFlagMask;
  const uint32_t usable = exact | ((flags >> (2 * kFlagBits)) & kFlagMask);
  const uint32_t unchecked = (flags >> kUncheckedShift) & kFlagMask;
  const RegState* x = a.top().regs;
  const RegState* y = b.top().regs;
  uint32_t loss = 0;
  uint32_t flag_loss = 0, flags_apart = 0;  // of the registers only tested ahead, not used as bases
  for (uint32_t left = usable; left != 0; left &= left - 1) {  // the registers of `usable`, in order
    const auto r = static_cast<uint32_t>(__builtin_ctz(left));
    if (x[r].kind == RegKind::scalar && y[r].kind == RegKind::scalar) {
      if (((exact >> r) & 1u) == 0) continue;
      const bool cx = x[r].value.is_const();
      if (cx == y[r].value.is_const() && (!cx || x[r].value.bits.value == y[r].value.bits.value)) continue;
      // A register only compared ahead (no load or store uses it as a
      // base) that is a constant on one side only keeps no partition of
      // its own: such a constant mostly comes from a refinement (`r2 = 0`
      // once `if r2 > 0` fails), not from the program setting a flag, and
      // kept apart it stays a partition to the end of the program
      // (docs/performance/profile.md, diamonds). The tests ahead refine
      // the joined range. Two different constants (a flag set on each
      // path) split, unless that flag is the only one apart and the states
      // differ beside it in nothing that matters ahead
      // (flag_beside_scalars_only, asked once the registers are all seen).
      const bool base = ((flags >> kFlagBits >> r) & 1u) != 0;
      if (!base) {
        if (cx != y[r].value.is_const()) continue;
        flag_loss += ((here >> r) & 1u) != 0 ? kLossHere : kLossTested;
        ++flags_apart;
        continue;
      }
      loss += ((here >> r) & 1u) != 0 ? kLossHere : ((tested >> r) & 1u) != 0 ? kLossTested : kLossOffset;
    } else if (!join_keeps_use(x[r], y[r], maps, ((unchecked >> r) & 1u) != 0)) {
      loss += kLossPointer;
    }
    if (loss >= limit) return loss;
  }
  if (flags_apart != 0 && (flags_apart > 1 || !flag_beside_scalars_only(a, b, (flags >> kFlagBits) & kFlagMask))) {
    loss += flag_loss;
    if (loss >= limit) return loss;
  }
  if (slot_sets[0] == 0 || (a.spill_count == 0 && b.spill_count == 0)) return loss;
  const uint32_t top = a.frame_count - 1u;
  const uint64_t mask_a = a.frames()[top].spilled;
  const uint64_t mask_b = b.frames()[top].spilled;
  const uint32_t base_a = mask_a == 0 ? 0 : a.spill_index(top, 0);
  const uint32_t base_b = mask_b == 0 ? 0 : b.spill_index(top, 0);
  for (uint64_t slots = slot_sets[0]; slots != 0; slots &= slots - 1) {
    const uint32_t slot = static_cast<uint32_t>(__builtin_ctzll(slots));
    const Spill* sx = spill_in(a, base_a, mask_a, slot);
    const Spill* sy = spill_in(b, base_b, mask_b, slot);
    const bool px = sx != nullptr && sx->reg.kind != RegKind::scalar;
    const bool py = sy != nullptr && sy->reg.kind != RegKind::scalar;
    if (!px && !py) continue;
    // slot_value reads each state's own top frame; b's is a's (both enter
    // one block of one call context) but for a state of another depth.
    const Spill* fy = b.frame_count == a.frame_count ? sy : b.find_spill(b.frame_count - 1u, slot);
#ifndef NDEBUG
    // A debug build asks find_spill as slot_value once did, for both states.
    if (sx != a.find_spill(a.frame_count - 1u, slot) || fy != b.find_spill(b.frame_count - 1u, slot)) __builtin_trap();
#endif
    RegState scratch_x, scratch_y;
    if (!join_keeps_use(slot_value(a, slot, sx, scratch_x), slot_value(b, slot, fy, scratch_y), maps,
                        ((slot_sets[1] >> slot) & 1u) != 0)) {
      loss += kLossPointer;
      if (loss >= limit) return loss;
    }
  }
  return loss;
}

// The first pair (i, j), i < j, in order, of the kPartitions states of
// block `local` and `incoming` (j = kPartitions) whose join loses least.
// `pruned` stops each join_loss once it reaches the least loss so far,
// and the search once a pair loses nothing: a pair is chosen only with a
// loss strictly below every earlier one, so neither changes the choice
// (the full search, `pruned` false, is the definition that a debug build
// checks it against).
struct Pair {
  uint32_t into = 0;
  uint32_t from = kPartitions;  // kPartitions: `incoming`
};
Pair least_loss(Fixpoint& fx, uint32_t local, const State& incoming, uint64_t flags, const uint64_t* slots,
                uint32_t here, bool pruned) {
  uint32_t best = UINT32_MAX;
  Pair pair;
  for (uint32_t i = 0; i < kPartitions; ++i) {
    const State& one = **slot_of(fx.entries, local, i);
    for (uint32_t j = i + 1; j <= kPartitions; ++j) {
      const State& other = j == kPartitions ? incoming : **slot_of(fx.entries, local, j);
      const uint32_t loss = join_loss<false>(one, other, flags, slots, here, fx.e.maps, pruned ? best : UINT32_MAX);
      if (loss < best) {
        best = loss;
        pair = {i, j};
        if (pruned && best == 0) return pair;
      }
    }
  }
  return pair;
}

// All partitions of `target` hold states and `incoming` belongs to none:
// joins the two of these kPartitions + 1 states whose join loses least
// (join_loss), rather than whatever comes last, so that two offsets are
// joined before a flag tested here and a flag before a pointer. Returns
// the partition `incoming` joins (a freed one when two others were joined),
// or kPartitions when the arena is exhausted. In loop-free code every merge
// into a block comes before its visit, so this costs no visit.
// (Kept out of partition_of, which most merges leave before it: inlined, it
// made every call of partition_of dearer.)
[[gnu::noinline]] uint32_t make_room(Fixpoint& fx, uint32_t target, const State& incoming, uint64_t flags,
                                     const uint64_t* slots) {
  const uint32_t local = target - fx.base;
  const Cfg::Block& block = fx.e.cfg.blocks[target];
  uint16_t here = 0;  // at the block's entry: what its own jump tests (a flag may be shifted first)
  for (uint32_t pc = block.last + 1; pc-- > block.first;) here = flags_before(fx.e.insns[pc], here);
  const Pair pair = least_loss(fx, local, incoming, flags, slots, here, true);
#ifndef NDEBUG
  // A debug build checks the pruned search against the full one (every
  // pair's whole loss) on every program it verifies, the corpus tests
  // included.
  const Pair full = least_loss(fx, local, incoming, flags, slots, here, false);
  if (full.into != pair.into || full.from != pair.from) __builtin_trap();
#endif
  const uint32_t into = pair.into, from = pair.from;
  if (from == kPartitions) return into;
  State** to = slot_of(fx.entries, local, into);
  State** gone = slot_of(fx.entries, local, from);
  if (!join_into(fx.e.pool, *to, **gone, false, fx.e.maps)) return kPartitions;
  fx.e.pool.release(*gone);
  *gone = nullptr;
  fx.entries.dirty[local] = static_cast<uint8_t>((fx.entries.dirty[local] | 1u << into) & ~(1u << from));
  return from;
}

}  // namespace

bool add_group(BlockEntries& entries, StatePool& pool, uint32_t local) {
  if (entries.free_count == 0 && entries.extra_used == entries.extra_capacity) {
    const uint32_t capacity = entries.extra_capacity == 0 ? 16 : entries.extra_capacity * 2;
    const size_t per = (kPartitions - 1) * sizeof(State*) + sizeof(uint32_t);
    void* memory = pool.allocate_raw(capacity * per);
    if (memory == nullptr) return false;
    State** slots = static_cast<State**>(memory);
    uint32_t* free_groups = reinterpret_cast<uint32_t*>(slots + size_t{capacity} * (kPartitions - 1));
    if (entries.extra != nullptr) {
      std::memcpy(slots, entries.extra, size_t{entries.extra_used} * (kPartitions - 1) * sizeof(State*));
      pool.release_raw(entries.extra, entries.extra_capacity * per);
    }
    entries.extra = slots;
    entries.free_groups = free_groups;
    entries.extra_capacity = capacity;
  }
  entries.group[local] = entries.free_count != 0 ? entries.free_groups[--entries.free_count] : ++entries.extra_used;
  for (uint32_t p = 1; p < kPartitions; ++p) *slot_of(entries, local, p) = nullptr;
  return true;
}

void release_partitions(BlockEntries& entries, StatePool& pool, uint32_t local) {
  if (entries.group[local] == 0) {  // one entry state (most blocks): nothing else to look at
    pool.release(entries.entry[local]);
    entries.entry[local] = nullptr;
    return;
  }
  for (uint32_t p = 0; p < kPartitions; ++p) {
    State** slot = slot_of(entries, local, p);
    if (slot == nullptr) break;
    pool.release(*slot);
    *slot = nullptr;
  }
  if (entries.group[local] != 0) {
    entries.free_groups[entries.free_count++] = entries.group[local];
    entries.group[local] = 0;
  }
}

void release_groups(BlockEntries& entries, StatePool& pool) {
  if (entries.extra != nullptr) {
    pool.release_raw(entries.extra, entries.extra_capacity * ((kPartitions - 1) * sizeof(State*) + sizeof(uint32_t)));
  }
}

uint32_t partition_of(Fixpoint& fx, uint32_t target, const State& incoming) {
  if (!partitioned(fx, target)) return 0;
  const uint32_t local = target - fx.base;
  const uint64_t flags = fx.plan.flags[target];
  const uint64_t* slots = fx.plan.slots != nullptr ? fx.plan.slots + 2 * size_t{target} : kNoSlots;
  for (uint32_t p = 0; p < kPartitions; ++p) {
    State** slot = slot_of(fx.entries, local, p);
    if (slot == nullptr || *slot == nullptr || join_loss<true>(**slot, incoming, flags, slots, 0, fx.e.maps, 1) == 0) {
      return p;
    }
  }
  return make_room(fx, target, incoming, flags, slots);
}

}  // namespace keel
