#include "arch/aarch64/periodic_timer.h"

#include "arch/aarch64/generic_timer.h"
#include "arch/aarch64/irq.h"
#include "tick.h"

namespace keel::aarch64::periodic_timer {
namespace {

/// Below the GIC's priority mask (gic_v2.cc); the only interrupt, so any.
constexpr uint8_t kTimerPriority = 0x80;

uint64_t period_counts = 0;
uint64_t dropped = 0;
uint32_t wired_intid = 0;

void on_interrupt() {
  // Next deadline: one period after the last one. If that is already past,
  // skip whole periods (counted) rather than fire back to back.
  uint64_t next = generic_timer::compare_value() + period_counts;
  const uint64_t now = generic_timer::counter();
  if (next <= now) {
    const uint64_t late = (now - next) / period_counts + 1;
    dropped += late;
    next += late * period_counts;
  }
  generic_timer::set_compare(next);  // drops the level-sensitive line
  keel::on_tick();
}

}  // namespace

bool start(const Wiring& wiring, const TickConverter& clock, uint64_t period_ns) {
  const Ticks counts = ns_to_ticks(clock, period_ns);
  if (counts.saturated || counts.value == 0) return false;
  if (!gic::ready() && !gic::init(wiring.gic)) return false;
  irq::detach(wiring.intid);
  if (!irq::attach(wiring.intid, on_interrupt)) return false;
  period_counts = counts.value;
  dropped = 0;
  wired_intid = wiring.intid;
  generic_timer::arm_at(generic_timer::counter() + period_counts);
  if (!gic::enable(wiring.intid, kTimerPriority)) {
    stop();
    return false;
  }
  return true;
}

void stop() {
  generic_timer::stop();
  if (wired_intid != 0) {
    gic::disable(wired_intid);
    irq::detach(wired_intid);
  }
}

uint64_t counts_per_tick() { return period_counts; }
uint64_t missed() { return dropped; }
uint32_t intid() { return wired_intid; }

}  // namespace keel::aarch64::periodic_timer
