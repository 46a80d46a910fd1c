// state.cc on its own: the lattice of abstract states. Tested through what
// join_into, state_leq, join_reg, reg_leq and StatePool promise (a join is
// an upper bound of both sides, inclusion is reflexive, a copy is equal),
// not through the layout of a state.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "analysis_fixture.h"

namespace keel {
namespace {

using test_support::AnalysisFixture;

struct Lattice : ::testing::Test {
  std::vector<uint8_t> memory = std::vector<uint8_t>(1 << 20);
  Arena arena{memory.data(), memory.size()};
  StatePool pool{arena};
  MapTable maps;

  State* fresh() {
    State* s = AnalysisFixture::entry_state(pool);
    EXPECT_NE(s, nullptr);
    return s;
  }
  // Marks the 8 stack bytes at r10 + offset with `tag`.
  static void tag(State& s, int32_t offset, uint8_t value) {
    note_stack_write(s.frames()[0], static_cast<uint32_t>(kStackSize + offset));
    std::memset(s.frames()[0].tags + kStackSize + offset, value, 8);
  }
};

// A sample of register values: scalars (constants, ranges), pointers,
// uninitialized.
std::vector<RegState> samples() {
  std::vector<RegState> out;
  out.push_back(make_uninit());
  out.push_back(make_scalar(Scalar::constant(0)));
  out.push_back(make_scalar(Scalar::constant(7)));
  out.push_back(make_scalar(Scalar::from_urange(1, 3)));
  out.push_back(make_scalar(Scalar::from_urange(5, 900)));
  out.push_back(make_scalar(Scalar::from_srange(-4, 4)));
  out.push_back(make_scalar(Scalar::unknown()));
  out.push_back(make_pointer(RegKind::stack, 0, -8));
  out.push_back(make_pointer(RegKind::stack, 0, -16));
  out.push_back(make_pointer(RegKind::ctx));
  out.push_back(make_pointer(RegKind::packet_end));
  return out;
}

TEST_F(Lattice, RegisterJoinIsAnUpperBound) {
  for (const RegState& a : samples()) {
    EXPECT_TRUE(reg_leq(a, a, maps)) << reg_kind_name(a.kind);
    for (const RegState& b : samples()) {
      for (const bool widen : {false, true}) {
        const RegState j = join_reg(a, b, widen, maps);
        EXPECT_TRUE(reg_leq(a, j, maps)) << reg_kind_name(a.kind) << " v " << reg_kind_name(b.kind);
        EXPECT_TRUE(reg_leq(b, j, maps)) << reg_kind_name(a.kind) << " v " << reg_kind_name(b.kind);
      }
    }
  }
}

TEST_F(Lattice, ScalarJoinIsTheHull) {
  const RegState j = join_reg(make_scalar(Scalar::from_urange(1, 3)), make_scalar(Scalar::from_urange(5, 9)),
                              false, maps);
  ASSERT_EQ(j.kind, RegKind::scalar);
  EXPECT_EQ(j.value.umin, 1u);
  EXPECT_EQ(j.value.umax, 9u);
  EXPECT_FALSE(reg_leq(j, make_scalar(Scalar::from_urange(1, 3)), maps));
}

TEST_F(Lattice, UninitializedOnOnePathIsUninitialized) {
  EXPECT_EQ(join_reg(make_uninit(), make_scalar(Scalar::constant(1)), false, maps).kind, RegKind::uninit);
  EXPECT_FALSE(reg_leq(make_uninit(), make_scalar(Scalar::constant(1)), maps));
}

TEST_F(Lattice, PointerAndNumberJoinToNeither) {
  const RegState j = join_reg(make_pointer(RegKind::ctx), make_scalar(Scalar::constant(5)), false, maps);
  EXPECT_NE(j.kind, RegKind::ctx);
  EXPECT_NE(j.kind, RegKind::scalar);
}

TEST_F(Lattice, CopyIsEqual) {
  State* a = fresh();
  a->frames()[0].regs[3] = make_scalar(Scalar::from_urange(2, 4));
  tag(*a, -8, kTagData);
  State* b = pool.copy(*a);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(state_leq(*a, *b, maps));
  EXPECT_TRUE(state_leq(*b, *a, maps));
  EXPECT_EQ(b->frame_count, a->frame_count);
  pool.release(a);
  pool.release(b);
}

TEST_F(Lattice, StateJoinIsAnUpperBound) {
  State* a = fresh();
  State* b = fresh();
  a->frames()[0].regs[0] = make_scalar(Scalar::constant(1));
  b->frames()[0].regs[0] = make_scalar(Scalar::constant(2));
  a->frames()[0].regs[4] = make_scalar(Scalar::constant(3));  // uninit on b's side
  tag(*a, -8, kTagZero);
  tag(*b, -8, kTagData);
  tag(*a, -16, kTagData);  // uninit on b's side
  State* joined = pool.copy(*a);
  ASSERT_NE(joined, nullptr);
  ASSERT_TRUE(join_into(pool, joined, *b, false, maps));
  EXPECT_TRUE(state_leq(*a, *joined, maps));
  EXPECT_TRUE(state_leq(*b, *joined, maps));
  EXPECT_FALSE(state_leq(*joined, *a, maps));
  EXPECT_FALSE(state_leq(*joined, *b, maps));
  const RegState& r0 = joined->frames()[0].regs[0];
  ASSERT_EQ(r0.kind, RegKind::scalar);
  EXPECT_EQ(r0.value.umin, 1u);
  EXPECT_EQ(r0.value.umax, 2u);
  EXPECT_EQ(joined->frames()[0].regs[4].kind, RegKind::uninit);
  pool.release(a);
  pool.release(b);
  pool.release(joined);
}

TEST_F(Lattice, JoinOfSpillsKeepsTheSpill) {
  // A fill after the join must still find a register there (a spilled
  // pointer on both sides stays a spilled pointer).
  AnalysisFixture left("stxdw [%r10-8], %r1\nexit\n");
  AnalysisFixture right("mov %r2, %r1\nstxdw [%r10-8], %r2\nexit\n");
  ASSERT_TRUE(left.run());
  ASSERT_TRUE(right.run());
  State* joined = left.pool->copy(*left.state);
  ASSERT_NE(joined, nullptr);
  ASSERT_TRUE(join_into(*left.pool, joined, *right.state, false, left.engine->maps));
  EXPECT_TRUE(state_leq(*left.state, *joined, left.engine->maps));
  EXPECT_TRUE(state_leq(*right.state, *joined, left.engine->maps));
  left.state = joined;
  Insn fill{Op::ldxdw, 0, 10, 0x79, -8, 0};
  ASSERT_TRUE(step_load(*left.engine, left.state, fill, 0));
  EXPECT_EQ(left.reg(0).kind, RegKind::ctx);
}

TEST_F(Lattice, WideningIsAnUpperBoundToo) {
  State* a = fresh();
  State* b = fresh();
  a->frames()[0].regs[2] = make_scalar(Scalar::from_urange(0, 1));
  b->frames()[0].regs[2] = make_scalar(Scalar::from_urange(0, 2));
  State* widened = pool.copy(*a);
  ASSERT_TRUE(join_into(pool, widened, *b, true, maps));
  EXPECT_TRUE(state_leq(*a, *widened, maps));
  EXPECT_TRUE(state_leq(*b, *widened, maps));
  // The bound that grew is dropped, not kept at 2: a chain of widenings ends.
  EXPECT_GT(widened->frames()[0].regs[2].value.umax, 2u);
  pool.release(a);
  pool.release(b);
  pool.release(widened);
}

TEST_F(Lattice, ReferencesHeldOnOnePathMayBeHeldAfterTheJoin) {
  State* a = fresh();
  State* b = fresh();
  a->refs[0] = ref_of_pc(4);
  a->ref_count = 1;
  State* joined = pool.copy(*a);
  ASSERT_TRUE(join_into(pool, joined, *b, false, maps));
  EXPECT_TRUE(joined->holds(ref_of_pc(4)));
  EXPECT_TRUE(state_leq(*a, *joined, maps));
  EXPECT_TRUE(state_leq(*b, *joined, maps));
  EXPECT_FALSE(state_leq(*joined, *b, maps));
  pool.release(a);
  pool.release(b);
  pool.release(joined);
}

TEST_F(Lattice, ReleasedStatesAreReused) {
  State* a = fresh();
  pool.release(a);
  const size_t used = arena.used();
  State* b = fresh();
  EXPECT_EQ(arena.used(), used);  // the released chunk, not a new one
  pool.release(b);
}

// find_spill through the spill index (state.h: a sorted list and a mask
// per frame) against the definition, a scan of the whole list, after each
// of thousands of random spills and removals in a three-frame state, with
// copies (which must keep the index) and a copy that adds a frame.
TEST_F(Lattice, SpillIndexFindsWhatAScanFinds) {
  const auto scan = [](const State& s, uint32_t frame, uint32_t slot) -> const Spill* {
    for (uint32_t i = 0; i < s.spill_count; ++i) {
      if (s.spills()[i].frame == frame && s.spills()[i].slot == slot) return &s.spills()[i];
    }
    return nullptr;
  };
  std::mt19937 random(14);
  const auto below = [&](uint32_t n) { return static_cast<uint32_t>(random() % n); };
  for (uint32_t round = 0; round < 20; ++round) {
    State* s = pool.allocate(2, 4);
    ASSERT_NE(s, nullptr);
    for (uint32_t f = 0; f < 2; ++f) clear_stack(s->frames()[f]);
    State* grown = pool.copy(*s, 4, 1);  // a third frame, as a call makes
    ASSERT_NE(grown, nullptr);
    pool.release(s);
    s = grown;
    clear_stack(s->frames()[2]);
    ASSERT_TRUE(spills_hold(*s));
    for (uint32_t step = 0; step < 400; ++step) {
      const uint32_t frame = below(3);
      // Mostly a few slots at the top, as programs spill; sometimes any.
      const uint32_t slot = below(4) == 0 ? below(kSlotCount) : kSlotCount - 1 - below(6);
      Spill* found = s->find_spill(frame, slot);
      ASSERT_EQ(found, scan(*s, frame, slot)) << "round " << round << " step " << step;
      if (found != nullptr) {
        EXPECT_EQ(found->reg.value.bits.value, uint64_t{frame} << 8 | slot);
        s->remove_spill(found);
      } else {
        ASSERT_TRUE(pool.reserve_spill(s));
        Spill* added = s->add_spill(frame, slot);
        added->reg = make_scalar(Scalar::constant(uint64_t{frame} << 8 | slot));
      }
      ASSERT_TRUE(spills_hold(*s)) << "round " << round << " step " << step;
      if (step % 50 == 0) {
        State* copy = pool.copy(*s);
        ASSERT_NE(copy, nullptr);
        pool.release(s);
        s = copy;
      }
      for (uint32_t f = 0; f < 3; ++f) {
        for (uint32_t q = 0; q < kSlotCount; ++q) {
          ASSERT_EQ(s->find_spill(f, q), scan(*s, f, q)) << "frame " << f << " slot " << q << " step " << step;
        }
      }
    }
    pool.release(s);
  }
}

// What spills_hold rejects: a list out of order, a slot named twice, a
// mask bit without its entry (or an entry without its bit).
TEST_F(Lattice, SpillIndexCheckFindsBrokenLists) {
  State* s = pool.allocate(1, 4);
  ASSERT_NE(s, nullptr);
  clear_stack(s->frames()[0]);
  s->add_spill(0, 9);
  s->add_spill(0, 3);
  ASSERT_TRUE(spills_hold(*s));
  EXPECT_EQ(s->spills()[0].slot, 3);
  std::swap(s->spills()[0], s->spills()[1]);
  EXPECT_FALSE(spills_hold(*s));  // out of order
  std::swap(s->spills()[0], s->spills()[1]);
  s->spills()[1].slot = 3;
  EXPECT_FALSE(spills_hold(*s));  // twice
  s->spills()[1].slot = 9;
  s->frames()[0].spilled |= 1;
  EXPECT_FALSE(spills_hold(*s));  // a bit without an entry
  s->frames()[0].spilled &= ~uint64_t{1 | 1 << 9};
  EXPECT_FALSE(spills_hold(*s));  // an entry without its bit
  pool.release(s);
}

}  // namespace
}  // namespace keel
