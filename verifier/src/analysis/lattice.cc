// The lattice over abstract states: join (with widening at loop heads) and
// inclusion, per register and per stack slot. design.md, "Abstract state"
// and "Join".
//
// Joins and inclusion checks dominate branchy programs
// (docs/performance/profile.md), and the two states they meet share most
// of their contents: the registers a branch did not write, the stack slots
// it did not touch. So both compare first and do the lattice work only
// where the sides differ: a register that is bit for bit the same on both
// sides is its own join and includes itself (join_same, leq_same); stack
// tags are compared eight bytes at a time; spills are looked up only for
// the slots that hold one (the spill index, state.h). And a join of two
// states that spill the same slots alike (or none) happens in place, with
// no fresh state to fill and no copy.
#include "analysis/lattice.h"

#include <cstring>

#include "support/bytes.h"

namespace keel {

// ---- Registers ------------------------------------------------------------------

namespace {

Scalar add_const(const Scalar& s, int64_t c) {
  return alu(AluOp::add, Width::w64, s, Scalar::constant(static_cast<uint64_t>(c)));
}

bool is_lookup_map(MapType type) {
  return type == MapType::array || type == MapType::hash || type == MapType::percpu_array ||
         type == MapType::percpu_hash || type == MapType::lru_hash ||
         type == MapType::lru_percpu_hash || type == MapType::lpm_trie;
}

bool is_percpu(MapType type) {
  return type == MapType::percpu_array || type == MapType::percpu_hash || type == MapType::lru_percpu_hash;
}

bool is_map_kind(RegKind kind) {
  return kind == RegKind::map_ptr || kind == RegKind::map_value || kind == RegKind::map_value_or_null ||
         kind == RegKind::map_ptr_or_null;
}

bool same_region(const RegState& a, const RegState& b, const MapTable& maps) {
  if (a.region != b.region) return is_map_kind(a.kind) && maps.equivalent(a.region, b.region);
  if (a.kind == RegKind::stack && a.frame != b.frame) return false;
  return true;
}

bool is_mem_kind(RegKind kind) { return kind == RegKind::mem || kind == RegKind::mem_or_null; }
bool is_value_kind(RegKind kind) { return kind == RegKind::map_value || kind == RegKind::map_value_or_null; }

// A map value pointer as a pointer into plain memory of the value's size:
// what every check of it needs when the map restricts nothing (no
// read-only or write-only flag, no frozen contents). False otherwise.
bool as_memory(const RegState& r, const MapTable& maps, RegState& out) {
  if (is_mem_kind(r.kind)) {
    out = r;
    return true;
  }
  if (!is_value_kind(r.kind) || !maps.privileged || r.region >= maps.count) return false;
  const MapDescriptor& m = maps.maps[r.region];
  if (m.read_only || m.write_only || m.frozen_value != nullptr) return false;
  out = r;
  out.kind = r.kind == RegKind::map_value ? RegKind::mem : RegKind::mem_or_null;
  out.region = m.value_size;
  return true;
}

// Two pointers into memory regions of different sizes (values of two maps
// that are not alike: Linux checks each path with its own map) as one
// pointer into the bytes both regions surely have around it: from
// min(off) before it to min(size - off) after it, the variable parts
// joined. Each path's own region contains that window, so an access the
// window allows is inside whichever region the pointer is in.
RegState join_memory(const RegState& a, const RegState& b, bool widen_it) {
  RegState r = a;
  r.kind = a.kind == RegKind::mem_or_null || b.kind == RegKind::mem_or_null ? RegKind::mem_or_null : RegKind::mem;
  const int64_t before = a.off < b.off ? a.off : b.off;
  const int64_t after_a = int64_t{a.region} - a.off;
  const int64_t after_b = int64_t{b.region} - b.off;
  const int64_t after = after_a < after_b ? after_a : after_b;
  r.off = static_cast<int32_t>(before);
  r.region = before + after > 0 ? static_cast<uint32_t>(before + after) : 0;
  const Scalar j = join(a.value, b.value);
  r.value = widen_it ? widen(a.value, j) : j;
  r.id = 0;
  r.range = 0;
  return r;
}

// Two pointers into different regions: plain memory when both can be seen
// as such (join_memory), else unusable.
RegState join_apart(const RegState& a, const RegState& b, bool widen_it, const MapTable& maps) {
  RegState xa;
  RegState xb;
  if (as_memory(a, maps, xa) && as_memory(b, maps, xb)) return join_memory(xa, xb, widen_it);
  RegState m;
  m.kind = RegKind::mixed;
  return m;
}

}  // namespace

namespace {

// make_uninit() written as zero bytes: RegState{} is all zero (checked
// here at compile time, and RegState has no padding: same_bits), so the
// two are the same bits. The joins write it for every register uninit on
// either side, most registers of a small function: a memset of 88 bytes is
// six vector stores where the compilers store make_uninit()'s fields one by
// one (fifteen stores on g++ 12).
struct RegBytes {
  uint8_t b[sizeof(RegState)];
};
constexpr bool uninit_is_zero() {
  const RegBytes bytes = __builtin_bit_cast(RegBytes, RegState{});  // make_uninit()
  for (uint8_t x : bytes.b) {
    if (x != 0) return false;
  }
  return true;
}
static_assert(uninit_is_zero());
inline void set_uninit(RegState& r) {
  // Five 16-byte stores and one of 8 (a plain memset of 88 bytes became a
  // loop on g++ 12).
  using Zero16 = uint64_t __attribute__((vector_size(16)));
  static_assert(sizeof(RegState) == 5 * 16 + 8);
  auto* p = reinterpret_cast<uint8_t*>(&r);
  const Zero16 zero{0, 0};
  for (size_t i = 0; i < 5 * 16; i += 16) __builtin_memcpy(p + i, &zero, 16);
  bytes::store<uint64_t>(p + 5 * 16, 0);
}

// join_reg's case of two scalars, written into r, which is a itself or a
// copy of it: every field of a that the case reads is read before r is
// written, so both give the same bits. (Inline: the in-place joins call it
// for a register that is a scalar on both sides, the commonest register
// that differs, without join_reg's call and its 88-byte result through
// memory; join_reg calls it too, so the two cannot part.)
[[gnu::always_inline]] inline void join_scalars(RegState& r, const RegState& a, const RegState& b, bool widen_it,
                                                const MapTable& maps) {
  const uint32_t region = a.region != b.region ? maps.pick(a.region, b.region) : a.region;  // equivalent maps
  // A link survives only where both paths relate the register to the
  // class alike (Link, reg_state.h): the same id, function and delta.
  const bool unlink = a.id != b.id || a.link != b.link || a.off != b.off;
  const bool unref = a.ref != b.ref;
  const Scalar j = join(a.value, b.value);
  const Scalar v = widen_it ? widen(a.value, j) : j;
  r.value = v;
  r.region = region;
  if (unlink) {
    r.id = 0;
    r.link = Link::same;
    r.off = 0;
  }
  if (unref) r.ref = 0;
}

}  // namespace

bool MapTable::equivalent(uint32_t a, uint32_t b) const {
  if (a == b) return true;
  if (a >= count || b >= count) return false;
  const MapDescriptor& x = maps[a];
  const MapDescriptor& y = maps[b];
  if (privileged && x.type == y.type && (x.type == MapType::prog_array || x.type == MapType::perf_event_array)) {
    // Their helpers check only the map's type (tail call and perf output
    // check the index at run time): a tail call through one of two program
    // arrays is what Linux accepts on each path separately. Not for
    // unprivileged programs, whose tail call Linux masks with the one map's
    // size ("tail_call abusing map_ptr" when paths disagree).
    return true;
  }
  // Frozen contents are read as constants: only the same bytes are alike.
  // map_lookup_percpu_elem takes per-CPU maps only, so those are alike only
  // among themselves (a joined map reference is checked as one of the two).
  return is_lookup_map(x.type) && is_lookup_map(y.type) && x.value_size == y.value_size &&
         x.read_only == y.read_only && x.write_only == y.write_only &&
         x.frozen_value == y.frozen_value && is_percpu(x.type) == is_percpu(y.type);
}

uint32_t MapTable::pick(uint32_t a, uint32_t b) const {
  if (a == b || a >= count || b >= count) return a < b ? a : b;
  if (maps[a].key_size != maps[b].key_size) return maps[a].key_size > maps[b].key_size ? a : b;
  return a < b ? a : b;
}

RegState join_reg(const RegState& a, const RegState& b, bool widen_it, const MapTable& maps) {
  if (a.kind == RegKind::uninit || b.kind == RegKind::uninit) return make_uninit();
  if (a.kind == RegKind::mixed || b.kind == RegKind::mixed ||
      (a.is_pointer() && b.is_pointer() && a.ref != b.ref)) {
    // Pointers that depend on different references (or one on none) would
    // outlive the release of either: unusable.
    RegState m;
    m.kind = RegKind::mixed;
    return m;
  }
  if (a.kind != b.kind) {
    // A pointer on one path and NULL on the other is a maybe-NULL pointer
    // (its reference, if any, is kept; join_into decides whether NULL still
    // means "not acquired").
    for (int swap = 0; swap < 2; ++swap) {
      const RegState& p = swap == 0 ? a : b;
      const RegState& o = swap == 0 ? b : a;
      const RegKind maybe = or_null_kind(not_null_kind(p.kind));
      if (p.is_pointer() && maybe != not_null_kind(p.kind) && o.is_null()) {
        RegState r = p;
        r.kind = maybe;
        r.id = 0;
        return r;
      }
    }
    if (is_socket_kind(a.kind) && not_null_kind(a.kind) == not_null_kind(b.kind)) {
      RegState a2 = a;
      RegState b2 = b;
      a2.kind = b2.kind = or_null_kind(a.kind);
      a2.id = b2.id = 0;
      return join_reg(a2, b2, widen_it, maps);
    }
    // map_value with map_value_or_null of the same map.
    const bool ma = a.kind == RegKind::map_value || a.kind == RegKind::map_value_or_null;
    const bool mb = b.kind == RegKind::map_value || b.kind == RegKind::map_value_or_null;
    const bool na = a.kind == RegKind::mem || a.kind == RegKind::mem_or_null;
    const bool nb = b.kind == RegKind::mem || b.kind == RegKind::mem_or_null;
    const bool pa = a.kind == RegKind::map_ptr || a.kind == RegKind::map_ptr_or_null;
    const bool pb = b.kind == RegKind::map_ptr || b.kind == RegKind::map_ptr_or_null;
    if (!((ma && mb) || (na && nb) || (pa && pb)) || !same_region(a, b, maps)) {
      return join_apart(a, b, widen_it, maps);
    }
    RegState a2 = a;
    RegState b2 = b;
    a2.kind = b2.kind = ma   ? RegKind::map_value_or_null
                        : pa ? RegKind::map_ptr_or_null
                             : RegKind::mem_or_null;
    a2.id = b2.id = 0;
    return join_reg(a2, b2, widen_it, maps);
  }
  RegState r = a;
  if (a.kind == RegKind::scalar) {
    join_scalars(r, a, b, widen_it, maps);
    return r;
  }
  if (a.region != b.region) r.region = maps.pick(a.region, b.region);  // equivalent maps
  if (!same_region(a, b, maps)) return join_apart(a, b, widen_it, maps);
  if (a.off == b.off) {
    const Scalar j = join(a.value, b.value);
    r.value = widen_it ? widen(a.value, j) : j;
    r.range = a.range < b.range ? a.range : b.range;
    if (a.id != b.id || !(a.value == b.value)) r.id = 0;
    return r;
  }
  // Different fixed offsets: fold them into the variable part, relative to
  // a common base. Widening keeps `a`'s offset as the base: `a` is the
  // state already at the loop head, so the base stays put from one visit
  // to the next and the widened variable part can stabilise (a base that
  // followed the smaller offset would move every iteration of a loop that
  // steps a pointer, and the fixpoint would never be reached).
  const int32_t m = widen_it ? a.off : (a.off < b.off ? a.off : b.off);
  const Scalar va = add_const(a.value, int64_t{a.off} - m);
  const Scalar vb = add_const(b.value, int64_t{b.off} - m);
  const Scalar j = join(va, vb);
  r.off = m;
  r.value = widen_it ? widen(va, j) : j;
  r.id = 0;
  const int64_t ra = int64_t{a.range} - (int64_t{a.off} - m);
  const int64_t rb = int64_t{b.range} - (int64_t{b.off} - m);
  const int64_t rr = ra < rb ? ra : rb;
  r.range = rr > 0 ? static_cast<int32_t>(rr) : 0;
  return r;
}

bool reg_leq(const RegState& a, const RegState& b, const MapTable& maps) {
  if (b.kind == RegKind::uninit) return true;
  if (a.kind == RegKind::uninit) return false;
  if (b.kind == RegKind::mixed) return true;
  if (a.is_pointer() && a.ref != b.ref) return false;  // (a NULL below b: see state_leq)
  if (a.kind != b.kind) {
    RegState xa;
    if (is_mem_kind(b.kind) && is_value_kind(a.kind)) return as_memory(a, maps, xa) && reg_leq(xa, b, maps);
    if (b.maybe_null()) {
      if (a.is_null()) return true;
      const RegKind base = not_null_kind(b.kind);
      if (a.kind != base) return false;
      RegState a2 = a;
      a2.kind = b.kind;
      return reg_leq(a2, b, maps);
    }
    return false;
  }
  if (b.id != 0 && a.id != b.id) return false;
  if (b.id != 0 && a.kind == RegKind::scalar && (a.link != b.link || a.off != b.off)) return false;
  if (a.kind == RegKind::scalar) return leq(a.value, b.value);
  if (is_mem_kind(a.kind) && a.region != b.region) {
    // b's window around the pointer (join_memory) lies inside a's region.
    return a.off >= b.off && int64_t{b.region} - b.off <= int64_t{a.region} - a.off && leq(a.value, b.value);
  }
  if (!same_region(a, b, maps)) return false;
  if (a.region != b.region && maps.pick(a.region, b.region) != b.region) return false;
  if (a.off == b.off) {
    if (a.range < b.range) return false;
    return leq(a.value, b.value);
  }
  // Offsets are off + value modulo 2^64 in both, so a's set lies in b's when
  // a's variable part moved to b's base does. A proven packet range belongs
  // to its fixed offset: when b claims one, stay conservative.
  if (b.range > 0) return false;
  const int64_t shift = int64_t{a.off} - int64_t{b.off};
  return leq(add_const(a.value, shift), b.value);
}

// ---- Stack slots -------------------------------------------------------------------

namespace {

uint8_t join_tag(uint8_t a, uint8_t b) {
  if (a == b) return a;
  if (a == kTagUninit || b == kTagUninit) return kTagUninit;
  if (a == kTagMixed || b == kTagMixed) return kTagMixed;
  return kTagData;
}

bool tag_leq(uint8_t a, uint8_t b) {
  if (a == b || b == kTagUninit) return true;
  if (a == kTagUninit) return false;
  if (b == kTagMixed) return true;
  return b == kTagData && a == kTagZero;
}

// The two values an unspilled slot of initialized data reads as.
constexpr RegState kZeroSlot = make_scalar(Scalar::constant(0));
constexpr RegState kDataSlot = make_scalar(Scalar::unknown());

// An unspilled slot whose bytes are all initialized data reads as a scalar:
// kZeroSlot when they are all known zero, else kDataSlot (not copied: a
// register is 88 bytes). nullptr when some byte is not data.
const RegState* slot_as_scalar(const uint8_t* tags) {
  bool all_zero = true;
  for (int i = 0; i < 8; ++i) {
    if (tags[i] != kTagZero && tags[i] != kTagData) return nullptr;
    all_zero = all_zero && tags[i] == kTagZero;
  }
  return all_zero ? &kZeroSlot : &kDataSlot;
}

// The byte tags a spilled register decays to when its slot loses precision.
void spill_tags(const RegState& reg, uint8_t* tags) {
  const uint8_t t = reg.kind == RegKind::scalar ? (reg.is_null() ? kTagZero : kTagData) : kTagMixed;
  for (int i = 0; i < 8; ++i) tags[i] = t;
}

// The same for a whole slot with tags `own`: a 32-bit spill decays only
// its own bytes.
void spill_slot_tags(const Spill& spill, const uint8_t* own, uint8_t* tags) {
  spill_tags(spill.reg, tags);
  for (int i = spill.narrow; spill.narrow != 0 && i < 8; ++i) tags[i] = own[i];
}

// On side `x` (of state `s`) of a join whose result is a maybe-NULL pointer
// holding `ref`: whether NULL there means the reference is not held. True
// for the acquiring helper's result (id == ref), for a pointer known not
// NULL, and for NULL itself where the reference is surely not held.
bool null_means_unheld(const RegState& x, uint32_t ref, const State& s) {
  if (x.is_null()) return !s.holds(ref) && s.refs_lost == 0;
  return x.ref == ref && (!x.maybe_null() || x.id == ref);
}

// join_reg, then the reference facts only the two states know: a
// maybe-NULL result still "owns" its reference (a NULL check that finds
// NULL drops it, branch.cc) only when that holds on both sides. (Inlined
// everywhere: a call, with its 88-byte result through memory, cost the
// in-place join of the diamonds benchmark more than its other changes.)
[[gnu::always_inline]] inline RegState join_reg_in(const RegState& a, const RegState& b, const State& sa,
                                                   const State& sb, bool widen_it, const MapTable& maps) {
  RegState r = join_reg(a, b, widen_it, maps);
  if (r.ref != 0 && r.maybe_null()) {
    r.id = null_means_unheld(a, r.ref, sa) && null_means_unheld(b, r.ref, sb) ? r.ref : 0;
  }
  return r;
}

// The references that may be held after a join: those of either side (a
// path that released one joins one that did not: the exit check then sees
// it). More than fit set refs_lost.
void join_refs(State& r, const State& a, const State& b) {
  if (&r != &a) r.copy_refs(a);
  r.refs_lost = static_cast<uint8_t>(a.refs_lost | b.refs_lost);
  for (uint32_t i = 0; i < b.ref_count; ++i) {
    if (r.holds(b.refs[i])) continue;
    if (r.ref_count == kMaxReferences) {
      r.refs_lost = 1;
      continue;
    }
    r.refs[r.ref_count++] = b.refs[i];
  }
}

// state_leq's part for references: a's possibly held references are b's,
// and where b says NULL means "not acquired", a's NULL means that too.
bool refs_leq(const State& a, const State& b) {
  if (a.refs_lost > b.refs_lost) return false;
  for (uint32_t i = 0; i < a.ref_count; ++i) {
    if (!b.holds(a.refs[i]) && b.refs_lost == 0) return false;
  }
  return true;
}

bool owner_leq(const RegState& ra, const RegState& rb, const State& a) {
  return !rb.owns_ref() || !ra.is_null() || (!a.holds(rb.ref) && a.refs_lost == 0);
}

}  // namespace

namespace {

// Whether two registers are the same bits (no padding: reg_state.h
// static_asserts the size, every field counts).
// The compare goes 16 bytes at a time through the compilers' generic
// vectors (SSE2 on x86-64, NEON on AArch64, pairs of words where there is
// no vector unit): this compare runs for every register and spilled value
// of every join and inclusion check.
using Bytes16 = uint64_t __attribute__((vector_size(16)));
bool same_bits(const RegState& a, const RegState& b) {
  static_assert(sizeof(RegState) == 5 * 16 + 8);
  const auto* pa = reinterpret_cast<const uint8_t*>(&a);
  const auto* pb = reinterpret_cast<const uint8_t*>(&b);
  Bytes16 diff{0, 0};
  for (size_t i = 0; i < 5 * 16; i += 16) {
    Bytes16 x;
    Bytes16 y;
    __builtin_memcpy(&x, pa + i, 16);
    __builtin_memcpy(&y, pb + i, 16);
    diff |= x ^ y;
  }
  const uint64_t tail = bytes::load<uint64_t>(pa + 5 * 16) ^ bytes::load<uint64_t>(pb + 5 * 16);
  return (diff[0] | diff[1] | tail) == 0;
}

// Whether the join of a register with its own bits is the register
// itself. That is the rule, not a computation: a register the two states
// hold bit for bit alike is kept as it is, as the join of the states
// (join is idempotent; design.md, "Join"). Scalar join() would reduce it
// once more, and reduce() is bounded rather than idempotent on every
// value, so it could tighten a range the transfer left loose; kept as it
// is, the value still contains itself, which is all soundness asks, and
// the join costs nothing where nothing differs. What does not hold for the
// same bits: an uninit or mixed register other than join_reg's fresh one
// (every other field zero), whose stale fields join_reg drops, and a
// maybe-NULL pointer holding a reference under another id, whose id
// join_reg_in clears.
bool join_same(const RegState& x) {
  if (x.kind == RegKind::uninit || x.kind == RegKind::mixed) {
    RegState fresh;
    fresh.kind = x.kind;
    return same_bits(x, fresh);
  }
  return !(x.ref != 0 && x.maybe_null() && x.id != x.ref);
}

// join_reg_in of a register uninit on either side: join_reg's fresh
// uninit register (its first case), which join_reg_in keeps (its ref is
// 0). Most registers of a small function are never written, so this is
// the common case of a join, decided on the kinds alone.
bool joins_to_uninit(const RegState& a, const RegState& b) {
  return a.kind == RegKind::uninit || b.kind == RegKind::uninit;
}

// Whether reg_leq(x, x) and owner_leq(x, x, ·) hold: for every register
// whose tnum is well formed (no bit both known and unknown), as every
// comparison in reg_leq is then reflexive and owner_leq needs a NULL
// scalar on the left where the right owns a reference.
bool leq_same(const RegState& x) { return (x.value.bits.value & x.value.bits.mask) == 0; }

// join_reg_in of two spilled values, with the registers' shortcut: the
// same bits whose join is themselves (join_same) are the result. A spill
// that neither path touched is the common case.
RegState join_spilled_value(const RegState& x, const RegState& y, const State& sx, const State& sy, bool widen_it,
                            const MapTable& maps) {
  if (same_bits(x, y) && join_same(x)) return x;
  return join_reg_in(x, y, sx, sy, widen_it, maps);
}

// reg_leq and owner_leq of two spilled values, with the registers'
// shortcut (leq_same: both hold for the same bits).
bool spilled_value_leq(const RegState& x, const RegState& y, const State& sx, const MapTable& maps) {
  if (same_bits(x, y) && leq_same(x)) return true;
  return reg_leq(x, y, maps) && owner_leq(x, y, sx);
}

// The spills of one frame of a state, met in slot order. Through the
// spill index (state.h), the frame's entries are a run of the sorted list
// in slot order, and `mask`, its Frame::spilled, says which slots they
// name: a walk over the slots from `from` upwards that asks every slot it
// passes whose mask bit is set (and no slot twice) meets them one after
// the other, so `next` is the entry of the next spilled slot and a lookup
// is one bit test, no count. The join and the inclusion check walk so:
// their loops skip only chunks without a mask bit on either side, and ask
// every other slot once. A debug build checks each answer against
// State::find_spill.
class SpillCursor {
 public:
  SpillCursor(const State& s, uint32_t frame, uint32_t from)
      : mask_(s.frames()[frame].spilled), next_(mask_ == 0 ? nullptr : s.spills() + s.spill_index(frame, from)) {
    static_assert(kSlotCount == 64, "one bit per slot");
#ifndef NDEBUG
    state_ = &s;
    frame_ = frame;
#endif
  }
  uint64_t mask() const { return mask_; }
  // The spill of `slot` (or nullptr), for slots asked in increasing order.
  const Spill* take(uint32_t slot) {
    const Spill* spill = ((mask_ >> slot) & 1u) != 0 ? next_++ : nullptr;
#ifndef NDEBUG
    if (spill != state_->find_spill(frame_, slot)) __builtin_trap();
#endif
    return spill;
  }

