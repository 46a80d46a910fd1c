// The boot sequence after the arch entry: console, clock, the periodic
// timer, the BPF service, then exactly one `keel done` line. Every line is
// the protocol of protocol.h; every printed time goes through the clock's
// TickConverter (time/ticks.h), never a raw tick count.
#include "arch.h"
#include "board.h"
#include "boot.h"
#include "boot_options.h"
#include "console.h"
#include "selftest.h"
#include "service.h"
#include "tick.h"
#include "time/ticks.h"

namespace keel {
namespace {

/// The timer the boot sequence measures: 100 Hz, over 20 ticks (0.2 s).
/// An emulator that is descheduled for longer than a period drops ticks
/// (QEMU re-arms a periodic APIC timer from the current time); 10 ms
/// leaves room on a loaded CI host (docs/adr/0008).
constexpr uint64_t kTickPeriodNs = 10'000'000;
constexpr uint64_t kTicksToMeasure = 20;
/// How long to wait for the first tick before reporting none.
constexpr uint64_t kTickWaitLimitNs = 1'000'000'000;

// Set by finish(), which a fault can re-enter while the line is printed.
bool done_printed = false;

void emit_boot_line(const BoardFacts& facts, bool have_clock, const TickConverter& clock) {
  Line line("boot");
  line.str("arch", arch::name()).str("board", board::name());
  // What the loader told about the machine, where it told anything: a
  // capture from hardware then names the board it came from.
  if (facts.model != nullptr) line.str("model", facts.model);
  if (facts.has_revision) line.hex("revision", facts.revision);
  if (facts.memory_bytes != 0) line.dec("memory_bytes", facts.memory_bytes);
  line.str("clock", board::clock_name());
  if (have_clock) {
    const ClockRate rate = clock.rate;
    if (rate.kind == ClockRate::Kind::period_fs) {
      line.dec("period_fs", rate.value);
    } else {
      line.dec("freq_hz", rate.value);
    }
    const TickScale scale = describe_scale(clock);
    line.fixed6("ns_per_tick", scale.whole_ns, scale.fraction_millionths);
  }
  line.dec("emulated", board::emulated() ? 1 : 0);
  emit(line);
}

void emit_clock_line() {
  Line line("clock");
  line.str("source", board::clock_name());
  board::clock_describe(line);
  emit(line);
}

// Waits until the tick count reaches `target`, for at most `limit` clock
// ticks after `start`. Spins rather than halting so that a timer that never
// fires is reported instead of hanging the run.
bool wait_for_tick(uint64_t target, uint64_t start, uint64_t limit) {
  while (tick_count() < target) {
    if (board::clock_ticks() - start > limit) return false;
    arch::cpu_relax();
  }
  return true;
}

// The median of `count` values (sorted in place; count > 0).
uint64_t median(uint64_t* values, uint64_t count) {
  for (uint64_t i = 1; i < count; ++i) {  // insertion sort: 20 values
    const uint64_t value = values[i];
    uint64_t j = i;
    for (; j > 0 && values[j - 1] > value; --j) values[j] = values[j - 1];
    values[j] = value;
  }
  return count % 2 == 1 ? values[count / 2]
                        : values[count / 2 - 1] + (values[count / 2] - values[count / 2 - 1]) / 2;
}

// Starts the timer, lets `kTicksToMeasure` ticks arrive with interrupts on,
// and prints their period: the median of the intervals between ticks (an
// emulator that is descheduled drops ticks, which would drag a mean far
// off), and the mean beside it. Timing starts at the first tick, so the
// first, partial period does not count.
bool run_timer(const TickConverter& clock) {
  if (!board::timer_start(kTickPeriodNs)) {
    emit(Line("timer").str("source", board::timer_name()).str("status", "no-calibration"));
    return false;
  }
  const service::Environment environment{&clock, kTickPeriodNs};
  const bool service_ok = service::start(environment);

  // The first tick is awaited by polling, against a deadline, so that a
  // timer that never fires is reported. The others are awaited asleep: an
  // emulator's CPU thread spinning on clock reads competes with the thread
  // that delivers its timer interrupts, and under load (`ctest -j2` on a
  // busy 2-core host) the ticks then came 2x late.
  const Ticks limit = ns_to_ticks(clock, kTickWaitLimitNs);
  uint64_t stamps[kTicksToMeasure + 1];
  const uint64_t base = tick_count();
  arch::enable_interrupts();
  const bool ticking = wait_for_tick(base + 1, board::clock_ticks(), limit.value);
  arch::disable_interrupts();
  if (ticking) {
    stamps[0] = board::clock_ticks();
    for (uint64_t i = 1; i <= kTicksToMeasure; ++i) {
      while (tick_count() < base + 1 + i) arch::wait_for_interrupt();
      stamps[i] = board::clock_ticks();
    }
  }
  board::timer_stop();
  const bool service_done = service::finish();

  Line line("timer");
  if (!ticking) {
    line.dec("ticks", tick_count() - base).str("source", board::timer_name());
    emit(line.str("status", "no-ticks"));
    return false;
  }
  // Clock ticks are converted only at the end, so no fraction of a tick is
  // lost per interval.
  uint64_t intervals[kTicksToMeasure];
  for (uint64_t i = 0; i < kTicksToMeasure; ++i) intervals[i] = stamps[i + 1] - stamps[i];
  const Nanoseconds period = ticks_to_ns(clock, median(intervals, kTicksToMeasure));
  const Nanoseconds elapsed = ticks_to_ns(clock, stamps[kTicksToMeasure] - stamps[0]);
  const uint64_t mean_ns = elapsed.value / kTicksToMeasure;
  // A loose bound: it catches a timer programmed in the wrong unit (a
  // factor of 10 or more), not emulation jitter.
  const bool plausible = !period.saturated && period.value >= kTickPeriodNs / 2 &&
                         period.value <= kTickPeriodNs * 2;
  line.dec("period_ns", period.value).dec("mean_ns", mean_ns).dec("ticks", kTicksToMeasure)
      .dec("requested_ns", kTickPeriodNs).str("source", board::timer_name());
  board::timer_describe(line);
  line.dec("emulated", board::emulated() ? 1 : 0)
      .str("status", plausible ? "ok" : "out-of-range");
  emit(line);
  return plausible && service_ok && service_done;
}

}  // namespace

void finish(board::ExitCode code) {
  arch::disable_interrupts();
  if (!done_printed) {
    done_printed = true;
    emit(Line("done").str("status", code == board::ExitCode::ok ? "ok" : "fail"));
  }
  board::exit(code);
}

void kernel_main(const BootInfo& info) {
  board::uart_init();
  const BootOptions options = parse_boot_options(info.cmdline);

  TickConverter clock{};
  const bool have_clock = board::clock_init() && make_converter(board::clock_rate(), clock);
  emit_boot_line(info.facts, have_clock, clock);
  emit_clock_line();
  if (!have_clock) finish(board::ExitCode::fail);

  if (options.self_test != SelfTest::none) {
    run_self_test(options.self_test);
    // Still here: the fault did not happen (or the test name was unknown).
    emit(Line("selftest").str("test", self_test_name(options.self_test))
             .str("status", "no-fault"));
    finish(board::ExitCode::fail);
  }

  finish(run_timer(clock) ? board::ExitCode::ok : board::ExitCode::fail);
}

}  // namespace keel
