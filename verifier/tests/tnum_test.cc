// Tnum soundness and optimality (domain/tnum.h): exhaustive over small
// tnums (every combination of 0 / 1 / unknown in a few bit positions), with
// every concrete member checked against the abstract result, plus random
// 64-bit tnums.
#include "concrete_ops.h"
#include "domain/tnum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace keel {
namespace {

// Every tnum whose bits outside `positions` are known 0 and whose bits at
// `positions` are each 0, 1 or unknown (3^n tnums).
std::vector<Tnum> trit_tnums(const std::vector<unsigned>& positions) {
  std::vector<Tnum> out{Tnum::constant(0)};
  for (unsigned p : positions) {
    std::vector<Tnum> next;
    for (Tnum t : out) {
      next.push_back(t);
      next.push_back({t.value | (uint64_t{1} << p), t.mask});
      next.push_back({t.value, t.mask | (uint64_t{1} << p)});
    }
    out = next;
  }
  return out;
}

std::vector<uint64_t> members(Tnum t) {
  std::vector<uint64_t> out;
  uint64_t s = 0;
  do {
    out.push_back(t.value | s);
    s = (s - t.mask) & t.mask;
  } while (s != 0);
  return out;
}

std::vector<Tnum> small4() { return trit_tnums({0, 1, 2, 3}); }

bool well_formed(Tnum t) { return (t.value & t.mask) == 0; }

// The smallest tnum containing every value in xs.
Tnum join_all(const std::vector<uint64_t>& xs) {
  Tnum t = Tnum::constant(xs.at(0));
  for (uint64_t x : xs) t = tnum::join(t, Tnum::constant(x));
  return t;
}

struct BinOp {
  const char* name;
  Tnum (*abstract)(Tnum, Tnum);
  uint64_t (*concrete)(uint64_t, uint64_t);
  bool optimal;  // proved optimal in the CGO 2022 paper (or trivially)
};

const BinOp kBinOps[] = {
    {"add", tnum::add, [](uint64_t a, uint64_t b) { return a + b; }, true},
    {"sub", tnum::sub, [](uint64_t a, uint64_t b) { return a - b; }, true},
    {"mul", tnum::mul, [](uint64_t a, uint64_t b) { return a * b; }, false},
    {"and", tnum::bit_and, [](uint64_t a, uint64_t b) { return a & b; }, true},
    {"or", tnum::bit_or, [](uint64_t a, uint64_t b) { return a | b; }, true},
    {"xor", tnum::bit_xor, [](uint64_t a, uint64_t b) { return a ^ b; }, true},
};

TEST(Tnum, BinaryOpsSoundAndOptimalExhaustive4Bit) {
  const auto ts = small4();
  ASSERT_EQ(ts.size(), 81u);
  int checked = 0;
  for (const BinOp& op : kBinOps) {
    for (Tnum a : ts) {
      const auto ma = members(a);
      for (Tnum b : ts) {
        const Tnum r = op.abstract(a, b);
        ASSERT_TRUE(well_formed(r)) << op.name;
        std::vector<uint64_t> results;
        for (uint64_t x : ma) {
          for (uint64_t y : members(b)) {
            const uint64_t z = op.concrete(x, y);
            ASSERT_TRUE(r.contains(z)) << op.name << " " << x << " " << y;
            results.push_back(z);
            ++checked;
          }
        }
        if (op.optimal) {
          ASSERT_EQ(r, join_all(results)) << op.name << " not optimal";
        }
      }
    }
  }
  EXPECT_EQ(checked, 6 * 256 * 256);  // (1 + 1 + 2)^4 members per operand, summed
}

// mul is sound but not optimal; it must still be exact on constants and
// never worse than "unknown above the highest possible product bit".
TEST(Tnum, MulExactOnConstants) {
  for (uint64_t x = 0; x < 40; ++x)
    for (uint64_t y = 0; y < 40; ++y)
      ASSERT_EQ(tnum::mul(Tnum::constant(x), Tnum::constant(y)), Tnum::constant(x * y));
  EXPECT_EQ(tnum::mul(Tnum::constant(~uint64_t{0}), Tnum::constant(3)), Tnum::constant(~uint64_t{0} * 3));
  // Multiplying by a power of two is a shift.
  EXPECT_EQ(tnum::mul(Tnum{0, 0xf}, Tnum::constant(16)), (Tnum{0, 0xf0}));
}

TEST(Tnum, ShiftsByConstantSoundAndExact) {
  // Trits at the bottom and at the sign end, so arsh sees every sign state.
  const auto ts = trit_tnums({0, 1, 2, 61, 62, 63});
  for (Tnum a : ts) {
    const auto ma = members(a);
    for (unsigned k = 0; k < 64; ++k) {
      const Tnum l = tnum::lsh(a, k), r = tnum::rsh(a, k), s = tnum::arsh(a, k);
      std::vector<uint64_t> lr, rr, sr;
      for (uint64_t x : ma) {
        lr.push_back(x << k);
        rr.push_back(x >> k);
        sr.push_back(static_cast<uint64_t>(static_cast<int64_t>(x) >> k));
      }
      // A constant shift moves bits: the result is the exact join.
      ASSERT_EQ(l, join_all(lr)) << k;
      ASSERT_EQ(r, join_all(rr)) << k;
      ASSERT_EQ(s, join_all(sr)) << k;
    }
    // Mathematical shifts past the width.
    EXPECT_EQ(tnum::lsh(a, 64), Tnum::constant(0));
    EXPECT_EQ(tnum::rsh(a, 200), Tnum::constant(0));
    EXPECT_EQ(tnum::arsh(a, 64), tnum::arsh(a, 63));
  }
}

TEST(Tnum, ShiftsByTnumMaskAmountAndAreSound) {
  const auto values = trit_tnums({0, 1, 63});
  // Small amounts, and amounts with bit 6 (masked away at run time) set or unknown.
  std::vector<Tnum> amounts;
  for (Tnum t : trit_tnums({0, 2, 4, 5})) {
    amounts.push_back(t);
    amounts.push_back({t.value | 64, t.mask});
    amounts.push_back({t.value, t.mask | 64 | (uint64_t{1} << 40)});
  }
  for (Tnum a : values) {
    for (Tnum k : amounts) {
      const Tnum l = tnum::lsh(a, k), r = tnum::rsh(a, k), s = tnum::arsh(a, k);
      ASSERT_TRUE(well_formed(l) && well_formed(r) && well_formed(s));
      std::vector<uint64_t> lr, rr, sr;
      for (uint64_t x : members(a)) {
        for (uint64_t n : members(k)) {
          const unsigned m = static_cast<unsigned>(n & 63);
          lr.push_back(x << m);
          rr.push_back(x >> m);
          sr.push_back(static_cast<uint64_t>(static_cast<int64_t>(x) >> m));
        }
      }
      // The join over amounts of exact shifts is the join of all results.
      ASSERT_EQ(l, join_all(lr));
      ASSERT_EQ(r, join_all(rr));
      ASSERT_EQ(s, join_all(sr));
    }
  }
}

using testing::bswap_ref;
using testing::sext_ref;

TEST(Tnum, UnaryOpsExact) {
  // Trits around every sign bit the casts look at.
  const auto ts = trit_tnums({0, 7, 8, 15, 16, 31, 32, 63});
  for (Tnum a : ts) {
    const auto ma = members(a);
    std::vector<uint64_t> c32, neg, s8, s16, s32, s32_8, s32_16, b16, b32, b64;
    for (uint64_t x : ma) {
      c32.push_back(x & 0xffffffff);
      neg.push_back(0 - x);
      s8.push_back(sext_ref(x, 8));
      s16.push_back(sext_ref(x, 16));
      s32.push_back(sext_ref(x, 32));
      s32_8.push_back(sext_ref(x, 8) & 0xffffffff);
      s32_16.push_back(sext_ref(x, 16) & 0xffffffff);
      b16.push_back(bswap_ref(x, 16));
      b32.push_back(bswap_ref(x, 32));
      b64.push_back(bswap_ref(x, 64));
    }
    ASSERT_EQ(tnum::cast32(a), join_all(c32));
    ASSERT_EQ(tnum::neg(a), join_all(neg));
    ASSERT_EQ(tnum::sext(a, 8), join_all(s8));
    ASSERT_EQ(tnum::sext(a, 16), join_all(s16));
    ASSERT_EQ(tnum::sext(a, 32), join_all(s32));
    ASSERT_EQ(tnum::sext32(a, 8), join_all(s32_8));
    ASSERT_EQ(tnum::sext32(a, 16), join_all(s32_16));
    ASSERT_EQ(tnum::bswap(a, 16), join_all(b16));
    ASSERT_EQ(tnum::bswap(a, 32), join_all(b32));
    ASSERT_EQ(tnum::bswap(a, 64), join_all(b64));
  }
}

TEST(Tnum, LatticeOpsExhaustive4Bit) {
  const auto ts = small4();
  for (Tnum a : ts) {
    for (Tnum b : ts) {
      Tnum m{};
      const bool nonempty = tnum::intersect(a, b, m);
      bool common = false;
      bool all_in_b = true;
      for (uint64_t x = 0; x < 16; ++x) {
        const bool both = a.contains(x) && b.contains(x);
        common |= both;
        if (nonempty) {
          ASSERT_EQ(m.contains(x), both);
        }
        if (a.contains(x) && !b.contains(x)) all_in_b = false;
      }
      ASSERT_EQ(nonempty, common);
      if (nonempty) {
        ASSERT_TRUE(well_formed(m));
      }
      ASSERT_EQ(tnum::subset(a, b), all_in_b);
      auto both = members(a);
      for (uint64_t y : members(b)) both.push_back(y);
      ASSERT_EQ(tnum::join(a, b), join_all(both));
      for (uint64_t x : members(a)) ASSERT_TRUE(a.contains(x));
    }
  }
}

TEST(Tnum, RangeIsSmallestCover) {
  for (uint64_t lo = 0; lo < 70; ++lo) {
    for (uint64_t hi = lo; hi < 70; ++hi) {
      std::vector<uint64_t> xs;
      for (uint64_t x = lo; x <= hi; ++x) xs.push_back(x);
      ASSERT_EQ(tnum::range(lo, hi), join_all(xs)) << lo << " " << hi;
    }
  }
  EXPECT_EQ(tnum::range(0, ~uint64_t{0}), Tnum::unknown());
  EXPECT_EQ(tnum::range(uint64_t{1} << 63, ~uint64_t{0}), (Tnum{uint64_t{1} << 63, ~uint64_t{0} >> 1}));
  EXPECT_EQ(tnum::range(5, 5), Tnum::constant(5));
  EXPECT_EQ(tnum::range(0x100, 0x1ff), (Tnum{0x100, 0xff}));
}

TEST(Tnum, MemberSearchMatchesBruteForce) {
  const auto ts = trit_tnums({0, 1, 3, 62, 63});
  const std::vector<uint64_t> probes = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 15, 16,
                                        uint64_t{1} << 62, (uint64_t{1} << 62) + 3, (uint64_t{1} << 63) - 1,
                                        uint64_t{1} << 63, (uint64_t{1} << 63) + 2, (uint64_t{3} << 62) + 9,
                                        ~uint64_t{0} - 1, ~uint64_t{0}};
  for (Tnum t : ts) {
    const auto ms = members(t);
    for (uint64_t p : probes) {
      bool has_min = false, has_max = false, has_smin = false, has_smax = false;
      uint64_t bmin = ~uint64_t{0}, bmax = 0;
      int64_t bsmin = INT64_MAX, bsmax = INT64_MIN;
      const auto sp = static_cast<int64_t>(p);
      for (uint64_t x : ms) {
        const auto sx = static_cast<int64_t>(x);
        if (x >= p) has_min = true, bmin = std::min(bmin, x);
        if (x <= p) has_max = true, bmax = std::max(bmax, x);
        if (sx >= sp) has_smin = true, bsmin = std::min(bsmin, sx);
        if (sx <= sp) has_smax = true, bsmax = std::max(bsmax, sx);
      }
      uint64_t got = 0;
      int64_t sgot = 0;
      ASSERT_EQ(tnum::min_member_at_least(t, p, got), has_min);
      if (has_min) {
        ASSERT_EQ(got, bmin);
      }
      ASSERT_EQ(tnum::max_member_at_most(t, p, got), has_max);
      if (has_max) {
        ASSERT_EQ(got, bmax);
      }
      ASSERT_EQ(tnum::smin_member_at_least(t, sp, sgot), has_smin);
      if (has_smin) {
        ASSERT_EQ(sgot, bsmin);
      }
      ASSERT_EQ(tnum::smax_member_at_most(t, sp, sgot), has_smax);
      if (has_smax) {
        ASSERT_EQ(sgot, bsmax);
      }
    }
  }
}

