// The scalar domain (domain/scalar.h): soundness of every ALU operation and
// of branch refinement against RFC 9669's concrete semantics, over abstract
// values built from boundary constants (0, 2^31, 2^32, 2^63, ...) and tnums,
// checked at sampled members; the reduction's invariants; and exact bounds
// for the idioms the verifier must accept as Linux does.
#include "concrete_ops.h"
#include "domain/scalar.h"
#include "domain/scalar_parts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace keel {
namespace {

constexpr uint64_t kMax = ~uint64_t{0};
constexpr uint64_t kSign = uint64_t{1} << 63;

// ---------------------------------------------------------------------------
// Reference semantics (RFC 9669 §4), written independently of the domain.

int64_t s64(uint64_t x) { return static_cast<int64_t>(x); }
uint64_t u64(int64_t x) { return static_cast<uint64_t>(x); }

using testing::alu_ref;
using testing::bswap_ref;
using testing::jmp_ref;
using testing::sext_ref;

const AluOp kBinaryOps[] = {AluOp::add,     AluOp::sub,    AluOp::mul,     AluOp::div,  AluOp::sdiv,
                            AluOp::mod,     AluOp::smod,   AluOp::bit_and, AluOp::bit_or,
                            AluOp::bit_xor, AluOp::mov};
const AluOp kShiftOps[] = {AluOp::lsh, AluOp::rsh, AluOp::arsh};
const JmpOp kJmpOps[] = {JmpOp::jeq,  JmpOp::jgt,  JmpOp::jge, JmpOp::jset, JmpOp::jne, JmpOp::jsgt,
                         JmpOp::jsge, JmpOp::jlt, JmpOp::jle, JmpOp::jslt, JmpOp::jsle};
const Width kWidths[] = {Width::w64, Width::w32};

// ---------------------------------------------------------------------------
// Abstract values and their members

const std::vector<uint64_t>& interesting() {
  static const std::vector<uint64_t> v = {
      0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
      0x7fffffffffffffff, kSign, kMax, kMax - 15 /* -16 */, 0xffffffff80000000 /* (s64)INT32_MIN */};
  return v;
}

bool add_if_nonempty(std::vector<Scalar>& out, Scalar s) {
  if (!reduce(s)) return false;
  if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return true;
}

// Every unsigned interval between interesting values, the signed intervals
// that cross zero, tnums, tnums cut by intervals, and values known only
// through their low 32 bits.
std::vector<Scalar> all_values() {
  std::vector<Scalar> out;
  auto v = interesting();
  std::sort(v.begin(), v.end());
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = i; j < v.size(); ++j) add_if_nonempty(out, Scalar::from_urange(v[i], v[j]));
  for (uint64_t lo : v)
    for (uint64_t hi : v)
      if (s64(lo) < 0 && s64(hi) >= 0) add_if_nonempty(out, Scalar::from_srange(s64(lo), s64(hi)));
  const Tnum tnums[] = {
      {0, 0xff},        {0x80, 0x7f},       {0, 0x8000000f}, {0x100, 0xf0},   {1, 0x6},
      {0, kSign | 3},   {kSign, 0xff},      {0, 0xff00000000}, {0xf0, 0xffffffff00000000},
      {0x80000000, 0xf}, {0, 0x80000000ffffffff}, {2, kMax - 2},
  };
  for (Tnum t : tnums) {
    add_if_nonempty(out, Scalar::from_tnum(t));
    Scalar cut = Scalar::from_tnum(t);
    cut.umin = 3;
    cut.umax = 0x80000005;
    add_if_nonempty(out, cut);
  }
  const uint32_t lows[][2] = {{0, 10}, {0xfffffff0, 0xffffffff}, {0x7ffffff0, 0x80000010}, {5, 5}};
  for (const auto& l : lows) {
    Scalar u;
    u.u32_min = l[0];
    u.u32_max = l[1];
    add_if_nonempty(out, u);
    Scalar s;
    s.s32_min = static_cast<int32_t>(l[0]);
    s.s32_max = static_cast<int32_t>(l[1]);
    if (s.s32_min <= s.s32_max) add_if_nonempty(out, s);
    u.umin = 0x100000000;
    u.umax = 0x300000000;
    add_if_nonempty(out, u);
  }
  add_if_nonempty(out, Scalar::unknown());
  return out;
}

// A deterministic subset for the quadratic tests (every step-th value),
// sized so that each test binary stays within seconds under ASan.
std::vector<Scalar> pair_values(size_t step) {
  const auto all = all_values();
  std::vector<Scalar> out;
  for (size_t i = 0; i < all.size(); i += step) out.push_back(all[i]);
  out.push_back(Scalar::unknown());
  return out;
}

