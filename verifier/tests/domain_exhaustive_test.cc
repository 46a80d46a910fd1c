// Exhaustive 8-bit soundness (and precision) of the value domain
// (domain/tnum.h, domain/scalar.h). An 8-bit abstract value embeds in the
// 64-bit domain with its other bits known 0 (or the byte placed in bits
// 56..63, or sign-extended for signed ranges), so every 8-bit abstract value
// and every concrete member can be enumerated:
// - tnums: all 3^8; unary ops member by member at every byte position;
//   binary ops on all 3^16 pairs against the best abstraction, built by
//   dynamic programming over the unknown bits (α(S ∪ T) = α(S) ⊔ α(T)).
// - scalars: all 32896 unsigned and signed 8-bit ranges and all 6561 tnums;
//   unary ops on each; ALU ops and branch refinement on the pair schedule of
//   scalar_schedule. A result is sound iff each component (tnum, u64, s64,
//   u32, s32) contains the exact result set's hull in that component's
//   order, since γ of a Scalar is the intersection of its components' γs;
//   the hulls of a range side grow one member at a time, so each pair costs
//   one transfer function call and O(1) reference work.
#include "domain/scalar.h"
#include "domain/tnum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "concrete_ops.h"

namespace keel {
namespace {

using testing::alu_ref;
using testing::bswap_ref;
using testing::jmp_ref;
using testing::sext_ref;

// KEEL_DOMAIN_EXHAUSTIVE_REDUCED: defined by verifier/tests/CMakeLists.txt
// in sanitizer builds, where everything runs a few times slower. Every
// check still runs, on thinner loops: the tnum binary and lattice checks
// take every 4th left operand (shifts by 8-bit amounts every 29th) with all
// right operands, and the scalar schedule's K has 3 constants instead of 7.
// Without it (every other preset) the full schedule runs.
#ifdef KEEL_DOMAIN_EXHAUSTIVE_REDUCED
constexpr bool kReduced = true;
#else
constexpr bool kReduced = false;
#endif

constexpr int kMaxReports = 5;  // failures printed in full per check

std::string hex(uint64_t x) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(x));
  return buf;
}

std::string show(Tnum t) { return "(v=" + hex(t.value) + " m=" + hex(t.mask) + ")"; }

// ===========================================================================
// Tnums

constexpr int kTnums = 6561;  // 3^8

// Every tnum with unknown bits only in the low 8, indexed in base 3: digit i
// is bit i (0 known 0, 1 known 1, 2 unknown). Clearing the lowest unknown
// bit to 0 or 1 gives a smaller index, so a loop in index order meets both
// children of a tnum before the tnum itself.
struct Tnums8 {
  std::vector<Tnum> t;
  std::vector<int> child0, child1;  // -1 for a constant
};

const Tnums8& tnums8() {
  static const Tnums8 all = [] {
    Tnums8 r;
    r.t.resize(kTnums);
    r.child0.assign(kTnums, -1);
    r.child1.assign(kTnums, -1);
    for (int idx = 0; idx < kTnums; ++idx) {
      int rest = idx, power = 1;
      for (unsigned bit = 0; bit < 8; ++bit, rest /= 3, power *= 3) {
        const int digit = rest % 3;
        if (digit == 1) r.t[idx].value |= uint64_t{1} << bit;
        if (digit == 2) {
          r.t[idx].mask |= uint64_t{1} << bit;
          if (r.child0[idx] < 0) {
            r.child0[idx] = idx - 2 * power;
            r.child1[idx] = idx - power;
          }
        }
      }
    }
    return r;
  }();
  return all;
}

Tnum embed(Tnum t, unsigned shift) { return {t.value << shift, t.mask << shift}; }

template <class F>
void for_members(Tnum t, F f) {
  uint64_t s = 0;
  do {
    f(t.value | s);
    s = (s - t.mask) & t.mask;
  } while (s != 0);
}

bool well_formed(Tnum t) { return (t.value & t.mask) == 0; }

// α(γ(a) ∪ γ(b)) from the AND and the OR of all members: a reference written
// independently of tnum::join's formula.
Tnum hull_join(Tnum a, Tnum b) {
  const uint64_t all = a.value & b.value, any = a.umax() | b.umax();
  return {all, any ^ all};
}

// γ(small) ⊆ γ(big): big knows no bit that small does not know alike.
bool within(Tnum small, Tnum big) {
  return well_formed(big) && (small.mask & ~big.mask) == 0 && ((small.value ^ big.value) & ~big.mask) == 0;
}

// ---------------------------------------------------------------------------
// Binary ops: best1[a][y] = α({x op y : x ∈ γ(a)}) for every tnum a and
// concrete byte y (by the same recursion over a), then for each a,
// best(a, b) = α over y ∈ γ(b) by the recursion over b. Both are exact: the
// join of two tnums is the smallest tnum containing both.

struct TnumBinary {
  const char* name;
  Tnum (*abstract)(Tnum, Tnum);
  uint64_t (*concrete)(uint64_t, uint64_t);
  unsigned a_shift, b_shift;  // where each operand's byte sits
  int b_count;                // right operands with index < b_count (3^6: bits 6 and 7 known 0)
  int a_stride;               // every a_stride-th left operand
};

struct Tally {
  uint64_t pairs = 0, unsound = 0, imprecise = 0;
  std::clock_t start = std::clock();
};

