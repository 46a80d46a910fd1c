// State storage: a pool of power-of-two chunks, state copies, and the
// per-state spill and reference lists. The lattice over states (join,
// inclusion) is lattice.cc. design.md, "Abstract state" and "Cost bound".
#include "analysis/state.h"

#include <cstring>

#include "support/bytes.h"

namespace keel {

const char* reg_kind_name(RegKind kind) {
  switch (kind) {
    case RegKind::uninit: return "uninit";
    case RegKind::scalar: return "scalar";
    case RegKind::ctx: return "ctx";
    case RegKind::stack: return "stack";
    case RegKind::map_ptr: return "map_ptr";
    case RegKind::map_value: return "map_value";
    case RegKind::map_value_or_null: return "map_value_or_null";
    case RegKind::packet: return "packet";
    case RegKind::packet_end: return "packet_end";
    case RegKind::packet_meta: return "packet_meta";
    case RegKind::mem: return "mem";
    case RegKind::mem_or_null: return "mem_or_null";
    case RegKind::func: return "func";
    case RegKind::mixed: return "mixed";
    case RegKind::map_ptr_or_null: return "map_ptr_or_null";
    case RegKind::sock_common: return "sock_common";
    case RegKind::sock_common_or_null: return "sock_common_or_null";
    case RegKind::sock: return "sock";
    case RegKind::sock_or_null: return "sock_or_null";
    case RegKind::tcp_sock: return "tcp_sock";
    case RegKind::tcp_sock_or_null: return "tcp_sock_or_null";
    case RegKind::btf_ptr: return "btf_ptr";
    case RegKind::btf_ptr_or_null: return "btf_ptr_or_null";
  }
  return "?";
}

// ---- State ------------------------------------------------------------------

Spill* State::find_spill(uint32_t frame, uint32_t slot) {
  return ((frames()[frame].spilled >> slot) & 1u) != 0 ? &spills()[spill_index(frame, slot)] : nullptr;
}

const Spill* State::find_spill(uint32_t frame, uint32_t slot) const {
  return const_cast<State*>(this)->find_spill(frame, slot);
}

Spill* State::add_spill(uint32_t frame, uint32_t slot) {
  const uint32_t index = spill_index(frame, slot);
  Spill* s = spills();
  std::memmove(&s[index + 1], &s[index], (spill_count - index) * sizeof(Spill));
  ++spill_count;
  frames()[frame].spilled |= uint64_t{1} << slot;
  Spill& spill = s[index];
  spill.frame = static_cast<uint8_t>(frame);
  spill.slot = static_cast<uint8_t>(slot);
  spill.narrow = 0;
  spill.unused = 0;
  return &spill;
}

void State::remove_spill(Spill* spill) {
  Spill* s = spills();
  const uint32_t index = static_cast<uint32_t>(spill - s);
  frames()[spill->frame].spilled &= ~(uint64_t{1} << spill->slot);
  std::memmove(&s[index], &s[index + 1], (spill_count - index - 1u) * sizeof(Spill));
  --spill_count;
}

bool spills_hold(const State& s) {
  if (s.frame_count > kMaxCallDepth) return false;
  uint64_t seen[kMaxCallDepth] = {};
  const Spill* spills = s.spills();
  for (uint32_t i = 0; i < s.spill_count; ++i) {
    const Spill& x = spills[i];
    if (x.frame >= s.frame_count || x.slot >= kSlotCount) return false;
    if (i > 0 && (spills[i - 1].frame > x.frame || (spills[i - 1].frame == x.frame && spills[i - 1].slot >= x.slot))) {
      return false;  // out of order, or a slot named twice
    }
    seen[x.frame] |= uint64_t{1} << x.slot;
  }
  for (uint32_t f = 0; f < s.frame_count; ++f) {
    if (s.frames()[f].spilled != seen[f]) return false;
  }
  return true;
}

bool State::holds(uint32_t ref) const {
  for (uint32_t i = 0; i < ref_count; ++i) {
    if (refs[i] == ref) return true;
  }
  return false;
}

void State::drop_ref(uint32_t ref) {
  for (uint32_t i = 0; i < ref_count; ++i) {
    if (refs[i] == ref) {
      refs[i] = refs[--ref_count];
      return;
    }
  }
}

void State::copy_refs(const State& from) {
  ref_count = from.ref_count;
  refs_lost = from.refs_lost;
  std::memcpy(refs, from.refs, from.ref_count * sizeof(refs[0]));
}

size_t state_bytes(uint32_t frame_count, uint32_t spill_capacity) {
  return sizeof(State) + frame_count * sizeof(Frame) + spill_capacity * sizeof(Spill);
}

// ---- Pool ---------------------------------------------------------------------

namespace {

constexpr uint32_t kMinShift = 8;  // 256 bytes

// The smallest c with 2^(c + kMinShift) >= bytes.
uint32_t class_for(size_t bytes) {
  if (bytes <= (size_t{1} << kMinShift)) return 0;
  return 64u - static_cast<uint32_t>(__builtin_clzll(uint64_t{bytes} - 1)) - kMinShift;
}

}  // namespace

void* StatePool::take_chunk(uint32_t c) {
  void* memory = ((listed_ >> c) & 1u) != 0 ? free_[c] : nullptr;
  // Not zeroed: allocate() leaves the contents unspecified and every caller
  // writes what it reads (a state chunk is 2 KiB or more).
  static_assert(alignof(Frame) <= alignof(uint64_t) && alignof(Spill) <= alignof(uint64_t));
  if (memory == nullptr) return arena_.allocate_uninitialized<uint64_t>((size_t{1} << (c + kMinShift)) / 8);
  free_[c] = bytes::load<void*>(memory);  // pop the free list (an inline load, not a memcpy call)
  return memory;
}

State* StatePool::allocate(uint32_t frames, uint32_t spills) {
  const size_t bytes = state_bytes(frames, spills);
  const uint32_t c = class_for(bytes);
  if (c >= kClasses) return nullptr;
  const size_t chunk = size_t{1} << (c + kMinShift);
  void* memory = take_chunk(c);
  if (memory == nullptr) return nullptr;
  State* s = static_cast<State*>(memory);
  s->chunk_class = c;
  s->frame_count = static_cast<uint16_t>(frames);
  s->spill_count = 0;
  s->ref_count = 0;
  s->refs_lost = 0;
  s->spill_capacity =
      static_cast<uint16_t>((chunk - sizeof(State) - frames * sizeof(Frame)) / sizeof(Spill));
  return s;
}

void StatePool::push(uint32_t c, void* memory) {
  void* const next = ((listed_ >> c) & 1u) != 0 ? free_[c] : nullptr;
  bytes::store<void*>(memory, next);
  free_[c] = memory;
  listed_ |= 1u << c;
}

void StatePool::release(State* state) {
  if (state == nullptr) return;
  push(state->chunk_class, state);
}

State* StatePool::copy(const State& from, uint32_t extra_spills, uint32_t extra_frames) {
  State* s = allocate(from.frame_count + extra_frames, from.spill_count + extra_spills);
  if (s == nullptr) return nullptr;
  const uint16_t capacity = s->spill_capacity;
  const uint32_t c = s->chunk_class;
  const uint16_t frames = s->frame_count;
  if (extra_frames == 0) {
    // Header, frames and spills are one run of bytes in both chunks: one
    // copy rather than three (most copies are of one-frame states).
    std::memcpy(s, &from, state_bytes(from.frame_count, from.spill_count));
    s->spill_capacity = capacity;
    s->chunk_class = c;
    return s;
  }
  std::memcpy(s->frames(), from.frames(), from.frame_count * sizeof(Frame));
  // The added frames, the last (contents for the caller to set), have no
  // spills: the spill index holds from here on (State).
  for (uint32_t f = from.frame_count; f < frames; ++f) s->frames()[f].spilled = 0;
  s->frame_count = frames;
  s->spill_count = from.spill_count;
  std::memcpy(s->spills(), from.spills(), from.spill_count * sizeof(Spill));
  s->spill_capacity = capacity;
  s->chunk_class = c;
  s->copy_refs(from);
  return s;
}

bool StatePool::reserve_spill(State*& state) {
  if (state->spill_count < state->spill_capacity) return true;
  State* bigger = copy(*state, static_cast<uint32_t>(state->spill_count) + 4);
  if (bigger == nullptr) return false;
  release(state);
  state = bigger;
  return true;
}

void* StatePool::allocate_raw(size_t bytes) {
  if (bytes < sizeof(void*)) bytes = sizeof(void*);
  const uint32_t c = class_for(bytes);
  if (c >= kClasses) return nullptr;
  void* memory = take_chunk(c);
  if (memory == nullptr) return nullptr;
  // Most are a few bytes (a small function's worklists); a chunk has at
  // least 256, so a fixed 64-byte clear (inline stores) replaces the call.
  static_assert(kMinShift >= 6);
  if (bytes <= 64) __builtin_memset(memory, 0, 64);
  else std::memset(memory, 0, bytes);
  return memory;
}

void* StatePool::allocate_raw_uninitialized(size_t bytes) {
  if (bytes < sizeof(void*)) bytes = sizeof(void*);
  const uint32_t c = class_for(bytes);
  void* memory = c >= kClasses ? nullptr : take_chunk(c);
#ifndef NDEBUG
  // A debug build fills it with a pattern (neither zero nor a valid set),
  // so that a caller reading what it did not write gets a wrong result.
  if (memory != nullptr) __builtin_memset(memory, 0xa5, bytes);
#endif
  return memory;
}

void StatePool::release_raw(void* memory, size_t bytes) {
  if (memory == nullptr) return;
  if (bytes < sizeof(void*)) bytes = sizeof(void*);
  push(class_for(bytes), memory);
}

}  // namespace keel