// Bounds, neighbours, midpoints and tnum extremes that are members.
std::vector<uint64_t> samples(const Scalar& s) {
  const uint64_t mid = s.umin + (s.umax - s.umin) / 2;
  const uint64_t cands[] = {s.umin,
                            s.umax,
                            u64(s.smin),
                            u64(s.smax),
                            s.umin + 1,
                            s.umax - 1,
                            mid,
                            mid + 1,
                            s.bits.value,
                            s.bits.value | s.bits.mask,
                            (s.umin & ~uint64_t{0xffffffff}) | s.u32_max,
                            (s.umax & ~uint64_t{0xffffffff}) | s.u32_min,
                            u64(s.smin) + 1};
  std::vector<uint64_t> out;
  for (uint64_t x : cands)
    if (s.contains(x) && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  return out;
}

// Reduced: bounds ordered, the 64-bit bounds are members, each 32-bit bound
// is a member of the low-word tnum, and reducing again changes nothing.
::testing::AssertionResult is_reduced(const Scalar& s) {
  if (s.umin > s.umax || s.smin > s.smax || s.u32_min > s.u32_max || s.s32_min > s.s32_max)
    return ::testing::AssertionFailure() << "unordered bounds";
  if ((s.bits.value & s.bits.mask) != 0) return ::testing::AssertionFailure() << "bad tnum";
  if (!s.contains(s.umin) || !s.contains(s.umax) || !s.contains(u64(s.smin)) || !s.contains(u64(s.smax)))
    return ::testing::AssertionFailure() << "a 64-bit bound is not a member";
  const Tnum t32 = tnum::cast32(s.bits);
  if (!t32.contains(s.u32_min) || !t32.contains(s.u32_max) || !t32.contains(static_cast<uint32_t>(s.s32_min)) ||
      !t32.contains(static_cast<uint32_t>(s.s32_max)))
    return ::testing::AssertionFailure() << "a 32-bit bound is not in the tnum";
  Scalar again = s;
  if (!reduce(again)) return ::testing::AssertionFailure() << "reduce found a reduced value empty";
  if (!(again == s)) return ::testing::AssertionFailure() << "reduce is not idempotent";
  return ::testing::AssertionSuccess();
}

std::string show(const Scalar& s) {
  char buf[400];
  snprintf(buf, sizeof buf,
           "{t=%#llx/%#llx u=[%#llx,%#llx] s=[%lld,%lld] u32=[%#x,%#x] s32=[%d,%d]}",
           static_cast<unsigned long long>(s.bits.value), static_cast<unsigned long long>(s.bits.mask),
           static_cast<unsigned long long>(s.umin), static_cast<unsigned long long>(s.umax),
           static_cast<long long>(s.smin), static_cast<long long>(s.smax), s.u32_min, s.u32_max, s.s32_min,
           s.s32_max);
  return buf;
}

// ---------------------------------------------------------------------------
// Soundness

TEST(Scalar, ValuesAreReducedAndHaveMembers) {
  const auto values = all_values();
  EXPECT_GT(values.size(), 200u);
  for (const Scalar& s : values) {
    ASSERT_TRUE(is_reduced(s)) << show(s);
    ASSERT_FALSE(samples(s).empty()) << show(s);
    for (uint64_t x : samples(s)) ASSERT_TRUE(s.contains(x));
  }
}

void check_binary(const std::vector<Scalar>& as, const std::vector<Scalar>& bs, const AluOp* ops, size_t n_ops) {
  for (const Scalar& a : as) {
    const auto xs = samples(a);
    for (const Scalar& b : bs) {
      const auto ys = samples(b);
      for (size_t i = 0; i < n_ops; ++i) {
        for (Width w : kWidths) {
          const Scalar r = alu(ops[i], w, a, b);
          ASSERT_TRUE(is_reduced(r)) << show(r);
          for (uint64_t x : xs) {
            for (uint64_t y : ys) {
              const uint64_t z = alu_ref(ops[i], w, x, y);
              ASSERT_TRUE(r.contains(z)) << "op " << int(ops[i]) << (w == Width::w32 ? " w32 " : " w64 ") << show(a)
                                         << " " << show(b) << " x=" << x << " y=" << y << " z=" << z << " -> "
                                         << show(r);
            }
          }
        }
      }
    }
  }
}

TEST(Scalar, BinaryOpsSound) {
  const auto values = pair_values(5);
  check_binary(values, values, kBinaryOps, std::size(kBinaryOps));
}

// Shifts join over up to 64 amounts, so they get their own amount set:
// every constant the mask can matter for, small ranges, and unknowns.
std::vector<Scalar> shift_amounts() {
  std::vector<Scalar> out;
  for (uint64_t k : std::vector<uint64_t>{0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 95, 0xffffffff, 0x100000001})
    add_if_nonempty(out, Scalar::constant(k));
  add_if_nonempty(out, Scalar::from_urange(0, 7));
  add_if_nonempty(out, Scalar::from_urange(30, 34));
  add_if_nonempty(out, Scalar::from_urange(60, 70));
  add_if_nonempty(out, Scalar::from_tnum({32, 0x41}));
  add_if_nonempty(out, Scalar::unknown());
  return out;
}

TEST(Scalar, ShiftsSound) {
  check_binary(pair_values(3), shift_amounts(), kShiftOps, std::size(kShiftOps));
}

TEST(Scalar, UnaryOpsSound) {
  for (const Scalar& a : all_values()) {
    const auto xs = samples(a);
    struct Case {
      Scalar r;
      uint64_t (*f)(uint64_t);
    };
    const Case cases[] = {
        {neg(Width::w64, a), [](uint64_t x) { return 0 - x; }},
        {neg(Width::w32, a), [](uint64_t x) { return uint64_t{static_cast<uint32_t>(0 - x)}; }},
        {movsx(Width::w64, 8, a), [](uint64_t x) { return sext_ref(x, 8); }},
        {movsx(Width::w64, 16, a), [](uint64_t x) { return sext_ref(x, 16); }},
        {movsx(Width::w64, 32, a), [](uint64_t x) { return sext_ref(x, 32); }},
        {movsx(Width::w32, 8, a), [](uint64_t x) { return sext_ref(x, 8) & 0xffffffff; }},
        {movsx(Width::w32, 16, a), [](uint64_t x) { return sext_ref(x, 16) & 0xffffffff; }},
        {zext32(a), [](uint64_t x) { return x & 0xffffffff; }},
        {to_le(16, a), [](uint64_t x) { return x & 0xffff; }},
        {to_le(32, a), [](uint64_t x) { return x & 0xffffffff; }},
        {to_le(64, a), [](uint64_t x) { return x; }},
        {to_be(16, a), [](uint64_t x) { return bswap_ref(x, 16); }},
        {bswap(32, a), [](uint64_t x) { return bswap_ref(x, 32); }},
        {bswap(64, a), [](uint64_t x) { return bswap_ref(x, 64); }},
    };
    for (const Case& c : cases) {
      ASSERT_TRUE(is_reduced(c.r)) << show(c.r);
      for (uint64_t x : xs) ASSERT_TRUE(c.r.contains(c.f(x))) << show(a) << " x=" << x << " -> " << show(c.r);
    }
  }
}

TEST(Scalar, BranchRefinementAndEvaluateSound) {
  const auto values = pair_values(6);
  int always = 0, never = 0;
  size_t pair = 0;
  for (const Scalar& a : values) {
    const auto xs = samples(a);
    for (const Scalar& b : values) {
      const auto ys = samples(b);
      const bool check_reduced = pair++ % 5 == 0;  // idempotence checks are the slow part
      for (JmpOp op : kJmpOps) {
        for (Width w : kWidths) {
          Scalar ta = a, tb = b, fa = a, fb = b;
          const bool can_take = refine(op, w, true, ta, tb);
          const bool can_fall = refine(op, w, false, fa, fb);
          const Outcome ev = evaluate(op, w, a, b);
          always += ev == Outcome::always;
          never += ev == Outcome::never;
          if (can_take && check_reduced) {
            ASSERT_TRUE(is_reduced(ta) && is_reduced(tb));
          }
          if (can_fall && check_reduced) {
            ASSERT_TRUE(is_reduced(fa) && is_reduced(fb));
          }
          for (uint64_t x : xs) {
            for (uint64_t y : ys) {
              const bool holds = jmp_ref(op, w, x, y);
              const bool ok = holds ? can_take && ta.contains(x) && tb.contains(y)
                                    : can_fall && fa.contains(x) && fb.contains(y);
              ASSERT_TRUE(ok) << "jmp " << int(op) << (w == Width::w32 ? " w32 " : " w64 ") << show(a) << " "
                              << show(b) << " x=" << x << " y=" << y << (holds ? " taken" : " not taken");
              ASSERT_NE(ev, holds ? Outcome::never : Outcome::always);
            }
          }
        }
      }
    }
  }
  // The pruning must actually happen on this set, or the test proves little.
  EXPECT_GT(always, 1000);
  EXPECT_GT(never, 1000);
}

TEST(Scalar, JoinWidenLeqSound) {
  const auto values = pair_values(3);
  for (const Scalar& a : values) {
    for (const Scalar& b : values) {
      const Scalar j = join(a, b), wd = widen(a, b);
      ASSERT_TRUE(is_reduced(j));
      ASSERT_TRUE(leq(a, j) && leq(b, j));
      ASSERT_TRUE(leq(a, wd) && leq(b, wd));
      for (uint64_t x : samples(b)) ASSERT_TRUE(wd.contains(x));
      if (leq(a, b)) {
        for (uint64_t x : samples(a)) ASSERT_TRUE(b.contains(x));
      }
      ASSERT_EQ(leq(a, b) && leq(b, a), a == b);
    }
  }
}

// Random scalars (a random interval, maybe a random tnum, maybe a low-word
// interval) and random members, for every operation.
struct Rng {
  std::mt19937_64 gen{0x6b65656c};
  uint64_t next() { return gen(); }
  uint64_t value() {
    switch (next() % 4) {
      case 0: return interesting()[next() % interesting().size()] + (next() % 5) - 2;
      case 1: return next() % 300;
      case 2: return 0 - next() % 300;
      default: return next();
    }
  }
  Scalar scalar() {
    for (;;) {
      Scalar s;
      uint64_t lo = value(), hi = value();
      if (next() % 2) {
        if (lo > hi) std::swap(lo, hi);
        s.umin = lo;
        s.umax = hi;
      } else {
        if (s64(lo) > s64(hi)) std::swap(lo, hi);
        s.smin = s64(lo);
        s.smax = s64(hi);
      }
      if (next() % 2) {
        const uint64_t mask = next() & next();
        s.bits = {value() & ~mask, mask};
      }
      if (next() % 4 == 0) {
        auto l = static_cast<uint32_t>(value()), h = static_cast<uint32_t>(value());
        if (l > h) std::swap(l, h);
        s.u32_min = l;
        s.u32_max = h;
      }
      if (reduce(s)) return s;
    }
  }
  // A member: a bound, or a random candidate that happens to be inside.
  uint64_t member(const Scalar& s) {
    for (int i = 0; i < 20; ++i) {
      const uint64_t x = s.bits.value | (next() & s.bits.mask);
      if (s.contains(x)) return x;
      const uint64_t y = s.umin + next() % (s.umax - s.umin + 1 == 0 ? kMax : s.umax - s.umin + 1);
      if (s.contains(y)) return y;
    }
    return next() % 2 ? s.umin : s.umax;
  }
};

TEST(Scalar, RandomSoundness) {
  Rng rng;
  for (int i = 0; i < 500; ++i) {
    const Scalar a = rng.scalar(), b = rng.scalar();
    ASSERT_TRUE(is_reduced(a) && is_reduced(b));
    for (Width w : kWidths) {
      for (AluOp op : kBinaryOps) {
        const Scalar r = alu(op, w, a, b);
        for (int j = 0; j < 4; ++j) {
          const uint64_t x = rng.member(a), y = rng.member(b);
          ASSERT_TRUE(r.contains(alu_ref(op, w, x, y)))
              << "op " << int(op) << " " << show(a) << " " << show(b) << " x=" << x << " y=" << y;
        }
      }
      for (JmpOp op : kJmpOps) {
        Scalar ta = a, tb = b, fa = a, fb = b;
        const bool can_take = refine(op, w, true, ta, tb);
        const bool can_fall = refine(op, w, false, fa, fb);
        for (int j = 0; j < 4; ++j) {
          const uint64_t x = rng.member(a), y = rng.member(b);
          const bool ok = jmp_ref(op, w, x, y) ? can_take && ta.contains(x) && tb.contains(y)
                                                    : can_fall && fa.contains(x) && fb.contains(y);
          ASSERT_TRUE(ok) << "jmp " << int(op) << " " << show(a) << " " << show(b) << " x=" << x << " y=" << y;
        }
      }
    }
    // One shift amount per iteration, from the small-amount set or random.
    const Scalar k = i % 2 ? shift_amounts()[static_cast<size_t>(i / 2) % shift_amounts().size()] : b;
    for (Width w : kWidths) {
      for (AluOp op : kShiftOps) {
        const Scalar r = alu(op, w, a, k);
        for (int j = 0; j < 4; ++j) {
          const uint64_t x = rng.member(a), y = rng.member(k);
          ASSERT_TRUE(r.contains(alu_ref(op, w, x, y))) << show(a) << " " << show(k);
        }
      }
    }
  }
}

// The Op-level entry points agree with the enum-level ones.
TEST(Scalar, OpEntryPoints) {
  const Scalar a = Scalar::from_urange(3, 1000), b = Scalar::constant(7);
  EXPECT_EQ(alu(Op::add64_imm, a, b), alu(AluOp::add, Width::w64, a, b));
  EXPECT_EQ(alu(Op::xor32_reg, a, b), alu(AluOp::bit_xor, Width::w32, a, b));
  EXPECT_EQ(alu(Op::neg32, a, b), neg(Width::w32, a));
  EXPECT_EQ(alu(Op::movsx64_8, a, b), movsx(Width::w64, 8, b));
  EXPECT_EQ(alu(Op::be16, a, b), bswap(16, a));
  JmpOp j{};
  Width w{};
  ASSERT_TRUE(jmp_of(Op::jsle32_imm, j, w));
  EXPECT_EQ(j, JmpOp::jsle);
  EXPECT_EQ(w, Width::w32);
  ASSERT_TRUE(jmp_of(Op::jset64_reg, j, w));
  EXPECT_EQ(j, JmpOp::jset);
  EXPECT_EQ(w, Width::w64);
  EXPECT_FALSE(jmp_of(Op::add64_imm, j, w));
}

// ---------------------------------------------------------------------------
// Precision: exact results for common idioms

void expect_bounds(const Scalar& s, uint64_t umin, uint64_t umax, int64_t smin, int64_t smax) {
  EXPECT_EQ(s.umin, umin) << show(s);
  EXPECT_EQ(s.umax, umax) << show(s);
  EXPECT_EQ(s.smin, smin) << show(s);
  EXPECT_EQ(s.smax, smax) << show(s);
}

TEST(ScalarPrecision, Constants) {
  const Scalar c = Scalar::constant(0xffffffff80000000);
  EXPECT_TRUE(is_reduced(c));
  EXPECT_TRUE(c.is_const());
  EXPECT_EQ(c.s32_min, INT32_MIN);
  EXPECT_EQ(c.smin, -0x80000000LL);
  EXPECT_EQ(alu(AluOp::mul, Width::w64, Scalar::constant(6), Scalar::constant(7)), Scalar::constant(42));
  EXPECT_EQ(alu(AluOp::sdiv, Width::w64, Scalar::constant(u64(-7)), Scalar::constant(2)), Scalar::constant(u64(-3)));
  EXPECT_EQ(alu(AluOp::sdiv, Width::w64, Scalar::constant(kSign), Scalar::constant(kMax)), Scalar::constant(kSign));
  EXPECT_EQ(alu(AluOp::smod, Width::w32, Scalar::constant(0x80000000), Scalar::constant(kMax)), Scalar::constant(0));
  EXPECT_EQ(alu(AluOp::div, Width::w64, Scalar::constant(9), Scalar::constant(0)), Scalar::constant(0));
  EXPECT_EQ(alu(AluOp::mod, Width::w32, Scalar::constant(0x100000009), Scalar::constant(0)), Scalar::constant(9));
  EXPECT_EQ(alu(AluOp::lsh, Width::w32, Scalar::constant(1), Scalar::constant(33)), Scalar::constant(2));
  EXPECT_EQ(bswap(16, Scalar::constant(0x12345678)), Scalar::constant(0x7856));
}

// of_bytes is from_urange's answer written out, for every width a load has.
TEST(ScalarPrecision, OfBytesIsFromUrange) {
  for (const uint32_t bytes : {1u, 2u, 4u}) {
    const Scalar want = Scalar::from_urange(0, (uint64_t{1} << (8 * bytes)) - 1);
    EXPECT_EQ(Scalar::of_bytes(bytes), want) << bytes << ": " << show(want);
    EXPECT_TRUE(is_reduced(Scalar::of_bytes(bytes))) << bytes;
  }
  EXPECT_EQ(Scalar::of_bytes(8), Scalar::unknown());
}

TEST(ScalarPrecision, ReductionAcross32And64) {
  // The low word of umin is above [0, 3]: the least value is in the next upper word.
  Scalar a;
  a.umin = 0x100000005;
  a.umax = 0x300000000;
  a.u32_max = 3;
  ASSERT_TRUE(reduce(a));
  expect_bounds(a, 0x200000000, 0x300000000, 0x200000000, 0x300000000);
  // The low word of umax is below [5, 10]: the greatest value is in the previous one.
  Scalar b;
  b.umax = 0x200000001;
  b.u32_min = 5;
  b.u32_max = 10;
  ASSERT_TRUE(reduce(b));
  EXPECT_EQ(b.umin, 5u);
  EXPECT_EQ(b.umax, 0x10000000au);
  // Signed: [-2^32 - 2, -2^32 + 100] with a low word in [0xfffffff0, 0xffffffff] (s32 [-16, -1]).
  Scalar c;
  c.smin = -0x100000002;
  c.smax = -0x100000000 + 100;
  c.s32_min = -16;
  c.s32_max = -1;
  ASSERT_TRUE(reduce(c));
  EXPECT_EQ(c.smin, -0x100000002);
  EXPECT_EQ(c.smax, -0x100000001);
  // Signed and unsigned meet exactly; an empty meet is bottom.
  Scalar d;
  d.umin = 2;
  d.umax = kSign + 5;
  d.smin = -3;
  d.smax = 3;
  ASSERT_TRUE(reduce(d));
  expect_bounds(d, 2, 3, 2, 3);
  Scalar e;
  e.umin = 5;
  e.umax = 0x100;
  e.smin = -3;
  e.smax = 3;
  EXPECT_FALSE(reduce(e));
}

TEST(ScalarPrecision, AndMaskGivesByteRange) {
  const Scalar r = alu(AluOp::bit_and, Width::w64, Scalar::unknown(), Scalar::constant(0xff));
  expect_bounds(r, 0, 255, 0, 255);
  EXPECT_EQ(r.bits, (Tnum{0, 0xff}));
  EXPECT_EQ(r.u32_max, 255u);
  const Scalar r32 = alu(AluOp::bit_and, Width::w32, Scalar::unknown(), Scalar::constant(0xff));
  EXPECT_EQ(r32, r);
}

TEST(ScalarPrecision, UnsignedCompareRefines) {
  Scalar x = Scalar::unknown(), k = Scalar::constant(10);
  ASSERT_TRUE(refine(JmpOp::jlt, Width::w64, true, x, k));
  expect_bounds(x, 0, 9, 0, 9);
  EXPECT_EQ(x.bits, (Tnum{0, 0xf}));
  Scalar y = Scalar::unknown();
  k = Scalar::constant(10);
  ASSERT_TRUE(refine(JmpOp::jlt, Width::w64, false, y, k));
  EXPECT_EQ(y.umin, 10u);
  EXPECT_EQ(y.umax, kMax);
  // The constant on the left: 10 > x.
  Scalar z = Scalar::unknown();
  k = Scalar::constant(10);
  ASSERT_TRUE(refine(JmpOp::jgt, Width::w64, true, k, z));
  EXPECT_EQ(z.umax, 9u);
  // Two ranges: a <= b with a in [5, 100] and b in [0, 50] gives a in [5, 50], b in [5, 50].
  Scalar a = Scalar::from_urange(5, 100), b = Scalar::from_urange(0, 50);
  ASSERT_TRUE(refine(JmpOp::jle, Width::w64, true, a, b));
  expect_bounds(a, 5, 50, 5, 50);
  expect_bounds(b, 5, 50, 5, 50);
}

TEST(ScalarPrecision, SignedCompareRefines) {
  Scalar x = Scalar::unknown(), k = Scalar::constant(kMax);  // -1
  ASSERT_TRUE(refine(JmpOp::jsgt, Width::w64, true, x, k));
  expect_bounds(x, 0, INT64_MAX, 0, INT64_MAX);
  Scalar y = Scalar::from_urange(0, 100);
  Scalar zero = Scalar::constant(0);
  ASSERT_TRUE(refine(JmpOp::jsle, Width::w64, true, y, zero));
  EXPECT_EQ(y, Scalar::constant(0));
  // A signed check with a non-negative lower bound bounds the unsigned range.
  Scalar s = Scalar::unknown(), lo = Scalar::constant(0), hi = Scalar::constant(64);
  ASSERT_TRUE(refine(JmpOp::jsge, Width::w64, true, s, lo));
  ASSERT_TRUE(refine(JmpOp::jslt, Width::w64, true, s, hi));
  expect_bounds(s, 0, 63, 0, 63);
}

TEST(ScalarPrecision, EqualityRefines) {
  Scalar x = Scalar::from_urange(0, 10), five = Scalar::constant(5);
  ASSERT_TRUE(refine(JmpOp::jeq, Width::w64, true, x, five));
  EXPECT_EQ(x, Scalar::constant(5));
  Scalar y = Scalar::from_urange(0, 10), zero = Scalar::constant(0);
  ASSERT_TRUE(refine(JmpOp::jne, Width::w64, true, y, zero));
  expect_bounds(y, 1, 10, 1, 10);
  Scalar z = Scalar::from_urange(0, 10);
  zero = Scalar::constant(0);
  ASSERT_TRUE(refine(JmpOp::jeq, Width::w64, false, z, zero));
  EXPECT_EQ(z.umin, 1u);
  // jeq32 constrains only the low word.
  Scalar w = Scalar::unknown(), c = Scalar::constant(7);
  ASSERT_TRUE(refine(JmpOp::jeq, Width::w32, true, w, c));
  EXPECT_EQ(w.u32_min, 7u);
  EXPECT_EQ(w.u32_max, 7u);
  EXPECT_EQ(w.bits, (Tnum{7, 0xffffffff00000000}));
  EXPECT_EQ(w.umax, 0xffffffff00000007);
}

TEST(ScalarPrecision, Jmp32Refines) {
  Scalar x = Scalar::unknown(), k = Scalar::constant(10);
  ASSERT_TRUE(refine(JmpOp::jlt, Width::w32, true, x, k));
  EXPECT_EQ(x.u32_max, 9u);
  EXPECT_EQ(x.umax, 0xffffffff00000009);  // the upper word is still unknown
  // A value known to be < 2^32 gets its 64-bit bounds from the 32-bit check.
  Scalar y = zext32(Scalar::unknown());
  k = Scalar::constant(10);
  ASSERT_TRUE(refine(JmpOp::jlt, Width::w32, true, y, k));
  expect_bounds(y, 0, 9, 0, 9);
}

TEST(ScalarPrecision, JsetRefines) {
  Scalar x = Scalar::unknown(), one = Scalar::constant(1);
  ASSERT_TRUE(refine(JmpOp::jset, Width::w64, false, x, one));
  EXPECT_EQ(x.bits, (Tnum{0, kMax - 1}));
  Scalar y = Scalar::unknown();
  one = Scalar::constant(1);
  ASSERT_TRUE(refine(JmpOp::jset, Width::w64, true, y, one));
  EXPECT_EQ(y.bits, (Tnum{1, kMax - 1}));
  EXPECT_EQ(evaluate(JmpOp::jset, Width::w64, Scalar::from_tnum({0, 0xf0}), Scalar::constant(0xf)), Outcome::never);
  EXPECT_EQ(evaluate(JmpOp::jset, Width::w64, Scalar::from_tnum({1, 0xf0}), Scalar::constant(0xf)), Outcome::always);
}

TEST(ScalarPrecision, Evaluate) {
  const Scalar small = Scalar::from_urange(0, 10), big = Scalar::from_urange(30, 40), twenty = Scalar::constant(20);
  EXPECT_EQ(evaluate(JmpOp::jgt, Width::w64, small, twenty), Outcome::never);
  EXPECT_EQ(evaluate(JmpOp::jgt, Width::w64, big, twenty), Outcome::always);
  EXPECT_EQ(evaluate(JmpOp::jgt, Width::w64, Scalar::from_urange(15, 25), twenty), Outcome::maybe);
  EXPECT_EQ(evaluate(JmpOp::jeq, Width::w64, Scalar::constant(3), Scalar::constant(3)), Outcome::always);
  EXPECT_EQ(evaluate(JmpOp::jne, Width::w64, Scalar::constant(3), Scalar::constant(3)), Outcome::never);
  EXPECT_EQ(evaluate(JmpOp::jeq, Width::w64, Scalar::from_tnum({0, 0xe}), Scalar::constant(3)), Outcome::never);
  // Signed vs unsigned: -1 is huge unsigned, small signed.
  const Scalar minus1 = Scalar::constant(kMax), zero = Scalar::constant(0);
  EXPECT_EQ(evaluate(JmpOp::jgt, Width::w64, minus1, zero), Outcome::always);
  EXPECT_EQ(evaluate(JmpOp::jsgt, Width::w64, minus1, zero), Outcome::never);
  // 32-bit compare of a value whose low word is known.
  EXPECT_EQ(evaluate(JmpOp::jeq, Width::w32, Scalar::constant(0x500000007), Scalar::constant(7)), Outcome::always);
}

TEST(ScalarPrecision, AddAndSub) {
  const Scalar a = Scalar::from_urange(0, 10), b = Scalar::from_urange(5, 20);
  expect_bounds(alu(AluOp::add, Width::w64, a, b), 5, 30, 5, 30);
  expect_bounds(alu(AluOp::sub, Width::w64, b, Scalar::constant(5)), 0, 15, 0, 15);
  // May or may not overflow: the unsigned range is lost, the signed one is fine.
  const Scalar r = alu(AluOp::add, Width::w64, Scalar::from_urange(kMax - 5, kMax), Scalar::from_urange(0, 10));
  EXPECT_EQ(r.umin, 0u);
  EXPECT_EQ(r.umax, kMax);
  EXPECT_EQ(r.smin, -6);
  EXPECT_EQ(r.smax, 9);
  // Always overflows: the wrapped range is exact.
  expect_bounds(alu(AluOp::add, Width::w64, Scalar::from_urange(kMax - 9, kMax), Scalar::constant(20)), 10, 19, 10, 19);
  // Pointer-offset style: x in [0, 255] minus 1 is [-1, 254] signed.
  const Scalar d = alu(AluOp::sub, Width::w64, Scalar::from_urange(0, 255), Scalar::constant(1));
  EXPECT_EQ(d.smin, -1);
  EXPECT_EQ(d.smax, 254);
  // Unknown plus anything is unknown.
  EXPECT_EQ(alu(AluOp::add, Width::w64, Scalar::unknown(), Scalar::constant(1)), Scalar::unknown());
}

TEST(ScalarPrecision, Alu32OnWideValues) {
  // The low word of [2^32, 2^32 + 10] is [0, 10]; add32 1 gives [1, 11].
  const Scalar x = Scalar::from_urange(0x100000000, 0x10000000a);
  EXPECT_EQ(x.u32_min, 0u);
  EXPECT_EQ(x.u32_max, 10u);
  expect_bounds(alu(AluOp::add, Width::w32, x, Scalar::constant(1)), 1, 11, 1, 11);
  // mov32 zero-extends.
  expect_bounds(zext32(Scalar::unknown()), 0, 0xffffffff, 0, 0xffffffff);
  // add32 that wraps the low word.
  const Scalar w = alu(AluOp::add, Width::w32, Scalar::constant(0xffffffff), Scalar::from_urange(1, 2));
  expect_bounds(w, 0, 1, 0, 1);
  // 64-bit add keeps 32-bit bounds from the low words.
  Scalar y = Scalar::unknown();
  y.u32_max = 10;
  ASSERT_TRUE(reduce(y));
  const Scalar s = alu(AluOp::add, Width::w64, y, Scalar::constant(5));
  EXPECT_EQ(s.u32_min, 5u);
  EXPECT_EQ(s.u32_max, 15u);
}

TEST(ScalarPrecision, MulDivMod) {
  expect_bounds(alu(AluOp::mul, Width::w64, Scalar::from_urange(0, 100), Scalar::constant(8)), 0, 800, 0, 800);
  expect_bounds(alu(AluOp::mul, Width::w64, Scalar::from_srange(-3, 4), Scalar::constant(u64(-2))), 0, kMax - 1, -8, 6);
  expect_bounds(alu(AluOp::div, Width::w64, Scalar::unknown(), Scalar::constant(16)), 0, kMax >> 4, 0,
                static_cast<int64_t>(kMax >> 4));
  const Scalar m = alu(AluOp::mod, Width::w64, Scalar::unknown(), Scalar::constant(8));
  expect_bounds(m, 0, 7, 0, 7);
  EXPECT_EQ(m.bits, (Tnum{0, 7}));
  expect_bounds(alu(AluOp::mod, Width::w64, Scalar::unknown(), Scalar::constant(100)), 0, 99, 0, 99);
  // Divisor possibly zero: division gives 0 or a / d.
  expect_bounds(alu(AluOp::div, Width::w64, Scalar::from_urange(10, 100), Scalar::from_urange(0, 10)), 0, 100, 0, 100);
  const Scalar sm = alu(AluOp::smod, Width::w64, Scalar::unknown(), Scalar::constant(10));
  EXPECT_EQ(sm.smin, -9);
  EXPECT_EQ(sm.smax, 9);
  const Scalar sd = alu(AluOp::sdiv, Width::w64, Scalar::from_srange(-100, 50), Scalar::constant(10));
  EXPECT_EQ(sd.smin, -10);
  EXPECT_EQ(sd.smax, 5);
}

TEST(ScalarPrecision, Shifts) {
  expect_bounds(alu(AluOp::lsh, Width::w64, Scalar::from_urange(0, 255), Scalar::constant(2)), 0, 1020, 0, 1020);
  expect_bounds(alu(AluOp::rsh, Width::w64, Scalar::unknown(), Scalar::constant(56)), 0, 255, 0, 255);
  expect_bounds(alu(AluOp::arsh, Width::w64, Scalar::unknown(), Scalar::constant(56)), 0, kMax, -128, 127);
  expect_bounds(alu(AluOp::rsh, Width::w32, Scalar::unknown(), Scalar::constant(24)), 0, 255, 0, 255);
  // The amount is masked: shifting by 64 is shifting by 0.
  EXPECT_EQ(alu(AluOp::rsh, Width::w64, Scalar::from_urange(3, 9), Scalar::constant(64)), Scalar::from_urange(3, 9));
  // An amount in [0, 3]: the join of the four shifts.
  expect_bounds(alu(AluOp::lsh, Width::w64, Scalar::from_urange(1, 2), Scalar::from_urange(0, 3)), 1, 16, 1, 16);
  // Unknown amount: a byte shifted right stays a byte.
  expect_bounds(alu(AluOp::rsh, Width::w64, Scalar::from_urange(0, 255), Scalar::unknown()), 0, 255, 0, 255);
}

TEST(ScalarPrecision, SignExtension) {
  expect_bounds(movsx(Width::w64, 8, Scalar::from_urange(0, 0x7f)), 0, 0x7f, 0, 0x7f);
  expect_bounds(movsx(Width::w64, 8, Scalar::unknown()), 0, kMax, -128, 127);
  expect_bounds(movsx(Width::w64, 32, Scalar::from_urange(0x80000000, 0x80000010)), u64(INT32_MIN),
                u64(INT32_MIN + 16), INT32_MIN, INT32_MIN + 16);
  expect_bounds(movsx(Width::w32, 16, Scalar::constant(0xffff)), 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff);
  expect_bounds(to_le(16, Scalar::from_urange(0, 1000)), 0, 1000, 0, 1000);
}

TEST(ScalarPrecision, JoinAndWiden) {
  const Scalar j = join(Scalar::from_urange(0, 5), Scalar::from_urange(10, 20));
  expect_bounds(j, 0, 20, 0, 20);
  const Scalar w = widen(Scalar::from_urange(0, 5), Scalar::from_urange(0, 6));
  EXPECT_EQ(w.umin, 0u);
  EXPECT_EQ(w.umax, kMax);
  EXPECT_EQ(w.smin, 0);
  EXPECT_EQ(w.smax, INT64_MAX);
  EXPECT_EQ(widen(Scalar::from_urange(0, 5), Scalar::from_urange(1, 4)), Scalar::from_urange(0, 5));
  EXPECT_TRUE(leq(Scalar::constant(3), Scalar::from_urange(0, 5)));
  EXPECT_FALSE(leq(Scalar::from_urange(0, 5), Scalar::constant(3)));
}

// ---------------------------------------------------------------------------
// Fast paths. reduce() and alu() take shortcuts (a constant tnum, the
// unknown value, small non-negative ranges, stopping after a round that
// provably leaves nothing for the next, constant folding); each must give
// exactly what the full computation gives — on reduced values and on
// arbitrary ones (unreduced, contradictory, empty).

namespace reference {

// The reduction as first written (commit 068eb28, before any shortcut),
// copied verbatim: the oracle that reduce() is held to.
constexpr uint64_t kLow32 = 0xffff'ffffu;

// A width: 64 bits, or the low 32 bits held in 64-bit variables (unsigned
// values in [0, 2^32), signed values in [INT32_MIN, INT32_MAX]).
struct Wd {
  unsigned bits;
  uint64_t umax;
  int64_t smin, smax;
};
constexpr Wd k64{64, UINT64_MAX, INT64_MIN, INT64_MAX};
constexpr Wd k32{32, UINT32_MAX, INT32_MIN, INT32_MAX};

// The signed reading of a w-bit pattern, and back.
int64_t to_s(Wd w, uint64_t x) {
  return w.bits == 64 ? static_cast<int64_t>(x)
                      : static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(x)));
}
uint64_t to_u(Wd w, int64_t s) { return static_cast<uint64_t>(s) & w.umax; }

