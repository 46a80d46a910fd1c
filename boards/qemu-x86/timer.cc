// The periodic tick: the local APIC timer in periodic mode, calibrated
// against the board clock (docs/adr/0008), with the legacy 8259 PICs
// masked so that only the APIC interrupts.
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/lapic.h"
#include "board.h"

namespace keel::board {
namespace {

/// Calibration window: the APIC timer counts for 10 ms of the board clock.
constexpr uint64_t kCalibrationNs = 10'000'000;
/// A clock-APIC-clock read triple wider than this was interrupted.
constexpr uint64_t kBracketNs = 100'000;

/// The calibrated initial count (timer counts per tick), for the report.
uint32_t counts_per_tick = 0;

// 8259A datasheet, initialization command words. ICW1: edge triggered,
// cascaded, ICW4 follows; ICW2: the vector base; ICW3: the slave hangs off
// the master's IR2; ICW4: 8086 mode. OCW1 0xFF masks every line. Remapped
// first so that a spurious IRQ 7/15 cannot arrive as exception 15 or 0x0F.
void mask_legacy_pics() {
  constexpr uint16_t kMasterCommand = 0x20, kMasterData = 0x21;
  constexpr uint16_t kSlaveCommand = 0xA0, kSlaveData = 0xA1;
  x86::out8(kMasterCommand, 0x11);
  x86::out8(kSlaveCommand, 0x11);
  x86::out8(kMasterData, x86::kLegacyPicBase);
  x86::out8(kSlaveData, x86::kLegacyPicBase + 8);
  x86::out8(kMasterData, 0x04);
  x86::out8(kSlaveData, 0x02);
  x86::out8(kMasterData, 0x01);
  x86::out8(kSlaveData, 0x01);
  x86::out8(kMasterData, 0xFF);
  x86::out8(kSlaveData, 0xFF);
}

// One reading of the APIC count, bracketed by two clock reads. If the
// emulator (or an SMI on hardware) stalls the CPU between them, the bracket
// is wide and the reading is taken again: a stall inside the pair would
// otherwise be counted as time the APIC did not count.
struct Sample {
  uint64_t clock;  ///< the bracket's midpoint
  uint32_t count;
};

Sample sample(uint64_t tight) {
  Sample result{};
  for (int attempt = 0; attempt < 8; ++attempt) {
    const uint64_t before = clock_ticks();
    const uint32_t count = x86::lapic::current_count();
    const uint64_t after = clock_ticks();
    result = Sample{before + (after - before) / 2, count};
    if (after - before <= tight) break;
  }
  return result;
}

// APIC timer counts per `period_ns`, measured against the clock; 0 when
// the measurement is unusable (no clock progress, a timer that did not
// count, a count that does not fit the 32-bit initial-count register).
uint32_t calibrate(const TickConverter& clock, uint64_t period_ns) {
  const Ticks window = ns_to_ticks(clock, kCalibrationNs);
  const Ticks tight = ns_to_ticks(clock, kBracketNs);
  if (window.saturated || window.value == 0 || tight.saturated) return 0;
  constexpr uint32_t kFull = 0xFFFF'FFFF;
  // One untimed pass first: under emulation the first run of this code is
  // translated, which would add its delay to the measured window.
  static_cast<void>(sample(tight.value));
  x86::lapic::start_masked(kFull);
  const Sample first = sample(tight.value);
  while (clock_ticks() - first.clock < window.value) {
  }
  const Sample last = sample(tight.value);
  x86::lapic::stop();

  // The APIC counts down.
  const uint64_t counted = first.count - last.count;
  const Nanoseconds elapsed = ticks_to_ns(clock, last.clock - first.clock);
  if (first.count < last.count || counted == 0 || elapsed.saturated || elapsed.value == 0) return 0;
  // counts per period = counted * period_ns / elapsed_ns; counted < 2^32, so
  // the product fits while period_ns < 2^32 ns (4.3 s).
  if (period_ns >= (uint64_t{1} << 32)) return 0;
  const uint64_t counts = counted * period_ns / elapsed.value;
  if (counts == 0 || counts > kFull) return 0;
  return static_cast<uint32_t>(counts);
}

}  // namespace

bool timer_start(uint64_t period_ns) {
  TickConverter clock{};
  if (!make_converter(clock_rate(), clock)) return false;
  mask_legacy_pics();
  if (!x86::lapic::init()) return false;
  const uint32_t counts = calibrate(clock, period_ns);
  if (counts == 0) return false;
  counts_per_tick = counts;
  x86::lapic::start_periodic(counts, x86::kTimerVector);
  return true;
}

void timer_stop() { x86::lapic::stop(); }

const char* timer_name() { return "lapic"; }

void timer_describe(Line& line) {
  // lapic.cc divides the timer's input clock by 16.
  line.dec("counts", counts_per_tick).dec("divide", 16).hex("vector", x86::kTimerVector);
}

}  // namespace keel::board