Tally check_tnum_binary(const TnumBinary& op) {
  const Tnums8& ts = tnums8();
  std::vector<Tnum> best1(size_t{kTnums} * 256);
  for (int a = 0; a < kTnums; ++a) {
    Tnum* row = &best1[size_t(a) * 256];
    if (ts.child0[a] < 0) {
      for (uint64_t y = 0; y < 256; ++y)
        row[y] = Tnum::constant(op.concrete(ts.t[a].value << op.a_shift, y << op.b_shift));
    } else {
      const Tnum* r0 = &best1[size_t(ts.child0[a]) * 256];
      const Tnum* r1 = &best1[size_t(ts.child1[a]) * 256];
      for (int y = 0; y < 256; ++y) row[y] = hull_join(r0[y], r1[y]);
    }
  }
  Tally tally;
  std::vector<Tnum> best(size_t(op.b_count));
  for (int a = 0; a < kTnums; a += op.a_stride) {
    const Tnum ta = embed(ts.t[a], op.a_shift);
    const Tnum* row = &best1[size_t(a) * 256];
    for (int b = 0; b < op.b_count; ++b) {
      best[b] = ts.child0[b] < 0 ? row[ts.t[b].value] : hull_join(best[ts.child0[b]], best[ts.child1[b]]);
      const Tnum tb = embed(ts.t[b], op.b_shift);
      const Tnum r = op.abstract(ta, tb);
      ++tally.pairs;
      // The recursion itself, on a sample of pairs: best is α of the results.
      if ((a * 7919 + b) % 10007 == 0) {
        uint64_t all = ~uint64_t{0}, any = 0;
        for_members(ta, [&](uint64_t x) {
          for_members(tb, [&](uint64_t y) {
            all &= op.concrete(x, y);
            any |= op.concrete(x, y);
          });
        });
        EXPECT_EQ(best[b], (Tnum{all, any ^ all})) << op.name << " best of " << show(ta) << " and " << show(tb);
      }
      if (within(best[b], r)) {
        if (r != best[b]) ++tally.imprecise;
        continue;
      }
      if (++tally.unsound > kMaxReports) continue;
      std::string witness = "(malformed result)";
      for_members(ta, [&](uint64_t x) {
        for_members(tb, [&](uint64_t y) {
          if (!r.contains(op.concrete(x, y)) && witness[0] == '(')
            witness = "x=" + hex(x) + " y=" + hex(y) + " x op y=" + hex(op.concrete(x, y));
        });
      });
      ADD_FAILURE() << "tnum " << op.name << " unsound: a=" << show(ta) << " b=" << show(tb) << " got "
                    << show(r) << ", best " << show(best[b]) << "; " << witness << " is not in the result";
    }
  }
  return tally;
}

void print_tally(const std::string& what, const Tally& t) {
  std::printf("  %-26s %9llu pairs, %llu unsound, %9llu less precise than best (%.2f s)\n", what.c_str(),
              static_cast<unsigned long long>(t.pairs), static_cast<unsigned long long>(t.unsound),
              static_cast<unsigned long long>(t.imprecise), double(std::clock() - t.start) / CLOCKS_PER_SEC);
}

uint64_t add_ref(uint64_t x, uint64_t y) { return x + y; }
uint64_t sub_ref(uint64_t x, uint64_t y) { return x - y; }
uint64_t mul_ref(uint64_t x, uint64_t y) { return x * y; }
uint64_t and_ref(uint64_t x, uint64_t y) { return x & y; }
uint64_t or_ref(uint64_t x, uint64_t y) { return x | y; }
uint64_t xor_ref(uint64_t x, uint64_t y) { return x ^ y; }
// The ISA masks a shift amount to 63 (RFC 9669 §4.1), as the tnum-amount
// shifts do.
uint64_t lsh_ref(uint64_t x, uint64_t y) { return x << (y & 63); }
uint64_t rsh_ref(uint64_t x, uint64_t y) { return x >> (y & 63); }
uint64_t arsh_ref(uint64_t x, uint64_t y) { return static_cast<uint64_t>(static_cast<int64_t>(x) >> (y & 63)); }

Tnum lsh_t(Tnum a, Tnum k) { return tnum::lsh(a, k); }
Tnum rsh_t(Tnum a, Tnum k) { return tnum::rsh(a, k); }
Tnum arsh_t(Tnum a, Tnum k) { return tnum::arsh(a, k); }

// add, sub, and, or, xor are optimal (CGO 2022, and tnum.h says so): every
// one of the 3^16 pairs must give exactly the best tnum. Low bytes, and for
// add and sub also bytes in bits 56..63 (carries and borrows off the top).
TEST(TnumExhaustive8, OptimalBinaryOpsAreSoundAndOptimal) {
  const int stride = kReduced ? 4 : 1;
  const TnumBinary ops[] = {
      {"add", tnum::add, add_ref, 0, 0, kTnums, stride},
      {"sub", tnum::sub, sub_ref, 0, 0, kTnums, stride},
      {"and", tnum::bit_and, and_ref, 0, 0, kTnums, stride},
      {"or", tnum::bit_or, or_ref, 0, 0, kTnums, stride},
      {"xor", tnum::bit_xor, xor_ref, 0, 0, kTnums, stride},
      {"add (bits 56..63)", tnum::add, add_ref, 56, 56, kTnums, stride},
      {"sub (bits 56..63)", tnum::sub, sub_ref, 56, 56, kTnums, stride},
  };
  for (const TnumBinary& op : ops) {
    const Tally t = check_tnum_binary(op);
    print_tally(std::string("tnum ") + op.name, t);
    EXPECT_EQ(t.unsound, 0u) << op.name;
    EXPECT_EQ(t.imprecise, 0u) << op.name << " is documented optimal";
  }
}

// mul is sound but not optimal (CGO 2022 §4): the count of pairs where it
// is less precise than the best tnum is reported, not asserted.
TEST(TnumExhaustive8, MulIsSound) {
  const Tally t = check_tnum_binary({"mul", tnum::mul, mul_ref, 0, 0, kTnums, kReduced ? 4 : 1});
  print_tally("tnum mul", t);
  EXPECT_EQ(t.unsound, 0u);
}

// Shifts by a tnum amount join the exact constant shifts over every masked
// amount, so they are optimal too. Amounts: every tnum of bits 0..5 (the
// masked amount) for every value tnum, plus every 8-bit amount tnum (bits 6
// and 7 must be masked off) for every 7th value tnum. lsh shifts the low
// byte; rsh and arsh the byte in bits 56..63, so arsh copies its sign.
TEST(TnumExhaustive8, ShiftsByTnumAmountAreSoundAndOptimal) {
  constexpr int k6 = 729;  // 3^6
  const TnumBinary ops[] = {
      {"lsh", lsh_t, lsh_ref, 0, 0, k6, kReduced ? 4 : 1},
      {"rsh (bits 56..63)", rsh_t, rsh_ref, 56, 0, k6, kReduced ? 4 : 1},
      {"arsh (bits 56..63)", arsh_t, arsh_ref, 56, 0, k6, kReduced ? 4 : 1},
      {"lsh, 8-bit amounts", lsh_t, lsh_ref, 0, 0, kTnums, kReduced ? 29 : 7},
      {"rsh, 8-bit amounts", rsh_t, rsh_ref, 56, 0, kTnums, kReduced ? 29 : 7},
      {"arsh, 8-bit amounts", arsh_t, arsh_ref, 56, 0, kTnums, kReduced ? 29 : 7},
  };
  for (const TnumBinary& op : ops) {
    const Tally t = check_tnum_binary(op);
    print_tally(std::string("tnum ") + op.name, t);
    EXPECT_EQ(t.unsound, 0u) << op.name;
    EXPECT_EQ(t.imprecise, 0u) << op.name;
  }
}