template <class T>
T min_of(T a, T b) { return a < b ? a : b; }
template <class T>
T max_of(T a, T b) { return a < b ? b : a; }

// The interval half of the domain at one width.
struct Range {
  uint64_t umin, umax;
  int64_t smin, smax;
};

Range meet(Range a, Range b) {
  return {max_of(a.umin, b.umin), min_of(a.umax, b.umax), max_of(a.smin, b.smin),
          min_of(a.smax, b.smax)};
}
// Number of values minus one; exact for both widths in uint64 arithmetic.
uint64_t uspan(Range r) { return r.umax - r.umin; }
uint64_t sspan(Range r) { return static_cast<uint64_t>(r.smax) - static_cast<uint64_t>(r.smin); }

Range r64(const Scalar& s) { return {s.umin, s.umax, s.smin, s.smax}; }
Range r32(const Scalar& s) { return {s.u32_min, s.u32_max, s.s32_min, s.s32_max}; }
void set64(Scalar& s, Range r) {
  s.umin = r.umin;
  s.umax = r.umax;
  s.smin = r.smin;
  s.smax = r.smax;
}
void set32(Scalar& s, Range r) {
  s.u32_min = static_cast<uint32_t>(r.umin);
  s.u32_max = static_cast<uint32_t>(r.umax);
  s.s32_min = static_cast<int32_t>(r.smin);
  s.s32_max = static_cast<int32_t>(r.smax);
}

// Signed <-> unsigned at one width, exactly: the set is U ∩ S where U is the
// unsigned interval and S the signed one read as at most two unsigned pieces
// ([smin, smax] crossing zero is [0, smax] ∪ [2^w + smin, 2^w - 1]). The
// intersection is at most two unsigned intervals, none crossing 2^(w-1)
// (S's pieces do not), so each is also a signed interval; their unsigned
// hull and their signed hull are the tightest intervals containing U ∩ S.
bool sync_sign(Wd w, Range& r) {
  if (r.umin > r.umax || r.smin > r.smax) return false;
  uint64_t lo[2], hi[2];
  int pieces = 1;
  if (r.smin >= 0 || r.smax < 0) {
    lo[0] = to_u(w, r.smin);
    hi[0] = to_u(w, r.smax);
  } else {
    lo[0] = 0;
    hi[0] = to_u(w, r.smax);
    lo[1] = to_u(w, r.smin);
    hi[1] = w.umax;
    pieces = 2;
  }
  Range out{w.umax, 0, w.smax, w.smin};
  bool any = false;
  for (int i = 0; i < pieces; ++i) {
    const uint64_t l = max_of(lo[i], r.umin), h = min_of(hi[i], r.umax);
    if (l > h) continue;
    any = true;
    out.umin = min_of(out.umin, l);
    out.umax = max_of(out.umax, h);
    out.smin = min_of(out.smin, to_s(w, l));
    out.smax = max_of(out.smax, to_s(w, h));
  }
  if (!any) return false;
  r = out;
  return true;
}

// The low 32 bits of the values lo, lo+1, ..., lo+span (mod 2^32) when span
// < 2^32 form the circular interval [lo, hi]: an unsigned interval when it
// does not pass 2^32-1 -> 0 (lo <= hi) and a signed one when it does not pass
// INT32_MAX -> INT32_MIN (int32(lo) <= int32(hi)).
void narrow_by_circle32(Range& r32, uint64_t lo64, uint64_t span) {
  if (span > kLow32) return;
  const uint64_t lo = lo64 & kLow32, hi = (lo64 + span) & kLow32;
  if (lo <= hi) r32 = meet(r32, Range{lo, hi, r32.smin, r32.smax});
  if (to_s(k32, lo) <= to_s(k32, hi)) r32 = meet(r32, Range{r32.umin, r32.umax, to_s(k32, lo), to_s(k32, hi)});
}

bool in_circle(uint32_t x, uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(x - a) <= static_cast<uint32_t>(b - a);
}

// The least x' >= x (unsigned or, if `is_signed`, signed order) whose low 32
// bits lie in the circular interval [a, b]. Both orders compare the upper
// word first (signed or unsigned) and the low word unsigned, so: if x's low
// word is outside, walking up from it the first member is a — in the same
// upper word when a is above it, else in the next one.
bool raise_to_low_set(uint64_t& x, uint32_t a, uint32_t b, bool is_signed) {
  const uint32_t low = static_cast<uint32_t>(x), high = static_cast<uint32_t>(x >> 32);
  if (in_circle(low, a, b)) return true;
  if (a > low) {
    x = (uint64_t{high} << 32) | a;
    return true;
  }
  if (high == (is_signed ? 0x7fff'ffffu : 0xffff'ffffu)) return false;
  x = (uint64_t{static_cast<uint32_t>(high + 1)} << 32) | a;
  return true;
}

