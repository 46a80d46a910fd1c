// The periodic tick of every AArch64 board: the EL1 physical timer (CNTP)
// through a GICv2 (docs/adr/0021). The arch's periodic_timer does the work;
// the board supplies only the wiring (platform.h, board_timer_wiring()).
#include "arch/aarch64/periodic_timer.h"
#include "arch/aarch64/platform.h"
#include "board.h"

namespace keel::board {

bool timer_start(uint64_t period_ns) {
  TickConverter clock{};
  if (!make_converter(clock_rate(), clock)) return false;
  return aarch64::periodic_timer::start(aarch64::board_timer_wiring(), clock, period_ns);
}

void timer_stop() { aarch64::periodic_timer::stop(); }

const char* timer_name() { return "cntp"; }

void timer_describe(Line& line) {
  line.dec("counts", aarch64::periodic_timer::counts_per_tick())
      .dec("intid", aarch64::periodic_timer::intid()).str("gic", "v2")
      .dec("missed", aarch64::periodic_timer::missed());
}

}  // namespace keel::board
