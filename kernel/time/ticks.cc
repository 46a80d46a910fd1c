#include "time/ticks.h"

namespace keel {
namespace {

constexpr uint64_t kFsPerNs = 1'000'000;
constexpr uint64_t kNsPerS = 1'000'000'000;
constexpr uint64_t kFsPerS = 1'000'000'000'000'000;

// IA-PC HPET 1.0a, General Capabilities and ID Register: COUNTER_CLK_PERIOD
// (bits 63:32) is the tick length in femtoseconds and "must be less than or
// equal to 0x05F5E100" (100 ns, i.e. at least 10 MHz). Zero is what a board
// without an HPET reports (QEMU -M pc,hpet=off reads all zeros).
constexpr uint64_t kMaxPeriodFs = 0x05F5E100;

// Arm ARM (DDI 0487), CNTFRQ_EL0: ClockFreq is bits [31:0] (so < 4.3 GHz),
// written by firmware and not interpreted by the hardware, so 0 means nobody
// programmed it; from Armv8.6 the system counter runs at exactly 1 GHz.
// 10 GHz leaves room for a future TSC-like source while keeping the split
// below exact: it needs (f - 1) * 10^9 < 2^64, i.e. f < 1.8 * 10^10.
constexpr uint64_t kMaxFrequencyHz = 10'000'000'000;

uint64_t gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t rest = a % b;
    a = b;
    b = rest;
  }
  return a;
}

// Done once at boot: reducing by the gcd keeps the remainder product small
// (and turns 10 ns/tick into num = 10, den = 1), and the saturation bound is
// precomputed so that the hot path divides only where exactness needs it.
bool make_ratio(uint64_t num, uint64_t den, Ratio& out) {
  if (num == 0 || den == 0) return false;
  const uint64_t divisor = gcd(num, den);
  num /= divisor;
  den /= divisor;
  // scale() multiplies a remainder r <= den - 1 by num: that must fit.
  if (den - 1 > UINT64_MAX / num) return false;
  out = Ratio{num, den, UINT64_MAX / num};
  return true;
}

struct Scaled {
  uint64_t value;
  bool saturated;
};

// floor(x * num / den) split by the divisor: with x = q * den + r,
// x * num / den = q * num + r * num / den exactly, and only the second term
// is rounded. q * num is the whole-quotient part and is where overflow lives.
Scaled scale(const Ratio& ratio, uint64_t x) {
  constexpr Scaled kSaturated{UINT64_MAX, true};
  const uint64_t quotient = x / ratio.den;
  const uint64_t remainder = x % ratio.den;
  if (quotient > ratio.quotient_limit) return kSaturated;
  const uint64_t whole = quotient * ratio.num;
  const uint64_t part = remainder * ratio.num / ratio.den;
  if (part > UINT64_MAX - whole) return kSaturated;
  return Scaled{whole + part, false};
}

}  // namespace

bool make_converter(ClockRate rate, TickConverter& out) {
  TickConverter converter{rate, {}, {}};
  switch (rate.kind) {
    case ClockRate::Kind::period_fs:
      // ns = ticks * period_fs / 10^6; ticks = ns * 10^6 / period_fs.
      if (rate.value == 0 || rate.value > kMaxPeriodFs) return false;
      if (!make_ratio(rate.value, kFsPerNs, converter.to_ns)) return false;
      if (!make_ratio(kFsPerNs, rate.value, converter.to_ticks)) return false;
      break;
    case ClockRate::Kind::frequency_hz:
      // ns = ticks * 10^9 / f; ticks = ns * f / 10^9.
      if (rate.value == 0 || rate.value > kMaxFrequencyHz) return false;
      if (!make_ratio(kNsPerS, rate.value, converter.to_ns)) return false;
      if (!make_ratio(rate.value, kNsPerS, converter.to_ticks)) return false;
      break;
    default:
      return false;
  }
  out = converter;
  return true;
}

Nanoseconds ticks_to_ns(const TickConverter& converter, uint64_t ticks) {
  const Scaled ns = scale(converter.to_ns, ticks);
  return Nanoseconds{ns.value, ns.saturated};
}

Ticks ns_to_ticks(const TickConverter& converter, uint64_t ns) {
  const Scaled ticks = scale(converter.to_ticks, ns);
  return Ticks{ticks.value, ticks.saturated};
}

TickScale describe_scale(const TickConverter& converter) {
  // Femtoseconds per tick is the six-decimal ns figure. It is the HPET's own
  // integer, or 10^15 / f (at most 10^15 for the valid frequencies).
  uint64_t fs_per_tick = converter.rate.value;
  bool exact = true;
  if (converter.rate.kind == ClockRate::Kind::frequency_hz) {
    fs_per_tick = kFsPerS / converter.rate.value;
    exact = kFsPerS % converter.rate.value == 0;
  }
  return TickScale{fs_per_tick / kFsPerNs, static_cast<uint32_t>(fs_per_tick % kFsPerNs), exact,
                   converter.to_ns.num, converter.to_ns.den};
}

uint64_t read_split_counter(uint32_t (*read_high)(void*), uint32_t (*read_low)(void*),
                            void* context) {
  // The high half can change between reading it and reading the low half
  // (low wraps 0xFFFFFFFF -> 0): high-then-low would then be 2^32 ticks off.
  // If the high half reads the same before and after, the low half belongs
  // to it. At 100 MHz the high half changes every 43 s, so one retry is the
  // realistic worst case; the bound only guards against a broken counter.
  constexpr int kMaxAttempts = 4;
  uint32_t high = read_high(context);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const uint32_t low = read_low(context);
    const uint32_t high_again = read_high(context);
    if (high_again == high) return (uint64_t{high} << 32) | low;
    high = high_again;
  }
  // The high half became `high` during the last pair of reads, so an
  // up-counter held exactly high:00000000 then: a value it really passed.
  return uint64_t{high} << 32;
}

}  // namespace keel