// The mirror image: the greatest x' <= x whose low word lies in [a, b].
bool lower_to_low_set(uint64_t& x, uint32_t a, uint32_t b, bool is_signed) {
  const uint32_t low = static_cast<uint32_t>(x), high = static_cast<uint32_t>(x >> 32);
  if (in_circle(low, a, b)) return true;
  if (b < low) {
    x = (uint64_t{high} << 32) | b;
    return true;
  }
  if (high == (is_signed ? 0x8000'0000u : 0u)) return false;
  x = (uint64_t{static_cast<uint32_t>(high - 1)} << 32) | b;
  return true;
}

// Moves each 64-bit bound to the nearest value whose low word is allowed by
// the 32-bit bounds (each of which is a circular interval of low words).
bool tighten64_from32(Range& r, Range r32) {
  const uint32_t circles[2][2] = {
      {static_cast<uint32_t>(r32.umin), static_cast<uint32_t>(r32.umax)},
      {static_cast<uint32_t>(r32.smin), static_cast<uint32_t>(r32.smax)}};
  for (const auto& c : circles) {
    uint64_t smin = static_cast<uint64_t>(r.smin), smax = static_cast<uint64_t>(r.smax);
    if (!raise_to_low_set(r.umin, c[0], c[1], false) || !lower_to_low_set(r.umax, c[0], c[1], false) ||
        !raise_to_low_set(smin, c[0], c[1], true) || !lower_to_low_set(smax, c[0], c[1], true))
      return false;
    r.smin = static_cast<int64_t>(smin);
    r.smax = static_cast<int64_t>(smax);
  }
  return r.umin <= r.umax && r.smin <= r.smax;
}

// The tnum of a signed interval: one unsigned range when it keeps one sign,
// else the join of its negative and its non-negative parts.
Tnum srange_tnum(Wd w, int64_t smin, int64_t smax) {
  if (smin >= 0 || smax < 0) return tnum::range(to_u(w, smin), to_u(w, smax));
  return tnum::join(tnum::range(to_u(w, smin), w.umax), tnum::range(0, to_u(w, smax)));
}

// The low-word tnum t32 constrains only the low 32 bits.
Tnum widen_low(Tnum t32) { return {t32.value & kLow32, t32.mask | ~kLow32}; }

bool reduce_round(Scalar& s) {
  Range a = r64(s), b = r32(s);
  if (!sync_sign(k64, a) || !sync_sign(k32, b)) return false;
  // 64 -> 32 from each 64-bit interval, then 32 -> 64.
  narrow_by_circle32(b, a.umin, uspan(a));
  narrow_by_circle32(b, static_cast<uint64_t>(a.smin), sspan(a));
  if (!sync_sign(k32, b)) return false;
  if (!tighten64_from32(a, b) || !sync_sign(k64, a)) return false;

  // Bounds -> tnum.
  Tnum t = s.bits;
  if (!tnum::intersect(t, tnum::range(a.umin, a.umax), t) ||
      !tnum::intersect(t, srange_tnum(k64, a.smin, a.smax), t) ||
      !tnum::intersect(t, widen_low(tnum::range(b.umin, b.umax)), t) ||
      !tnum::intersect(t, widen_low(srange_tnum(k32, b.smin, b.smax)), t))
    return false;

  // Tnum -> bounds: each bound moves to the nearest member of the tnum.
  if (!tnum::min_member_at_least(t, a.umin, a.umin) || !tnum::max_member_at_most(t, a.umax, a.umax) ||
      !tnum::smin_member_at_least(t, a.smin, a.smin) || !tnum::smax_member_at_most(t, a.smax, a.smax))
    return false;
  if (a.umin > a.umax || a.smin > a.smax) return false;
  // The low word: the cast tnum has upper bits known 0, so its members (and
  // the bounds found) stay below 2^32. Flipping bit 31 maps the 32-bit
  // signed order onto the unsigned one.
  const Tnum t32 = tnum::cast32(t);
  const uint64_t s31 = uint64_t{1} << 31;
  const Tnum t32f{t32.value ^ (s31 & ~t32.mask), t32.mask};
  uint64_t slo = 0, shi = 0;
  if (!tnum::min_member_at_least(t32, b.umin, b.umin) || !tnum::max_member_at_most(t32, b.umax, b.umax) ||
      !tnum::min_member_at_least(t32f, to_u(k32, b.smin) ^ s31, slo) ||
      !tnum::max_member_at_most(t32f, to_u(k32, b.smax) ^ s31, shi))
    return false;
  b.smin = to_s(k32, slo ^ s31);
  b.smax = to_s(k32, shi ^ s31);
  if (b.umin > b.umax || b.smin > b.smax) return false;

  s.bits = t;
  set64(s, a);
  set32(s, b);
  return true;
}

bool reduce(Scalar& s) {
  for (int round = 0; round < 8; ++round) {
    const Scalar before = s;
    if (!reduce_round(s)) return false;
    if (s == before) break;
  }
  return true;
}


}  // namespace reference

// Arbitrary scalars: every component independently an extreme, a boundary
// value or its neighbour, or random, so that many are unreduced and some
// are empty.
struct RawRng {
  std::mt19937_64 gen{0x72656475};
  uint64_t next() { return gen(); }
  uint64_t value() {
    switch (next() % 5) {
      case 0: return interesting()[next() % interesting().size()] + (next() % 5) - 2;
      case 1: return next() % 300;
      case 2: return 0 - next() % 300;
      case 3: return (next() % 2 ? 0x80000000 : 0x100000000) + (next() % 9) - 4;
      default: return next();
    }
  }
  Tnum tnum() {
    uint64_t mask = 0;
    switch (next() % 7) {
      case 0: mask = 0; break;
      case 1: mask = kMax; break;
      case 2: mask = (uint64_t{1} << (next() % 64)) - 1; break;  // low bits unknown
      case 3: mask = ~((uint64_t{1} << (next() % 64)) - 1); break;  // high bits unknown
      case 4: mask = next() & next(); break;
      case 5: mask = next() & next() & next() & 0xffffffff; break;
      default: mask = next(); break;
    }
    return {value() & ~mask, mask};
  }
  // An ordered pair most of the time; sometimes not (an empty interval).
  void pair(uint64_t& lo, uint64_t& hi, bool is_signed) {
    lo = value();
    hi = value();
    const bool swap = is_signed ? s64(lo) > s64(hi) : lo > hi;
    if (swap && next() % 16 != 0) std::swap(lo, hi);
  }
  Scalar scalar() {
    Scalar s;
    uint64_t lo = 0, hi = 0;
    if (next() % 3) s.bits = tnum();
    if (next() % 2) {
      pair(lo, hi, false);
      s.umin = lo;
      s.umax = hi;
    }
    if (next() % 2) {
      pair(lo, hi, true);
      s.smin = s64(lo);
      s.smax = s64(hi);
    }
    if (next() % 3 == 0) {
      pair(lo, hi, false);
      lo &= 0xffffffff;
      hi &= 0xffffffff;
      if (lo > hi && next() % 16 != 0) std::swap(lo, hi);
      s.u32_min = static_cast<uint32_t>(lo);
      s.u32_max = static_cast<uint32_t>(hi);
    }
    if (next() % 3 == 0) {
      auto l = static_cast<int32_t>(value()), h = static_cast<int32_t>(value());
      if (l > h && next() % 16 != 0) std::swap(l, h);
      s.s32_min = l;
      s.s32_max = h;
    }
    return s;
  }
  // All four intervals the same [lo, hi], near or below 2^31, with a tnum
  // that may or may not fit: the small-range shortcut and its boundary.
  Scalar small_range() {
    uint64_t lo = next() % 2 ? next() % 600 : 0x7fffffff - next() % 600;
    uint64_t hi = next() % 2 ? lo + next() % 600 : 0x7fffffff - next() % 4 + next() % 8;
    if (lo > hi && next() % 16 != 0) std::swap(lo, hi);
    Scalar s;
    s.umin = s.u32_min = static_cast<uint32_t>(lo);
    s.umax = s.u32_max = static_cast<uint32_t>(hi);
    s.smin = s.s32_min = static_cast<int32_t>(static_cast<uint32_t>(lo));
    s.smax = s.s32_max = static_cast<int32_t>(static_cast<uint32_t>(hi));
    switch (next() % 4) {
      case 0: s.bits = tnum::range(lo, hi); break;
      case 1: s.bits = {lo & ~(next() % 1024), next() % 1024}; s.bits.value &= ~s.bits.mask; break;
      case 2: s.bits = tnum(); break;
      default: break;  // unknown
    }
    // Knock one component off the shortcut's pattern, looser or tighter.
    const auto d = static_cast<int>(next() % 5) - 2;
    switch (next() % 12) {
      case 0: s.umin += static_cast<uint64_t>(d); break;
      case 1: s.umax += static_cast<uint64_t>(d); break;
      case 2: s.smin = s64(u64(s.smin) + static_cast<uint64_t>(d)); break;  // wrapping, no UB
      case 3: s.smax = s64(u64(s.smax) + static_cast<uint64_t>(d)); break;
      case 4: s.u32_min += static_cast<uint32_t>(d); break;
      case 5: s.u32_max += static_cast<uint32_t>(d); break;
      case 6: s.s32_min = static_cast<int32_t>(static_cast<uint32_t>(s.s32_min) + static_cast<uint32_t>(d)); break;
      case 7: s.s32_max = static_cast<int32_t>(static_cast<uint32_t>(s.s32_max) + static_cast<uint32_t>(d)); break;
      case 8: s.s32_max = INT32_MAX; break;
      case 9: s.u32_min = 0; break;
      default: break;
    }
    return s;
  }
};

::testing::AssertionResult same_reduction(const Scalar& s) {
  Scalar fast = s, full = s;
  const bool ok_fast = reduce(fast), ok_full = reference::reduce(full);
  if (ok_fast != ok_full)
    return ::testing::AssertionFailure() << show(s) << ": reduce " << ok_fast << ", full reduction " << ok_full;
  if (ok_fast && !(fast == full))
    return ::testing::AssertionFailure() << show(s) << " -> " << show(fast) << ", full reduction " << show(full);
  return ::testing::AssertionSuccess();
}

// A shortcut of the reduction (`shortcut` rewrites its argument and says
// whether it applied): where it applies, the reference reduction's result.
// Counts the values it applied to in `taken`.
template <typename Shortcut>
::testing::AssertionResult shortcut_as_rounds(const Scalar& s, Shortcut shortcut, int& taken) {
  Scalar fast = s, full = s;
  if (!shortcut(fast)) return ::testing::AssertionSuccess();
  ++taken;
  if (!reference::reduce(full)) return ::testing::AssertionFailure() << show(s) << ": the full reduction is empty";
  if (!(fast == full))
    return ::testing::AssertionFailure() << show(s) << " -> " << show(fast) << ", full reduction " << show(full);
  return ::testing::AssertionSuccess();
}

TEST(ScalarFastPath, ReduceMatchesFullReduction) {
  RawRng rng;
  int empty = 0;
  for (int i = 0; i < 40000; ++i) {
    const Scalar s = rng.scalar();
    ASSERT_TRUE(same_reduction(s));
    Scalar copy = s;
    empty += !reduce(copy);
  }
  for (int i = 0; i < 30000; ++i) ASSERT_TRUE(same_reduction(rng.small_range()));
  // A constant tnum with bounds that do or do not admit it.
  for (int i = 0; i < 20000; ++i) {
    Scalar s = rng.scalar();
    s.bits = Tnum::constant(rng.next() % 2 ? rng.value() : s.umin + rng.next() % 3);
    ASSERT_TRUE(same_reduction(s));
  }
  // Found by a longer run of the generator above: the last step of a round
  // (tnum -> bounds) narrows only the 32-bit bounds, and only another round
  // brings the 64-bit ones along.
  {
    Scalar s;
    s.bits = {0, 0xccda03f1567fc77f};
    s.umin = 0x76;
    s.umax = 0x100000001;
    s.s32_min = -69;
    s.s32_max = 255;
    ASSERT_TRUE(same_reduction(s));
    s = Scalar{};
    s.bits = {0, 0xa795f635e167c32f};
    s.smin = 10;
    s.smax = 4294967297;
    s.s32_min = -2;
    s.s32_max = 234;
    ASSERT_TRUE(same_reduction(s));
  }
  // The unknown value, and the unknown value with one component moved.
  ASSERT_TRUE(same_reduction(Scalar::unknown()));
  for (int i = 0; i < 2000; ++i) {
    Scalar s;
    const uint64_t v = rng.value();
    switch (i % 9) {
      case 0: s.bits = {0, kMax - (uint64_t{1} << (v % 64))}; break;
      case 1: s.umin = v; break;
      case 2: s.umax = v; break;
      case 3: s.smin = s64(v); break;
      case 4: s.smax = s64(v); break;
      case 5: s.u32_min = static_cast<uint32_t>(v); break;
      case 6: s.u32_max = static_cast<uint32_t>(v); break;
      case 7: s.s32_min = static_cast<int32_t>(v); break;
      default: s.s32_max = static_cast<int32_t>(v); break;
    }
    ASSERT_TRUE(same_reduction(s));
  }
  // Reduced values, and the unreduced component-wise hull of two of them
  // (what join() reduces).
  const auto values = pair_values(2);
  for (const Scalar& a : values) {
    ASSERT_TRUE(same_reduction(a));
    for (const Scalar& b : values) {
      Scalar h;
      h.bits = tnum::join(a.bits, b.bits);
      h.umin = std::min(a.umin, b.umin);
      h.umax = std::max(a.umax, b.umax);
      h.smin = std::min(a.smin, b.smin);
      h.smax = std::max(a.smax, b.smax);
      h.u32_min = std::min(a.u32_min, b.u32_min);
      h.u32_max = std::max(a.u32_max, b.u32_max);
      h.s32_min = std::min(a.s32_min, b.s32_min);
      h.s32_max = std::max(a.s32_max, b.s32_max);
      ASSERT_TRUE(same_reduction(h));
      // and their component-wise meet, which is often empty
      Scalar m;
      if (!tnum::intersect(a.bits, b.bits, m.bits)) continue;
      m.umin = std::max(a.umin, b.umin);
      m.umax = std::min(a.umax, b.umax);
      m.smin = std::max(a.smin, b.smin);
      m.smax = std::min(a.smax, b.smax);
      m.u32_min = std::max(a.u32_min, b.u32_min);
      m.u32_max = std::min(a.u32_max, b.u32_max);
      m.s32_min = std::max(a.s32_min, b.s32_min);
      m.s32_max = std::min(a.s32_max, b.s32_max);
      ASSERT_TRUE(same_reduction(m));
    }
  }
  // Both outcomes must be well represented, or the comparison proves little.
  EXPECT_GT(empty, 4000);
  EXPECT_LT(empty, 35000);
}

// Two constants: alu() folds them; the transfer functions must agree, for
// canonical constants (Scalar::constant) and for values whose tnum is
// constant but whose bounds are loose or contradictory (not folded).
TEST(ScalarFastPath, ConstantFoldingMatchesTransferFunctions) {
  std::vector<uint64_t> cs;
  for (uint64_t v : interesting())
    for (uint64_t d : {uint64_t{0}, uint64_t{1}, kMax}) cs.push_back(v + d);
  for (uint64_t k : {3, 31, 32, 33, 63, 64, 65}) cs.push_back(k);
  RawRng rng;
  for (int i = 0; i < 12; ++i) cs.push_back(rng.value());
  const AluOp ops[] = {AluOp::add,     AluOp::sub,    AluOp::mul,     AluOp::div, AluOp::sdiv,
                       AluOp::mod,     AluOp::smod,   AluOp::bit_and, AluOp::bit_or,
                       AluOp::bit_xor, AluOp::lsh,    AluOp::rsh,     AluOp::arsh, AluOp::mov};
  for (uint64_t x : cs) {
    for (uint64_t y : cs) {
      const Scalar a = Scalar::constant(x), b = Scalar::constant(y);
      for (AluOp op : ops) {
        for (Width w : kWidths) {
          const Scalar folded = alu(op, w, a, b);
          ASSERT_EQ(folded, alu_full(op, w, a, b)) << "op " << int(op) << " x=" << x << " y=" << y;
          if (op != AluOp::mod && op != AluOp::smod) {
            ASSERT_EQ(folded, Scalar::constant(alu_ref(op, w, x, y))) << "op " << int(op) << " x=" << x << " y=" << y;
          }
        }
      }
    }
  }
  for (int i = 0; i < 1500; ++i) {
    Scalar a = rng.scalar(), b = Scalar::constant(rng.value());
    a.bits = Tnum::constant(rng.next() % 2 ? a.umin : rng.value());
    for (AluOp op : ops)
      for (Width w : kWidths) {
        ASSERT_EQ(alu(op, w, a, b), alu_full(op, w, a, b)) << show(a);
        ASSERT_EQ(alu(op, w, b, a), alu_full(op, w, b, a)) << show(a);
      }
  }
}

// Small non-negative ranges (and constants below 2^31): alu() computes add,
// sub and and of two of them directly; the general rules must agree, also
// where the result leaves the small range or the operands just miss it.
TEST(ScalarFastPath, SmallRangeAluMatchesTransferFunctions) {
  RawRng rng;
  std::vector<Scalar> smalls;
  while (smalls.size() < 100) {
    Scalar s = rng.small_range();
    if (reduce(s)) smalls.push_back(s);
  }
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{0x7fffffff}, uint64_t{0x80000000}})
    smalls.push_back(Scalar::constant(v));
  smalls.push_back(Scalar::from_urange(0, 0x7fffffff));
  smalls.push_back(Scalar::from_urange(0, 0x80000000));
  const AluOp ops[] = {AluOp::add, AluOp::sub, AluOp::bit_and, AluOp::bit_or, AluOp::mul, AluOp::mov};
  for (size_t i = 0; i < smalls.size(); ++i) {
    for (size_t j = i % 3; j < smalls.size(); j += 3) {
      const Scalar &a = smalls[i], &b = smalls[j];
      for (AluOp op : ops)
        for (Width w : kWidths) ASSERT_EQ(alu(op, w, a, b), alu_full(op, w, a, b)) << int(op) << show(a) << show(b);
    }
  }
}