// Random 64-bit tnums of varying density; random members.
struct Rng {
  std::mt19937_64 gen{0x6b65656c};
  uint64_t next() { return gen(); }
  Tnum tnum() {
    uint64_t mask = next();
    switch (next() % 4) {
      case 0: mask &= next(); break;              // sparse unknowns
      case 1: mask &= next() & next(); break;     // very sparse
      case 2: mask = 0; break;                    // constant
      default: break;
    }
    return {next() & ~mask, mask};
  }
  uint64_t member(Tnum t) { return t.value | (next() & t.mask); }
};

TEST(Tnum, RandomSoundness64) {
  Rng rng;
  for (int i = 0; i < 20000; ++i) {
    const Tnum a = rng.tnum(), b = rng.tnum();
    const Tnum r[] = {tnum::add(a, b), tnum::sub(a, b), tnum::mul(a, b), tnum::bit_and(a, b),
                      tnum::bit_or(a, b), tnum::bit_xor(a, b), tnum::lsh(a, b), tnum::rsh(a, b),
                      tnum::arsh(a, b), tnum::join(a, b)};
    for (Tnum t : r) ASSERT_TRUE(well_formed(t));
    for (int j = 0; j < 8; ++j) {
      const uint64_t x = rng.member(a), y = rng.member(b);
      const unsigned k = static_cast<unsigned>(y & 63);
      ASSERT_TRUE(r[0].contains(x + y));
      ASSERT_TRUE(r[1].contains(x - y));
      ASSERT_TRUE(r[2].contains(x * y));
      ASSERT_TRUE(r[3].contains(x & y));
      ASSERT_TRUE(r[4].contains(x | y));
      ASSERT_TRUE(r[5].contains(x ^ y));
      ASSERT_TRUE(r[6].contains(x << k));
      ASSERT_TRUE(r[7].contains(x >> k));
      ASSERT_TRUE(r[8].contains(static_cast<uint64_t>(static_cast<int64_t>(x) >> k)));
      ASSERT_TRUE(r[9].contains(x) && r[9].contains(y));
      ASSERT_TRUE(tnum::neg(a).contains(0 - x));
      ASSERT_TRUE(tnum::cast32(a).contains(x & 0xffffffff));
      ASSERT_TRUE(tnum::sext(a, 8).contains(sext_ref(x, 8)));
      ASSERT_TRUE(tnum::sext(a, 16).contains(sext_ref(x, 16)));
      ASSERT_TRUE(tnum::sext(a, 32).contains(sext_ref(x, 32)));
      ASSERT_TRUE(tnum::bswap(a, 64).contains(bswap_ref(x, 64)));
      const unsigned c = static_cast<unsigned>(rng.next() % 70);
      ASSERT_TRUE(tnum::lsh(a, c).contains(c >= 64 ? 0 : x << c));
      ASSERT_TRUE(tnum::rsh(a, c).contains(c >= 64 ? 0 : x >> c));
      Tnum m{};
      if (b.contains(x)) {
        ASSERT_TRUE(tnum::intersect(a, b, m));
        ASSERT_TRUE(m.contains(x));
      }
      const uint64_t lo = std::min(x, y), hi = std::max(x, y);
      ASSERT_TRUE(tnum::range(lo, hi).contains(lo + (hi - lo) / 2));
      uint64_t got = 0;
      ASSERT_TRUE(tnum::min_member_at_least(a, a.value, got));
      ASSERT_EQ(got, a.value);
      if (tnum::min_member_at_least(a, y, got)) {
        ASSERT_TRUE(a.contains(got) && got >= y);
      }
      else ASSERT_LT(x, y);
      if (tnum::max_member_at_most(a, y, got)) {
        ASSERT_TRUE(a.contains(got) && got <= y);
      }
      else ASSERT_GT(x, y);
    }
  }
}

}  // namespace
}  // namespace keel
