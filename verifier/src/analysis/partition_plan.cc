// The backward pre-pass of the path partitions (partitions.h): once per
// analysis, for every block, the registers and stack slots whose values
// its partitions compare (PartitionPlan).
#include <cstring>

#include "analysis/partitions.h"
#include "isa/ops.h"

namespace keel {

namespace {

// Backward over an ALU instruction: the registers its result depends on
// replace it in `live`, so a flag shifted or copied before its test
// (`r1 = r4; r1 >>= 32; if r1 != 0`) still counts, and so do both parts of
// a base (`r4 = r2; r4 += r5; *(u16 *)(r4 + 2)` counts r2 and r5).
uint16_t alu_before(const Insn& insn, uint16_t live) {
  if ((live & reg_bit(insn.dst)) == 0) return live;
  return static_cast<uint16_t>((live & ~reg_bit(insn.dst)) | read_regs(insn));
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
  if (insn.op != Op::call_helper) return kArgumentRegs;
  const uint64_t id = static_cast<uint64_t>(insn.imm);
  if (id < 256 && known[id] != 0) return known[id] & kArgumentRegs;
  uint16_t used = kArgumentRegs;
  const HelperSlot* helper = find_helper(e.type, static_cast<int32_t>(insn.imm));
  if (helper != nullptr && helper->proto != nullptr) {
    used = 0;
    for (uint32_t i = 0; i < 5; ++i) {
      if (helper->proto->args[i] != ArgKind::none) used = static_cast<uint16_t>(used | reg_bit(i + 1));
    }
  }
  if (id < 256) known[id] = static_cast<uint8_t>(used | 1u);
  return used;
}

// The sets of registers that compute_partition_flags bounds by distance
// (Ahead::tested and Ahead::bases), in one of two forms with the same
// operations. OneDistance is the set for one distance: a RegSet, as the
// passes carry it. AllDistances holds the sets of every distance 0 ..
// kPartitionDistance at once, kRegBits bits each (bit 11 d + r: register r
// at distance d), so that one backward pass over loop-free code computes
// what the kPartitionDistance + 1 passes do (levels_pass). Each operation
// below applies the RegSet one to every distance's set: they commute with
// the packing, since no set of one distance ever reads another's bits.
struct OneDistance {
  using Set = RegSet;
  static bool has(Set s, RegSet regs) { return (s & regs) != 0; }
  static Set kill(Set s, RegSet regs) { return static_cast<Set>(s & ~regs); }
  static Set gen(Set s, RegSet regs) { return static_cast<Set>(s | regs); }
  static Set alu(const Insn& insn, Set s) { return alu_before(insn, s); }
};

inline constexpr uint32_t kRegBits = 11;  // r0-r10, as RegSet holds them (r10 is dropped between blocks)
inline constexpr uint32_t kDistances = kPartitionDistance + 1;
static_assert(kRegBits * kDistances <= 64, "every distance's set must fit one word");
constexpr uint64_t ones_at_distances() {
  uint64_t ones = 0;
  for (uint32_t d = 0; d < kDistances; ++d) ones |= uint64_t{1} << (kRegBits * d);
  return ones;
}
inline constexpr uint64_t kDistanceOnes = ones_at_distances();  // bit 0 of every distance's set

struct AllDistances {
  using Set = uint64_t;
  // `regs` in the set of every distance (a RegSet has bits 0-10 only, so the
  // product carries nothing between sets).
  static uint64_t spread(RegSet regs) { return uint64_t{regs} * kDistanceOnes; }
  static bool has(Set s, RegSet regs) { return (s & spread(regs)) != 0; }
  static Set kill(Set s, RegSet regs) { return s & ~spread(regs); }
  static Set gen(Set s, RegSet regs) { return s | spread(regs); }
  // alu_before on each distance's set: those that hold dst (bit 0 of
  // `holding` per set) swap it for the registers the instruction reads.
  static Set alu(const Insn& insn, Set s) {
    const uint64_t holding = (s >> insn.dst) & kDistanceOnes;
    return (s & ~(holding << insn.dst)) | holding * read_regs(insn);
  }
};

// What compute_partition_flags carries backward from the blocks ahead:
// registers a conditional jump tests, registers a load or store uses as its
// base, registers used as pointers (bases and call arguments), and the
// stack slots whose fill is used as a pointer. `unchecked` and
// `unchecked_slots`, subsets of the last two, leave out what a NULL test
// (`if rN == 0`, 64-bit) of the register comes before the use: a pointer
// NULL on one path and not on another splits partitions only where no test
// of its own tells them apart (cilium re-tests `info` often; join_loss).
// `tested` and `bases` are bounded by distance (Bounded: OneDistance or
// AllDistances); the others are not.
template <class Bounded>
struct Ahead {
  typename Bounded::Set tested = 0;
  typename Bounded::Set bases = 0;
  uint16_t pointers = 0;
  uint16_t unchecked = 0;
  uint64_t slots = 0;
  uint64_t unchecked_slots = 0;
};

// Backward over one instruction. A fill of a pointer register adds its
// slot; a spill into a slot of the set adds the spilled register, and any
// store to the slot removes it. Only r10-based accesses are followed (a
// copy of r10 only partitions less).
template <class Bounded>
void step_back(const Engine& e, const Insn& insn, Ahead<Bounded>& a, uint8_t* known) {
  using B = Bounded;
  const Op op = insn.op;
  const RegSet dst = reg_bit(insn.dst);
  if (is_alu(op)) {
    if (!B::has(a.tested, dst) && !B::has(a.bases, dst) && (a.pointers & dst) == 0) return;  // most of them
    a.tested = B::alu(insn, a.tested);
    a.bases = B::alu(insn, a.bases);
    a.pointers = alu_before(insn, a.pointers);
    a.unchecked = alu_before(insn, a.unchecked);
    return;
  }
  if (is_conditional_jump(op)) {
    a.tested = B::gen(a.tested, static_cast<RegSet>(dst | (jump_uses_src(op) ? reg_bit(insn.src) : 0u)));
    if ((op == Op::jeq64_imm || op == Op::jne64_imm) && insn.imm == 0) {
      a.unchecked &= static_cast<uint16_t>(~dst);  // a NULL test: both ways know
    }
    return;
  }
  if (is_load(op)) {
    if (op == Op::ldxdw && insn.src == 10 && (a.pointers & dst) != 0 && insn.offset % 8 == 0) {
      const uint32_t slot = stack_slot(insn.offset);
      if (slot < kSlotCount) a.slots |= uint64_t{1} << slot;
      if (slot < kSlotCount && (a.unchecked & dst) != 0) a.unchecked_slots |= uint64_t{1} << slot;
    }
    const uint16_t kept = static_cast<uint16_t>(~dst);
    a.tested = B::kill(a.tested, dst);
    a.bases = B::gen(B::kill(a.bases, dst), reg_bit(insn.src));
    a.pointers = static_cast<uint16_t>((a.pointers & kept) | reg_bit(insn.src));
    a.unchecked = static_cast<uint16_t>((a.unchecked & kept) | reg_bit(insn.src));
    return;
  }
  if (is_store(op)) {
    if (insn.dst == 10 && a.slots != 0) {
      const int32_t size = op_info(op).size;
      const uint32_t last = stack_slot(insn.offset + size - 1);
      for (uint32_t slot = stack_slot(insn.offset); slot <= last && slot < kSlotCount; ++slot) {
        if (((a.slots >> slot) & 1u) == 0) continue;
        a.slots &= ~(uint64_t{1} << slot);
        const bool unchecked = ((a.unchecked_slots >> slot) & 1u) != 0;
        a.unchecked_slots &= ~(uint64_t{1} << slot);
        if (op == Op::stxdw && insn.offset % 8 == 0) {
          a.pointers = static_cast<uint16_t>(a.pointers | reg_bit(insn.src));
          if (unchecked) a.unchecked = static_cast<uint16_t>(a.unchecked | reg_bit(insn.src));
        }
      }
    }
    a.bases = B::gen(a.bases, dst);
    a.pointers = static_cast<uint16_t>(a.pointers | dst);
    a.unchecked = static_cast<uint16_t>(a.unchecked | dst);
    return;
  }
  const RegSet written = written_regs(insn);
  const uint16_t kept = static_cast<uint16_t>(~written);
  a.tested = B::kill(a.tested, written);
  a.bases = B::kill(a.bases, written);
  a.pointers &= kept;
  a.unchecked &= kept;
  if (is_atomic(op)) {
    a.bases = B::gen(a.bases, dst);
    a.pointers = static_cast<uint16_t>(a.pointers | dst);
    a.unchecked = static_cast<uint16_t>(a.unchecked | dst);
  } else if (op == Op::call_helper || op == Op::call_local || op == Op::callx) {
    const uint16_t arguments = call_arguments(e, insn, known);
    a.pointers = static_cast<uint16_t>(a.pointers | arguments);
    a.unchecked = static_cast<uint16_t>(a.unchecked | arguments);
  }
}

// PartitionPlan::flags: per block, three sets of r0-r9 (r10 is the frame
// pointer on every path), kFlagBits bits each: the registers whose values
// at its entry the conditional jump of it or of a block at most
// kPartitionDistance edges further depends on; those a load or store as
// far ahead uses as its base; those used as pointers (bases, call
// arguments) at any distance before they are overwritten. And, when
// `slots` is not null, PartitionPlan::slots: the stack slots whose fill
// ahead is used as a pointer (step_back). A fourth set (kUncheckedShift)
// and the second slot set of each block (slots[2b + 1]) are Ahead's
// unchecked ones. This is the definition: kPartitionDistance + 1 backward
// passes over the instructions, pass d finding the registers tested (or
// used as bases) at most d blocks ahead from pass d - 1's, blocks in
// post-order so that the unbounded sets need one pass for loop-free code
// and one more per loop nesting level (a set cut short only partitions
// less). `next` has room for block_count entries.
constexpr uint32_t kPointerShift = 2 * kFlagBits;

uint64_t pack_flags(RegSet tested, RegSet bases, RegSet pointers, RegSet unchecked) {
  return (tested & kFlagMask) | uint64_t{bases & kFlagMask} << kFlagBits |
         uint64_t{pointers & kFlagMask} << kPointerShift | uint64_t{unchecked & kFlagMask} << kUncheckedShift;
}

void flags_by_passes(const Engine& e, uint64_t* flags, uint64_t* next, uint64_t* slots) {
  const Cfg& cfg = e.cfg;
  const uint32_t n = cfg.block_count;
  std::memset(flags, 0, n * sizeof(uint64_t));
  std::memset(next, 0, n * sizeof(uint64_t));
  uint8_t known[256];
  std::memset(known, 0, sizeof(known));
  for (uint32_t step = 0; step <= kPartitionDistance; ++step) {
    bool slots_changed = false;
    for (uint32_t i = cfg.rpo_count; i-- > 0;) {
      const uint32_t b = cfg.rpo[i];
      const Cfg::Block& block = cfg.blocks[b];
      uint64_t later = 0;
      uint64_t now = 0;  // this pass's sets of the successors already done
      Ahead<OneDistance> a;
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
      next[b] = pack_flags(a.tested, a.bases, a.pointers, a.unchecked);
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

bool is_join(const Cfg& cfg, uint32_t b) { return cfg.pred_offsets[b + 1] - cfg.pred_offsets[b] >= 2; }

// The same flags and slots for a CFG without loops, in one backward pass
// (the passes' cost was most of verifying a program of diamonds). Without
// a retreating edge, post-order visits every successor of a block before
// it, so:
//  - the unbounded sets (pointers, unchecked, slots) are final after the
//    passes' first pass, which read every successor's from this pass
//    (`now`; `later` is empty then and a subset of `now` after), and the
//    later passes recompute them unchanged;
//  - pass d's bounded sets of a block are its instructions stepped back
//    from the union of pass d - 1's sets of its successors (r10 dropped,
//    as the packed flags drop it), the empty set for d = 0; which is what
//    this pass computes for every d at once (AllDistances), the sets of
//    the successors at distance d - 1 moved up one distance. The passes'
//    result is pass kPartitionDistance's, or an earlier one's that equals
//    it (they stop when a pass changes nothing); the sets of distance
//    kPartitionDistance here.
// `levels` has room for 2 block_count entries (each block's tested and
// bases sets, every distance); partition_plan_test compares this with
// flags_by_passes.
void flags_in_one_pass(const Engine& e, uint64_t* flags, uint64_t* levels, uint64_t* slots) {
  const Cfg& cfg = e.cfg;
  if (cfg.rpo_count != cfg.block_count) std::memset(flags, 0, cfg.block_count * sizeof(uint64_t));  // unreachable ones
  uint8_t known[256];
  std::memset(known, 0, sizeof(known));
  // Distance d - 1's sets of a successor as distance d's (the last drops
  // off), r10 cleared from each.
  constexpr uint64_t kRegsAhead = (kFlagMask * kDistanceOnes) & ((uint64_t{1} << (kRegBits * (kDistances - 1))) - 1);
  constexpr uint32_t kTop = kRegBits * (kDistances - 1);  // distance kPartitionDistance's set
  const uint32_t* const succ = cfg.succ_offsets;
  const Cfg::Edge* const edges = cfg.edges;
  const uint32_t* const rpo = cfg.rpo;
  // The blocks before the first join in RPO are left out (flags and slots
  // empty): each has at most one predecessor, all of them earlier, so by
  // induction each is entered by one state per analysis of its function
  // (one partition, one visit, one state out per edge; a jump to the next
  // slot gives that block two edges and makes it a join). With one state
  // merge() never asks partition_of, and nothing else reads the plan. The
  // blocks from the join on need only successors, which come later in RPO.
  uint32_t start = 0;
  for (; start < cfg.rpo_count; ++start) {
    const uint32_t b = rpo[start];
    if (is_join(cfg, b)) break;
    flags[b] = 0;
    if (slots != nullptr) slots[2 * size_t{b}] = slots[2 * size_t{b} + 1] = 0;
  }
  for (uint32_t i = cfg.rpo_count; i-- > start;) {
    const uint32_t b = rpo[i];
    const Cfg::Block& block = cfg.blocks[b];
    Ahead<AllDistances> a;
    uint64_t ahead = 0;
    const auto take = [&](uint64_t to) {
      a.tested |= levels[2 * to];
      a.bases |= levels[2 * to + 1];
      ahead |= flags[to];
      if (slots != nullptr) {
        a.slots |= slots[2 * to];
        a.unchecked_slots |= slots[2 * to + 1];
      }
    };
    // At most two edges leave a block (a conditional jump's): taken one by
    // one, without a loop over them.
    const uint32_t first = succ[b], out = succ[b + 1] - first;
    if (out != 0) take(edges[first].to);
    if (out == 2) take(edges[first + 1].to);
    a.tested = (a.tested & kRegsAhead) << kRegBits;
    a.bases = (a.bases & kRegsAhead) << kRegBits;
    a.pointers = static_cast<uint16_t>((ahead >> kPointerShift) & kFlagMask);
    a.unchecked = static_cast<uint16_t>((ahead >> kUncheckedShift) & kFlagMask);
    for (uint32_t pc = block.last + 1; pc-- > block.first;) step_back(e, e.insns[pc], a, known);
    levels[2 * size_t{b}] = a.tested;
    levels[2 * size_t{b} + 1] = a.bases;
    flags[b] = pack_flags(static_cast<RegSet>(a.tested >> kTop), static_cast<RegSet>(a.bases >> kTop), a.pointers,
                          a.unchecked);
    if (slots != nullptr) {
      slots[2 * size_t{b}] = a.slots;
      slots[2 * size_t{b} + 1] = a.unchecked_slots;
    }
  }
}

// Whether any instruction fills a register from an 8-byte stack slot: only
// then can PartitionPlan::slots be other than empty.
// Four slots a round, their tests combined without branches: one taken
// branch per four slots where there is no fill (a branchy program without
// one paid two per slot).
uint32_t is_stack_fill(const Insn& insn) {
  return static_cast<uint32_t>(insn.op == Op::ldxdw) & static_cast<uint32_t>(insn.src == 10);
}
bool has_stack_fill(const Engine& e) {
  const Insn* const insns = e.insns;
  const uint32_t n = e.insn_count;
  uint32_t pc = 0;
  for (; n - pc >= 4; pc += 4) {
    if ((is_stack_fill(insns[pc]) | is_stack_fill(insns[pc + 1]) | is_stack_fill(insns[pc + 2]) |
         is_stack_fill(insns[pc + 3])) != 0)
      return true;
  }
  for (; pc < n; ++pc) {
    if (is_stack_fill(insns[pc]) != 0) return true;
  }
  return false;
}

// Partitions matter only below a join; without one the flags would never
// be read, and computing them costs several passes over the
// instructions (most of the analysis of a straight line).
bool has_join(const Cfg& cfg) {
  for (uint32_t b = 0; b < cfg.block_count; ++b) {
    if (is_join(cfg, b)) return true;
  }
  return false;
}

#ifndef NDEBUG
// Whether the one pass's plan `one` is the passes' (`passes`) wherever the
// fixpoint can read it: every block from the first join in RPO on; those
// before it must be empty (flags_in_one_pass). Unreachable blocks are
// never merged into.
bool same_where_read(const Cfg& cfg, const PartitionPlan& one, const PartitionPlan& passes) {
  bool before = true;
  for (uint32_t i = 0; i < cfg.rpo_count; ++i) {
    const uint32_t b = cfg.rpo[i];
    before = before && !is_join(cfg, b);
    const uint64_t s0 = one.slots != nullptr ? one.slots[2 * size_t{b}] : 0;
    const uint64_t s1 = one.slots != nullptr ? one.slots[2 * size_t{b} + 1] : 0;
    if (before ? (one.flags[b] | s0 | s1) != 0
               : one.flags[b] != passes.flags[b] ||
                     (one.slots != nullptr && (s0 != passes.slots[2 * size_t{b}] || s1 != passes.slots[2 * size_t{b} + 1])))
      return false;
  }
  return true;
}
#endif

}  // namespace

uint16_t flags_before(const Insn& insn, uint16_t live) {
  const Op op = insn.op;
  if (is_conditional_jump(op)) {
    return static_cast<uint16_t>(live | reg_bit(insn.dst) | (jump_uses_src(op) ? reg_bit(insn.src) : 0u));
  }
  if (!is_alu(op)) return static_cast<uint16_t>(live & ~written_regs(insn));
  return alu_before(insn, live);
}

namespace {

// plan_partitions, in one pass where the CFG has no loop unless `passes`.
bool make_plan(Engine& e, PartitionPlan& plan, bool passes) {
  plan = PartitionPlan{};
  if (!has_join(e.cfg) || !e.options.privileged) return true;  // partitioned() is false otherwise
  const bool one_pass = !passes && e.cfg.loop_count == 0;
  const size_t bytes = sizeof(uint64_t) * size_t{e.cfg.block_count};
  const size_t next_bytes = one_pass ? 2 * bytes : bytes;
  const size_t slot_bytes = has_stack_fill(e) ? 2 * sizeof(uint64_t) * size_t{e.cfg.block_count} : 0;
  // The one pass writes the flags of every block (the unreachable ones and
  // those before the first join zeroed, the others computed), and reads
  // `next` (the levels) and the slots only of successors, which post-order
  // computes first: unreachable blocks are no successors of reachable
  // ones, and their slots are never read (partition_of merges only into
  // reachable blocks; they start at zero when some block is unreachable, so
  // that the plan holds no indeterminate word). The passes clear flags and
  // next themselves but read the slots of blocks later in post-order (a
  // loop header) before writing them.
  const bool written = one_pass && e.cfg.rpo_count == e.cfg.block_count;
  void* flags = e.pool.allocate_raw_uninitialized(bytes);
  void* next = e.pool.allocate_raw_uninitialized(next_bytes);
  void* slots = slot_bytes == 0 ? nullptr
                : written      ? e.pool.allocate_raw_uninitialized(slot_bytes)
                               : e.pool.allocate_raw(slot_bytes);
  if (flags == nullptr || next == nullptr || (slot_bytes != 0 && slots == nullptr)) {
    e.pool.release_raw(flags, bytes);
    e.pool.release_raw(next, next_bytes);
    e.pool.release_raw(slots, slot_bytes);
    return false;
  }
  auto* const flag_sets = static_cast<uint64_t*>(flags);
  auto* const slot_sets = static_cast<uint64_t*>(slots);
  if (one_pass) flags_in_one_pass(e, flag_sets, static_cast<uint64_t*>(next), slot_sets);
  else flags_by_passes(e, flag_sets, static_cast<uint64_t*>(next), slot_sets);
  e.pool.release_raw(next, next_bytes);
  plan.flags = flag_sets;
  plan.slots = slot_sets;
  plan.flag_bytes = bytes;
  plan.slot_bytes = slot_bytes;
  return true;
}

}  // namespace

bool plan_partitions(Engine& e, PartitionPlan& out) {
  if (!make_plan(e, out, false)) return false;
#ifndef NDEBUG
  // A debug build checks the one pass against the passes, wherever the
  // fixpoint can read the plan, on every program it verifies (the corpus
  // tests included); a check that cannot get its memory is skipped.
  PartitionPlan passes;
  if (e.cfg.loop_count == 0 && out.flags != nullptr && make_plan(e, passes, true)) {
    const bool same = same_where_read(e.cfg, out, passes);
    release_plan(e.pool, passes);
    if (!same) __builtin_trap();
  }
#endif
  return true;
}

bool plan_partitions_by_passes(Engine& e, PartitionPlan& out) { return make_plan(e, out, true); }

void release_plan(StatePool& pool, PartitionPlan& plan) {
  pool.release_raw(plan.slots, plan.slot_bytes);
  pool.release_raw(plan.flags, plan.flag_bytes);
  plan = PartitionPlan{};
}

}  // namespace keel
