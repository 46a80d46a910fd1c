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
  if (is_alu(op)) {
    if (((a.tested | a.bases | a.pointers) & reg_bit(insn.dst)) == 0) return;  // most of them
    a.tested = alu_before(insn, a.tested);
    a.bases = alu_before(insn, a.bases);
    a.pointers = alu_before(insn, a.pointers);
    a.unchecked = alu_before(insn, a.unchecked);
    return;
  }
  if (is_conditional_jump(op)) {
    a.tested = flags_before(insn, a.tested);
    if ((op == Op::jeq64_imm || op == Op::jne64_imm) && insn.imm == 0) {
      a.unchecked &= static_cast<uint16_t>(~reg_bit(insn.dst));  // a NULL test: both ways know
    }
    return;
  }
  if (is_load(op)) {
    if (op == Op::ldxdw && insn.src == 10 && (a.pointers & reg_bit(insn.dst)) != 0 && insn.offset % 8 == 0) {
      const uint32_t slot = stack_slot(insn.offset);
      if (slot < kSlotCount) a.slots |= uint64_t{1} << slot;
      if (slot < kSlotCount && (a.unchecked & reg_bit(insn.dst)) != 0) a.unchecked_slots |= uint64_t{1} << slot;
    }
    const uint16_t kept = static_cast<uint16_t>(~reg_bit(insn.dst));
    a.tested &= kept;
    a.bases = static_cast<uint16_t>((a.bases & kept) | reg_bit(insn.src));
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
    a.bases = static_cast<uint16_t>(a.bases | reg_bit(insn.dst));
    a.pointers = static_cast<uint16_t>(a.pointers | reg_bit(insn.dst));
    a.unchecked = static_cast<uint16_t>(a.unchecked | reg_bit(insn.dst));
    return;
  }
  const uint16_t kept = static_cast<uint16_t>(~written_regs(insn));
  a.tested &= kept;
  a.bases &= kept;
  a.pointers &= kept;
  a.unchecked &= kept;
  if (is_atomic(op)) {
    a.bases = static_cast<uint16_t>(a.bases | reg_bit(insn.dst));
    a.pointers = static_cast<uint16_t>(a.pointers | reg_bit(insn.dst));
    a.unchecked = static_cast<uint16_t>(a.unchecked | reg_bit(insn.dst));
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
// then can PartitionPlan::slots be other than empty.
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

}  // namespace

uint16_t flags_before(const Insn& insn, uint16_t live) {
  const Op op = insn.op;
  if (is_conditional_jump(op)) {
    return static_cast<uint16_t>(live | reg_bit(insn.dst) | (jump_uses_src(op) ? reg_bit(insn.src) : 0u));
  }
  if (!is_alu(op)) return static_cast<uint16_t>(live & ~written_regs(insn));
  return alu_before(insn, live);
}

bool plan_partitions(Engine& e, PartitionPlan& plan) {
  plan = PartitionPlan{};
  if (!has_join(e.cfg) || !e.options.privileged) return true;  // partitioned() is false otherwise
  const size_t bytes = sizeof(uint64_t) * size_t{e.cfg.block_count};
  const size_t slot_bytes = has_stack_fill(e) ? 2 * sizeof(uint64_t) * size_t{e.cfg.block_count} : 0;
  void* flags = e.pool.allocate_raw(bytes);
  void* next = e.pool.allocate_raw(bytes);
  void* slots = slot_bytes != 0 ? e.pool.allocate_raw(slot_bytes) : nullptr;
  if (flags == nullptr || next == nullptr || (slot_bytes != 0 && slots == nullptr)) {
    e.pool.release_raw(flags, bytes);
    e.pool.release_raw(next, bytes);
    e.pool.release_raw(slots, slot_bytes);
    return false;
  }
  compute_partition_flags(e, static_cast<uint64_t*>(flags), static_cast<uint64_t*>(next),
                          static_cast<uint64_t*>(slots));
  e.pool.release_raw(next, bytes);
  plan.flags = static_cast<uint64_t*>(flags);
  plan.slots = static_cast<uint64_t*>(slots);
  plan.flag_bytes = bytes;
  plan.slot_bytes = slot_bytes;
  return true;
}

void release_plan(StatePool& pool, PartitionPlan& plan) {
  pool.release_raw(plan.slots, plan.slot_bytes);
  pool.release_raw(plan.flags, plan.flag_bytes);
  plan = PartitionPlan{};
}

}  // namespace keel
