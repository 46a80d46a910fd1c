// ticks.cc: the docs/platform.md table, synthetic rates, a property test against a
// 128-bit reference (tests may use __int128; the kernel may not), and one
// regression test per failure mode docs/platform.md lists.
#include "time/ticks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace keel {
namespace {

using u128 = unsigned __int128;

constexpr uint64_t kMax64 = UINT64_MAX;
constexpr uint64_t kTwo32 = uint64_t{1} << 32;
constexpr uint64_t kTwo53 = uint64_t{1} << 53;
constexpr uint64_t two63_minus_1 = (uint64_t{1} << 63) - 1;

ClockRate hpet(uint64_t period_fs) { return {ClockRate::Kind::period_fs, period_fs}; }
ClockRate generic(uint64_t frequency_hz) { return {ClockRate::Kind::frequency_hz, frequency_hz}; }

std::string name_of(ClockRate rate) {
  return (rate.kind == ClockRate::Kind::period_fs ? "period_fs=" : "frequency_hz=") +
         std::to_string(rate.value);
}

TickConverter converter_for(ClockRate rate) {
  TickConverter converter{};
  EXPECT_TRUE(make_converter(rate, converter)) << name_of(rate);
  return converter;
}

// The reference: the formulas of docs/platform.md in 128 bits.
struct Expected {
  uint64_t value;
  bool saturated;
};
Expected clamp(u128 value) {
  if (value > kMax64) return {kMax64, true};
  return {static_cast<uint64_t>(value), false};
}
Expected reference_ns(ClockRate rate, uint64_t ticks) {
  if (rate.kind == ClockRate::Kind::period_fs) return clamp(u128{ticks} * rate.value / 1'000'000);
  return clamp(u128{ticks} * 1'000'000'000 / rate.value);
}
Expected reference_ticks(ClockRate rate, uint64_t ns) {
  if (rate.kind == ClockRate::Kind::period_fs) return clamp(u128{ns} * 1'000'000 / rate.value);
  return clamp(u128{ns} * rate.value / 1'000'000'000);
}

// Returns false (after one failure message) so loops can stop at the first.
bool ns_matches_reference(const TickConverter& converter, uint64_t ticks) {
  const Nanoseconds got = ticks_to_ns(converter, ticks);
  const Expected want = reference_ns(converter.rate, ticks);
  if (got.value == want.value && got.saturated == want.saturated) return true;
  ADD_FAILURE() << name_of(converter.rate) << " ticks=" << ticks << ": got " << got.value
                << (got.saturated ? " (saturated)" : "") << ", want " << want.value
                << (want.saturated ? " (saturated)" : "");
  return false;
}
bool ticks_match_reference(const TickConverter& converter, uint64_t ns) {
  const Ticks got = ns_to_ticks(converter, ns);
  const Expected want = reference_ticks(converter.rate, ns);
  if (got.value == want.value && got.saturated == want.saturated) return true;
  ADD_FAILURE() << name_of(converter.rate) << " ns=" << ns << ": got " << got.value
                << (got.saturated ? " (saturated)" : "") << ", want " << want.value
                << (want.saturated ? " (saturated)" : "");
  return false;
}

// Synthetic rates: QEMU's whole-ns rates hide rounding bugs (docs/platform.md).
const std::vector<ClockRate>& named_rates() {
  static const std::vector<ClockRate> rates = {
      hpet(10'000'000),    hpet(69'841'279),    hpet(100'000'000),  hpet(0x05F5E100),
      hpet(1),             hpet(3),             hpet(999'999),      hpet(1'000'001),
      generic(14'318'180), generic(19'200'000), generic(54'000'000), generic(62'500'000),
      generic(1),          generic(3),          generic(1'000'000'000), generic(4'294'967'295),
      generic(10'000'000'000), generic(9'999'999'967)};
  return rates;
}

// ---- docs/platform.md "Ticks to nanoseconds" table: every row, every column ----

struct TableRow {
  const char* name;
  ClockRate rate;
  uint64_t ns[6];
};
void PrintTo(const TableRow& row, std::ostream* out) { *out << row.name; }
constexpr uint64_t kTableTicks[6] = {1, 1000, kTwo32 - 1, kTwo32, 1'000'000'000'000, kTwo53};

class PlatformTable : public testing::TestWithParam<TableRow> {};

TEST_P(PlatformTable, EveryColumnExactAndTwoTo63Saturates) {
  const TableRow& row = GetParam();
  const TickConverter converter = converter_for(row.rate);
  for (int column = 0; column < 6; ++column) {
    const Nanoseconds ns = ticks_to_ns(converter, kTableTicks[column]);
    EXPECT_EQ(ns.value, row.ns[column]) << "t=" << kTableTicks[column];
    EXPECT_FALSE(ns.saturated) << "t=" << kTableTicks[column];
    ns_matches_reference(converter, kTableTicks[column]);
  }
  const Nanoseconds top = ticks_to_ns(converter, two63_minus_1);
  EXPECT_TRUE(top.saturated);
  EXPECT_EQ(top.value, kMax64);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, PlatformTable,
    testing::Values(
        TableRow{"hpet_10000000fs", hpet(10'000'000),
                 {10, 10000, 42949672950, 42949672960, 10000000000000, 90071992547409920}},
        TableRow{"hpet_69841279fs", hpet(69'841'279),
                 {69, 69841, 299966009145, 299966009215, 69841279000000, 629074316158957695}},
        TableRow{"hpet_100000000fs", hpet(100'000'000),
                 {100, 100000, 429496729500, 429496729600, 100000000000000, 900719925474099200}},
        TableRow{"generic_54MHz", generic(54'000'000),
                 {18, 18518, 79536431388, 79536431407, 18518518518518, 166799986198907259}},
        TableRow{"generic_62_5MHz", generic(62'500'000),
                 {16, 16000, 68719476720, 68719476736, 16000000000000, 144115188075855872}},
        TableRow{"generic_19_2MHz", generic(19'200'000),
                 {52, 52083, 223696213281, 223696213333, 52083333333333, 469124961184426666}}),
    [](const testing::TestParamInfo<TableRow>& row_info) { return std::string(row_info.param.name); });

// ---- synthetic rates around 2^32, 2^53 and 2^64 - 1 ----

TEST(TicksToNs, SyntheticRatesAtKnownValues) {
  struct Case {
    ClockRate rate;
    uint64_t ns_at_2_32_plus_1;
    uint64_t ns_at_2_53_plus_1;
  };
  const Case cases[] = {
      {generic(14'318'180), 299966008040, 629074313546902818},
      {generic(19'200'000), 223696213385, 469124961184426718},
      {generic(54'000'000), 79536431425, 166799986198907277},
      {generic(62'500'000), 68719476752, 144115188075855888},
      {hpet(69'841'279), 299966009285, 629074316158957764},
      {hpet(1), 4294, 9007199254},
      {hpet(100'000'000), 429496729700, 900719925474099300},
  };
  for (const Case& c : cases) {
    const TickConverter converter = converter_for(c.rate);
    EXPECT_EQ(ticks_to_ns(converter, kTwo32 + 1).value, c.ns_at_2_32_plus_1) << name_of(c.rate);
    EXPECT_EQ(ticks_to_ns(converter, kTwo53 + 1).value, c.ns_at_2_53_plus_1) << name_of(c.rate);
  }
  // 1 fs per tick: even 2^64 - 1 ticks are only ~5.1 hours.
  const Nanoseconds top = ticks_to_ns(converter_for(hpet(1)), kMax64);
  EXPECT_EQ(top.value, 18446744073709u);
  EXPECT_FALSE(top.saturated);
  // 14.31818 MHz: exactly one second after 14,318,180 ticks.
  EXPECT_EQ(ticks_to_ns(converter_for(generic(14'318'180)), 14'318'180).value, 1'000'000'000u);
}

TEST(TicksToNs, NamedRatesAroundPowersOfTwoMatchReference) {
  const uint64_t centres[] = {kTwo32, kTwo53, kMax64};
  for (const ClockRate& rate : named_rates()) {
    const TickConverter converter = converter_for(rate);
    for (uint64_t centre : centres) {
      for (uint64_t delta = 0; delta <= 3; ++delta) {
        ns_matches_reference(converter, centre - delta);
        if (centre != kMax64) ns_matches_reference(converter, centre + delta);
      }
    }
    ns_matches_reference(converter, 0);
    EXPECT_EQ(ticks_to_ns(converter, 0).value, 0u);
  }
}

// The largest tick count whose ns still fits, and the first that saturates.
TEST(TicksToNs, SaturatesExactlyWhereTheResultLeaves64Bits) {
  for (const ClockRate& rate : named_rates()) {
    const TickConverter converter = converter_for(rate);
    // t fits iff t * num < 2^64 * den, i.e. t <= (2^64 * den - 1) / num.
    const u128 last = ((u128{1} << 64) * converter.to_ns.den - 1) / converter.to_ns.num;
    if (last >= kMax64) {  // slow clocks never saturate
      EXPECT_FALSE(ticks_to_ns(converter, kMax64).saturated) << name_of(rate);
      continue;
    }
    const uint64_t last_fitting = static_cast<uint64_t>(last);
    const Nanoseconds fits = ticks_to_ns(converter, last_fitting);
    const Nanoseconds over = ticks_to_ns(converter, last_fitting + 1);
    EXPECT_FALSE(fits.saturated) << name_of(rate);
    EXPECT_TRUE(over.saturated) << name_of(rate);
    EXPECT_EQ(over.value, kMax64) << name_of(rate);
    ns_matches_reference(converter, last_fitting);
    ns_matches_reference(converter, last_fitting + 1);
  }
}

// ---- property test against the 128-bit reference ----

// Random magnitudes: a random 64-bit value shifted right by 0..63 bits, so
// small, 2^32-ish and huge values are all common.
uint64_t random_magnitude(std::mt19937_64& random) {
  return random() >> (random() % 64);
}

std::vector<ClockRate> many_rates(std::mt19937_64& random) {
  std::vector<ClockRate> rates = named_rates();
  for (int i = 0; i < 150; ++i) {
    rates.push_back(hpet(1 + random() % 100'000'000));
    rates.push_back(generic(1 + random() % 10'000'000'000));
    rates.push_back(generic(1 + random() % 200'000'000));  // realistic timers
  }
  return rates;
}

TEST(TicksToNs, MatchesReferenceForRandomTicksAndRates) {
  std::mt19937_64 random(0x6b65656c);  // fixed seed: failures reproduce
  for (const ClockRate& rate : many_rates(random)) {
    const TickConverter converter = converter_for(rate);
    for (int i = 0; i < 1500; ++i) {
      if (!ns_matches_reference(converter, random_magnitude(random))) return;
    }
    // Remainder edges of the split: q * den and q * den - 1.
    for (int i = 0; i < 50; ++i) {
      const uint64_t q = random_magnitude(random) / converter.to_ns.den;
      if (!ns_matches_reference(converter, q * converter.to_ns.den)) return;
      if (q != 0 && !ns_matches_reference(converter, q * converter.to_ns.den - 1)) return;
    }
  }
}

TEST(NsToTicks, MatchesReferenceForRandomNsAndRates) {
  std::mt19937_64 random(0x7469636b);
  for (const ClockRate& rate : many_rates(random)) {
    const TickConverter converter = converter_for(rate);
    for (int i = 0; i < 1500; ++i) {
      if (!ticks_match_reference(converter, random_magnitude(random))) return;
    }
    if (!ticks_match_reference(converter, kMax64)) return;
  }
}

// ---- regressions: one per failure mode in docs/platform.md ----

// The inspiring project printed HPET ticks as ns: every x86 time 10-100x off.
TEST(Regression, TicksAreNotNanoseconds) {
  EXPECT_EQ(ticks_to_ns(converter_for(hpet(10'000'000)), 1000).value, 10'000u);
  EXPECT_EQ(ticks_to_ns(converter_for(hpet(100'000'000)), 1000).value, 100'000u);
  EXPECT_EQ(ticks_to_ns(converter_for(generic(62'500'000)), 1000).value, 16'000u);
  EXPECT_EQ(ticks_to_ns(converter_for(generic(1'000'000'000)), 1000).value, 1000u);  // only here
}

// 69,841,279 fs rounded to 69 ns/tick is a 1.2 % error.
TEST(Regression, PeriodIsNotRoundedToWholeNanoseconds) {
  const TickConverter converter = converter_for(hpet(69'841'279));
  EXPECT_EQ(ticks_to_ns(converter, 1000).value, 69'841u);  // not 69,000
  EXPECT_EQ(ticks_to_ns(converter, 1'000'000'000'000).value, 69'841'279'000'000u);
  EXPECT_NE(ticks_to_ns(converter, 1'000'000'000'000).value, 69'000'000'000'000u);
  // 14,318,180 ticks (about one second) read as 1.000000004 s, not 0.988 s.
  EXPECT_EQ(ticks_to_ns(converter, 14'318'180).value, 1'000'000'004u);
}

// Integer 10^9 / f is 18 at 54 MHz (really 18.518...).
TEST(Regression, NsPerTickIsNotTruncatedToAnInteger) {
  EXPECT_EQ(ticks_to_ns(converter_for(generic(54'000'000)), 1000).value, 18'518u);  // not 18,000
  EXPECT_EQ(ticks_to_ns(converter_for(generic(19'200'000)), 1000).value, 52'083u);  // not 52,000
  EXPECT_EQ(ticks_to_ns(converter_for(generic(54'000'000)), 54'000'000).value, 1'000'000'000u);
}

// ticks * period_fs wraps 64 bits after ~5.1 h at 14.318 MHz.
TEST(Regression, PeriodProductDoesNotOverflowAfterFiveHours) {
  const uint64_t period = 69'841'279;
  const TickConverter converter = converter_for(hpet(period));
  const uint64_t first_wrapping = kMax64 / period + 1;
  ASSERT_GT(u128{first_wrapping} * period, u128{kMax64});  // the naive product wraps here
  ns_matches_reference(converter, first_wrapping - 1);
  ns_matches_reference(converter, first_wrapping);
  // Six hours of a 14.31818 MHz HPET: 6 h and 89.7 us (the period is not
  // exactly 1 / 14.31818 MHz), where the naive product has long wrapped.
  const uint64_t six_hours = 14'318'180ull * 6 * 3600;
  ASSERT_GT(u128{six_hours} * period, u128{kMax64});
  EXPECT_EQ(ticks_to_ns(converter, six_hours).value, 21'600'000'089'687u);
  // Ten years of uptime stay exact and unsaturated.
  const uint64_t ten_years = 14'318'180ull * 3600 * 24 * 3653;
  EXPECT_FALSE(ticks_to_ns(converter, ten_years).saturated);
  ns_matches_reference(converter, ten_years);
}

// ticks * 10^9 wraps 64 bits after 341.6 s at 54 MHz.
TEST(Regression, FrequencyProductDoesNotOverflowAfter341Seconds) {
  const TickConverter converter = converter_for(generic(54'000'000));
  const uint64_t t = 54'000'000ull * 342;
  ASSERT_GT(u128{t} * 1'000'000'000, u128{kMax64});  // the naive product wraps here
  EXPECT_EQ(ticks_to_ns(converter, t).value, 342'000'000'000u);
  // A century of uptime (36,525 days) is still exact.
  const uint64_t century_s = 36'525ull * 24 * 3600;
  const Nanoseconds century = ticks_to_ns(converter, 54'000'000 * century_s);
  EXPECT_FALSE(century.saturated);
  EXPECT_EQ(century.value, century_s * 1'000'000'000);
}

// No HPET (or CNTFRQ_EL0 never programmed) reads as 0: refuse it at boot.
TEST(Regression, ZeroRateIsRejected) {
  TickConverter untouched = converter_for(hpet(10'000'000));
  const TickConverter before = untouched;
  EXPECT_FALSE(make_converter(hpet(0), untouched));
  EXPECT_FALSE(make_converter(generic(0), untouched));
  EXPECT_EQ(untouched.rate.value, before.rate.value);
  EXPECT_EQ(untouched.to_ns.num, before.to_ns.num);
  EXPECT_EQ(untouched.to_ns.den, before.to_ns.den);
}

TEST(MakeConverter, AcceptsExactlyTheDocumentedRanges) {
  TickConverter converter{};
  EXPECT_TRUE(make_converter(hpet(1), converter));
  EXPECT_TRUE(make_converter(hpet(0x05F5E100), converter));
  EXPECT_FALSE(make_converter(hpet(0x05F5E101), converter));
  EXPECT_FALSE(make_converter(hpet(uint64_t{0xFFFFFFFF}), converter));
  EXPECT_FALSE(make_converter(hpet(kMax64), converter));
  EXPECT_TRUE(make_converter(generic(1), converter));
  EXPECT_TRUE(make_converter(generic(10'000'000'000), converter));
  EXPECT_FALSE(make_converter(generic(10'000'000'001), converter));
  EXPECT_FALSE(make_converter(generic(1'000'000'000'000), converter));
  EXPECT_FALSE(make_converter(generic(kMax64), converter));
  EXPECT_FALSE(make_converter(ClockRate{static_cast<ClockRate::Kind>(7), 10'000'000}, converter));
}

TEST(MakeConverter, ReducesTheRatio) {
  const TickConverter qemu_hpet = converter_for(hpet(10'000'000));
  EXPECT_EQ(qemu_hpet.to_ns.num, 10u);
  EXPECT_EQ(qemu_hpet.to_ns.den, 1u);
  const TickConverter pi = converter_for(generic(54'000'000));
  EXPECT_EQ(pi.to_ns.num, 500u);
  EXPECT_EQ(pi.to_ns.den, 27u);
  EXPECT_EQ(pi.to_ticks.num, 27u);
  EXPECT_EQ(pi.to_ticks.den, 500u);
}

// ---- ns -> ticks ----

TEST(NsToTicks, KnownValues) {
  const TickConverter pi = converter_for(generic(54'000'000));
  EXPECT_EQ(ns_to_ticks(pi, 0).value, 0u);
  EXPECT_EQ(ns_to_ticks(pi, 1).value, 0u);
  EXPECT_EQ(ns_to_ticks(pi, 19).value, 1u);
  EXPECT_EQ(ns_to_ticks(pi, 1000).value, 54u);
  EXPECT_EQ(ns_to_ticks(pi, 1'000'000'000).value, 54'000'000u);
  const TickConverter qemu_hpet = converter_for(hpet(10'000'000));
  EXPECT_EQ(ns_to_ticks(qemu_hpet, 25).value, 2u);
  const TickConverter pc_hpet = converter_for(hpet(69'841'279));
  EXPECT_EQ(ns_to_ticks(pc_hpet, 1'000'000'000).value, 14'318'179u);  // 10^15 / 69,841,279
  const TickConverter fast = converter_for(generic(10'000'000'000));
  EXPECT_EQ(ns_to_ticks(fast, 7).value, 70u);
}

TEST(NsToTicks, SaturatesWhenTicksExceed64Bits) {
  const TickConverter femto = converter_for(hpet(1));  // 10^6 ticks per ns
  const uint64_t last = kMax64 / 1'000'000;
  EXPECT_EQ(ns_to_ticks(femto, last).value, last * 1'000'000);
  EXPECT_FALSE(ns_to_ticks(femto, last).saturated);
  EXPECT_TRUE(ns_to_ticks(femto, last + 1).saturated);
  EXPECT_EQ(ns_to_ticks(femto, last + 1).value, kMax64);
  EXPECT_TRUE(ns_to_ticks(converter_for(generic(10'000'000'000)), kMax64).saturated);
  EXPECT_FALSE(ns_to_ticks(converter_for(generic(54'000'000)), kMax64).saturated);
}

// k = ns_to_ticks(x) is the largest k whose duration is at most x ns.
TEST(NsToTicks, RoundTripsNeverOvershoot) {
  std::mt19937_64 random(0x726f756e);
  for (const ClockRate& rate : many_rates(random)) {
    const TickConverter converter = converter_for(rate);
    for (int i = 0; i < 400; ++i) {
      const uint64_t x = random_magnitude(random);
      const Ticks k = ns_to_ticks(converter, x);
      if (!k.saturated) {
        const Nanoseconds back = ticks_to_ns(converter, k.value);
        ASSERT_LE(back.value, x) << name_of(rate) << " ns=" << x;
        // One more tick lasts strictly longer than x ns (exact, in 128 bits)...
        const u128 next_num = (u128{k.value} + 1) * converter.to_ns.num;
        ASSERT_GT(next_num, u128{x} * converter.to_ns.den) << name_of(rate) << " ns=" << x;
        // ...so it reads as at least x ns.
        if (k.value != kMax64) {
          ASSERT_GE(ticks_to_ns(converter, k.value + 1).value, x);
        }
      }
      const uint64_t t = random_magnitude(random);
      const Nanoseconds ns = ticks_to_ns(converter, t);
      if (!ns.saturated) {
        ASSERT_LE(ns_to_ticks(converter, ns.value).value, t) << name_of(rate) << " t=" << t;
      }
      // Monotonic in both directions.
      const uint64_t y = x + random() % 1000;
      if (y >= x) {
        ASSERT_LE(ns_to_ticks(converter, x).value, ns_to_ticks(converter, y).value);
        ASSERT_LE(ticks_to_ns(converter, x).value, ticks_to_ns(converter, y).value);
      }
    }
  }
}

// ---- the boot line's factor ----

TEST(DescribeScale, SixDecimalsAndReducedRatio) {
  struct Case {
    ClockRate rate;
    uint64_t whole_ns;
    uint32_t fraction_millionths;
    bool exact;
    uint64_t num;
    uint64_t den;
  };
  const Case cases[] = {
      {hpet(10'000'000), 10, 0, true, 10, 1},  // ns_per_tick=10.000000
      {hpet(69'841'279), 69, 841'279, true, 69'841'279, 1'000'000},
      {hpet(1), 0, 1, true, 1, 1'000'000},
      {hpet(100'000'000), 100, 0, true, 100, 1},
      {generic(54'000'000), 18, 518'518, false, 500, 27},
      {generic(62'500'000), 16, 0, true, 16, 1},
      {generic(19'200'000), 52, 83'333, false, 625, 12},
      {generic(14'318'180), 69, 841'278, false, 50'000'000, 715'909},
      {generic(1), 1'000'000'000, 0, true, 1'000'000'000, 1},
      {generic(10'000'000'000), 0, 100'000, true, 1, 10},
  };
  for (const Case& c : cases) {
    const TickScale scale = describe_scale(converter_for(c.rate));
    EXPECT_EQ(scale.whole_ns, c.whole_ns) << name_of(c.rate);
    EXPECT_EQ(scale.fraction_millionths, c.fraction_millionths) << name_of(c.rate);
    EXPECT_EQ(scale.exact, c.exact) << name_of(c.rate);
    EXPECT_EQ(scale.num, c.num) << name_of(c.rate);
    EXPECT_EQ(scale.den, c.den) << name_of(c.rate);
  }
}

// ---- torn reads of a counter split into two 32-bit halves ----

// Time passes between register reads: each read returns its half of the
// current value and then advances the counter by `step`.
struct FakeCounter {
  uint64_t value;
  uint64_t step;
  int reads = 0;
};
uint32_t fake_high(void* context) {
  auto* counter = static_cast<FakeCounter*>(context);
  const uint32_t half = static_cast<uint32_t>(counter->value >> 32);
  counter->value += counter->step;
  ++counter->reads;
  return half;
}
uint32_t fake_low(void* context) {
  auto* counter = static_cast<FakeCounter*>(context);
  const uint32_t half = static_cast<uint32_t>(counter->value);
  counter->value += counter->step;
  ++counter->reads;
  return half;
}

TEST(ReadSplitCounter, StableCounterTakesThreeReads) {
  FakeCounter counter{0x1234'5678'9abc'def0, 0};
  EXPECT_EQ(read_split_counter(fake_high, fake_low, &counter), 0x1234'5678'9abc'def0u);
  EXPECT_EQ(counter.reads, 3);
}

TEST(Regression, TornReadAcrossLowHalfRolloverIsRetried) {
  FakeCounter counter{0x0000'0001'FFFF'FFFF, 1};
  // What a plain high-then-low read would have seen: 2^32 ticks in the past.
  {
    FakeCounter naive = counter;
    const uint64_t high = fake_high(&naive);
    const uint64_t torn = (high << 32) | fake_low(&naive);
    ASSERT_EQ(torn, 0x0000'0001'0000'0000u);
  }
  const uint64_t start = counter.value;
  const uint64_t value = read_split_counter(fake_high, fake_low, &counter);
  EXPECT_EQ(value, 0x0000'0002'0000'0002u);  // high 1, low 0, high 2: retried
  EXPECT_EQ(counter.reads, 5);
  EXPECT_GE(value, start);
  EXPECT_LT(value, counter.value);
}

TEST(ReadSplitCounter, MonotonicAcrossManyRollovers) {
  std::mt19937_64 random(0x68616c76);
  FakeCounter counter{0x0000'0000'FFFF'0000, 1};
  uint64_t previous = 0;
  for (int i = 0; i < 200'000; ++i) {
    counter.step = 1 + random() % (uint64_t{1} << 24);  // far below 2^32 per read
    const uint64_t before = counter.value;
    const uint64_t value = read_split_counter(fake_high, fake_low, &counter);
    ASSERT_GE(value, before);
    ASSERT_LT(value, counter.value);
    ASSERT_GE(value, previous);
    previous = value;
  }
  EXPECT_GT(previous >> 32, 1000u);  // over a thousand low-half rollovers crossed
}

// A counter whose high half moves on every read cannot be split-read; the
// reader must still return (not spin) and never a value from the future.
TEST(ReadSplitCounter, GivesUpOnACounterThatNeverSettles) {
  FakeCounter counter{0x0000'0005'0000'1234, kTwo32};
  const uint64_t value = read_split_counter(fake_high, fake_low, &counter);
  EXPECT_EQ(value & 0xFFFF'FFFF, 0u);
  EXPECT_LT(value, counter.value);
  EXPECT_GT(value, 0x0000'0005'0000'1234u);
  EXPECT_LE(counter.reads, 9);
}

}  // namespace
}  // namespace keel
