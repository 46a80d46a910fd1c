// The board clock: the HPET when ACPI describes one (IA-PC HPET 1.0a),
// otherwise the TSC calibrated against the 8254 PIT (`-M pc,hpet=off`).
// No path divides by a rate it has not checked: a clock that fails its
// checks is reported as absent (rate 0), and the kernel stops there.
#include "acpi.h"
#include "arch/x86_64/io.h"
#include "board.h"
#include "mmio.h"
#include "wrapping_counter.h"

namespace keel::board {
namespace {

using qemu_x86::HpetLocation;

// HPET 1.0a §2.3.1 register offsets; §2.3.4 General Capabilities and ID
// (COUNT_SIZE_CAP bit 13, NUM_TIM_CAP bits 12:8, COUNTER_CLK_PERIOD 63:32);
// §2.3.5 General Configuration (ENABLE_CNF bit 0).
constexpr uintptr_t kHpetCapabilitiesLow = 0x000;
constexpr uintptr_t kHpetCapabilitiesHigh = 0x004;  // the period, in fs
constexpr uintptr_t kHpetConfiguration = 0x010;
constexpr uintptr_t kHpetCounterLow = 0x0F0;
constexpr uintptr_t kHpetCounterHigh = 0x0F4;
constexpr uint32_t kHpetCountSize64 = 1u << 13;
constexpr uint32_t kHpetEnable = 1u << 0;
// §2.3.4: "less than or equal to 0x05F5E100" (100 ns); 0 is not a period.
constexpr uint32_t kHpetMaxPeriodFs = 0x05F5E100;

// 8254 PIT (Intel 82C54 datasheet): 1.193182 MHz input; channel 2's gate
// and output are bits 0 and 5 of port 0x61 (PC/AT system control port B).
constexpr uint64_t kPitHz = 1'193'182;
constexpr uint16_t kPitChannel2 = 0x42;
constexpr uint16_t kPitCommand = 0x43;
constexpr uint16_t kPortB = 0x61;
constexpr uint8_t kPortBGate2 = 1u << 0;
constexpr uint8_t kPortBSpeaker = 1u << 1;
constexpr uint8_t kPortBOut2 = 1u << 5;
// Channel 2, low then high byte, mode 0 (interrupt on terminal count:
// OUT goes high when the count reaches zero), binary.
constexpr uint8_t kPitChannel2Mode0 = 0xB0;
// 11932 counts = 10.0001 ms: long enough for a 1e-4 calibration error
// from a few microseconds of port-access latency.
constexpr uint16_t kPitCalibrationCount = 11932;
// A PIT that never raises OUT2 (none present) must not hang the boot.
constexpr uint64_t kPitSpinLimit = 100'000'000;

enum class Source : uint8_t { none, hpet, tsc };

struct ClockState {
  Source source = Source::none;
  uintptr_t hpet_base = 0;
  bool hpet_counter_64 = false;
  uint32_t hpet_timers = 0;
  const char* acpi_root = nullptr;
  uint64_t rate = 0;                  // fs per tick (HPET) or Hz (TSC)
  const char* fallback_reason = nullptr;  // why not the HPET
  bool tsc_invariant = false;
  uint64_t tsc_uncertainty_ppm = 0;   // the calibration's bracket, parts per million
  WrappingCounter counter32;  // a 32-bit HPET counter, extended in software
};

ClockState state;

uint32_t hpet_read(uintptr_t offset) { return mmio::read32(state.hpet_base + offset); }

uint32_t read_counter_high(void*) { return hpet_read(kHpetCounterHigh); }
uint32_t read_counter_low(void*) { return hpet_read(kHpetCounterLow); }

uint64_t hpet_ticks() {
  if (state.hpet_counter_64) {
    // Read as halves (mmio.h has 32-bit accesses only), high-low-high.
    return read_split_counter(read_counter_high, read_counter_low, nullptr);
  }
  // COUNT_SIZE_CAP = 0: the counter is 32 bits and wraps (every 42.9 s at
  // 10 ns); extended in software, which needs a read at least once per wrap.
  // FIXME: not interrupt-safe (a reader in the tick handler could race the
  // update), and QEMU's HPET is 64-bit, so only the host test
  // (kernel/tests/wrapping_counter_test.cc) covers this path.
  return state.counter32.extend(hpet_read(kHpetCounterLow));
}

// Returns the reason the HPET cannot be used, or nullptr when it runs.
const char* start_hpet(const HpetLocation& location) {
  if (!location.found) return location.problem;
  state.hpet_base = static_cast<uintptr_t>(location.base);
  const uint32_t capabilities = hpet_read(kHpetCapabilitiesLow);
  const uint32_t period_fs = hpet_read(kHpetCapabilitiesHigh);
  if (period_fs == 0 || period_fs > kHpetMaxPeriodFs) return "hpet-period-invalid";
  state.hpet_counter_64 = (capabilities & kHpetCountSize64) != 0;
  state.hpet_timers = ((capabilities >> 8) & 0x1F) + 1;
  mmio::write32(state.hpet_base + kHpetConfiguration,
                hpet_read(kHpetConfiguration) | kHpetEnable);
  // The counter must move, or every later wait would spin for ever.
  const uint32_t first = hpet_read(kHpetCounterLow);
  for (int spin = 0; spin < 1'000'000; ++spin) {
    if (hpet_read(kHpetCounterLow) != first) {
      state.rate = period_fs;
      state.source = Source::hpet;
      return nullptr;
    }
  }
  return "hpet-counter-stopped";
}

// One PIT count-down timed with the TSC. The start (loading the count) and
// the end (OUT2 seen high) are each bracketed by two TSC reads; the width of
// the brackets is how far the result can be off. Under emulation the CPU
// can be descheduled for milliseconds at any point, which shows up here as
// a wide bracket rather than as a silently wrong rate.
struct PitRun {
  uint64_t ticks;        ///< TSC ticks between the brackets' midpoints; 0: no PIT
  uint64_t uncertainty;  ///< the two brackets' widths, in TSC ticks
};

PitRun time_pit_run() {
  const uint8_t control = x86::in8(kPortB);
  x86::out8(kPortB, static_cast<uint8_t>((control & ~kPortBSpeaker) | kPortBGate2));
  x86::out8(kPitCommand, kPitChannel2Mode0);
  x86::out8(kPitChannel2, static_cast<uint8_t>(kPitCalibrationCount & 0xFF));
  const uint64_t load_before = x86::read_tsc();
  x86::out8(kPitChannel2, static_cast<uint8_t>(kPitCalibrationCount >> 8));  // starts it
  const uint64_t load_after = x86::read_tsc();
  uint64_t still_low = load_after;
  PitRun run{0, 0};
  for (uint64_t spin = 0; spin < kPitSpinLimit; ++spin) {
    const bool high = (x86::in8(kPortB) & kPortBOut2) != 0;
    const uint64_t now = x86::read_tsc();
    if (high) {
      const uint64_t start = load_before + (load_after - load_before) / 2;
      const uint64_t end = still_low + (now - still_low) / 2;
      run = PitRun{end - start, (load_after - load_before) + (now - still_low)};
      break;
    }
    still_low = now;
  }
  x86::out8(kPortB, control);
  return run;
}

// The TSC's rate in Hz, or 0. Runs are repeated until three have brackets
// under 1/500 of the run (20 us of 10 ms), and the median of those is
// kept; if none is that tight, the tightest run is used and its larger
// uncertainty reported.
uint64_t calibrate_tsc() {
  if ((x86::cpuid(1).edx & (1u << 4)) == 0) return 0;  // CPUID.01H:EDX.TSC[bit 4]
  if (x86::cpuid(0x8000'0000).eax >= 0x8000'0007) {
    // CPUID.80000007H:EDX[bit 8]: the TSC ticks at a constant rate.
    state.tsc_invariant = (x86::cpuid(0x8000'0007).edx & (1u << 8)) != 0;
  }
  constexpr int kWanted = 3;
  constexpr int kMaxAttempts = 20;
  PitRun good[kWanted];
  int good_runs = 0;
  PitRun tightest{0, 0};
  for (int attempt = 0; attempt < kMaxAttempts && good_runs < kWanted; ++attempt) {
    const PitRun run = time_pit_run();
    if (run.ticks == 0) return 0;  // OUT2 never rose: no PIT
    if (run.uncertainty * 500 <= run.ticks) good[good_runs++] = run;
    // uncertainty / ticks smaller than the tightest's, without dividing.
    if (tightest.ticks == 0 || run.uncertainty * tightest.ticks < tightest.uncertainty * run.ticks) {
      tightest = run;
    }
  }
  PitRun chosen = tightest;
  if (good_runs > 0) {
    for (int i = 1; i < good_runs; ++i) {  // sort by ticks, then the median
      for (int j = i; j > 0 && good[j - 1].ticks > good[j].ticks; --j) {
        const PitRun swap = good[j];
        good[j] = good[j - 1];
        good[j - 1] = swap;
      }
    }
    chosen = good[good_runs / 2];
  }
  // Hz = ticks / (count / pit_hz). ticks stay below 2^40 for any TSC under
  // 100 THz over 10 ms, so ticks * pit_hz (< 2^21) cannot overflow. (The
  // 82C54 datasheet has OUT rise N + 1 clocks after the count is written;
  // QEMU raises it after N: 84 ppm, below the bracket's resolution.)
  if (chosen.ticks >= (uint64_t{1} << 40)) return 0;
  state.tsc_uncertainty_ppm = chosen.uncertainty * 1'000'000 / chosen.ticks;
  return chosen.ticks * kPitHz / kPitCalibrationCount;
}

}  // namespace

bool clock_init() {
  state = ClockState{};
  const HpetLocation location = qemu_x86::find_hpet();
  state.acpi_root = location.root;
  state.fallback_reason = start_hpet(location);
  if (state.source == Source::hpet) return true;

  const uint64_t tsc_hz = calibrate_tsc();
  if (tsc_hz == 0) return false;
  state.rate = tsc_hz;
  state.source = Source::tsc;
  return true;
}

ClockRate clock_rate() {
  switch (state.source) {
    case Source::hpet: return ClockRate{ClockRate::Kind::period_fs, state.rate};
    case Source::tsc: return ClockRate{ClockRate::Kind::frequency_hz, state.rate};
    case Source::none: break;
  }
  return ClockRate{ClockRate::Kind::period_fs, 0};
}

uint64_t clock_ticks() {
  switch (state.source) {
    case Source::hpet: return hpet_ticks();
    case Source::tsc: return x86::read_tsc();
    case Source::none: break;
  }
  return 0;
}

const char* clock_name() {
  switch (state.source) {
    case Source::hpet: return "hpet";
    case Source::tsc: return "tsc";
    case Source::none: break;
  }
  return "none";
}

void clock_describe(Line& line) {
  switch (state.source) {
    case Source::hpet:
      line.hex("base", state.hpet_base).dec("period_fs", state.rate)
          .dec("counter_bits", state.hpet_counter_64 ? 64 : 32).dec("timers", state.hpet_timers)
          .str("acpi", state.acpi_root);
      return;
    case Source::tsc:
      line.dec("freq_hz", state.rate).str("calibrated_by", "pit")
          .dec("uncertainty_ppm", state.tsc_uncertainty_ppm)
          .dec("invariant", state.tsc_invariant ? 1 : 0).word("fallback")
          .str("reason", state.fallback_reason);
      return;
    case Source::none:
      line.str("reason", state.fallback_reason).str("tsc", "uncalibrated");
      return;
  }
}

}  // namespace keel::board
