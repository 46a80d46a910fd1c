// A whole abstract machine state: the frames of the call chain (registers
// and a 512-byte stack each) in one arena chunk, and the pool that recycles
// chunks so that only block-entry states live long (design.md, "Cost bound").
// The lattice over these states (join, inclusion) is analysis/lattice.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "analysis/reg_state.h"
#include "keel/arena.h"
#include "support/bits.h"
#include "keel/isa.h"
#include "keel/platform.h"

namespace keel {

// Per stack byte (design.md, "Stack").
enum StackTag : uint8_t {
  kTagUninit = 0,
  kTagData = 1,   // initialized, value unknown
  kTagZero = 2,   // known zero
  kTagSpill = 3,  // part of a slot holding a spilled register (Spill: all 8 bytes, or the first 1, 2 or 4)
  kTagMixed = 4,  // initialized, may hold pointer bits (a join of a spill and data)
};

inline constexpr uint32_t kSlotCount = kStackSize / 8;

// References a state may hold at once (Linux has no fixed limit; a program
// that needs more is rejected with too_many_references). Linux keeps a
// reference list per function frame and copies it across calls, which is
// one list for the call chain: keel keeps it per state.
inline constexpr uint32_t kMaxReferences = 8;

// A reference is named after the instruction that acquired it, so that
// every path through that instruction (each path partition, each loop
// iteration, each visit) names it alike and joins line them up; a second
// acquisition there while the first may be held is rejected
// (reference_reacquired). The high bit keeps the names apart from the ids
// Engine::fresh_id() hands out.
inline constexpr uint32_t kRefBit = 0x80000000u;
inline constexpr uint32_t ref_of_pc(uint32_t pc) { return kRefBit | pc; }
inline constexpr uint32_t pc_of_ref(uint32_t ref) { return ref & ~kRefBit; }

struct Frame {
  RegState regs[kRegisterCount];
  uint8_t tags[kStackSize];  // tags[i] describes byte (r10 - kStackSize + i)
  // The slots of this frame that hold a spill: bit i is set exactly when
  // the state's spill list has an entry for (this frame, slot i). With the
  // list sorted (State, "spill index"), it finds a slot's spill in O(1).
  uint64_t spilled;
  uint32_t function;         // CFG function index
  uint32_t call_pc;          // the call that made this frame (0 for the entry)
  // The stack watermark. Invariant: tags[i] == kTagUninit for every
  // i < stack_low. Every writer of a tag other than kTagUninit lowers it
  // first (note_stack_write); clear_stack raises it to kStackSize. A lower
  // value is always valid (0 claims nothing), so code that sets tags by
  // hand may leave it at 0. The tags themselves stay complete: the mark
  // only lets joins and inclusion checks skip the stack below both sides'
  // marks, uninitialized on both (design.md, "Stack" and "Cost bound"), as
  // most programs use the top few slots of their 512 bytes.
  uint32_t stack_low;
  uint32_t unused;
};

// Every stack byte uninitialized and no slot spilled (a frame just made,
// the last of its state: no spill in the list names it).
inline void clear_stack(Frame& frame) {
  static_assert(kTagUninit == 0);
  std::memset(frame.tags, kTagUninit, sizeof(frame.tags));
  frame.stack_low = kStackSize;
  frame.spilled = 0;
}

// Before tags[index] (and maybe bytes above it) is set to a tag other than
// kTagUninit: keeps the watermark at or below it.
inline void note_stack_write(Frame& frame, uint32_t index) {
  if (index < frame.stack_low) frame.stack_low = index;
}

// Whether the watermark invariant holds (tests check every transfer).
inline bool stack_low_holds(const Frame& frame) {
  if (frame.stack_low > kStackSize) return false;
  for (uint32_t i = 0; i < frame.stack_low; ++i) {
    if (frame.tags[i] != kTagUninit) return false;
  }
  return true;
}

struct Spill {
  uint8_t frame;
  uint8_t slot;  // bytes [8 * slot, 8 * slot + 8) of tags
  // 0: the register fills the whole slot. 1, 2 or 4: a narrow spill of a
  // scalar (Linux save_register_state with that size): `reg` is the value
  // of the slot's first `narrow` bytes, zero-extended, and only they are
  // kTagSpill; the others keep their own tags.
  uint8_t narrow;
  uint8_t unused;
  RegState reg;
};

// Laid out in one chunk: State, Frame[frame_count], Spill[spill_capacity].
//
// The spill index. Invariant: the spill list is sorted by (frame, slot),
// no two entries name the same slot, and every entry's frame is below
// frame_count; Frame::spilled of each frame has exactly the bits of the
// slots its entries name. The spill of (f, slot) is then at the index that
// counts the entries of the frames below f and those of f below slot: a
// lookup costs a few bit counts, not a scan of the list (joins, inclusion
// checks, partitions and loads look slots up). add_spill and remove_spill
// keep it; a join builds its list in that order; a frame copied with its
// mask keeps it as long as its spills are copied in order too
// (call_frames.cc, which drops the callee's frame, the last, and its
// spills, the list's tail). spills_hold checks it (tests, after every
// transfer).
struct alignas(8) State {
  uint32_t chunk_class;  // pool size class
  uint16_t frame_count;
  uint16_t spill_count;
  uint16_t spill_capacity;
  uint8_t ref_count;     // entries of refs
  // A join met more than kMaxReferences references: some that may be held
  // are not listed, so no exit, tail call or legacy packet load may follow.
  uint8_t refs_lost;
  uint16_t unused[2];
  // The references that may be held (acquired on some path to here and not
  // released on it): what was acquired must be released before the exit.
  uint32_t refs[kMaxReferences];