// Every ALU32 result is built with its upper word zero and reduced, with a
// shortcut when the low word is a small range; zext32 is that construction
// alone. The full reduction of the same raw value must agree.
TEST(ScalarFastPath, Zext32MatchesFullReduction) {
  RawRng rng;
  for (int i = 0; i < 20000; ++i) {
    Scalar s = i % 2 ? rng.small_range() : rng.scalar();
    if (!reduce(s)) continue;
    Scalar raw = s;
    raw.bits = tnum::cast32(s.bits);
    raw.umin = 0;
    raw.umax = 0xffffffff;
    raw.smin = 0;
    raw.smax = 0xffffffff;
    if (!reference::reduce(raw)) continue;  // (a bug; make32 answers the zero-extended top)
    ASSERT_EQ(zext32(s), raw) << show(s);
  }
}

// Two constants: refine() and evaluate() compare them directly; the general
// refinement must agree (and evaluate() must be what it was: two
// refinements), also for a constant tnum beside loose bounds.
TEST(ScalarFastPath, ConstantBranchesMatchRefinement) {
  std::vector<Scalar> cs;
  for (uint64_t v : interesting())
    for (uint64_t d : {uint64_t{0}, uint64_t{1}, kMax}) cs.push_back(Scalar::constant(v + d));
  RawRng rng;
  for (int i = 0; i < 10; ++i) cs.push_back(Scalar::constant(rng.value()));
  for (int i = 0; i < 12; ++i) {
    Scalar loose = rng.scalar();  // not canonical: takes the general path
    loose.bits = Tnum::constant(rng.next() % 2 ? loose.umin : rng.value());
    if (reduce(loose)) cs.push_back(loose);
    loose = rng.scalar();
    loose.bits = Tnum::constant(loose.umin);
    cs.push_back(loose);
  }
  for (const Scalar& a : cs) {
    for (const Scalar& b : cs) {
      for (JmpOp op : kJmpOps) {
        for (Width w : kWidths) {
          Scalar ta = a, tb = b, fa = a, fb = b, ta2 = a, tb2 = b, fa2 = a, fb2 = b;
          const bool can_take = refine_full(op, w, true, ta, tb), can_fall = refine_full(op, w, false, fa, fb);
          ASSERT_EQ(refine(op, w, true, ta2, tb2), can_take) << int(op) << show(a) << show(b);
          ASSERT_EQ(refine(op, w, false, fa2, fb2), can_fall) << int(op) << show(a) << show(b);
          if (can_take) {
            ASSERT_EQ(ta2, ta);
            ASSERT_EQ(tb2, tb);
          }
          if (can_fall) {
            ASSERT_EQ(fa2, fa);
            ASSERT_EQ(fb2, fb);
          }
          const Outcome expected = !can_take ? Outcome::never : can_fall ? Outcome::maybe : Outcome::always;
          ASSERT_EQ(evaluate(op, w, a, b), expected) << int(op) << show(a) << show(b);
        }
      }
    }
  }
}

// A wide-low value (the upper word known zero, the low word unknown to the
// tnum, one range [lo, hi] across 2^31 at 64 bits and in the low word's
// unsigned order, the low word's signed range full): reduce() returns it
// unchanged without running the rounds; the full reduction must agree, at
// the class's edges, and for values one component away from it (which
// reduce() must not take for wide-low).
Scalar wide_low_value(uint64_t lo, uint64_t hi) {
  Scalar s;
  s.bits = {0, 0xffffffff};
  s.umin = lo;
  s.umax = hi;
  s.smin = s64(lo);
  s.smax = s64(hi);
  s.u32_min = static_cast<uint32_t>(lo);
  s.u32_max = static_cast<uint32_t>(hi);
  return s;
}

std::vector<Scalar> wide_low_values(RawRng& rng, int random) {
  std::vector<Scalar> out;
  const uint64_t los[] = {0, 1, 2, 0x7ffffffe, 0x7fffffff};
  const uint64_t his[] = {0x80000000, 0x80000001, 0xfffffffe, 0xffffffff};
  for (uint64_t lo : los)
    for (uint64_t hi : his) out.push_back(wide_low_value(lo, hi));
  for (int i = 0; i < random; ++i) {
    const uint64_t lo = rng.next() % 2 ? rng.next() % 2000 : rng.next() % 0x80000000;
    const uint64_t hi = rng.next() % 2 ? 0xffffffff - rng.next() % 2000 : 0x80000000 + rng.next() % 0x80000000;
    out.push_back(wide_low_value(lo, hi));
  }
  return out;
}

TEST(ScalarFastPath, WideLowValuesAreTheirOwnReduction) {
  RawRng rng;
  for (const Scalar& w : wide_low_values(rng, 3000)) {
    Scalar full = w;
    ASSERT_TRUE(reference::reduce(full)) << show(w);
    ASSERT_EQ(full, w) << show(w);
    Scalar fast = w;
    ASSERT_TRUE(reduce(fast));
    ASSERT_EQ(fast, w);
    for (int field = 0; field < 9; ++field) {  // one component moved
      for (int64_t d : {-1, 1}) {
        Scalar near = w;
        const auto du = static_cast<uint64_t>(d);
        switch (field) {
          case 0: near.bits.mask = d < 0 ? 0x7fffffff : 0x1ffffffff; break;
          case 1: near.umin += du; break;
          case 2: near.umax += du; break;
          case 3: near.smin = s64(u64(near.smin) + du); break;
          case 4: near.smax = s64(u64(near.smax) + du); break;
          case 5: near.u32_min += static_cast<uint32_t>(du); break;
          case 6: near.u32_max += static_cast<uint32_t>(du); break;
          case 7: near.s32_min = d < 0 ? -5 : INT32_MIN + 1; break;
          default: near.s32_max = d < 0 ? 5 : INT32_MAX - 1; break;
        }
        ASSERT_TRUE(same_reduction(near));
      }
    }
  }
  // The bounds just outside the class: lo at 2^31, hi at or below 2^31 - 1
  // and above 2^32 - 1.
  for (auto [lo, hi] : {std::pair<uint64_t, uint64_t>{0x80000000, 0xffffffff}, {0, 0x7fffffff}, {5, 0x100000000}}) {
    ASSERT_TRUE(same_reduction(wide_low_value(lo, hi)));
  }
}

// Small ranges, loose or reduced, with constant tnums among them: the
// raw values small_range() makes and their reductions.
std::vector<Scalar> small_values(RawRng& rng, int count) {
  std::vector<Scalar> out;
  while (static_cast<int>(out.size()) < count) {
    Scalar s = rng.small_range();
    out.push_back(s);
    if (reduce(s)) out.push_back(s);
  }
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{0x7fffffff}}) out.push_back(Scalar::constant(v));
  out.push_back(Scalar::from_urange(0, 0x7fffffff));
  Scalar loose = Scalar::from_urange(3, 9);
  loose.bits = Tnum::constant(5);  // a constant tnum beside loose bounds
  out.push_back(loose);
  loose.bits = Tnum::constant(12);  // ... and outside them
  out.push_back(loose);
  Scalar single = Scalar::from_urange(5, 5);
  single.bits = tnum::range(0, 7);  // one value, a tnum that does not know it
  out.push_back(single);
  single.bits = Tnum{0, 0xffffffff};
  out.push_back(single);
  Scalar pair = Scalar::from_urange(5, 6);
  pair.bits = Tnum{4, 3};  // 4..7
  out.push_back(pair);
  return out;
}

// Small ranges, wide-low values, and random raw values with their
// reductions: the inputs of the join shortcuts' tests.
std::vector<Scalar> mixed_values(RawRng& rng, int smalls, int wides, int raws) {
  std::vector<Scalar> values = small_values(rng, smalls);
  for (const Scalar& w : wide_low_values(rng, wides)) values.push_back(w);
  for (int i = 0; i < raws; ++i) {
    Scalar s = rng.scalar();
    values.push_back(s);
    if (reduce(s)) values.push_back(s);
  }
  return values;
}

// small_alu (alu()'s path for add, sub, and and or of two small ranges)
// against alu_full, with loose small ranges (small_values: raw values
// whose tnums may reach above 2^31 or miss the bounds) on either side of
// reduced ones and constants.
TEST(ScalarFastPath, LooseSmallRangeAluMatchesAluFull) {
  RawRng rng;
  std::vector<Scalar> smalls;
  while (smalls.size() < 80) {
    Scalar s = rng.small_range();
    if (reduce(s)) smalls.push_back(s);
  }
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{12}, uint64_t{0x7fffffff}}) smalls.push_back(Scalar::constant(v));
  const AluOp ops[] = {AluOp::add, AluOp::sub, AluOp::bit_and, AluOp::bit_or};
  int ors = 0;
  for (const Scalar& a : small_values(rng, 400)) {
    for (const Scalar& b : smalls) {
      for (AluOp op : ops) {
        for (Width w : kWidths) {
          ASSERT_EQ(alu(op, w, a, b), alu_full(op, w, a, b)) << int(op) << show(a) << show(b);
          ASSERT_EQ(alu(op, w, b, a), alu_full(op, w, b, a)) << int(op) << show(b) << show(a);
        }
      }
      const Tnum t = tnum::bit_or(a.bits, b.bits);
      ors += scalar_parts::is_small(a) && scalar_parts::is_small(b) && (t.value | t.mask) <= 0x7fffffff &&
             std::max(a.umin, b.umin) <= t.value;
    }
  }
  EXPECT_GT(ors, 2000);
}

// join() joins two small ranges directly; join_full, the component-wise
// hull and its reduction, must agree (also for every other pair, which
// join() hands to join_full, and for pairs where one is not small).
TEST(ScalarFastPath, SmallJoinMatchesJoinFull) {
  RawRng rng;
  const std::vector<Scalar> values = mixed_values(rng, 300, 20, 60);
  for (const Scalar& a : values)
    for (const Scalar& b : values) ASSERT_EQ(join(a, b), join_full(a, b)) << show(a) << show(b);
}