// ---------------------------------------------------------------------------
// Unary ops: every member of every tnum, at every byte position (shifts at
// bits 0, 28 and 56); each of these is exact or optimal, so the result must
// be α of the results exactly.



struct TnumUnary {
  const char* name;
  Tnum (*abstract)(Tnum, unsigned k);
  uint64_t (*concrete)(uint64_t, unsigned k);
};

const TnumUnary kTnumUnary[] = {
    {"neg", [](Tnum a, unsigned) { return tnum::neg(a); }, [](uint64_t x, unsigned) { return 0 - x; }},
    {"cast32", [](Tnum a, unsigned) { return tnum::cast32(a); }, [](uint64_t x, unsigned) { return x & 0xffff'ffffu; }},
    {"sext", [](Tnum a, unsigned k) { return tnum::sext(a, k); }, sext_ref},
    {"sext32", [](Tnum a, unsigned k) { return tnum::sext32(a, k); },
     [](uint64_t x, unsigned k) { return sext_ref(x, k) & 0xffff'ffffu; }},
    {"bswap", [](Tnum a, unsigned k) { return tnum::bswap(a, k); }, bswap_ref},
};

// Mathematical shifts by a constant (tnum.h): >= 64 shifts everything out.
const TnumUnary kTnumShifts[] = {
    {"lsh", [](Tnum a, unsigned k) { return tnum::lsh(a, k); },
     [](uint64_t x, unsigned k) { return k >= 64 ? 0 : x << k; }},
    {"rsh", [](Tnum a, unsigned k) { return tnum::rsh(a, k); },
     [](uint64_t x, unsigned k) { return k >= 64 ? 0 : x >> k; }},
    {"arsh", [](Tnum a, unsigned k) { return tnum::arsh(a, k); },
     [](uint64_t x, unsigned k) { return static_cast<uint64_t>(static_cast<int64_t>(x) >> (k >= 64 ? 63 : k)); }},
};

void check_tnum_unary(const TnumUnary& op, unsigned k, unsigned shift, int& failures) {
  for (const Tnum& t8 : tnums8().t) {
    const Tnum t = embed(t8, shift);
    const Tnum r = op.abstract(t, k);
    uint64_t all = ~uint64_t{0}, any = 0;
    for_members(t, [&](uint64_t x) {
      all &= op.concrete(x, k);
      any |= op.concrete(x, k);
    });
    const Tnum best{all, any ^ all};
    if (r == best) continue;
    if (++failures <= kMaxReports)
      ADD_FAILURE() << "tnum " << op.name << " k=" << k << " of " << show(t) << " gave " << show(r)
                    << (within(best, r) ? " (sound, not exact)" : " (UNSOUND)") << ", best " << show(best);
  }
}

TEST(TnumExhaustive8, UnaryOpsAreExact) {
  int failures = 0;
  for (unsigned shift = 0; shift <= 56; ++shift) {
    check_tnum_unary(kTnumUnary[0], 0, shift, failures);
    check_tnum_unary(kTnumUnary[1], 0, shift, failures);
    for (unsigned bits : {8u, 16u, 32u}) check_tnum_unary(kTnumUnary[2], bits, shift, failures);
    for (unsigned bits : {8u, 16u}) check_tnum_unary(kTnumUnary[3], bits, shift, failures);
    for (unsigned bits : {16u, 32u, 64u}) check_tnum_unary(kTnumUnary[4], bits, shift, failures);
  }
  for (unsigned shift : {0u, 28u, 56u})
    for (const TnumUnary& op : kTnumShifts)
      for (unsigned k = 0; k <= 70; ++k) check_tnum_unary(op, k, shift, failures);
  EXPECT_EQ(failures, 0);
}

// tnum::range is the smallest tnum containing an interval: every 8-bit one.
TEST(TnumExhaustive8, RangeIsTheSmallestCover) {
  int failures = 0;
  for (uint64_t lo = 0; lo < 256; ++lo) {
    uint64_t all = ~uint64_t{0}, any = 0;
    for (uint64_t hi = lo; hi < 256; ++hi) {
      all &= hi;
      any |= hi;
      const Tnum r = tnum::range(lo, hi), best{all, any ^ all};
      if (r != best && ++failures <= kMaxReports)
        ADD_FAILURE() << "range(" << lo << ", " << hi << ") = " << show(r) << ", best " << show(best);
    }
  }
  EXPECT_EQ(failures, 0);
}

// The member searches of the reduction against the members themselves, at
// the low byte and at bits 56..63 (where the signed order differs), for
// bounds at, between and around the members.
TEST(TnumExhaustive8, MemberSearchesMatchBruteForce) {
  int failures = 0;
  auto fail = [&](const std::string& what) {
    if (++failures <= kMaxReports) ADD_FAILURE() << what;
  };
  for (unsigned shift : {0u, 56u}) {
    std::vector<uint64_t> bounds{0, 1, uint64_t{1} << 63, ~uint64_t{0}, (uint64_t{1} << 63) - 1};
    for (uint64_t j = 0; j < 257; ++j)
      for (uint64_t d : {uint64_t{0}, uint64_t{1}, ~uint64_t{0}}) bounds.push_back((j << shift) + d);
    for (const Tnum& t8 : tnums8().t) {
      const Tnum t = embed(t8, shift);
      std::vector<uint64_t> ms;
      for_members(t, [&](uint64_t x) { ms.push_back(x); });
      for (uint64_t b : bounds) {
        const auto sb = static_cast<int64_t>(b);
        bool has_ge = false, has_le = false, has_sge = false, has_sle = false;
        uint64_t ge = ~uint64_t{0}, le = 0;
        int64_t sge = INT64_MAX, sle = INT64_MIN;
        for (uint64_t x : ms) {
          const auto sx = static_cast<int64_t>(x);
          if (x >= b) has_ge = true, ge = std::min(ge, x);
          if (x <= b) has_le = true, le = std::max(le, x);
          if (sx >= sb) has_sge = true, sge = std::min(sge, sx);
          if (sx <= sb) has_sle = true, sle = std::max(sle, sx);
        }
        uint64_t u = 0;
        int64_t s = 0;
        auto at = [&] { return " of " + show(t) + " bound " + hex(b); };
        if (tnum::min_member_at_least(t, b, u) != has_ge || (has_ge && u != ge)) fail("min_member_at_least" + at());
        if (tnum::max_member_at_most(t, b, u) != has_le || (has_le && u != le)) fail("max_member_at_most" + at());
        if (tnum::smin_member_at_least(t, sb, s) != has_sge || (has_sge && s != sge))
          fail("smin_member_at_least" + at());
        if (tnum::smax_member_at_most(t, sb, s) != has_sle || (has_sle && s != sle))
          fail("smax_member_at_most" + at());
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

// intersect, join and subset on all 3^16 pairs, against the member sets as
// 256-bit bitsets (intersect is exact; join is α of the union).
TEST(TnumExhaustive8, LatticeOpsMatchMemberSets) {
  using Bits = std::array<uint64_t, 4>;
  const Tnums8& ts = tnums8();
  std::vector<Bits> sets(kTnums, Bits{});
  for (int i = 0; i < kTnums; ++i) for_members(ts.t[i], [&](uint64_t x) { sets[i][x >> 6] |= uint64_t{1} << (x & 63); });
  // The index of an 8-bit tnum: digit 1 for a known-1 bit, 2 for unknown.
  std::array<int, 256> digits{};
  for (int x = 0; x < 256; ++x)
    for (int bit = 7; bit >= 0; --bit) digits[x] = digits[x] * 3 + ((x >> bit) & 1);
  int failures = 0;
  const int stride = kReduced ? 4 : 1;
  for (int a = 0; a < kTnums; a += stride) {
    for (int b = 0; b < kTnums; ++b) {
      const Tnum ta = ts.t[a], tb = ts.t[b];
      Bits both{}, either{};
      bool disjoint = true, a_in_b = true;
      for (int w = 0; w < 4; ++w) {
        both[w] = sets[a][w] & sets[b][w];
        either[w] = sets[a][w] | sets[b][w];
        disjoint = disjoint && both[w] == 0;
        a_in_b = a_in_b && (sets[a][w] & ~sets[b][w]) == 0;
      }
      Tnum meet;
      const bool met = tnum::intersect(ta, tb, meet);
      bool ok = met == !disjoint && tnum::subset(ta, tb) == a_in_b && tnum::join(ta, tb) == hull_join(ta, tb);
      if (ok && met) ok = well_formed(meet) && meet.umax() < 256 && sets[digits[meet.value] + 2 * digits[meet.mask]] == both;
      if (!ok && ++failures <= kMaxReports)
        ADD_FAILURE() << "lattice ops of " << show(ta) << " and " << show(tb) << ": intersect " << met << " "
                      << show(meet) << ", join " << show(tnum::join(ta, tb)) << ", subset " << tnum::subset(ta, tb);
    }
  }
  EXPECT_EQ(failures, 0);
}

// ===========================================================================
// Scalars

// The hull of a set of 64-bit values in every order a Scalar component uses,
// and its AND and OR (the best tnum is {AND, OR ^ AND}).
struct Hull {
  uint64_t umin = ~uint64_t{0}, umax = 0;
  int64_t smin = INT64_MAX, smax = INT64_MIN;
  uint32_t u32_min = UINT32_MAX, u32_max = 0;
  int32_t s32_min = INT32_MAX, s32_max = INT32_MIN;
  uint64_t all = ~uint64_t{0}, any = 0;

  bool empty() const { return umin > umax; }
  void add(uint64_t x) {
    const auto x32 = static_cast<uint32_t>(x);
    umin = std::min(umin, x);
    umax = std::max(umax, x);
    smin = std::min(smin, static_cast<int64_t>(x));
    smax = std::max(smax, static_cast<int64_t>(x));
    u32_min = std::min(u32_min, x32);
    u32_max = std::max(u32_max, x32);
    s32_min = std::min(s32_min, static_cast<int32_t>(x32));
    s32_max = std::max(s32_max, static_cast<int32_t>(x32));
    all &= x;
    any |= x;
  }
  void merge(const Hull& h) {
    umin = std::min(umin, h.umin);
    umax = std::max(umax, h.umax);
    smin = std::min(smin, h.smin);
    smax = std::max(smax, h.smax);
    u32_min = std::min(u32_min, h.u32_min);
    u32_max = std::max(u32_max, h.u32_max);
    s32_min = std::min(s32_min, h.s32_min);
    s32_max = std::max(s32_max, h.s32_max);
    all &= h.all;
    any |= h.any;
  }
  Tnum bits() const { return {all, any ^ all}; }
};

// Every value of h is in γ(r): each component contains h's hull in its order.
bool sound(const Scalar& r, const Hull& h) {
  if (h.empty()) return true;
  return within(h.bits(), r.bits) && r.umin <= h.umin && h.umax <= r.umax && r.smin <= h.smin &&
         h.smax <= r.smax && r.u32_min <= h.u32_min && h.u32_max <= r.u32_max && r.s32_min <= h.s32_min &&
         h.s32_max <= r.s32_max;
}

// r is the hull itself (the best Scalar for the set).
bool exact(const Scalar& r, const Hull& h) {
  return !h.empty() && r.bits == h.bits() && r.umin == h.umin && r.umax == h.umax && r.smin == h.smin &&
         r.smax == h.smax && r.u32_min == h.u32_min && r.u32_max == h.u32_max && r.s32_min == h.s32_min &&
         r.s32_max == h.s32_max;
}

std::string show(const Scalar& s) {
  return "{bits=" + show(s.bits) + " u=[" + hex(s.umin) + "," + hex(s.umax) + "] s=[" + std::to_string(s.smin) +
         "," + std::to_string(s.smax) + "] u32=[" + hex(s.u32_min) + "," + hex(s.u32_max) + "] s32=[" +
         std::to_string(s.s32_min) + "," + std::to_string(s.s32_max) + "]}";
}

std::string show(const Hull& h) {
  if (h.empty()) return "{}";
  Scalar s;
  s.bits = h.bits();
  s.umin = h.umin;
  s.umax = h.umax;
  s.smin = h.smin;
  s.smax = h.smax;
  s.u32_min = h.u32_min;
  s.u32_max = h.u32_max;
  s.s32_min = h.s32_min;
  s.s32_max = h.s32_max;
  return show(s);
}

// One family of 8-bit values in one order: the bytes 0..255 unsigned, or
// -128..127 sign-extended to 64 bits. A range is an interval of positions.
struct Family {
  const char* name;
  bool is_signed;
  std::array<uint64_t, 256> val;
  std::vector<Scalar> ranges;  // [lo * 256 + hi] for lo <= hi: from_urange / from_srange
  const Scalar& range(int lo, int hi) const { return ranges[size_t(lo) * 256 + size_t(hi)]; }
};

Family make_family(bool is_signed) {
  Family f;
  f.name = is_signed ? "s8" : "u8";
  f.is_signed = is_signed;
  for (int k = 0; k < 256; ++k) f.val[k] = is_signed ? static_cast<uint64_t>(int64_t{k} - 128) : uint64_t(k);
  f.ranges.resize(65536);
  for (int lo = 0; lo < 256; ++lo)
    for (int hi = lo; hi < 256; ++hi)
      f.ranges[size_t(lo) * 256 + size_t(hi)] =
          is_signed ? Scalar::from_srange(static_cast<int64_t>(f.val[lo]), static_cast<int64_t>(f.val[hi]))
                    : Scalar::from_urange(f.val[lo], f.val[hi]);
  return f;
}

const Family& family(bool is_signed) {
  static const Family u = make_family(false), s = make_family(true);
  return is_signed ? s : u;
}

// An abstract operand with its members (positions in the family's order):
// contiguous for a range, any set for a tnum.
struct Item {
  Scalar s;
  std::vector<int> members;
  bool contiguous = true;
};

// The range side of a pairing: every [lo, hi] with lo in `los`, hi <= end,
// hi - lo <= max_len and his[hi]; the scan from lo passes every hi in
// between (to grow the hulls) and checks the marked ones.
struct RangeSet {
  std::vector<int> los;
  std::array<bool, 256> his{};
  int end = 255, max_len = 255;

  int top(int lo) const { return std::min(end, lo + max_len); }
};

RangeSet all_ranges() {
  RangeSet r;
  for (int k = 0; k < 256; ++k) r.los.push_back(k), r.his[k] = true;
  return r;
}

// [16i, 16j + 15]: the 136 ranges on a 4-bit grid.
RangeSet grid_ranges() {
  RangeSet r;
  for (int k = 0; k < 16; ++k) r.los.push_back(16 * k), r.his[16 * k + 15] = true;
  return r;
}

// Every range within 16 positions from `first` (the 4-bit ranges).
RangeSet window_ranges(int first) {
  RangeSet r;
  for (int k = first; k < first + 16; ++k) r.los.push_back(k), r.his[k] = true;
  r.end = first + 15;
  return r;
}

RangeSet singletons(const std::vector<int>& positions) {
  RangeSet r;
  r.los = positions;
  for (int k : positions) r.his[k] = true;
  r.max_len = 0;
  return r;
}

std::vector<Item> range_items(const Family& f, const RangeSet& rs) {
  std::vector<Item> out;
  for (int lo : rs.los) {
    for (int hi = lo; hi <= rs.top(lo); ++hi) {
      if (!rs.his[hi]) continue;
      Item it{f.range(lo, hi), {}, true};
      for (int k = lo; k <= hi; ++k) it.members.push_back(k);
      out.push_back(it);
    }
  }
  return out;
}

std::vector<Item> constant_items(const Family& f, const std::vector<int>& positions) {
  std::vector<Item> out;
  for (int k : positions) out.push_back({Scalar::constant(f.val[k]), {k}, true});
  return out;
}

// The 6561 tnums of the low byte as Scalars (unsigned family only).
std::vector<Item> tnum_items() {
  std::vector<Item> out;
  for (const Tnum& t : tnums8().t) {
    Item it{Scalar::from_tnum(t), {}, false};
    for_members(t, [&](uint64_t x) { it.members.push_back(static_cast<int>(x)); });
    std::sort(it.members.begin(), it.members.end());
    out.push_back(it);
  }
  return out;
}

// Ranges of at most 16 values anywhere (the cheap shift amounts).
RangeSet short_ranges() {
  RangeSet r = all_ranges();
  r.max_len = 15;
  return r;
}

// A pairing runs its items as the left operand (dst, or a of `a OP b`)
// against every range of the set, and/or as the right operand.
struct Pairing {
  std::vector<Item> items;
  RangeSet ranges;
  bool item_left, item_right;
};

// K: constants at the operations' boundaries (0, 1, 2 for division and
// shifts, the sign boundary, all ones, a bit pattern).
std::vector<int> k_positions(const Family& f) {
  std::vector<int> values = f.is_signed ? std::vector<int>{-128, -1, 0, 1, 2, 63, 127}
                                        : std::vector<int>{0, 1, 2, 3, 63, 128, 255};
  if (kReduced) values = f.is_signed ? std::vector<int>{-128, 0, 1} : std::vector<int>{0, 1, 255};
  for (int& v : values) v += f.is_signed ? 128 : 0;
  return values;
}

// The pair schedule of one family (pairs per operation: about 720k
// unsigned, 630k signed), chosen so that each side on its own is exhaustive
// at 8 bits: every range meets the K constants, every constant meets the
// grid ranges and every other constant, and every tnum meets K. (All
// 32896 x 256 range-constant pairs, ~8.4M per operation and orientation,
// would take minutes.)
//   K constants           x every range          both ways  2 x 7 x 32896
//   every constant        x grid ranges          both ways  2 x 256 x 136
//   every constant        x every constant                  65536
//   grid ranges           x grid ranges                     136 x 136
//   4-bit window ranges   x 4-bit window ranges             136 x 136 ([0,15] / [-8,7])
//   every 8-bit tnum      x K constants          both ways  2 x 6561 x 7 (unsigned only)
// A shift by a range of n amounts costs n shifts and joins, so for shifts
// the wide amounts of the first two rows become ranges of at most 16
// values (as amounts of K; ranges as amounts of grid rows stay).
std::vector<Pairing> scalar_schedule(const Family& f, bool is_shift) {
  std::vector<int> every(256);
  for (int k = 0; k < 256; ++k) every[k] = k;
  const std::vector<int> ks = k_positions(f);
  const int window = f.is_signed ? 120 : 0;
  std::vector<Pairing> out;
  if (is_shift) {
    out.push_back({constant_items(f, ks), all_ranges(), false, true});
    out.push_back({constant_items(f, ks), short_ranges(), true, false});
    out.push_back({constant_items(f, every), grid_ranges(), false, true});
  } else {
    out.push_back({constant_items(f, ks), all_ranges(), true, true});
    out.push_back({constant_items(f, every), grid_ranges(), true, true});
  }
  out.push_back({constant_items(f, every), singletons(every), true, false});
  out.push_back({range_items(f, grid_ranges()), grid_ranges(), true, false});
  out.push_back({range_items(f, window_ranges(window)), window_ranges(window), true, false});
  if (!f.is_signed) out.push_back({tnum_items(), singletons(ks), true, true});
  return out;
}

struct AluCase {
  AluOp op;
  Width w;
  const char* name;
};

const AluCase kAluCases[] = {
    {AluOp::add, Width::w64, "add64"},   {AluOp::sub, Width::w64, "sub64"},   {AluOp::mul, Width::w64, "mul64"},
    {AluOp::div, Width::w64, "div64"},   {AluOp::sdiv, Width::w64, "sdiv64"}, {AluOp::mod, Width::w64, "mod64"},
    {AluOp::smod, Width::w64, "smod64"}, {AluOp::bit_and, Width::w64, "and64"}, {AluOp::bit_or, Width::w64, "or64"},
    {AluOp::bit_xor, Width::w64, "xor64"}, {AluOp::lsh, Width::w64, "lsh64"}, {AluOp::rsh, Width::w64, "rsh64"},
    {AluOp::arsh, Width::w64, "arsh64"}, {AluOp::mov, Width::w64, "mov64"},
    {AluOp::add, Width::w32, "add32"},   {AluOp::sub, Width::w32, "sub32"},   {AluOp::mul, Width::w32, "mul32"},
    {AluOp::div, Width::w32, "div32"},   {AluOp::sdiv, Width::w32, "sdiv32"}, {AluOp::mod, Width::w32, "mod32"},
    {AluOp::smod, Width::w32, "smod32"}, {AluOp::bit_and, Width::w32, "and32"}, {AluOp::bit_or, Width::w32, "or32"},
    {AluOp::bit_xor, Width::w32, "xor32"}, {AluOp::lsh, Width::w32, "lsh32"}, {AluOp::rsh, Width::w32, "rsh32"},
    {AluOp::arsh, Width::w32, "arsh32"}, {AluOp::mov, Width::w32, "mov32"},
};

// A pair (x, y) of members whose result r does not contain, for the report.
std::string alu_witness(const AluCase& op, const Family& f, const std::vector<int>& dst, const std::vector<int>& src,
                        const Scalar& r) {
  for (int p : dst)
    for (int q : src)
      if (!r.contains(alu_ref(op.op, op.w, f.val[p], f.val[q])))
        return "x=" + hex(f.val[p]) + " y=" + hex(f.val[q]) + " result " + hex(alu_ref(op.op, op.w, f.val[p], f.val[q]));
  return "(no single witness)";
}

std::vector<int> interval(int lo, int hi) {
  std::vector<int> out;
  for (int k = lo; k <= hi; ++k) out.push_back(k);
  return out;
}

// Every pair of the pairing with the item as dst (item_is_dst) or as src.
// col[k] is the hull of item OP val[k] (or val[k] OP item) over the item's
// members, so the exact hull for a range [lo, hi] is their merge.
void alu_pairing(const AluCase& op, const Family& f, const Pairing& pg, bool item_is_dst, Tally& tally) {
  const RangeSet& rs = pg.ranges;
  std::array<bool, 256> needed{};
  for (int lo : rs.los)
    for (int hi = lo; hi <= rs.top(lo); ++hi) needed[hi] = true;
  std::array<Hull, 256> col;
  for (const Item& it : pg.items) {
    for (int k = 0; k < 256; ++k) {
      if (!needed[k]) continue;
      Hull h;
      for (int p : it.members)
        h.add(item_is_dst ? alu_ref(op.op, op.w, f.val[p], f.val[k]) : alu_ref(op.op, op.w, f.val[k], f.val[p]));
      col[k] = h;
    }
    for (int lo : rs.los) {
      Hull acc;
      for (int hi = lo; hi <= rs.top(lo); ++hi) {
        acc.merge(col[hi]);
        if (!rs.his[hi]) continue;
        const Scalar& r = f.range(lo, hi);
        const Scalar out = item_is_dst ? alu(op.op, op.w, it.s, r) : alu(op.op, op.w, r, it.s);
        ++tally.pairs;
        if (sound(out, acc)) {
          if (!exact(out, acc)) ++tally.imprecise;
          continue;
        }
        if (++tally.unsound > kMaxReports) continue;
        const std::vector<int> members = interval(lo, hi);
        ADD_FAILURE() << op.name << " (" << f.name << ") unsound: dst=" << show(item_is_dst ? it.s : r)
                      << " src=" << show(item_is_dst ? r : it.s) << "\n  got   " << show(out) << "\n  exact "
                      << show(acc) << "\n  "
                      << alu_witness(op, f, item_is_dst ? it.members : members, item_is_dst ? members : it.members,
                                     out);
      }
    }
  }
}

void run_alu(bool is_signed) {
  const Family& f = family(is_signed);
  const std::vector<Pairing> schedule = scalar_schedule(f, false), shift_schedule = scalar_schedule(f, true);
  for (const AluCase& op : kAluCases) {
    Tally tally;
    const bool is_shift = op.op == AluOp::lsh || op.op == AluOp::rsh || op.op == AluOp::arsh;
    for (const Pairing& pg : is_shift ? shift_schedule : schedule) {
      if (pg.item_left) alu_pairing(op, f, pg, true, tally);
      if (pg.item_right) alu_pairing(op, f, pg, false, tally);
    }
    print_tally(std::string(op.name) + " (" + f.name + ")", tally);
    EXPECT_EQ(tally.unsound, 0u) << op.name << " " << f.name;
  }
}

TEST(ScalarExhaustive8, AluUnsignedBytesSound) { run_alu(false); }
TEST(ScalarExhaustive8, AluSignedBytesSound) { run_alu(true); }

// ---------------------------------------------------------------------------
// Branch refinement: after refine(op, w, taken, a, b), a must still hold
// every x of a for which some y of b makes `x OP y` come out `taken`, and b
// every such y; refine may answer false only when there is no such pair.

struct JmpCase {
  JmpOp op;
  const char* name;
};

const JmpCase kJmpCases[] = {
    {JmpOp::jeq, "jeq"},   {JmpOp::jne, "jne"},   {JmpOp::jgt, "jgt"},   {JmpOp::jge, "jge"},
    {JmpOp::jlt, "jlt"},   {JmpOp::jle, "jle"},   {JmpOp::jsgt, "jsgt"}, {JmpOp::jsge, "jsge"},
    {JmpOp::jslt, "jslt"}, {JmpOp::jsle, "jsle"}, {JmpOp::jset, "jset"},
};

struct Branch {
  JmpOp op;
  Width w;
  bool taken;
  std::string name;
};

void refine_pairing(const Branch& br, const Family& f, const Pairing& pg, bool item_is_left, Tally& tally) {
  const RangeSet& rs = pg.ranges;
  // rel(i, r): the condition holds for the item member at position i and the
  // range member at position r (in the pairing's orientation).
  auto rel = [&](int i, int r) {
    const uint64_t x = f.val[i], y = f.val[r];
    return jmp_ref(br.op, br.w, item_is_left ? x : y, item_is_left ? y : x) == br.taken;
  };
  // next_r[i][lo]: the least r >= lo with rel(i, r); next_i[r][lo]: the
  // least i >= lo with rel(i, r) (256 when none).
  std::vector<int16_t> next_r(256 * 257), next_i(256 * 257);
  for (int i = 0; i < 256; ++i) {
    next_r[size_t(i) * 257 + 256] = next_i[size_t(i) * 257 + 256] = 256;
    for (int lo = 255; lo >= 0; --lo) {
      next_r[size_t(i) * 257 + size_t(lo)] = rel(i, lo) ? int16_t(lo) : next_r[size_t(i) * 257 + size_t(lo) + 1];
      next_i[size_t(i) * 257 + size_t(lo)] = rel(lo, i) ? int16_t(lo) : next_i[size_t(i) * 257 + size_t(lo) + 1];
    }
  }
  std::array<bool, 256> needed{}, feasible{};
  for (int lo : rs.los)
    for (int hi = lo; hi <= rs.top(lo); ++hi) needed[hi] = true;
  std::vector<std::pair<int, int>> order;  // (the hi from which an item member survives, member)
  for (const Item& it : pg.items) {
    // feasible[r]: some member of the item satisfies the condition with r.
    for (int r = 0; r < 256; ++r) {
      if (!needed[r]) continue;
      bool any = false;
      if (it.contiguous) {
        any = next_i[size_t(r) * 257 + size_t(it.members.front())] <= it.members.back();
      } else {
        for (int i : it.members) any = any || rel(i, r);
      }
      feasible[r] = any;
    }
    for (int lo : rs.los) {
      const int top = rs.top(lo);
      order.clear();
      for (int i : it.members) {
        const int from = next_r[size_t(i) * 257 + size_t(lo)];
        if (from <= top) order.push_back({from, i});
      }
      std::sort(order.begin(), order.end());
      size_t next = 0;
      Hull item_hull, range_hull;
      for (int hi = lo; hi <= top; ++hi) {
        if (feasible[hi]) range_hull.add(f.val[hi]);
        for (; next < order.size() && order[next].first == hi; ++next) item_hull.add(f.val[order[next].second]);
        if (!rs.his[hi]) continue;
        Scalar a = item_is_left ? it.s : f.range(lo, hi);
        Scalar b = item_is_left ? f.range(lo, hi) : it.s;
        const bool ok = refine(br.op, br.w, br.taken, a, b);
        const Hull& ha = item_is_left ? item_hull : range_hull;
        const Hull& hb = item_is_left ? range_hull : item_hull;
        ++tally.pairs;
        if (ha.empty()) {
          if (ok) ++tally.imprecise;  // no pair satisfies the condition, yet the branch is kept
          continue;
        }
        if (ok && sound(a, ha) && sound(b, hb)) {
          if (!exact(a, ha) || !exact(b, hb)) ++tally.imprecise;
          continue;
        }
        if (++tally.unsound > kMaxReports) continue;
        ADD_FAILURE() << br.name << " (" << f.name << ") unsound: a="
                      << show(item_is_left ? it.s : f.range(lo, hi))
                      << " b=" << show(item_is_left ? f.range(lo, hi) : it.s)
                      << (ok ? "" : "\n  refine said impossible") << "\n  a' " << show(a) << "\n  must hold "
                      << show(ha) << "\n  b' " << show(b) << "\n  must hold " << show(hb);
      }
    }
  }
}

void run_refine(bool is_signed) {
  const Family& f = family(is_signed);
  const std::vector<Pairing> schedule = scalar_schedule(f, false);
  for (Width w : {Width::w64, Width::w32}) {
    for (const JmpCase& jc : kJmpCases) {
      for (bool taken : {true, false}) {
        const Branch br{jc.op, w, taken,
                        std::string(jc.name) + (w == Width::w64 ? "" : "32") + (taken ? " taken" : " not taken")};
        Tally tally;
        for (const Pairing& pg : schedule) {
          if (pg.item_left) refine_pairing(br, f, pg, true, tally);
          if (pg.item_right) refine_pairing(br, f, pg, false, tally);
        }
        print_tally(br.name + " (" + f.name + ")", tally);
        EXPECT_EQ(tally.unsound, 0u) << br.name << " " << f.name;
      }
    }
  }
}

TEST(ScalarExhaustive8, RefineUnsignedBytesSound) { run_refine(false); }
TEST(ScalarExhaustive8, RefineSignedBytesSound) { run_refine(true); }

// ---------------------------------------------------------------------------
// Construction, unary ops, join and widen.

// The ranges the other tests enumerate are exactly the Scalars' γ: bounds
// equal to the range (nothing outside) and every member contained.
TEST(ScalarExhaustive8, RangesAndTnumsAreExact) {
  int failures = 0;
  for (bool is_signed : {false, true}) {
    const Family& f = family(is_signed);
    for (int lo = 0; lo < 256; ++lo) {
      Hull h;
      for (int hi = lo; hi < 256; ++hi) {
        h.add(f.val[hi]);
        const Scalar& s = f.range(lo, hi);
        if (!exact(s, h) && ++failures <= kMaxReports)
          ADD_FAILURE() << f.name << " range [" << lo << "," << hi << "] is " << show(s) << ", hull " << show(h);
      }
    }
  }
  for (const Item& it : tnum_items()) {
    Hull h;
    for (int x : it.members) h.add(uint64_t(x));
    if (!sound(it.s, h) || it.s.bits != h.bits())
      if (++failures <= kMaxReports) ADD_FAILURE() << "from_tnum gave " << show(it.s) << ", members " << show(h);
  }
  EXPECT_EQ(failures, 0);
}

struct ScalarUnary {
  const char* name;
  Scalar (*abstract)(const Scalar&);
  uint64_t (*concrete)(uint64_t);
};

const ScalarUnary kScalarUnary[] = {
    {"neg64", [](const Scalar& s) { return neg(Width::w64, s); }, [](uint64_t x) { return 0 - x; }},
    {"neg32", [](const Scalar& s) { return neg(Width::w32, s); }, [](uint64_t x) { return uint64_t{uint32_t(0 - x)}; }},
    {"movsx64_8", [](const Scalar& s) { return movsx(Width::w64, 8, s); }, [](uint64_t x) { return sext_ref(x, 8); }},
    {"movsx64_16", [](const Scalar& s) { return movsx(Width::w64, 16, s); }, [](uint64_t x) { return sext_ref(x, 16); }},
    {"movsx64_32", [](const Scalar& s) { return movsx(Width::w64, 32, s); }, [](uint64_t x) { return sext_ref(x, 32); }},
    {"movsx32_8", [](const Scalar& s) { return movsx(Width::w32, 8, s); },
     [](uint64_t x) { return sext_ref(x, 8) & 0xffff'ffffu; }},
    {"movsx32_16", [](const Scalar& s) { return movsx(Width::w32, 16, s); },
     [](uint64_t x) { return sext_ref(x, 16) & 0xffff'ffffu; }},
    {"le16", [](const Scalar& s) { return to_le(16, s); }, [](uint64_t x) { return x & 0xffff; }},
    {"le32", [](const Scalar& s) { return to_le(32, s); }, [](uint64_t x) { return x & 0xffff'ffffu; }},
    {"le64", [](const Scalar& s) { return to_le(64, s); }, [](uint64_t x) { return x; }},
    {"bswap16", [](const Scalar& s) { return bswap(16, s); }, [](uint64_t x) { return bswap_ref(x, 16); }},
    {"bswap32", [](const Scalar& s) { return bswap(32, s); }, [](uint64_t x) { return bswap_ref(x, 32); }},
    {"bswap64", [](const Scalar& s) { return bswap(64, s); }, [](uint64_t x) { return bswap_ref(x, 64); }},
    {"zext32", [](const Scalar& s) { return zext32(s); }, [](uint64_t x) { return x & 0xffff'ffffu; }},
};

// Every unary op on every 8-bit range (both families) and every 8-bit tnum,
// each member checked (through the hull, as above).
TEST(ScalarExhaustive8, UnaryOpsSound) {
  const std::vector<Item> tnums = tnum_items();
  for (const ScalarUnary& op : kScalarUnary) {
    Tally tally;
    auto check = [&](const Scalar& in, const Scalar& out, const Hull& h, const std::vector<int>& members,
                     const Family& f) {
      ++tally.pairs;
      if (sound(out, h)) {
        if (!exact(out, h)) ++tally.imprecise;
        return;
      }
      if (++tally.unsound > kMaxReports) return;
      std::string witness;
      for (int p : members)
        if (witness.empty() && !out.contains(op.concrete(f.val[p])))
          witness = "x=" + hex(f.val[p]) + " result " + hex(op.concrete(f.val[p]));
      ADD_FAILURE() << op.name << " unsound on " << show(in) << "\n  got   " << show(out) << "\n  exact " << show(h)
                    << "\n  " << witness;
    };
    for (bool is_signed : {false, true}) {
      const Family& f = family(is_signed);
      for (int lo = 0; lo < 256; ++lo) {
        Hull h;
        for (int hi = lo; hi < 256; ++hi) {
          h.add(op.concrete(f.val[hi]));
          check(f.range(lo, hi), op.abstract(f.range(lo, hi)), h, interval(lo, hi), f);
        }
      }
    }
    for (const Item& it : tnums) {
      Hull h;
      for (int x : it.members) h.add(op.concrete(uint64_t(x)));
      check(it.s, op.abstract(it.s), h, it.members, family(false));
    }
    print_tally(op.name, tally);
    EXPECT_EQ(tally.unsound, 0u) << op.name;
  }
}

// join and widen contain both operands, on every pair of grid ranges and of
// 4-bit window ranges.
TEST(ScalarExhaustive8, JoinAndWidenContainBoth) {
  int failures = 0;
  for (bool is_signed : {false, true}) {
    const Family& f = family(is_signed);
    for (const RangeSet& rs : {grid_ranges(), window_ranges(is_signed ? 120 : 0)}) {
      const std::vector<Item> items = range_items(f, rs);
      std::vector<Hull> hulls;
      for (const Item& it : items) {
        Hull h;
        for (int p : it.members) h.add(f.val[p]);
        hulls.push_back(h);
      }
      for (size_t i = 0; i < items.size(); ++i) {
        for (size_t j = 0; j < items.size(); ++j) {
          Hull both = hulls[i];
          both.merge(hulls[j]);
          const Scalar joined = join(items[i].s, items[j].s), widened = widen(items[i].s, items[j].s);
          if ((!sound(joined, both) || !sound(widened, both)) && ++failures <= kMaxReports)
            ADD_FAILURE() << "join/widen of " << show(items[i].s) << " and " << show(items[j].s) << ": "
                          << show(joined) << " / " << show(widened) << ", union " << show(both);
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

// The checking machinery itself: on random pairs the hull verdict agrees
// with testing every concrete result for membership.
TEST(ScalarExhaustive8, HullCheckMatchesMemberCheck) {
  std::mt19937_64 rng(8);
  const Family& f = family(false);
  int disagreements = 0, unsound_seen = 0;
  for (int n = 0; n < 4000; ++n) {
    const int a0 = int(rng() % 256), a1 = int(rng() % 256), b0 = int(rng() % 256), b1 = int(rng() % 256);
    const int alo = std::min(a0, a1), ahi = std::max(a0, a1), blo = std::min(b0, b1), bhi = std::max(b0, b1);
    const AluCase& op = kAluCases[rng() % std::size(kAluCases)];
    // Half the time, a deliberately wrong "result" (a narrowed operand), so
    // that both verdicts are exercised.
    Scalar out = alu(op.op, op.w, f.range(alo, ahi), f.range(blo, bhi));
    if (n % 2) out = f.range(alo, ahi);
    Hull h;
    bool all_in = true;
    for (int x = alo; x <= ahi; ++x)
      for (int y = blo; y <= bhi; ++y) {
        const uint64_t z = alu_ref(op.op, op.w, f.val[x], f.val[y]);
        h.add(z);
        all_in = all_in && out.contains(z);
      }
    unsound_seen += !all_in;
    disagreements += sound(out, h) != all_in;
  }
  EXPECT_EQ(disagreements, 0);
  EXPECT_GT(unsound_seen, 200);
}

}  // namespace
}  // namespace keel