  Frame* frames() { return reinterpret_cast<Frame*>(this + 1); }
  const Frame* frames() const { return reinterpret_cast<const Frame*>(this + 1); }
  Spill* spills() { return reinterpret_cast<Spill*>(frames() + frame_count); }
  const Spill* spills() const { return reinterpret_cast<const Spill*>(frames() + frame_count); }
  Frame& top() { return frames()[frame_count - 1]; }
  const Frame& top() const { return frames()[frame_count - 1]; }
  RegState* regs() { return top().regs; }

  // The spill of `slot` in `frame`, or nullptr: through the spill index,
  // a mask bit and a bit count. (Out of line: inlined into its callers it
  // cost partition_of's fast path on programs without spills more than the
  // call saves.)
  Spill* find_spill(uint32_t frame, uint32_t slot);
  const Spill* find_spill(uint32_t frame, uint32_t slot) const;
  // Where the spill of (frame, slot) is in the list, or would be inserted:
  // the number of entries before it (the spill index).
  uint32_t spill_index(uint32_t frame, uint32_t slot) const {
    uint32_t index = 0;
    for (uint32_t f = 0; f < frame; ++f) index += bits::count(frames()[f].spilled);
    return index + bits::count(frames()[frame].spilled & bits::below(slot));
  }
  // An added entry for (frame, slot), which has none, in its place in the
  // list: frame and slot set, narrow 0, reg for the caller to fill. The
  // caller has made room (StatePool::reserve_spill).
  Spill* add_spill(uint32_t frame, uint32_t slot);
  void remove_spill(Spill* spill);

  bool holds(uint32_t ref) const;
  // Drops `ref` from refs (no-op when absent).
  void drop_ref(uint32_t ref);
  // The reference list of `from` (a state of the same program path).
  void copy_refs(const State& from);
};

size_t state_bytes(uint32_t frame_count, uint32_t spill_capacity);

// Whether the spill index's invariant holds (State): tests check it after
// every transfer and join, as stack_low_holds for the watermark.
bool spills_hold(const State& s);

// Chunks of power-of-two sizes with a free list per size. Not thread-safe;
// one per verify() call (and one per nested callee analysis, see analyze.cc).
class StatePool {
 public:
  explicit StatePool(Arena& arena) : arena_(arena) {}
  // A state with room for `frames` frames and `spills` spills, header set,
  // contents unspecified. nullptr when the arena is exhausted.
  State* allocate(uint32_t frames, uint32_t spills);
  void release(State* state);
  // An exact copy with room for `extra_spills` more spills (or nullptr).
  State* copy(const State& from, uint32_t extra_spills = 2, uint32_t extra_frames = 0);
  // Ensures room for one more spill; may move the state (nullptr on exhaustion).
  [[nodiscard]] bool reserve_spill(State*& state);
  Arena& arena() { return arena_; }

  // Zeroed scratch memory of at least `bytes` (per-function worklists);
  // give it back with release_raw and the same byte count.
  void* allocate_raw(size_t bytes);
  // The same, left as it was (a recycled chunk holds old contents): for
  // arrays the caller writes completely before reading them.
  void* allocate_raw_uninitialized(size_t bytes);
  void release_raw(void* memory, size_t bytes);

 private:
  // A chunk of size class c: from the free list, else fresh from the arena.
  void* take_chunk(uint32_t c);
  void push(uint32_t c, void* memory);
  static constexpr uint32_t kClasses = 24;
  Arena& arena_;
  // free_[c] is the head of class c's free list once bit c of `listed_` is
  // set, and unset (empty) before: a pool is made per verify() call, and
  // zeroing the heads would cost more than a small program's analysis.
  uint32_t listed_ = 0;
  void* free_[kClasses];
};

}  // namespace keel

// Most users of a state also join or compare states.
#include "analysis/lattice.h"  // IWYU pragma: export
