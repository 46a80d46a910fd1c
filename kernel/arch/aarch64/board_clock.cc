// The board clock of every AArch64 board: the Arm generic timer's system
// counter (CNTPCT_EL0) is architectural, so the arch implements board.h's
// clock functions once, for QEMU virt and the Raspberry Pi 5 alike. Its
// frequency is what the firmware wrote to CNTFRQ_EL0, read at boot and
// never assumed (QEMU 7.2: 62.5 MHz; the Pi 5's firmware: 54 MHz).
#include "arch/aarch64/generic_timer.h"
#include "arch/aarch64/platform.h"
#include "board.h"

namespace keel::board {
namespace {

uint64_t frequency_hz = 0;
const char* problem = nullptr;

}  // namespace

bool clock_init() {
  frequency_hz = 0;
  const uint64_t frequency = aarch64::generic_timer::frequency();
  if (frequency == 0) {
    problem = "cntfrq-zero";
    return false;
  }
  // The counter must move, or every later wait would spin for ever.
  const uint64_t first = aarch64::generic_timer::counter();
  for (int spin = 0; spin < 1'000'000; ++spin) {
    if (aarch64::generic_timer::counter() != first) {
      frequency_hz = frequency;
      return true;
    }
  }
  problem = "counter-stopped";
  return false;
}

ClockRate clock_rate() { return ClockRate{ClockRate::Kind::frequency_hz, frequency_hz}; }

uint64_t clock_ticks() { return aarch64::generic_timer::counter(); }

const char* clock_name() { return frequency_hz != 0 ? "cntpct" : "none"; }

void clock_describe(Line& line) {
  if (frequency_hz == 0) {
    line.str("reason", problem);
    return;
  }
  // The factor every printed time goes through (time/ticks.h): exact, so
  // 62.5 MHz shows as 16.000000 and 54 MHz as 18.518518.
  TickConverter converter{};
  if (!make_converter(clock_rate(), converter)) return;
  const TickScale scale = describe_scale(converter);
  // entry_el: at 2, boot.S gave EL1 the physical counter and timer
  // (CNTHCTL_EL2) and zeroed the virtual offset before dropping to EL1.
  line.dec("freq_hz", frequency_hz).str("freq_from", "cntfrq_el0")
      .fixed6("ns_per_tick", scale.whole_ns, scale.fraction_millionths)
      .dec("entry_el", aarch64::entry_el());
}

}  // namespace keel::board
