// The periodic tick: the EL1 physical timer (CNTP) through QEMU virt's
// GICv2 (docs/adr/0021); the arch's periodic_timer does the work, the board
// supplies the wiring.
#include "arch/aarch64/periodic_timer.h"
#include "board.h"

namespace keel::board {
namespace {

// hw/arm/virt.c: VIRT_GIC_DIST 0x08000000, VIRT_GIC_CPU 0x08010000; the
// non-secure EL1 physical timer is PPI 14 (ARCH_TIMER_NS_EL1_IRQ), INTID
// 16 + 14 = 30 (IHI 0048B §2.2.1: PPIs are INTIDs 16-31).
constexpr aarch64::periodic_timer::Wiring wiring{{0x0800'0000, 0x0801'0000}, 30};

}  // namespace

bool timer_start(uint64_t period_ns) {
  TickConverter clock{};
  if (!make_converter(clock_rate(), clock)) return false;
  return aarch64::periodic_timer::start(wiring, clock, period_ns);
}

void timer_stop() { aarch64::periodic_timer::stop(); }

const char* timer_name() { return "cntp"; }

void timer_describe(Line& line) {
  line.dec("counts", aarch64::periodic_timer::counts_per_tick())
      .dec("intid", aarch64::periodic_timer::intid()).str("gic", "v2")
      .dec("missed", aarch64::periodic_timer::missed());
}

}  // namespace keel::board
