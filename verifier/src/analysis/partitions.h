// Path partitions: which of a block's entry states an incoming state joins.
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
// unusable (PartitionPlan::flags); states that agree on them are joined
// as before, and each partition is visited on its own. One flag does not
// split two states that otherwise differ only in scalars that nothing
// ahead uses to reach memory (flag_beside_scalars_only in partitions.cc):
// they join (ADR 0058). Once the flag is
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
// set per block (PartitionPlan::slots), not a set of the three kinds per
// slot: only what a fill feeds ahead counts, and the key compares a slot
// only when one of the two states holds a pointer spill there. Telling NULL
// from non-NULL adds no state beyond kPartitions per block, and no pass:
// it is one more way two states at a block disagree (join_keeps_use).
//
// Two parts: the backward pre-pass that decides, once per analysis, what
// each block's partitions compare (partition_plan.cc, PartitionPlan), and
// the per-function store of partitioned entry states that the fixpoint
// merges into (partitions.cc, BlockEntries).
#pragma once

#include <cstddef>
#include <cstdint>

#include "analysis/engine.h"

namespace keel {

struct Fixpoint;

inline constexpr uint32_t kPartitions = 8;
inline constexpr uint32_t kPartitionDistance = 4;
inline constexpr uint32_t kFlagBits = 10;  // r0-r9 per set in PartitionPlan::flags
inline constexpr uint32_t kFlagMask = (1u << kFlagBits) - 1;
inline constexpr uint32_t kUncheckedShift = 3 * kFlagBits;  // Ahead::unchecked in PartitionPlan::flags


// What the partitions of each block compare, computed once per analysis by
// plan_partitions; seen only by the fixpoint. Empty (nullptr) when no block
// can be partitioned: no join, or an unprivileged program.
struct PartitionPlan {
  uint64_t* flags = nullptr;  // per block: four sets of r0-r9 (partition_plan.cc)
  uint64_t* slots = nullptr;  // two per block: stack slots the partitions compare
  size_t flag_bytes = 0;
  size_t slot_bytes = 0;
};

// Runs the backward pre-pass into pool memory; false when the pool is
// exhausted (nothing is left allocated). One pass over the instructions
// when the CFG has no loop, else kPartitionDistance + 1.
[[nodiscard]] bool plan_partitions(Engine& e, PartitionPlan& plan);
// The same plan, always by kPartitionDistance + 1 passes: the definition,
// which partition_plan_test compares plan_partitions' one pass with.
[[nodiscard]] bool plan_partitions_by_passes(Engine& e, PartitionPlan& plan);
void release_plan(StatePool& pool, PartitionPlan& plan);

// Backward over one instruction: the registers whose values before it the
// test ahead depends on, given those after it (`live`).
uint16_t flags_before(const Insn& insn, uint16_t live);

// The entry states of one function's blocks (`local` = block - first
// block): partition 0 in entry[local], partitions 1.. in a group of
// kPartitions - 1 slots of `extra` for the few blocks that split.
struct BlockEntries {
  State** entry = nullptr;    // [block_count]: a block's entry state (its first partition)
  uint32_t* group = nullptr;  // [block_count]: 1 + the index in `extra` of its other partitions, 0 = none
  uint8_t* dirty = nullptr;   // [block_count]: bit p = partition p changed since the block's last visit
  State** extra = nullptr;    // groups of kPartitions - 1 entry states, for the few blocks that split
  uint32_t* free_groups = nullptr;  // released groups (1 + index), free_count of them
  uint32_t extra_capacity = 0, extra_used = 0, free_count = 0;
};

// Partition p's entry state of block `local` (a slot of `entry` or of its
// group), or nullptr when p > 0 and the block has no group yet.
inline State** slot_of(BlockEntries& entries, uint32_t local, uint32_t p) {
  if (p == 0) return &entries.entry[local];
  const uint32_t g = entries.group[local];
  return g == 0 ? nullptr : &entries.extra[size_t{g - 1} * (kPartitions - 1) + p - 1];
}
// Gives block `local` a group of empty slots (recycled, or grown by doubling).
[[nodiscard]] bool add_group(BlockEntries& entries, StatePool& pool, uint32_t local);
// Releases every entry state of block `local` (and its group).
void release_partitions(BlockEntries& entries, StatePool& pool, uint32_t local);
// Releases the group storage (after every block's release_partitions).
void release_groups(BlockEntries& entries, StatePool& pool);

// The partition of `target` that `incoming` joins: the one it agrees
// with, else a free one, else make_room's; kPartitions when the arena is
// exhausted.
uint32_t partition_of(Fixpoint& fx, uint32_t target, const State& incoming);

}  // namespace keel