 private:
  uint64_t mask_;
  const Spill* next_;  // (no frame without spills counts its place)
#ifndef NDEBUG
  const State* state_;
  uint32_t frame_;
#endif
};

// Whether the stack tags of slots [8 * c, 8 * c + 8) are the same on both
// sides: a frame's 512 tags in eight 64-byte chunks, so that the common
// case (equal stacks, or a few slots apart) costs a few compares.
constexpr uint32_t kChunkSlots = 8;
constexpr uint64_t kChunkMask = (uint64_t{1} << kChunkSlots) - 1;  // a chunk's bits in Frame::spilled
bool same_chunk(const uint8_t* ta, const uint8_t* tb) {
  uint64_t diff = 0;
  for (uint32_t i = 0; i < kChunkSlots * 8; i += 8) {
    diff |= bytes::load<uint64_t>(ta + i) ^ bytes::load<uint64_t>(tb + i);
  }
  return diff == 0;
}

// The first slot, a multiple of kChunkSlots, whose chunk may hold a tag
// other than kTagUninit on either side: below both frames' watermarks
// (Frame::stack_low) every tag is kTagUninit on both sides, which is its
// own join and includes itself; and no spill is there (a spill's slot is
// kTagSpill). So the chunks below it are what the loops over chunks would
// find equal and unspilled.
uint32_t first_used_chunk(const Frame& a, const Frame& b) {
  const uint32_t low = a.stack_low < b.stack_low ? a.stack_low : b.stack_low;
  return low / (kChunkSlots * 8) * kChunkSlots;
}

// The join of two unspilled slots' tags into `tr` (which may be `ta`).
void join_slot_tags(const uint8_t* ta, const uint8_t* tb, uint8_t* tr) {
  for (int i = 0; i < 8; ++i) tr[i] = join_tag(ta[i], tb[i]);
}

// An added last entry of r's spill list, for (f, slot): the join goes through
// frames and slots in order, so the list stays sorted (state.h's spill
// index), and the frame's mask gets the slot's bit.
Spill& append_spill(State& r, uint32_t f, uint32_t slot) {
  Spill& s = r.spills()[r.spill_count++];
  s.frame = static_cast<uint8_t>(f);
  s.slot = static_cast<uint8_t>(slot);
  r.frames()[f].spilled |= uint64_t{1} << slot;
  return s;
}

// The join of a slot that holds a spill on at least one side.
void join_spilled_slot(State& r, const State& a, const State& other, SpillCursor& spills_a, SpillCursor& spills_b,
                       uint32_t f, uint32_t slot, bool widen_it, const MapTable& maps) {
  const uint8_t* ta = a.frames()[f].tags + slot * 8;
  const uint8_t* tb = other.frames()[f].tags + slot * 8;
  uint8_t* tr = r.frames()[f].tags + slot * 8;
  const Spill* sa = spills_a.take(slot);
  const Spill* sb = spills_b.take(slot);
  const bool na = sa != nullptr && sa->narrow != 0;
  const bool nb = sb != nullptr && sb->narrow != 0;
  if (na && nb && sa->narrow == sb->narrow) {
    // Two 32-bit spills stay one; the rest of the slot joins byte by byte.
    Spill& s = append_spill(r, f, slot);
    s.narrow = sa->narrow;
    s.unused = 0;
    s.reg = join_spilled_value(sa->reg, sb->reg, a, other, widen_it, maps);
    for (int i = 0; i < 8; ++i) tr[i] = i < sa->narrow ? uint8_t{kTagSpill} : join_tag(ta[i], tb[i]);
    return;
  }
  // The values as registers: a spill's own (not copied: 88 bytes), or the
  // bytes read as a scalar. A 32-bit spill is not the whole slot's value:
  // it joins as bytes.
  const RegState* ra = sa != nullptr ? &sa->reg : slot_as_scalar(ta);
  const RegState* rb = sb != nullptr ? &sb->reg : slot_as_scalar(tb);
  const bool ha = sa != nullptr ? !na : ra != nullptr;
  const bool hb = sb != nullptr ? !nb : rb != nullptr;
  if (ha && hb) {
    Spill& s = append_spill(r, f, slot);
    s.narrow = 0;
    s.unused = 0;
    s.reg = join_spilled_value(*ra, *rb, a, other, widen_it, maps);
    for (int i = 0; i < 8; ++i) tr[i] = kTagSpill;
    return;
  }
  uint8_t xa[8];
  uint8_t xb[8];
  if (sa != nullptr) spill_slot_tags(*sa, ta, xa); else std::memcpy(xa, ta, 8);
  if (sb != nullptr) spill_slot_tags(*sb, tb, xb); else std::memcpy(xb, tb, 8);
  for (int i = 0; i < 8; ++i) tr[i] = join_tag(xa[i], xb[i]);
}

// Whether the spill lists of a and b name the same slots with the same
// widths. By the spill index (state.h), equal masks in every frame mean
// lists of one length whose i-th entries name the same frame and slot;
// then join_spilled_slot keeps a spill of that width at every one of them
// and nowhere else (its first two cases), so the join's list is a's entry
// by entry and the join can happen in place (join_in_place). Two lists
// without spills are aligned.
bool spills_aligned(const State& a, const State& b) {
  if (a.spill_count != b.spill_count) return false;
  for (uint32_t f = 0; f < a.frame_count; ++f) {
    if (a.frames()[f].spilled != b.frames()[f].spilled) return false;
  }
  for (uint32_t i = 0; i < a.spill_count; ++i) {
    if (a.spills()[i].narrow != b.spills()[i].narrow) return false;
  }
  return true;
}

constexpr uint64_t kSpillTags = 0x0101010101010101u * kTagSpill;  // eight kTagSpill bytes

// join_spilled_slot's result for a slot both sides spill with one width,
// into a's entry `x` and a's tags `ta` of the slot: one spill of that
// width holding join_spilled_value of the two values (left as it is when
// that is x's value itself: same bits and join_same), its own bytes
// kTagSpill, and a narrow spill's other bytes joined tag by tag.
[[gnu::always_inline]] inline void join_aligned_spill(Spill& x, const Spill& y, uint8_t* ta, const uint8_t* tb, const State& a, const State& other,
                        bool widen_it, const MapTable& maps) {
  if (!(same_bits(x.reg, y.reg) && join_same(x.reg))) x.reg = join_reg_in(x.reg, y.reg, a, other, widen_it, maps);
  x.unused = 0;
  if (x.narrow == 0) {
    bytes::store<uint64_t>(ta, kSpillTags);  // the whole slot
    return;
  }
  for (int i = 0; i < 8; ++i) ta[i] = i < x.narrow ? uint8_t{kTagSpill} : join_tag(ta[i], tb[i]);
}

// The registers of frame fa (of state a) joined with fb's (of `other`) in
// place, as join_fresh joins them: join_reg_in's result where the two
// differ (or the value is not its own join), the register itself where
// it is; then fa's watermark lowered to first_used_chunk, which is
// returned (the tags below it are kTagUninit on both sides and stay so).
[[gnu::always_inline]] inline uint32_t join_frame_head(Frame& fa, const Frame& fb, const State& a, const State& other,
                                                       bool widen_it, const MapTable& maps) {
  for (uint32_t i = 0; i < kRegisterCount; ++i) {
    if (joins_to_uninit(fa.regs[i], fb.regs[i])) {
      set_uninit(fa.regs[i]);
      continue;
    }
    if (same_bits(fa.regs[i], fb.regs[i]) && join_same(fa.regs[i])) continue;
    if (fa.regs[i].kind == RegKind::scalar && fb.regs[i].kind == RegKind::scalar) {
      // join_reg_in of two scalars: join_reg's scalar case (its earlier
      // cases need an uninit or mixed side, or two pointers), and no
      // reference fact to add as a scalar is never maybe-NULL.
      join_scalars(fa.regs[i], fa.regs[i], fb.regs[i], widen_it, maps);
      continue;
    }
    fa.regs[i] = join_reg_in(fa.regs[i], fb.regs[i], a, other, widen_it, maps);
  }
  const uint32_t first = first_used_chunk(fa, fb);
  fa.stack_low = first * 8 < fa.stack_low ? first * 8 : fa.stack_low;
  return first;
}

// The join of two states whose spills are aligned (spills_aligned), into
// `a` itself: registers, stack tags and spilled values that differ are
// overwritten, the rest is already the result (join_fresh builds the same
// in a fresh state; lattice_test compares the two). The spill list and the
// masks stay a's. Below first_used_chunk no slot is spilled (a spill's
// bytes are kTagSpill, above the watermark), so the walk from there meets
// every entry of the frame. The references go last, as join_reg_in reads
// both sides' lists.
void join_in_place(State& a, const State& other, bool widen_it, const MapTable& maps) {
  for (uint32_t f = 0; f < a.frame_count; ++f) {
    Frame& fa = a.frames()[f];
    const Frame& fb = other.frames()[f];
    const uint32_t first = join_frame_head(fa, fb, a, other, widen_it, maps);
    const uint64_t spilled = fa.spilled;  // fb's too
    // The entries of frame f from slot `first`, at the same index in both lists.
    const uint32_t at = spilled == 0 ? 0 : a.spill_index(f, first);
    Spill* sa = a.spills() + at;
    const Spill* sb = other.spills() + at;
    for (uint32_t chunk = first; chunk < kSlotCount; chunk += kChunkSlots) {
      if ((spilled >> chunk & kChunkMask) == 0 && same_chunk(fa.tags + chunk * 8, fb.tags + chunk * 8)) continue;
      for (uint32_t slot = chunk; slot < chunk + kChunkSlots; ++slot) {
        uint8_t* ta = fa.tags + slot * 8;
        const uint8_t* tb = fb.tags + slot * 8;
        if ((spilled >> slot & 1u) != 0) {
          join_aligned_spill(*sa++, *sb++, ta, tb, a, other, widen_it, maps);
          continue;
        }
        if (bytes::load<uint64_t>(ta) != bytes::load<uint64_t>(tb)) join_slot_tags(ta, tb, ta);
      }
    }
  }
  join_refs(a, a, other);
}


// Whether the join of a and b keeps no spill that a lacks, so that it can
// be built in a itself (join_in_place_dropping) although the spill sets
// differ. join_spilled_slot gives a slot that a does not spill a spill only
// in its second case: b spills a whole register there (not narrow) and a's
// bytes read as a scalar (slot_as_scalar). Every other slot a lacks ends
// as joined tags (its third case), or, spilled on neither side, as tags.
bool spills_shrink(const State& a, const State& b) {
  for (uint32_t f = 0; f < a.frame_count; ++f) {
    const Frame& fa = a.frames()[f];
    for (uint64_t only_b = b.frames()[f].spilled & ~fa.spilled; only_b != 0; only_b &= only_b - 1) {
      const auto slot = static_cast<uint32_t>(__builtin_ctzll(only_b));
      if (b.find_spill(f, slot)->narrow == 0 && slot_as_scalar(fa.tags + slot * 8) != nullptr) return false;
    }
  }
  return true;
}

// The join of a and `other` when their spills differ but the result spills
// no slot that a does not (spills_shrink), into `a` itself: what join_fresh
// builds, slot by slot after join_spilled_slot's three cases, with a's
// spill list compacted in place. The list is sorted by (frame, slot) and
// the walk below meets a's entries in that order (frames in order, and in
// each frame every slot from first_used_chunk up that is not in a chunk
// without spills on either side; no spill lies below the watermark), so
// entry `read` is the spill of the slot at hand and the kept entries move
// down to `write` <= `read`: the list stays sorted, and each frame's mask
// loses the bits of the slots whose spill decays. lattice_test compares
// this with join_fresh bit for bit.
void join_in_place_dropping(State& a, const State& other, bool widen_it, const MapTable& maps) {
  Spill* const list = a.spills();
  uint32_t read = 0;
  uint32_t write = 0;
  for (uint32_t f = 0; f < a.frame_count; ++f) {
    Frame& fa = a.frames()[f];
    const Frame& fb = other.frames()[f];
    const uint32_t first = join_frame_head(fa, fb, a, other, widen_it, maps);
    const uint64_t mask_a = fa.spilled;
    SpillCursor spills_b(other, f, first);
    const uint64_t spilled = mask_a | spills_b.mask();
    for (uint32_t chunk = first; chunk < kSlotCount; chunk += kChunkSlots) {
      if ((spilled >> chunk & kChunkMask) == 0 && same_chunk(fa.tags + chunk * 8, fb.tags + chunk * 8)) continue;
      for (uint32_t slot = chunk; slot < chunk + kChunkSlots; ++slot) {
        uint8_t* ta = fa.tags + slot * 8;
        const uint8_t* tb = fb.tags + slot * 8;
        if ((spilled >> slot & 1u) == 0) {
          if (bytes::load<uint64_t>(ta) != bytes::load<uint64_t>(tb)) join_slot_tags(ta, tb, ta);
          continue;
        }
        const Spill* sb = spills_b.take(slot);
        if ((mask_a >> slot & 1u) != 0) {
          Spill& x = list[read++];
#ifndef NDEBUG
          if (x.frame != f || x.slot != slot) __builtin_trap();
#endif
          const RegState* rb = nullptr;
          if (sb != nullptr && sb->narrow == x.narrow) {
            // join_spilled_slot's first case (two narrow spills of one
            // width) or second (two whole ones): join_aligned_spill.
            join_aligned_spill(x, *sb, ta, tb, a, other, widen_it, maps);
          } else if (sb == nullptr && x.narrow == 0 && (rb = slot_as_scalar(tb)) != nullptr) {
            // The second case with b's bytes read as a scalar: the spill
            // stays, its value joined as join_spilled_value joins it.
            if (!(same_bits(x.reg, *rb) && join_same(x.reg))) x.reg = join_reg_in(x.reg, *rb, a, other, widen_it, maps);
            x.unused = 0;
            bytes::store<uint64_t>(ta, kSpillTags);
          } else {
            // The third case: the slot decays to tags, the entry goes.
            uint8_t xa[8];
            uint8_t xb[8];
            spill_slot_tags(x, ta, xa);
            if (sb != nullptr) spill_slot_tags(*sb, tb, xb); else std::memcpy(xb, tb, 8);
            for (int i = 0; i < 8; ++i) ta[i] = join_tag(xa[i], xb[i]);
            fa.spilled &= ~(uint64_t{1} << slot);
            continue;
          }
          if (write != read - 1) list[write] = x;
          ++write;
          continue;
        }
        // b alone spills the slot, which decays (spills_shrink): the third
        // case with a's own tags.
        uint8_t xb[8];
        spill_slot_tags(*sb, tb, xb);
        for (int i = 0; i < 8; ++i) ta[i] = join_tag(ta[i], xb[i]);
      }
    }
  }
  a.spill_count = static_cast<uint16_t>(write);
  join_refs(a, a, other);
}
}  // namespace

bool join_into(StatePool& pool, State*& into, const State& other, bool widen_it,
               const MapTable& maps) {
  if (spills_aligned(*into, other)) {
    join_in_place(*into, other, widen_it, maps);
    return true;
  }
  if (spills_shrink(*into, other)) {
    join_in_place_dropping(*into, other, widen_it, maps);
    return true;
  }
  return join_fresh(pool, into, other, widen_it, maps);
}

bool join_fresh(StatePool& pool, State*& into, const State& other, bool widen_it, const MapTable& maps) {
  State* a = into;
  State* r = pool.allocate(a->frame_count, a->spill_count + other.spill_count + 2);
  if (r == nullptr) return false;
  const uint16_t capacity = r->spill_capacity;
  join_refs(*r, *a, other);
  for (uint32_t f = 0; f < a->frame_count; ++f) {
    const Frame& fa = a->frames()[f];
    const Frame& fb = other.frames()[f];
    Frame& fr = r->frames()[f];
    fr.function = fa.function;
    fr.call_pc = fa.call_pc;
    fr.unused = 0;
    fr.spilled = 0;  // join_spilled_slot sets the bits of the slots it spills
    for (uint32_t i = 0; i < kRegisterCount; ++i) {
      fr.regs[i] = joins_to_uninit(fa.regs[i], fb.regs[i])                       ? make_uninit()
                   : same_bits(fa.regs[i], fb.regs[i]) && join_same(fa.regs[i]) ? fa.regs[i]
                                                                                 : join_reg_in(fa.regs[i], fb.regs[i], *a, other, widen_it, maps);
    }
    const uint32_t first = first_used_chunk(fa, fb);
    SpillCursor spills_a(*a, f, first);
    SpillCursor spills_b(other, f, first);
    const uint64_t spilled = spills_a.mask() | spills_b.mask();
    std::memset(fr.tags, kTagUninit, first * 8);
    fr.stack_low = first * 8;
    for (uint32_t slot = first; slot < kSlotCount; ++slot) {
      if (slot % kChunkSlots == 0 && (spilled >> slot & kChunkMask) == 0 &&
          same_chunk(fa.tags + slot * 8, fb.tags + slot * 8)) {
        std::memcpy(fr.tags + slot * 8, fa.tags + slot * 8, kChunkSlots * 8);  // eight equal unspilled slots
        slot += kChunkSlots - 1;
        continue;
      }
      if ((spilled >> slot & 1u) != 0) {
        join_spilled_slot(*r, *a, other, spills_a, spills_b, f, slot, widen_it, maps);
        continue;
      }
      const uint8_t* ta = fa.tags + slot * 8;
      const uint8_t* tb = fb.tags + slot * 8;
      uint8_t* tr = fr.tags + slot * 8;
      // Most slots hold the same tags on both sides (untouched, or
      // written alike), which join to themselves: 8 at a time.
      const auto same = bytes::load<uint64_t>(ta);
      if (same == bytes::load<uint64_t>(tb)) {
        bytes::store<uint64_t>(tr, same);
        continue;
      }
      join_slot_tags(ta, tb, tr);
    }
  }
  r->spill_capacity = capacity;
  pool.release(a);
  into = r;
  return true;
}

bool state_leq(const State& a, const State& b, const MapTable& maps) {
  if (a.frame_count != b.frame_count) return false;
  if ((a.ref_count != 0 || b.ref_count != 0 || a.refs_lost != 0) && !refs_leq(a, b)) return false;
  for (uint32_t f = 0; f < a.frame_count; ++f) {
    const Frame& fa = a.frames()[f];
    const Frame& fb = b.frames()[f];
    for (uint32_t i = 0; i < kRegisterCount; ++i) {
      const RegState& ra = fa.regs[i];
      const RegState& rb = fb.regs[i];
      // An uninit b includes everything: reg_leq's first case, and
      // owner_leq holds as b owns no reference.
      if (rb.kind == RegKind::uninit) continue;
      if (same_bits(ra, rb) && leq_same(ra)) continue;
      if (!reg_leq(ra, rb, maps) || !owner_leq(ra, rb, a)) return false;
    }
    const uint32_t first = first_used_chunk(fa, fb);
    SpillCursor spills_a(a, f, first);
    SpillCursor spills_b(b, f, first);
    const uint64_t spilled_a = spills_a.mask();
    const uint64_t spilled_b = spills_b.mask();
    for (uint32_t slot = first; slot < kSlotCount; ++slot) {
      if (slot % kChunkSlots == 0 && ((spilled_a | spilled_b) >> slot & kChunkMask) == 0 &&
          same_chunk(fa.tags + slot * 8, fb.tags + slot * 8)) {
        slot += kChunkSlots - 1;  // eight equal unspilled slots
        continue;
      }
      const uint8_t* ta = fa.tags + slot * 8;
      const uint8_t* tb = fb.tags + slot * 8;
      const bool in_a = (spilled_a >> slot & 1u) != 0;
      const bool in_b = (spilled_b >> slot & 1u) != 0;
      if (!in_a && !in_b && bytes::load<uint64_t>(ta) == bytes::load<uint64_t>(tb)) continue;  // equal tags
      const Spill* sa = spills_a.take(slot);
      const Spill* sb = spills_b.take(slot);
      if (sb != nullptr && sb->narrow != 0) {
        // b's 32-bit spill covers one of the same size whose value it
        // covers, and the rest of the slot byte by byte.
        if (sa == nullptr || sa->narrow != sb->narrow) return false;
        if (!(same_bits(sa->reg, sb->reg) && leq_same(sa->reg)) && !reg_leq(sa->reg, sb->reg, maps)) return false;
        for (int i = sb->narrow; i < 8; ++i) {
          if (!tag_leq(ta[i], tb[i])) return false;
        }
        continue;
      }
      if (sb != nullptr) {
        if (sa != nullptr && sa->narrow != 0) return false;  // b's value is the whole slot's; a knows 4 bytes of it
        const RegState* ra = sa != nullptr ? &sa->reg : slot_as_scalar(ta);
        if (ra == nullptr || !spilled_value_leq(*ra, sb->reg, a, maps)) return false;
        continue;
      }
      uint8_t xa[8];
      if (sa != nullptr) spill_slot_tags(*sa, ta, xa); else std::memcpy(xa, ta, 8);
      for (int i = 0; i < 8; ++i) {
        if (!tag_leq(xa[i], tb[i])) return false;
      }
    }
  }
  return true;
}

}  // namespace keel
