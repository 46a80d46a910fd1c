// The state lattice's shortcuts (analysis/lattice.cc) against the
// register-level operations they stand in for: a register equal on both
// sides of a join is kept (but where join_reg drops stale fields, and with
// join_into's reference rule), never anything else; a join with spills (a fresh state)
// and one without (in place) agree on everything but the spilled slot;
// stack tags join byte by byte wherever they differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "analysis/state.h"

namespace keel {
namespace {

struct Pool {
  std::vector<uint64_t> memory = std::vector<uint64_t>(1 << 16);
  Arena arena{reinterpret_cast<uint8_t*>(memory.data()), memory.size() * sizeof(uint64_t)};
  StatePool states{arena};

  // One frame, every register `r`, the stack uninitialized.
  State* make(const RegState& r) {
    State* s = states.allocate(1, 4);
    EXPECT_NE(s, nullptr);
    Frame& f = s->frames()[0];
    f.function = 0;
    f.call_pc = 0;
    for (RegState& reg : f.regs) reg = r;
    clear_stack(f);
    return s;
  }
};

// Sets n tags of frame 0 from `index`, as the transfer functions do: the
// watermark lowered first (state.h).
void put_tags(State* s, uint32_t index, uint8_t tag, size_t n) {
  note_stack_write(s->frames()[0], index);
  std::memset(s->frames()[0].tags + index, tag, n);
}

// Spills `reg` to `slot` of frame 0 (its first `narrow` bytes; 0: all 8)
// as the transfer functions do: an entry in its place in the spill list
// (state.h's spill index), its bytes tagged kTagSpill.
void put_spill(State* s, uint32_t slot, uint8_t narrow, const RegState& reg) {
  ASSERT_LT(s->spill_count, s->spill_capacity);
  Spill* spill = s->add_spill(0, slot);
  spill->narrow = narrow;
  spill->reg = reg;
  put_tags(s, 8 * slot, kTagSpill, narrow == 0 ? 8 : narrow);
}

bool same_bits(const RegState& a, const RegState& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// join_into's register result for a register equal on both sides: the
// register itself (join is idempotent, lattice.cc's join_same), except an
// uninit or mixed one, which becomes join_reg's fresh register, and a
// maybe-NULL pointer holding its reference under another id, which loses
// the id (a non-NULL side means "not acquired" when NULL only where the id
// is the reference's).
RegState expected_self_join(const RegState& x, bool widen) {
  if (x.kind == RegKind::uninit || x.kind == RegKind::mixed) return join_reg(x, x, widen, MapTable{});
  if (x.ref != 0 && x.maybe_null() && x.id != x.ref) {
    RegState r = join_reg(x, x, widen, MapTable{});
    r.id = 0;
    return r;
  }
  return x;
}

std::vector<RegState> samples() {
  std::vector<RegState> out;
  out.push_back(make_uninit());
  RegState released = make_uninit();
  released.ref = ref_of_pc(4);  // names the reference a released value came from
  out.push_back(released);
  RegState mixed;
  mixed.kind = RegKind::mixed;
  out.push_back(mixed);
  mixed.ref = 7;
  out.push_back(mixed);
  out.push_back(make_scalar(Scalar::constant(3)));
  out.push_back(make_scalar(Scalar::unknown()));
  out.push_back(make_scalar(Scalar::from_urange(0, 100)));
  RegState linked = make_scalar(Scalar::from_urange(10, 20));
  linked.id = 4;
  linked.off = 2;
  out.push_back(linked);
  // Not reduced: the signed bounds follow from the unsigned ones.
  Scalar loose;
  loose.umax = 10;
  out.push_back(make_scalar(loose));
  // A known tnum with wider bounds than Scalar::constant's.
  Scalar known;
  known.bits = Tnum::constant(5);
  out.push_back(make_scalar(known));
  out.push_back(make_pointer(RegKind::ctx));
  out.push_back(make_pointer(RegKind::stack, 0, -8));
  RegState packet = make_pointer(RegKind::packet, 0, 14);
  packet.range = 20;
  packet.id = 3;
  out.push_back(packet);
  packet.value = Scalar::from_urange(0, 255);
  out.push_back(packet);
  RegState owner = make_pointer(RegKind::sock_or_null);
  owner.ref = owner.id = ref_of_pc(9);
  out.push_back(owner);
  RegState copy_of_owner = owner;
  copy_of_owner.id = 12;  // maybe-NULL, holding the reference under another id
  out.push_back(copy_of_owner);
  RegState value = make_pointer(RegKind::map_value_or_null, 1, 0);
  value.id = 6;
  out.push_back(value);
  return out;
}

TEST(Lattice, EqualRegistersJoinAsJoinRegSays) {
  for (const bool widen : {false, true}) {
    for (const RegState& x : samples()) {
      Pool pool;
      State* a = pool.make(x);
      const State* b = pool.make(x);
      ASSERT_TRUE(join_into(pool.states, a, *b, widen, MapTable{}));
      const RegState want = expected_self_join(x, widen);
      for (const RegState& r : a->frames()[0].regs) {
        EXPECT_TRUE(same_bits(r, want)) << reg_kind_name(x.kind) << " widen " << widen;
      }
    }
  }
}

TEST(Lattice, EqualStatesIncludeEachOther) {
  for (const RegState& x : samples()) {
    Pool pool;
    const State* a = pool.make(x);
    const State* b = pool.make(x);
    EXPECT_EQ(state_leq(*a, *b, MapTable{}), reg_leq(x, x, MapTable{})) << reg_kind_name(x.kind);
    EXPECT_TRUE(state_leq(*a, *b, MapTable{})) << reg_kind_name(x.kind);
  }
}

// The same for a value spilled alike on both sides, whole-slot and 4-byte
// (the join's spilled-slot path, and inclusion of those slots).
TEST(Lattice, EqualSpillsJoinAsJoinRegSays) {
  for (const bool widen : {false, true}) {
    for (const uint8_t narrow : {uint8_t{0}, uint8_t{4}}) {
      for (const RegState& x : samples()) {
        if (narrow != 0 && x.kind != RegKind::scalar) continue;  // only scalars spill narrow
        Pool pool;
        State* a = pool.make(make_uninit());
        State* b = pool.make(make_uninit());
        for (State* s : {a, b}) {
          put_spill(s, 5, narrow, x);
        }
        EXPECT_TRUE(state_leq(*a, *b, MapTable{})) << reg_kind_name(x.kind) << " narrow " << int{narrow};
        ASSERT_TRUE(join_into(pool.states, a, *b, widen, MapTable{}));
        const Spill* s = a->find_spill(0, 5);
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(s->narrow, narrow);
        EXPECT_TRUE(same_bits(s->reg, expected_self_join(x, widen)))
            << reg_kind_name(x.kind) << " widen " << widen << " narrow " << int{narrow};
      }
    }
  }
}

// A register uninit on one side joins to join_reg's fresh uninit register
// whatever the other side holds (both orders, both join paths), and an
// uninit register includes every other but is included only in uninit.
TEST(Lattice, UninitOnEitherSideJoinsAndIncludesAsJoinRegSays) {
  RegState released = make_uninit();
  released.ref = ref_of_pc(4);
  for (const RegState& u : {make_uninit(), released}) {
    for (const RegState& x : samples()) {
      for (const bool spilled : {false, true}) {
        for (const bool uninit_first : {false, true}) {
          Pool pool;
          State* a = pool.make(uninit_first ? u : x);
          State* b = pool.make(uninit_first ? x : u);
          if (spilled) {  // the join that builds a fresh state
            put_spill(b, 2, 0, make_scalar(Scalar::constant(1)));
          }
          const RegState want = join_reg(a->frames()[0].regs[0], b->frames()[0].regs[0], false, MapTable{});
          EXPECT_TRUE(same_bits(want, make_uninit()));
          ASSERT_TRUE(join_into(pool.states, a, *b, false, MapTable{}));
          for (const RegState& r : a->frames()[0].regs) {
            EXPECT_TRUE(same_bits(r, want)) << reg_kind_name(x.kind) << " spilled " << spilled;
          }
        }
        Pool pool;
        const State* holds_x = pool.make(x);
        const State* holds_u = pool.make(u);
        EXPECT_TRUE(state_leq(*holds_x, *holds_u, MapTable{})) << reg_kind_name(x.kind);
        EXPECT_EQ(state_leq(*holds_u, *holds_x, MapTable{}), reg_leq(u, x, MapTable{})) << reg_kind_name(x.kind);
        EXPECT_EQ(state_leq(*holds_u, *holds_x, MapTable{}), x.kind == RegKind::uninit) << reg_kind_name(x.kind);
      }
    }
  }
}

TEST(Lattice, DifferingRegistersAndTagsJoin) {
  Pool pool;
  State* a = pool.make(make_scalar(Scalar::constant(1)));
  State* b = pool.make(make_scalar(Scalar::constant(1)));
  b->frames()[0].regs[0] = make_scalar(Scalar::constant(2));
  put_tags(a, kStackSize - 16, kTagZero, 16);  // two slots at the top, in one 64-byte chunk
  put_tags(b, kStackSize - 16, kTagData, 8);
  put_tags(b, kStackSize - 8, kTagZero, 8);
  put_tags(a, 5, kTagData, 1);  // and one byte far below, met by uninit
  EXPECT_FALSE(state_leq(*a, *b, MapTable{}));
  EXPECT_FALSE(state_leq(*b, *a, MapTable{}));
  ASSERT_TRUE(join_into(pool.states, a, *b, false, MapTable{}));
  const Frame& f = a->frames()[0];
  EXPECT_TRUE(same_bits(f.regs[0], join_reg(make_scalar(Scalar::constant(1)), make_scalar(Scalar::constant(2)),
                                            false, MapTable{})));
  for (uint32_t i = 1; i < kRegisterCount; ++i) EXPECT_TRUE(f.regs[i].is_const());
  for (uint32_t i = 0; i < kStackSize; ++i) {
    const uint8_t want = i >= kStackSize - 16 && i < kStackSize - 8 ? kTagData
                         : i >= kStackSize - 8                      ? kTagZero
                                                                    : kTagUninit;
    EXPECT_EQ(f.tags[i], want) << "byte " << i;
  }
  EXPECT_TRUE(state_leq(*b, *a, MapTable{}));
}

// The same join with a spill added alike to both sides takes the path that
// builds a fresh state; everything but the spilled slot must come out as
// the in-place join's.
TEST(Lattice, JoinWithSpillsAgreesWithJoinInPlace) {
  for (const bool widen : {false, true}) {
    Pool pool;
    const auto setup = [&](State* s, uint64_t r0, uint8_t tag) {
      s->frames()[0].regs[0] = make_scalar(Scalar::constant(r0));
      s->frames()[0].regs[1] = make_scalar(Scalar::from_urange(0, 10 * r0));
      put_tags(s, 8 * 3, tag, 8);
      put_tags(s, 8 * 40, tag, 4);
    };
    State* plain_a = pool.make(make_pointer(RegKind::ctx));
    State* plain_b = pool.make(make_pointer(RegKind::ctx));
    setup(plain_a, 1, kTagZero);
    setup(plain_b, 2, kTagData);
    State* spill_a = pool.states.copy(*plain_a);
    State* spill_b = pool.states.copy(*plain_b);
    for (State* s : {spill_a, spill_b}) {
      put_spill(s, 63, 0, make_scalar(Scalar::constant(7)));
    }
    ASSERT_TRUE(join_into(pool.states, plain_a, *plain_b, widen, MapTable{}));
    ASSERT_TRUE(join_into(pool.states, spill_a, *spill_b, widen, MapTable{}));
    const Frame& p = plain_a->frames()[0];
    const Frame& s = spill_a->frames()[0];
    for (uint32_t i = 0; i < kRegisterCount; ++i) EXPECT_TRUE(same_bits(p.regs[i], s.regs[i])) << "r" << i;
    EXPECT_EQ(std::memcmp(p.tags, s.tags, 8 * 63), 0);
    ASSERT_EQ(spill_a->spill_count, 1);
    EXPECT_EQ(spill_a->spills()[0].slot, 63);
    EXPECT_TRUE(spill_a->spills()[0].reg.is_const());
    EXPECT_TRUE(state_leq(*spill_b, *spill_a, MapTable{}));
    EXPECT_TRUE(state_leq(*plain_b, *plain_a, MapTable{}));
  }
}

// Joins and inclusion of states with many spills, made in different
// orders on the two sides (the spill index keeps each list sorted, and
// the lattice finds a slot's spill by counting mask bits): every slot's
// spill joins with the other side's spill of that slot and no other.
TEST(Lattice, ManySpillsJoinSlotBySlot) {
  for (const bool widen : {false, true}) {
    Pool pool;
    State* a = pool.states.copy(*pool.make(make_pointer(RegKind::ctx)), 48);
    State* b = pool.states.copy(*pool.make(make_pointer(RegKind::ctx)), 48);
    constexpr uint32_t kSpilled = 40;
    for (uint32_t i = 0; i < kSpilled; ++i) {
      const uint32_t slot_a = i;                  // ascending on one side
      const uint32_t slot_b = kSpilled - 1 - i;   // descending on the other
      put_spill(a, slot_a, 0, make_scalar(Scalar::constant(slot_a)));
      put_spill(b, slot_b, 0, make_scalar(Scalar::constant(slot_b + 1000)));
    }
    ASSERT_TRUE(spills_hold(*a));
    ASSERT_TRUE(spills_hold(*b));
    const State* b_before = pool.states.copy(*b);
    EXPECT_FALSE(state_leq(*a, *b, MapTable{}));
    EXPECT_TRUE(state_leq(*b, *b_before, MapTable{}));
    ASSERT_TRUE(join_into(pool.states, a, *b, widen, MapTable{}));
    ASSERT_EQ(a->spill_count, kSpilled);
    EXPECT_TRUE(spills_hold(*a));
    for (uint32_t slot = 0; slot < kSpilled; ++slot) {
      const Spill* s = a->find_spill(0, slot);
      ASSERT_NE(s, nullptr) << slot;
      const RegState want = join_reg(make_scalar(Scalar::constant(slot)), make_scalar(Scalar::constant(slot + 1000)),
                                     widen, MapTable{});
      EXPECT_TRUE(same_bits(s->reg, want)) << "slot " << slot;
    }
    EXPECT_TRUE(state_leq(*b_before, *a, MapTable{}));
    EXPECT_FALSE(state_leq(*a, *b_before, MapTable{}));
  }
}

// The stack watermark (Frame::stack_low) against no watermark at all
// (stack_low 0 claims nothing, so every chunk is compared): for stacks
// written at various depths on either side, with and without a spill,
// joins give the same registers, tags and spills, inclusion the same
// answers, and the joined frame's mark still lies below every tag other
// than kTagUninit. A join that skipped a chunk it must not would differ.
TEST(Lattice, WatermarkSkipsOnlyWhatTheFullComparisonFindsEqual) {
  const uint32_t depths[] = {kStackSize - 8, kStackSize - 64, kStackSize - 72, 256, 64, 8, 0};
  const uint8_t tags[] = {kTagData, kTagZero, kTagMixed};
  for (const uint32_t da : depths) {
    for (const uint32_t db : depths) {
      for (const bool spilled : {false, true}) {
        for (const bool widen : {false, true}) {
          Pool pool;
          State* a = pool.make(make_scalar(Scalar::constant(1)));
          State* b = pool.make(make_scalar(Scalar::constant(2)));
          put_tags(a, da, tags[da % 3], 8);
          put_tags(b, db, tags[db % 3 == 0 ? 1 : 0], 8);
          put_tags(a, kStackSize - 8, kTagData, 8);  // both use the top slot
          put_tags(b, kStackSize - 8, kTagData, 8);
          if (spilled) {
            for (State* s : {a, b}) {
              put_spill(s, 62, 0, make_scalar(Scalar::constant(7)));
            }
          }
          ASSERT_TRUE(stack_low_holds(a->frames()[0]));
          ASSERT_TRUE(stack_low_holds(b->frames()[0]));
          ASSERT_EQ(a->frames()[0].stack_low, std::min(da, spilled ? 8 * 62 : kStackSize - 8));
          State* a0 = pool.states.copy(*a);
          State* b0 = pool.states.copy(*b);
          a0->frames()[0].stack_low = 0;
          b0->frames()[0].stack_low = 0;
          const char* what = spilled ? "spilled" : "plain";
          EXPECT_EQ(state_leq(*a, *b, MapTable{}), state_leq(*a0, *b0, MapTable{})) << da << " " << db << what;
          EXPECT_EQ(state_leq(*b, *a, MapTable{}), state_leq(*b0, *a0, MapTable{})) << da << " " << db << what;
          ASSERT_TRUE(join_into(pool.states, a, *b, widen, MapTable{}));
          ASSERT_TRUE(join_into(pool.states, a0, *b0, widen, MapTable{}));
          const Frame& f = a->frames()[0];
          const Frame& f0 = a0->frames()[0];
          EXPECT_TRUE(stack_low_holds(f)) << da << " " << db << what;
          EXPECT_EQ(std::memcmp(f.tags, f0.tags, kStackSize), 0) << da << " " << db << what;
          for (uint32_t i = 0; i < kRegisterCount; ++i) EXPECT_TRUE(same_bits(f.regs[i], f0.regs[i]));
          ASSERT_EQ(a->spill_count, a0->spill_count);
          EXPECT_TRUE(state_leq(*b, *a, MapTable{})) << da << " " << db << what;
          EXPECT_TRUE(state_leq(*a0, *a, MapTable{})) << da << " " << db << what;
          EXPECT_TRUE(state_leq(*a, *a0, MapTable{})) << da << " " << db << what;
        }
      }
    }
  }
}

// join_into joins in place when both sides spill the same slots with the
// same widths, or when the join spills no slot the entry state does not,
// and builds a fresh state otherwise (join_fresh). The two
// must agree bit for bit on everything a state holds: registers, tags,
// watermark, spill list and masks, references. Random pairs of states:
// registers from the samples (often equal on both sides), tags written at
// random depths, spills of random values and widths on one side, on both
// alike, or on both with other widths; one or two frames.
TEST(Lattice, JoinInPlaceAgreesWithFreshJoin) {
  std::mt19937 random(52);
  const auto below = [&](uint32_t n) { return static_cast<uint32_t>(random() % n); };
  const std::vector<RegState> regs = samples();
  std::vector<RegState> scalars;
  for (const RegState& r : regs) {
    if (r.kind == RegKind::scalar) scalars.push_back(r);
  }
  const uint8_t tag_choice[] = {kTagData, kTagZero, kTagMixed};
  uint32_t in_place_with_spills = 0;
  uint32_t in_place_dropping = 0;  // in place although the spill sets differ
  for (uint32_t round = 0; round < 2000; ++round) {
    Pool pool;
    const uint32_t frames = below(4) == 0 ? 2 : 1;
    State* a = pool.states.allocate(frames, 24);
    State* b = pool.states.allocate(frames, 24);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    for (uint32_t f = 0; f < frames; ++f) {
      for (State* s : {a, b}) {
        Frame& frame = s->frames()[f];
        frame.function = f;
        frame.call_pc = f;
        frame.unused = 0;
        clear_stack(frame);
      }
      for (uint32_t i = 0; i < kRegisterCount; ++i) {
        const RegState& x = regs[below(static_cast<uint32_t>(regs.size()))];
        a->frames()[f].regs[i] = x;
        b->frames()[f].regs[i] = below(2) == 0 ? x : regs[below(static_cast<uint32_t>(regs.size()))];
      }
      // Tags: a few slots near the top, sometimes one deep down.
      for (State* s : {a, b}) {
        for (uint32_t n = below(4); n > 0; --n) {
          const uint32_t slot = below(5) == 0 ? below(kSlotCount) : kSlotCount - 1 - below(8);
          const uint32_t index = slot * 8 + below(8);
          note_stack_write(s->frames()[f], index);
          std::memset(s->frames()[f].tags + index, tag_choice[below(3)], 1 + below(8 - index % 8));
        }
      }
      // Spills: on both alike (mostly), on one side, or with other widths.
      for (uint32_t n = below(6); n > 0; --n) {
        const uint32_t slot = kSlotCount - 1 - below(12);
        if (a->find_spill(f, slot) != nullptr || b->find_spill(f, slot) != nullptr) continue;
        const uint32_t how = below(6);
        const uint8_t widths[] = {0, 0, 4, 2};
        const uint8_t wa = widths[below(4)];
        const uint8_t wb = how == 5 ? widths[below(4)] : wa;
        const auto value = [&](uint8_t width) {
          return width != 0 ? scalars[below(static_cast<uint32_t>(scalars.size()))]
                            : regs[below(static_cast<uint32_t>(regs.size()))];
        };
        const RegState va = value(wa);
        const RegState vb = below(2) == 0 && wa == wb ? va : value(wb);
        for (State* s : {a, b}) {
          if ((s == a && how == 3) || (s == b && how == 4)) continue;  // one side only
          const uint8_t width = s == a ? wa : wb;
          Spill* spill = s->add_spill(f, slot);
          spill->narrow = width;
          spill->reg = s == a ? va : vb;
          note_stack_write(s->frames()[f], slot * 8);
          std::memset(s->frames()[f].tags + slot * 8, kTagSpill, width == 0 ? 8 : width);
        }
      }
    }
    if (below(3) == 0) {
      a->refs[a->ref_count++] = ref_of_pc(9);
      if (below(2) == 0) b->refs[b->ref_count++] = ref_of_pc(9);
    }
    ASSERT_TRUE(spills_hold(*a));
    ASSERT_TRUE(spills_hold(*b));
    const bool widen = below(2) == 0;
    bool aligned = a->spill_count == b->spill_count;
    for (uint32_t f = 0; f < frames; ++f) aligned = aligned && a->frames()[f].spilled == b->frames()[f].spilled;
    for (uint32_t i = 0; aligned && i < a->spill_count; ++i) aligned = a->spills()[i].narrow == b->spills()[i].narrow;
    State* in_place = pool.states.copy(*a);
    State* fresh = pool.states.copy(*a);
    const State* before = in_place;
    ASSERT_TRUE(join_into(pool.states, in_place, *b, widen, MapTable{}));
    ASSERT_TRUE(join_fresh(pool.states, fresh, *b, widen, MapTable{}));
    if (in_place == before && in_place->spill_count != 0) ++in_place_with_spills;
    if (in_place == before && !aligned) ++in_place_dropping;
    ASSERT_TRUE(spills_hold(*in_place)) << "round " << round;
    ASSERT_TRUE(spills_hold(*fresh)) << "round " << round;
    for (uint32_t f = 0; f < frames; ++f) {
      const Frame& x = in_place->frames()[f];
      const Frame& y = fresh->frames()[f];
      for (uint32_t i = 0; i < kRegisterCount; ++i) {
        EXPECT_TRUE(same_bits(x.regs[i], y.regs[i])) << "round " << round << " frame " << f << " r" << i;
      }
      EXPECT_EQ(std::memcmp(x.tags, y.tags, kStackSize), 0) << "round " << round << " frame " << f;
      EXPECT_EQ(x.stack_low, y.stack_low) << "round " << round;
      EXPECT_EQ(x.spilled, y.spilled) << "round " << round;
      EXPECT_EQ(x.function, y.function);
      EXPECT_EQ(x.call_pc, y.call_pc);
    }
    ASSERT_EQ(in_place->spill_count, fresh->spill_count) << "round " << round;
    for (uint32_t i = 0; i < in_place->spill_count; ++i) {
      const Spill& x = in_place->spills()[i];
      const Spill& y = fresh->spills()[i];
      EXPECT_TRUE(x.frame == y.frame && x.slot == y.slot && x.narrow == y.narrow && x.unused == y.unused)
          << "round " << round << " spill " << i;
      EXPECT_TRUE(same_bits(x.reg, y.reg)) << "round " << round << " spill " << i;
    }
    ASSERT_EQ(in_place->ref_count, fresh->ref_count);
    EXPECT_EQ(std::memcmp(in_place->refs, fresh->refs, in_place->ref_count * sizeof(uint32_t)), 0);
    EXPECT_EQ(in_place->refs_lost, fresh->refs_lost);
  }
  // The in-place join met spills often enough to have been tested.
  EXPECT_GT(in_place_with_spills, 200u);
  // And the join in place of differing spill sets (join_in_place_dropping).
  EXPECT_GT(in_place_dropping, 200u);
}

}  // namespace
}  // namespace keel