// refine() compares a small range or a wide-low value with a constant
// directly (jeq, jne, jgt, jge, jlt, jle in 64 bits); refine_full must agree on
// feasibility and, where feasible, on both values — for constants on
// either side, at and around every bound, and for the operations, widths
// and operands it does not take.
TEST(ScalarFastPath, ConstantCompareMatchesRefinement) {
  RawRng rng;
  std::vector<Scalar> ranged = small_values(rng, 150);
  for (const Scalar& w : wide_low_values(rng, 150)) ranged.push_back(w);
  for (int i = 0; i < 40; ++i) ranged.push_back(rng.scalar());
  int feasible = 0, infeasible = 0;
  for (const Scalar& r : ranged) {
    std::vector<uint64_t> cs = {0, 1, 0x7ffffffe, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, kMax - 1, kMax};
    for (uint64_t bound : {r.umin, r.umax})
      for (uint64_t d : {kMax, uint64_t{0}, uint64_t{1}}) cs.push_back(bound + d);
    cs.push_back(r.umin + (r.umax - r.umin) / 2);
    cs.push_back(rng.value());
    for (uint64_t c : cs) {
      const Scalar k = Scalar::constant(c);
      for (JmpOp op : kJmpOps) {
        for (Width w : kWidths) {
          for (bool taken : {true, false}) {
            for (bool c_left : {false, true}) {
              Scalar a = c_left ? k : r, b = c_left ? r : k;
              Scalar a2 = a, b2 = b;
              const bool full = refine_full(op, w, taken, a, b);
              ASSERT_EQ(refine(op, w, taken, a2, b2), full)
                  << int(op) << " taken " << taken << show(c_left ? k : r) << show(c_left ? r : k);
              if (!full) {
                ++infeasible;
                continue;
              }
              ++feasible;
              ASSERT_EQ(a2, a) << int(op) << " taken " << taken << show(c_left ? k : r) << show(c_left ? r : k);
              ASSERT_EQ(b2, b) << int(op) << " taken " << taken << show(c_left ? k : r) << show(c_left ? r : k);
            }
          }
        }
      }
    }
  }
  // Both outcomes must be well represented, or the comparison proves little.
  EXPECT_GT(feasible, 100000);
  EXPECT_GT(infeasible, 20000);
}

// Scalar::from_urange builds ranges below 2^32 directly (small or
// wide-low); the full reduction of the raw interval must agree, at the
// edges 2^31 and 2^32 and for empty and single-value ranges.
TEST(ScalarFastPath, UnsignedRangeMatchesFullReduction) {
  RawRng rng;
  std::vector<uint64_t> edges = {0, 1, 2, 255, 256, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001,
                                 0xfffffffe, 0xffffffff, 0x100000000, 0x100000001, kMax};
  for (int i = 0; i < 40; ++i) edges.push_back(rng.next() % 2 ? rng.next() % 0x100000000 : rng.value());
  for (uint64_t lo : edges) {
    for (uint64_t hi : edges) {
      Scalar raw;
      raw.umin = lo;
      raw.umax = hi;
      if (!reference::reduce(raw)) raw = Scalar::unknown();  // finish64's answer to an empty range
      ASSERT_EQ(Scalar::from_urange(lo, hi), raw) << lo << " " << hi;
    }
  }
}

// joins_to_itself(v) promises join(v, v) == v, widen(v, v) == v and
// reduce(v) == v: never wrongly, and for every reduced constant, small and wide-low value.
TEST(ScalarFastPath, JoinsToItselfIsExact) {
  RawRng rng;
  std::vector<Scalar> values = mixed_values(rng, 400, 100, 400);
  values.push_back(Scalar::unknown());
  int yes = 0;
  for (const Scalar& v : values) {
    if (!joins_to_itself(v)) continue;
    ++yes;
    ASSERT_EQ(join(v, v), v) << show(v);
    ASSERT_EQ(widen(v, v), v) << show(v);
    // and v is its own reduction (refine_equal skips it), by the rounds too
    Scalar r = v, full = v;
    ASSERT_TRUE(reduce(r)) << show(v);
    ASSERT_EQ(r, v) << show(v);
    ASSERT_TRUE(reference::reduce(full)) << show(v);
    ASSERT_EQ(full, v) << show(v);
  }
  for (const Scalar& v : values) {
    Scalar r = v;
    const bool reduced = reduce(r) && r == v;
    const bool small_or_wide = v.umax <= 0xffffffff && v.umin == u64(v.smin) && v.umax == u64(v.smax) &&
                               v.u32_min == v.umin && v.u32_max == v.umax &&
                               (v.umax < 0x80000000 || v.s32_min == INT32_MIN);
    if (reduced && small_or_wide && (v.umax < 0x80000000 || v.bits == Tnum{0, 0xffffffff})) {
      ASSERT_TRUE(joins_to_itself(v)) << show(v);
    }
  }
  EXPECT_GT(yes, 300);
}

// scalar_parts::settled(s) skips a reduction round: it must say yes only
// when a round leaves s as it is (the reference round, compared field by
// field), on values that are reduced already (the common case it is for),
// on reduced values with one component moved one step looser or tighter
// (its boundary), and on arbitrary ones; and reduce() with the skip must
// still match the full reduction on all of them.
TEST(ScalarFastPath, SettledValuesAreLeftAsTheyAreByARound) {
  RawRng rng;
  int yes = 0, no = 0;
  auto check = [&](const Scalar& s) {
    ASSERT_TRUE(same_reduction(s));
    if (scalar_parts::is_small(s)) return;
    if (!scalar_parts::settled(s)) {
      ++no;
      return;
    }
    ++yes;
    Scalar round = s;
    ASSERT_TRUE(reference::reduce_round(round)) << show(s) << ": settled, but a round finds it empty";
    ASSERT_TRUE(round == s) << show(s) << ": settled, but a round gives " << show(round);
  };
  for (int i = 0; i < 60000; ++i) {
    const Scalar raw = rng.scalar();
    check(raw);
    Scalar s = raw;
    if (!reference::reduce(s)) continue;
    check(s);
    const auto d = static_cast<int>(rng.next() % 5) - 2;
    switch (rng.next() % 10) {
      case 0: s.umin += static_cast<uint64_t>(d); break;
      case 1: s.umax += static_cast<uint64_t>(d); break;
      case 2: s.smin = s64(u64(s.smin) + static_cast<uint64_t>(d)); break;
      case 3: s.smax = s64(u64(s.smax) + static_cast<uint64_t>(d)); break;
      case 4: s.u32_min += static_cast<uint32_t>(d); break;
      case 5: s.u32_max += static_cast<uint32_t>(d); break;
      case 6: s.s32_min = static_cast<int32_t>(static_cast<uint32_t>(s.s32_min) + static_cast<uint32_t>(d)); break;
      case 7: s.s32_max = static_cast<int32_t>(static_cast<uint32_t>(s.s32_max) + static_cast<uint32_t>(d)); break;
      case 8: s.bits.mask ^= uint64_t{1} << (rng.next() % 64); s.bits.value &= ~s.bits.mask; break;
      default: s.bits.value ^= uint64_t{1} << (rng.next() % 64); s.bits.value &= ~s.bits.mask; break;
    }
    check(s);
  }
  // Both answers must be common, or the comparison proves little.
  EXPECT_GT(yes, 20000);
  EXPECT_GT(no, 20000);
}

// finish_low_range (make64's shortcut for results below 2^31) against the
// reduction it skips: the raw value {t, a, b} built as make64 builds it and
// reduced by reduce() and by the reference reduction. The bounds run up to
// and past 2^31, and one component is sometimes knocked off the pattern, so
// a shortcut that accepted a wrong shape would be caught here.
TEST(ScalarFastPath, LowRangeResultsFinishAsTheReductionDoes) {
  RawRng rng;
  int taken = 0;
  for (int i = 0; i < 60000; ++i) {
    uint64_t lo = rng.next() % 2 ? rng.next() % 600 : 0x7fffffff - rng.next() % 600;
    uint64_t hi = rng.next() % 2 ? lo + rng.next() % 600 : 0x7fffffff - rng.next() % 4 + rng.next() % 8;
    if (lo > hi && rng.next() % 16 != 0) std::swap(lo, hi);
    scalar_parts::Range a{lo, hi, s64(lo), s64(hi)};
    scalar_parts::Range b{lo, hi, s64(lo), s64(hi)};
    if (rng.next() % 2) a.smin = INT64_MIN, a.smax = INT64_MAX;
    if (rng.next() % 2) b = {0, 0xffffffff, INT32_MIN, INT32_MAX};
    const auto d = static_cast<uint64_t>(static_cast<int64_t>(rng.next() % 5) - 2);
    switch (rng.next() % 10) {
      case 0: a.smin = s64(u64(a.smin) + d); break;
      case 1: a.smax = s64(u64(a.smax) + d); break;
      case 2: b.umin = (b.umin + d) & 0xffffffff; break;
      case 3: b.umax = (b.umax + d) & 0xffffffff; break;
      case 4: b.smin = static_cast<int32_t>(static_cast<uint32_t>(b.smin + s64(d))); break;
      default: break;
    }
    Tnum t;
    switch (rng.next() % 4) {
      case 0: t = tnum::range(lo, hi); break;
      case 1: t = {lo & ~(rng.next() % 1024), rng.next() % 1024}; t.value &= ~t.mask; break;
      case 2: t = rng.tnum(); break;
      default: t = Tnum::unknown(); break;
    }
    Scalar raw;
    raw.bits = t;
    scalar_parts::set64(raw, a);
    scalar_parts::set32(raw, b);
    Scalar fast;
    if (!scalar_parts::finish_low_range(t, a, b, fast)) continue;
    ++taken;
    Scalar full = raw, ref = raw;
    const Scalar expect = reduce(full) ? full : Scalar::unknown();
    const Scalar expect_ref = reference::reduce(ref) ? ref : Scalar::unknown();
    ASSERT_EQ(fast, expect) << show(raw) << " -> " << show(fast) << ", reduce() " << show(expect);
    ASSERT_EQ(fast, expect_ref) << show(raw) << " -> " << show(fast) << ", reference " << show(expect_ref);
  }
  EXPECT_GT(taken, 15000);
}


// A fixpoint of the reduction round: the reference round leaves v as it is.
bool is_fixpoint(const Scalar& v) {
  Scalar round = v;
  return reference::reduce_round(round) && round == v;
}

// Candidates for the fixpoint tests: small, wide-low, random raw values
// and their reductions, constants, and reductions with one component moved
// a step (mostly not fixpoints).
std::vector<Scalar> fixpoint_candidates(RawRng& rng) {
  std::vector<Scalar> values = mixed_values(rng, 500, 100, 800);
  for (uint64_t c : interesting()) values.push_back(Scalar::constant(c));
  values.push_back(Scalar::unknown());
  for (int i = 0; i < 300; ++i) {
    Scalar s = rng.scalar();
    if (!reduce(s)) continue;
    const auto d = static_cast<uint64_t>(static_cast<int64_t>(rng.next() % 5) - 2);
    switch (rng.next() % 6) {
      case 0: s.umin += d; break;
      case 1: s.umax += d; break;
      case 2: s.smin = s64(u64(s.smin) + d); break;
      case 3: s.u32_max += static_cast<uint32_t>(d); break;
      case 4: s.bits.mask ^= uint64_t{1} << (rng.next() % 64); s.bits.value &= ~s.bits.mask; break;
      default: break;
    }
    values.push_back(s);
  }
  return values;
}

// shift() replaces join() by the plain hull for fixpoints (its comment
// proves that the hull of two fixpoints is one and that join() returns
// it): over every pair of fixpoints among the candidates, the hull must
// be join()'s and join_full's result and a fixpoint again.
TEST(ScalarFastPath, HullOfFixpointsIsTheirJoin) {
  RawRng rng;
  std::vector<Scalar> fixpoints;
  int no = 0;
  for (const Scalar& v : fixpoint_candidates(rng)) {
    if (is_fixpoint(v)) {
      fixpoints.push_back(v);
    } else {
      ++no;
    }
  }
  int hulls = 0;
  for (const Scalar& a : fixpoints) {
    for (const Scalar& b : fixpoints) {
      const Scalar h = scalar_parts::hull(a, b);
      ASSERT_EQ(h, join_full(a, b)) << show(a) << show(b);
      ASSERT_EQ(h, join(a, b)) << show(a) << show(b);
      ASSERT_TRUE(is_fixpoint(h)) << show(a) << show(b) << " -> " << show(h);
      ++hulls;
    }
  }
  // Both kinds must be common, or the comparison proves little.
  EXPECT_GT(static_cast<int>(fixpoints.size()), 600);
  EXPECT_GT(no, 600);
  EXPECT_GT(hulls, 500000);
}

// reduce_reporting (reduce() that says whether its result is a fixpoint,
// which make64 and make32 pass on to shift()) must give reduce()'s result
// and say `fixpoint` only of a value the reference round leaves as it is.
TEST(ScalarFastPath, ReductionReportsFixpointsTruly) {
  RawRng rng;
  int fixpoints = 0;
  auto check = [&](const Scalar& raw) {
    Scalar reported = raw, plain = raw;
    const scalar_parts::Reduced how = scalar_parts::reduce_reporting(reported);
    ASSERT_EQ(how != scalar_parts::Reduced::empty, reduce(plain)) << show(raw);
    if (how == scalar_parts::Reduced::empty) return;
    ASSERT_EQ(reported, plain) << show(raw);
    if (how != scalar_parts::Reduced::fixpoint) return;
    ASSERT_TRUE(is_fixpoint(reported)) << show(raw) << " -> " << show(reported) << " reported as a fixpoint";
    ++fixpoints;
  };
  for (const Scalar& v : fixpoint_candidates(rng)) check(v);
  for (int i = 0; i < 40000; ++i) check(rng.scalar());
  for (int i = 0; i < 20000; ++i) check(rng.small_range());
  EXPECT_GT(fixpoints, 30000);
}

// shift() by an amount that may take several values hulls the results of
// the constant shifts while they are known fixpoints (see its comment); it
// must give what joining them one after another gives, the loop as first
// written: every amount k in ascending order (the order of shift()'s
// submask walk), each the shift by the constant k (alu_full with one
// amount is the one constant shift), joined into the result so far.
// `hulled` counts the calls where every result was a known fixpoint and
// there were several (shift() then joins by hulls alone).
Scalar shift_one_join_after_another(AluOp op, Width w, const Scalar& a, const Scalar& b, int& hulled) {
  const scalar_parts::ShiftAmounts amounts = scalar_parts::shift_amounts(w, b);
  Scalar out;
  int count = 0;
  bool fixpoints = true;
  for (uint64_t k = 0; k < (w == Width::w64 ? 64u : 32u); ++k) {
    if (!amounts.mask.contains(k) || k < amounts.lo || k > amounts.hi) continue;
    const Scalar r = alu_full(op, w, a, Scalar::constant(k));
    out = count > 0 ? join(out, r) : r;
    fixpoints = fixpoints && is_fixpoint(r);
    ++count;
  }
  hulled += count > 1 && fixpoints;
  if (count > 0) return out;
  return w == Width::w64 ? Scalar::unknown() : zext32(Scalar::unknown());
}

