// Clock ticks <-> nanoseconds for both clock kinds the boards report: the
// HPET (a period in femtoseconds) and the Arm generic timer (a frequency in
// Hz). A TickConverter is built once at boot; conversions are exact (floor)
// without 128-bit arithmetic, and saturate rather than wrap.
#pragma once

#include <cstdint>

namespace keel {

struct ClockRate {
  enum class Kind : uint8_t { period_fs, frequency_hz };
  Kind kind;       ///< which of the two descriptions `value` is
  uint64_t value;  ///< femtoseconds per tick, or ticks per second
};

// floor(x * num / den), with num/den reduced and (den - 1) * num < 2^64 so the
// split x = q * den + r never forms a product wider than 64 bits.
struct Ratio {
  uint64_t num;
  uint64_t den;
  uint64_t quotient_limit;  ///< UINT64_MAX / num: larger q saturates
};

struct TickConverter {
  ClockRate rate;  ///< as given to make_converter
  Ratio to_ns;     ///< ns = ticks * to_ns.num / to_ns.den
  Ratio to_ticks;  ///< ticks = ns * to_ticks.num / to_ticks.den
};

struct Nanoseconds { uint64_t value; bool saturated; };  ///< UINT64_MAX if saturated
struct Ticks { uint64_t value; bool saturated; };        ///< UINT64_MAX if saturated

// Accepts 1 <= period_fs <= 100,000,000 (HPET 1.0a limit) and
// 1 <= frequency_hz <= 10,000,000,000 (see ticks.cc for why); returns false,
// leaving `out` untouched, for anything else: 0 means "no such timer".
[[nodiscard]] bool make_converter(ClockRate rate, TickConverter& out);

// Exact floor(ticks * seconds-per-tick * 10^9) when it fits in 64 bits
// (error < 1 ns); otherwise saturated. 2^64 ns is about 584 years.
[[nodiscard]] Nanoseconds ticks_to_ns(const TickConverter& converter, uint64_t ticks);

// Exact floor: the most ticks that last at most `ns`. A deadline that must
// not fire early adds one tick when ticks_to_ns(result) < ns.
[[nodiscard]] Ticks ns_to_ticks(const TickConverter& converter, uint64_t ns);

// The factor for the boot line: ns_per_tick=<whole_ns>.<fraction_millionths>
// (six decimals, rounded down; `exact` when nothing was dropped) and the
// reduced ratio ns = ticks * num / den.
struct TickScale {
  uint64_t whole_ns;
  uint32_t fraction_millionths;
  bool exact;
  uint64_t num;
  uint64_t den;
};
[[nodiscard]] TickScale describe_scale(const TickConverter& converter);

// A 64-bit counter read as two 32-bit halves, high-low-high: the low half is
// only trusted when the high half did not change around it.
[[nodiscard]] uint64_t read_split_counter(uint32_t (*read_high)(void*),
                                          uint32_t (*read_low)(void*), void* context);

}  // namespace keel