TEST(ScalarFastPath, ShiftByARangeMatchesOneJoinAfterAnother) {
  RawRng rng;
  std::vector<Scalar> as = mixed_values(rng, 60, 20, 120);
  for (uint64_t c : interesting()) as.push_back(Scalar::constant(c));
  for (uint64_t c : {uint64_t{1}, uint64_t{3}, uint64_t{0x40}}) as.push_back(Scalar::constant(c));
  // Constants of every size (shift_constant_by_amounts): a random word,
  // and one cut to a random number of low bits.
  for (int i = 0; i < 24; ++i) {
    const uint64_t c = rng.next();
    as.push_back(Scalar::constant(c));
    as.push_back(Scalar::constant(c >> (rng.next() % 64)));
  }
  // Unknown low words under partly known upper words (a right shift's
  // results there have full 32-bit bounds but tnums that may not nest:
  // rsh_dominated must compare them).
  as.push_back(Scalar::from_tnum({0, 0xf0ff'ffff'ffff'ffff}));
  for (int i = 0; i < 16; ++i) {
    const uint64_t mask = rng.next() | 0xffff'ffff;
    as.push_back(Scalar::from_tnum({rng.next() & ~mask, mask}));
  }
  as.push_back(Scalar::unknown());
  as.push_back(Scalar::from_tnum({0, ~uint64_t{0x3f}}));  // x << 6
  as.push_back(Scalar::from_tnum({0x40, 0xffc0}));
  as.push_back(Scalar::from_urange(0, 0xffffffff));
  as.push_back(Scalar::from_srange(-1000, 1000));
  std::vector<Scalar> amounts = shift_amounts();
  for (int i = 0; i < 40; ++i) {
    uint64_t lo = rng.next() % 70, hi = rng.next() % 70;
    if (lo > hi) std::swap(lo, hi);
    amounts.push_back(Scalar::from_urange(lo, hi));
    amounts.push_back(Scalar::from_tnum({rng.next() % 64 & ~uint64_t{0x11}, 0x11}));
    Scalar s = rng.scalar();
    if (reduce(s)) amounts.push_back(s);
  }
  int hulled = 0;
  for (const Scalar& a : as) {
    for (const Scalar& b : amounts) {
      for (AluOp op : kShiftOps) {
        for (Width w : kWidths) {
          const Scalar expect = shift_one_join_after_another(op, w, a, b, hulled);
          ASSERT_EQ(alu_full(op, w, a, b), expect) << int(op) << " w64 " << (w == Width::w64) << show(a) << show(b);
          ASSERT_EQ(alu(op, w, a, b), expect) << int(op) << " w64 " << (w == Width::w64) << show(a) << show(b);
        }
      }
    }
  }
  EXPECT_GT(hulled, 100000);
}


// The raw value shift_const builds for a 64-bit lsh, rsh or arsh of a by the
// constant k, written out from lsh_r, rsh_r, arsh_r (scalar.cc) for this test:
// reduced by the reference reduction, it is what the shift gives.
Scalar raw_shift64(AluOp op, const Scalar& a, unsigned k) {
  Scalar r;
  if (op == AluOp::lsh) {
    r.bits = tnum::lsh(a.bits, k);
    if (a.umax <= (kMax >> k)) r.umin = a.umin << k, r.umax = a.umax << k;
    if (a.smin >= (INT64_MIN >> k) && a.smax <= (INT64_MAX >> k))
      r.smin = s64(u64(a.smin) << k), r.smax = s64(u64(a.smax) << k);
    if (k >= 32) {
      r.u32_min = r.u32_max = 0;
      r.s32_min = r.s32_max = 0;
    } else {
      if (a.u32_max <= (0xffffffffu >> k)) r.u32_min = a.u32_min << k, r.u32_max = a.u32_max << k;
      if (a.s32_min >= (INT32_MIN >> k) && a.s32_max <= (INT32_MAX >> k)) {
        r.s32_min = static_cast<int32_t>(static_cast<uint32_t>(a.s32_min) << k);
        r.s32_max = static_cast<int32_t>(static_cast<uint32_t>(a.s32_max) << k);
      }
    }
    return r;
  }
  const bool arithmetic = op == AluOp::arsh;
  r.bits = arithmetic ? tnum::arsh(a.bits, k) : tnum::rsh(a.bits, k);
  if (k == 0) {
    Scalar same = a;
    same.bits = r.bits;
    return same;
  }
  if (arithmetic) {
    r.smin = a.smin >> k;
    r.smax = a.smax >> k;
  } else {
    r.umin = a.umin >> k;
    r.umax = a.umax >> k;
  }
  return r;
}

// lsh64_small, rsh64_low and their neighbours (scalar.cc) answer 64-bit
// shifts by a constant of small ranges, right shifts whose result lies
// below 2^31, and the other shapes beside them, without
// make64: the result must be the reference reduction of the raw value (or
// the unknown value for an empty one, as make64 answers), and a fixpoint
// of the reference round where a shortcut applies (shift() hulls such
// results). Inputs: small ranges loose and reduced, their left shifts by
// 32..40 (and those with a bound moved), wide-low and random values.
TEST(ScalarFastPath, ShiftOfSmallRangeMatchesTheReduction) {
  RawRng rng;
  std::vector<Scalar> as = mixed_values(rng, 3000, 200, 1500);
  for (uint64_t c : interesting()) as.push_back(Scalar::constant(c));
  const size_t n = as.size();
  for (size_t i = 0; i < n; ++i) {
    if (!scalar_parts::is_small(as[i])) continue;
    const unsigned k = 32 + static_cast<unsigned>(rng.next() % 9);
    Scalar up = raw_shift64(AluOp::lsh, as[i], k);
    as.push_back(up);
    if (reduce(up)) as.push_back(up);
    up.umax += (rng.next() % 2) << k;
    as.push_back(up);
  }
  as.push_back(Scalar::unknown());
  as.push_back(Scalar::from_srange(-5, 1000));
  for (unsigned k = 1; k < 64; ++k) {  // x << k of an unknown x, reduced: the input of a sign extension
    Scalar up = raw_shift64(AluOp::lsh, Scalar::unknown(), k);
    if (reduce(up)) as.push_back(up);
  }
  int lsh_taken = 0, rsh_taken = 0, settled = 0, unknowns = 0, low_words = 0, sign_extensions = 0;
  for (const Scalar& a : as) {
    for (unsigned k = 0; k < 64; ++k) {
      for (AluOp op : {AluOp::lsh, AluOp::rsh, AluOp::arsh}) {
        Scalar ref = raw_shift64(op, a, k);
        const Scalar expect = reference::reduce(ref) ? ref : Scalar::unknown();
        const Scalar b = Scalar::constant(k);
        ASSERT_EQ(alu_full(op, Width::w64, a, b), expect) << int(op) << " k " << k << show(a);
        ASSERT_EQ(alu(op, Width::w64, a, b), expect) << int(op) << " k " << k << show(a);
        const uint64_t lo = a.umin, hi = a.umax;
        bool taken = false;
        if (op == AluOp::lsh) {
          taken = scalar_parts::is_small(a) && scalar_parts::small_settled(a.bits, lo, hi) &&
                  hi <= (uint64_t{INT64_MAX} >> k) && (k < 32 ? (hi << k) <= 0x7fffffff : lo < hi);
          lsh_taken += taken;
          const bool by32 = k == 32 && (a.bits.mask & 0xffffffff) == 0xffffffff && (a.bits.value & 0xffffffff) == 0 &&
                            (a.smin < INT32_MIN || a.smax > INT32_MAX) && (hi > 0xffffffff || (lo == 0 && hi == 0xffffffff));
          low_words += by32;
          taken = taken || by32;
        } else if (op == AluOp::arsh) {
          const int64_t slo = a.smin >> k, shi = a.smax >> k;
          taken = k >= 1 && tnum::arsh(a.bits, k) == Tnum::unknown() && slo < 0 && shi >= 0 &&
                  (u64(shi) - u64(slo) > 0xffffffff || (slo == INT32_MIN && shi == INT32_MAX));
          sign_extensions += taken;
        } else {
          taken = k == 0 ? scalar_parts::is_small(a) : ((lo >> k) <= (hi >> k) && (hi >> k) <= 0x7fffffff);
          rsh_taken += taken;
          settled += taken && scalar_parts::small_settled(tnum::rsh(a.bits, k), lo >> k, hi >> k);
          const bool unknown = k >= 1 && k <= 32 && a.bits == Tnum::unknown() && lo == 0 && hi == kMax;
          unknowns += unknown;
          taken = taken || unknown;
        }
        if (taken) {
          ASSERT_TRUE(is_fixpoint(expect)) << int(op) << " k " << k << show(a) << " -> " << show(expect);
        }
      }
    }
  }
  EXPECT_GT(lsh_taken, 20000);
  EXPECT_GT(rsh_taken, 100000);
  EXPECT_GT(settled, 50000);
  EXPECT_GT(unknowns, 200);
  EXPECT_GT(low_words, 20);
  EXPECT_GT(sign_extensions, 1000);
}

// shift_imm (step_alu's path for a shift by an immediate) against alu()
// with the immediate's constant: every amount below 70, sign-extended
// negative immediates, and random ones, at both widths.
TEST(ScalarFastPath, ShiftByAnImmediateMatchesAlu) {
  RawRng rng;
  std::vector<Scalar> as = mixed_values(rng, 200, 40, 200);
  for (uint64_t c : interesting()) as.push_back(Scalar::constant(c));
  as.push_back(Scalar::unknown());
  std::vector<uint64_t> imms;
  for (uint64_t c = 0; c < 70; ++c) imms.push_back(c);
  for (int64_t c : {-1, -31, -32, -33, -64, INT32_MIN}) imms.push_back(u64(c));
  for (int i = 0; i < 8; ++i) imms.push_back(u64(static_cast<int32_t>(rng.next())));
  for (const Scalar& a : as) {
    for (uint64_t c : imms) {
      for (AluOp op : kShiftOps) {
        for (Width w : kWidths) {
          ASSERT_EQ(shift_imm(op, w, a, c), alu(op, w, a, Scalar::constant(c)))
              << int(op) << " w64 " << (w == Width::w64) << " c " << c << show(a);
        }
      }
    }
  }
}

// refine_equal (a copy learning its register's value) against refine(jeq,
// w64, true) on a copy: values b within a (a itself, a refined by a
// compare, a member of a, a with one bound moved in or its tnum narrowed
// and left raw) and unrelated ones.
TEST(ScalarFastPath, RefineEqualMatchesRefine) {
  RawRng rng;
  std::vector<Scalar> as = mixed_values(rng, 60, 30, 200);
  as.push_back(Scalar::unknown());
  for (uint64_t c : interesting()) as.push_back(Scalar::constant(c));
  int within = 0;
  for (const Scalar& a : as) {
    std::vector<Scalar> bs = {a, Scalar::unknown(), rng.scalar()};
    for (int i = 0; i < 6; ++i) {
      Scalar x = a, k = Scalar::constant(rng.value());
      if (refine(kJmpOps[rng.next() % std::size(kJmpOps)], kWidths[rng.next() % 2], rng.next() % 2 != 0, x, k))
        bs.push_back(x);
      Scalar raw = a;  // one component narrowed, not reduced
      switch (rng.next() % 5) {
        case 0: raw.umin += (raw.umax - raw.umin) / (1 + rng.next() % 8); break;
        case 1: {  // in unsigned arithmetic: the result lies in [smin, smax], the steps may not
          const uint64_t top = static_cast<uint64_t>(raw.smax);
          raw.smax = static_cast<int64_t>(top - (top - static_cast<uint64_t>(raw.smin)) / (1 + rng.next() % 8));
          break;
        }
        case 2: raw.u32_max -= (raw.u32_max - raw.u32_min) / (1 + static_cast<uint32_t>(rng.next() % 8)); break;
        case 3: {
          const uint64_t bit = raw.bits.mask & (uint64_t{1} << (rng.next() % 64));
          raw.bits = {raw.bits.value | (bit & rng.next()), raw.bits.mask & ~bit};
          break;
        }
        default: raw.umin = raw.umax; break;
      }
      bs.push_back(raw);
      const uint64_t member = rng.next() % 2 ? a.umin : a.umax;
      if (a.contains(member)) bs.push_back(Scalar::constant(member));
    }
    for (const Scalar& b : bs) {
      Scalar fast = a, slow = a, other = b;
      within += leq(b, a);
      const bool fast_ok = refine_equal(fast, b);
      const bool slow_ok = refine(JmpOp::jeq, Width::w64, true, slow, other);
      ASSERT_EQ(fast_ok, slow_ok) << show(a) << show(b);
      if (fast_ok) {
        ASSERT_EQ(fast, slow) << show(a) << show(b);
      }
    }
  }
  EXPECT_GT(within, 3000);
}

// The shortcut of make64, make32 and from_tnum for a tnum below 2^31 whose
// members no interval excludes (tnum_bounds_low in scalar_parts.h)
// against the reference reduction and reduce(): tnums below 2^31 and just
// above, each interval around [L, H] = [t.value, t.umax()] with random
// slack, full, or one step short of an end (then the shortcut must not
// apply); and from_tnum of each tnum.
TEST(ScalarFastPath, TnumBelow2To31WithLooseBoundsReducesAsTheRounds) {
  RawRng rng;
  int taken = 0;
  for (int i = 0; i < 60000; ++i) {
    uint64_t mask = 0;
    switch (rng.next() % 4) {
      case 0: mask = rng.next() & 0x7fffffff; break;
      case 1: mask = (uint64_t{1} << (rng.next() % 32)) - 1; break;
      case 2: mask = rng.next() & rng.next() & 0xffff; break;
      default: mask = rng.next() & 0xffffffff; break;  // may reach bit 31
    }
    uint64_t value = rng.next() & 0x7fffffff & ~mask;
    if (rng.next() % 16 == 0) value |= uint64_t{1} << (31 + rng.next() % 2);  // just past the class
    const Tnum t{value & ~mask, mask};
    const uint64_t lo = t.value, hi = t.value | t.mask;
    auto below = [&](uint64_t x) { return rng.next() % 3 ? x - rng.next() % 5 : x - rng.next() % 0x100000; };
    auto above = [&](uint64_t x) { return rng.next() % 3 ? x + rng.next() % 5 : x + rng.next() % 0x100000; };
    Scalar s;
    s.bits = t;
    if (rng.next() % 2) s.umin = lo < 5 ? 0 : below(lo);
    if (rng.next() % 2) s.umax = above(hi);
    if (rng.next() % 2) s.smin = s64(below(lo));
    if (rng.next() % 2) s.smax = s64(above(hi));
    if (rng.next() % 2) s.u32_min = static_cast<uint32_t>(lo < 5 ? 0 : below(lo));
    if (rng.next() % 2) s.u32_max = static_cast<uint32_t>(std::min<uint64_t>(above(hi), 0xffffffff));
    if (rng.next() % 2) s.s32_min = static_cast<int32_t>(below(lo));
    if (rng.next() % 2) s.s32_max = static_cast<int32_t>(std::min<uint64_t>(above(hi), 0x7fffffff));
    const auto d = static_cast<uint64_t>(static_cast<int64_t>(rng.next() % 3) - 1);
    switch (rng.next() % 12) {  // one end moved a step, often inside [L, H]
      case 0: s.umin = lo + 1 + d; break;
      case 1: s.umax = hi - 1 + d; break;
      case 2: s.smin = s64(lo + 1 + d); break;
      case 3: s.smax = s64(hi - 1 + d); break;
      case 4: s.u32_min = static_cast<uint32_t>(lo + 1 + d); break;
      case 5: s.u32_max = static_cast<uint32_t>(hi - 1 + d); break;
      case 6: s.s32_min = static_cast<int32_t>(lo + 1 + d); break;
      case 7: s.s32_max = static_cast<int32_t>(hi - 1 + d); break;
      default: break;
    }
    ASSERT_TRUE(same_reduction(s));
    Scalar from_t;
    from_t.bits = t;
    if (!reference::reduce(from_t)) from_t = Scalar::unknown();
    ASSERT_EQ(Scalar::from_tnum(t), from_t) << show(from_t);
    if (!scalar_parts::tnum_bounds_low(s)) continue;
    ++taken;
    Scalar full = s;
    ASSERT_TRUE(reference::reduce(full)) << show(s);
    ASSERT_EQ(scalar_parts::tnum_low_result(t), full) << show(s);
  }
  EXPECT_GT(taken, 15000);
}


// reduce() makes a zero-extended word with looser 64-bit or 32-bit bounds
// wide-low directly (to_wide_low in scalar_parts.h); the reference
// reduction must agree, for bounds at and around 0, 2^31 and 2^32, signed
// bounds equal to the unsigned ones or full, and for values one component
// off the class (tnum, 32-bit signed bounds, signed 64-bit bounds).
TEST(ScalarFastPath, ZeroExtendedWordsBecomeWideLowAsInTheRounds) {
  RawRng rng;
  const uint64_t edges[] = {0, 1, 5, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
                            0x100000000, 0x100000001};
  auto pick = [&]() {
    switch (rng.next() % 3) {
      case 0: return edges[rng.next() % std::size(edges)];
      case 1: return rng.next() % 0x100000000;
      default: return rng.next() % 2 ? rng.next() % 1000 : 0xffffffff - rng.next() % 1000;
    }
  };
  int taken = 0;
  for (int i = 0; i < 60000; ++i) {
    const bool across = rng.next() % 2;  // ends on both sides of 2^31, mostly in the class
    uint64_t p = across ? pick() % 0x80000000 : pick(), q = across ? 0x80000000 + pick() % 0x80000000 : pick();
    uint64_t a = across ? pick() % 0x80000000 : pick() & 0xffffffff;
    uint64_t b = across ? 0x80000000 + pick() % 0x80000000 : pick() & 0xffffffff;
    if (p > q && rng.next() % 16 != 0) std::swap(p, q);
    if (a > b && rng.next() % 16 != 0) std::swap(a, b);
    Scalar s;
    s.bits = {0, 0xffffffff};
    s.umin = p;
    s.umax = q;
    if (rng.next() % 2) {
      s.smin = s64(p);
      s.smax = s64(q);
    }
    s.u32_min = static_cast<uint32_t>(a);
    s.u32_max = static_cast<uint32_t>(b);
    switch (rng.next() % 10) {  // one component off the class
      case 0: s.bits = {0, 0x7fffffff}; break;
      case 1: s.bits = {0, 0x1ffffffff}; break;
      case 2: s.s32_min = -5; break;
      case 3: s.s32_max = 0x7ffffffe; break;
      case 4: s.smin = s64(p) - 1; break;
      case 5: s.smax = s64(q) + 1; break;
      case 6: s.smin = INT64_MIN, s.smax = s64(p + rng.next() % 3); break;  // a signed bound that cuts [p, q]
      default: break;
    }
    Scalar copy = s;
    const uint64_t lo = std::max(p, a), hi = std::min(q, b);
    taken += scalar_parts::to_wide_low(copy);
    ASSERT_TRUE(same_reduction(s)) << lo << " " << hi;
  }
  EXPECT_GT(taken, 8000);
}


// refine_full's shortcut for an unknown register after a 32-bit compare
// (low_word_range_only in scalar_parts.h) against the reference
// reduction: 32-bit unsigned ranges at and around 0, 2^31 and 2^32 - 1,
// and values one component off the class (a known tnum bit, a 64-bit or
// a 32-bit signed bound moved), where the shortcut must not apply.
TEST(ScalarFastPath, UnknownWordWithALowWordRangeReducesAsTheRounds) {
  RawRng rng;
  const uint64_t edges[] = {0, 1, 2, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff};
  auto pick = [&]() { return rng.next() % 2 ? edges[rng.next() % std::size(edges)] : rng.next() % 0x100000000; };
  int taken = 0;
  for (int i = 0; i < 40000; ++i) {
    uint64_t a = pick(), b = pick();
    if (a > b && rng.next() % 16 != 0) std::swap(a, b);
    Scalar s;
    s.u32_min = static_cast<uint32_t>(a);
    s.u32_max = static_cast<uint32_t>(b);
    switch (rng.next() % 12) {  // one component off the class
      case 0: s.bits = {0, ~uint64_t{1} << (rng.next() % 64)}; break;
      case 1: s.umin = 1; break;
      case 2: s.umax = UINT64_MAX - 1; break;
      case 3: s.smin = INT64_MIN + 1; break;
      case 4: s.smax = INT64_MAX - 1; break;
      case 5: s.s32_min = INT32_MIN + 1; break;
      case 6: s.s32_max = INT32_MAX - 1; break;
      default: break;
    }
    ASSERT_TRUE(same_reduction(s));
    ASSERT_TRUE(shortcut_as_rounds(s, scalar_parts::low_word_range_only, taken));
  }
  EXPECT_GT(taken, 6000);
}

// reduce()'s shortcut for the values below 2^n (to_low_bits_unknown in
// scalar_parts.h: a right shift of an unknown, a join of such values)
// against the reference reduction, for n at and around the class's ends
// (32, 33, 63, 64) and for values one component off the class (an
// upper bound of 2^n - 2 or 2^n, a lower bound of 1, a known bit, a
// signed bound cut or stretched, a 32-bit bound moved), where the
// shortcut must not apply or must give the same answer anyway.
TEST(ScalarFastPath, ValuesBelowAPowerOfTwoReduceAsTheRounds) {
  RawRng rng;
  int taken = 0;
  for (int i = 0; i < 40000; ++i) {
    const unsigned n = 31 + static_cast<unsigned>(rng.next() % 34);  // 31 .. 64
    const uint64_t m = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    Scalar s;
    s.bits = {0, m};
    s.umin = 0;
    s.umax = m;
    if (rng.next() % 2) {
      s.smin = 0;
      s.smax = s64(m);
    }
    switch (rng.next() % 14) {  // one component off the class
      case 0: s.umax = m - 1; break;
      case 1: s.umax = m + 1; break;
      case 2: s.umin = 1; break;
      case 3: s.bits = {0, m & ~uint64_t{1}}; break;
      case 4: {
        const uint64_t bit = uint64_t{1} << (rng.next() % 64);
        s.bits = {bit, m & ~bit};
        break;
      }
      case 5: s.smax = s64(m) - 1; break;
      case 6: s.smin = -1; break;
      case 7: s.u32_max = 0xfffffffe; break;
      case 8: s.u32_min = 1; break;
      case 9: s.s32_min = INT32_MIN + 1; break;
      case 10: s.s32_max = 0; break;
      default: break;
    }
    ASSERT_TRUE(same_reduction(s));
    ASSERT_TRUE(shortcut_as_rounds(s, scalar_parts::to_low_bits_unknown, taken));
  }
  EXPECT_GT(taken, 6000);
}

// The immediates of the immediate fast paths' tests: the edges of the small
// ranges' shortcuts (2^31), of the sign-extended imm, and each value's
// own bounds and their neighbours (unsigned arithmetic throughout).
std::vector<uint64_t> immediates_around(const Scalar& a, RawRng& rng) {
  std::vector<uint64_t> cs = {0, 1, 2, 0x7ffffffe, 0x7fffffff, 0x80000000, 0xffffffff, kMax, kMax - 1,
                              0xffffffff80000000};
  for (uint64_t bound : {a.umin, a.umax, 0x7fffffff - a.umax, 0x7fffffff - a.umin})
    for (uint64_t d : {kMax, uint64_t{0}, uint64_t{1}}) cs.push_back(bound + d);
  cs.push_back(rng.next() % 64);
  cs.push_back(rng.value());
  return cs;
}

// alu64_imm adds or subtracts a constant to a small range directly;
// alu() with the constant's Scalar (and alu_full) must agree, for every
// operation and for values it hands on (wide-low, raw, constants).
TEST(ScalarFastPath, ImmediateAddSubMatchesAlu) {
  RawRng rng;
  std::vector<Scalar> as = mixed_values(rng, 400, 20, 60);
  for (uint64_t c : interesting()) as.push_back(Scalar::constant(c));
  int small = 0;
  for (const Scalar& a : as) {
    for (uint64_t c : immediates_around(a, rng)) {
      for (AluOp op : kBinaryOps) {
        const Scalar k = Scalar::constant(c);
        const Scalar expected = alu(op, Width::w64, a, k);
        ASSERT_EQ(alu64_imm(op, a, c), expected) << int(op) << show(a) << show(k);
        if (op == AluOp::add || op == AluOp::sub) {
          ASSERT_EQ(alu_full(op, Width::w64, a, k), expected) << int(op) << show(a) << show(k);
          small += scalar_parts::is_small(a) && !a.bits.is_const() && c <= 0x7fffffff;
        }
      }
    }
  }
  EXPECT_GT(small, 5000);
}

// refine_imm compares with a constant without its Scalar; refine() with
// Scalar::constant(c) must agree on feasibility and the refined value, for
// every operation, width and outcome.
TEST(ScalarFastPath, ImmediateCompareMatchesRefine) {
  RawRng rng;
  std::vector<Scalar> as = mixed_values(rng, 200, 150, 80);
  as.push_back(Scalar::unknown());
  for (uint64_t c : interesting()) as.push_back(Scalar::constant(c));
  int feasible = 0, infeasible = 0;
  for (const Scalar& a : as) {
    for (uint64_t c : immediates_around(a, rng)) {
      for (JmpOp op : kJmpOps) {
        for (Width w : kWidths) {
          for (bool taken : {true, false}) {
            Scalar fast = a, slow = a, k = Scalar::constant(c);
            const bool slow_ok = refine(op, w, taken, slow, k);
            ASSERT_EQ(refine_imm(op, w, taken, fast, c), slow_ok) << int(op) << " taken " << taken << show(a) << c;
            if (!slow_ok) {
              ++infeasible;
              continue;
            }
            ++feasible;
            ASSERT_EQ(fast, slow) << int(op) << " taken " << taken << show(a) << c;
          }
        }
      }
    }
  }
  EXPECT_GT(feasible, 100000);
  EXPECT_GT(infeasible, 20000);
}

// A 32-bit compare of a small range whose tnum lies below 2^31 with an
// immediate: refine_imm answers it as the 64-bit compare with the
// immediate's low word. refine_full, which refine() runs for it (and
// refine() for a constant tnum), must agree on the answer and on the
// value, for immediates whose low word lies around a's bounds and whose
// upper word is 0, all ones or random.
TEST(ScalarFastPath, Imm32CompareOfSmallMatchesRefineFull) {
  RawRng rng;
  std::vector<Scalar> as = mixed_values(rng, 3000, 100, 200);  // and values it must leave to refine_full
  for (int i = 0; i < 500; ++i) {  // tnums below 2^31 that know some bits
    const uint64_t lo = rng.next() % 2 ? rng.next() % 600 : 0x7fffffff - rng.next() % 600;
    const uint64_t hi = std::min<uint64_t>(lo + rng.next() % 700, 0x7fffffff);
    Scalar s = Scalar::from_urange(lo, hi);
    const uint64_t mask = (rng.next() & rng.next()) & 0x7fffffff;
    s.bits = {(lo | rng.next()) & ~mask & 0x7fffffff, mask};
    as.push_back(s);
    if (reduce(s)) as.push_back(s);
  }
  const JmpOp ops[] = {JmpOp::jeq, JmpOp::jne, JmpOp::jgt, JmpOp::jge, JmpOp::jlt, JmpOp::jle};
  int eligible = 0, feasible = 0, infeasible = 0;
  for (const Scalar& a : as) {
    const bool small_low = scalar_parts::is_small(a) && !a.bits.is_const() &&
                           (a.bits.value | a.bits.mask) <= 0x7fffffff;
    std::vector<uint64_t> lows = {0, 1, 0x7ffffffe, 0x7fffffff, 0x80000000, 0xffffffff, rng.next() & 0xffffffff};
    for (uint64_t bound : {a.umin, a.umax, a.bits.value, a.bits.value | a.bits.mask})
      for (uint64_t d : {kMax, uint64_t{0}, uint64_t{1}}) lows.push_back((bound + d) & 0xffffffff);
    for (uint64_t low : lows) {
      for (uint64_t high : {uint64_t{0}, uint64_t{0xffffffff}, rng.next() >> 32}) {
        const uint64_t c = (high << 32) | low;
        for (JmpOp op : ops) {
          for (bool taken : {true, false}) {
            Scalar fast = a, slow = a, k = Scalar::constant(c);
            const bool slow_ok = a.bits.is_const() ? refine(op, Width::w32, taken, slow, k)
                                                   : refine_full(op, Width::w32, taken, slow, k);
            ASSERT_EQ(refine_imm(op, Width::w32, taken, fast, c), slow_ok)
                << int(op) << " taken " << taken << show(a) << c;
            eligible += small_low;
            if (!slow_ok) {
              ++infeasible;
              continue;
            }
            ++feasible;
            ASSERT_EQ(fast, slow) << int(op) << " taken " << taken << show(a) << c;
          }
        }
      }
    }
  }
  EXPECT_GT(eligible, 100000);
  EXPECT_GT(feasible, 100000);
  EXPECT_GT(infeasible, 20000);
}

}  // namespace
}  // namespace keel
