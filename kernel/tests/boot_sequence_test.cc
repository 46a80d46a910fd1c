// main.cc's boot sequence on the host, against a fake board and arch: the
// exact protocol lines for synthetic clock rates that QEMU never shows
// (docs/platform.md: QEMU's whole-ns rates hide rounding bugs), and every way
// the run can fail. Each case runs kernel_main() in a forked child (a
// GoogleTest death test): it never returns, and its globals start fresh.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "arch.h"
#include "board.h"
#include "boot.h"
#include "tick.h"

namespace {

// The fake machine. The clock only moves when the kernel waits (cpu_relax,
// wait_for_interrupt) or reads it, so every run is exactly reproducible.
struct Fake {
  keel::ClockRate rate{keel::ClockRate::Kind::period_fs, 10'000'000};
  bool clock_ok = true;
  bool timer_ok = true;
  bool timer_fires = true;
  uint64_t timer_scale = 1;        ///< fire every timer_scale requested periods
  uint64_t now = 1'000'000;        ///< clock ticks
  uint64_t period_ticks = 0;       ///< set by timer_start
  uint64_t next_tick = 0;
  bool running = false;
  std::string uart;
};
Fake fake;

// Time passes until the next timer interrupt, which is then delivered; with
// no timer, a millisecond-ish step.
void let_time_pass() {
  if (fake.running && fake.timer_fires) {
    fake.now = fake.next_tick;
    fake.next_tick += fake.period_ticks;
    keel::on_tick();
  } else {
    fake.now += 100'000;
  }
}

}  // namespace

namespace keel::board {
const char* name() { return "fake"; }
bool emulated() { return false; }
void uart_init() {}
void uart_put(char c) { fake.uart += c; }
bool clock_init() { return fake.clock_ok; }
ClockRate clock_rate() { return fake.clock_ok ? fake.rate : ClockRate{ClockRate::Kind::period_fs, 0}; }
uint64_t clock_ticks() { return ++fake.now; }
const char* clock_name() { return fake.clock_ok ? "synthetic" : "none"; }
void clock_describe(Line& line) { line.str("detail", "fake"); }
bool timer_start(uint64_t period_ns) {
  if (!fake.timer_ok) return false;
  TickConverter converter{};
  if (!make_converter(fake.rate, converter)) return false;
  fake.period_ticks = ns_to_ticks(converter, period_ns).value * fake.timer_scale;
  fake.next_tick = fake.now + fake.period_ticks;
  fake.running = true;
  return true;
}
void timer_stop() { fake.running = false; }
const char* timer_name() { return "faketimer"; }
void timer_describe(Line& line) { line.dec("period_ticks", fake.period_ticks); }
void exit(ExitCode code) {
  // The whole UART output on stderr, where the death test matches it.
  ssize_t written = ::write(2, fake.uart.data(), fake.uart.size());
  static_cast<void>(written);
  ::_exit(10 + static_cast<int>(code));
}
}  // namespace keel::board

namespace keel::arch {
const char* name() { return "fake"; }
void enable_interrupts() {}
void disable_interrupts() {}
void cpu_relax() { let_time_pass(); }
void wait_for_interrupt() { let_time_pass(); }
uintptr_t unmapped_address() { return 0; }
}  // namespace keel::arch

namespace keel {
namespace {

constexpr int kExitOk = 10;
constexpr int kExitFail = 11;

void boot() {
  const BootInfo info{"", {}};
  kernel_main(info);
}

class BootSequence : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    fake = Fake{};
  }
};

// The BPF service between the clock and the timer lines: the embedded
// programs (kernel/programs) loaded, verified, admitted, attached and run
// on the fake clock, which advances 1 tick (10 ns) per read, so every time
// is exact. Instruction counts, stack and arena use belong to the compiler
// and the verifier (the semantic-consistency test pins them); here they are
// only numbers. The tick program runs 21 times (the first tick and the 20
// measured), 10 ms apart after the first: 20 intervals in bucket 4.
#define N "[0-9]+"
const char* const service_lines =
    "keel load prog=bounded_loop insns=" N " type=keel_test\n"
    "keel verify prog=bounded_loop insns=" N " verdict=accept max_insns=" N " stack=" N
    " verify_ns=10 arena_bytes=" N " emulated=0\n"
    "keel admit prog=bounded_loop hook=once budget=1000000 max_insns=" N " status=ok\n"
    "keel attach prog=bounded_loop hook=once\n"
    "keel run prog=bounded_loop runs=1 r0=560 insns=" N " ns=10 mode=guarded emulated=0 status=ok\n"
    "keel load prog=helpers_demo insns=" N " type=keel_test\n"
    "keel verify prog=helpers_demo insns=" N " verdict=accept max_insns=" N " stack=" N
    " verify_ns=10 arena_bytes=" N " emulated=0\n"
    "keel admit prog=helpers_demo hook=once budget=1000000 max_insns=" N " status=ok\n"
    "keel attach prog=helpers_demo hook=once\n"
    "keel trace prog=helpers_demo tag=helpers_demo value=42\n"
    "keel trace prog=helpers_demo tag=elapsed_ns value=10\n"
    "keel run prog=helpers_demo runs=1 r0=0 insns=" N " ns=30 mode=guarded emulated=0 status=ok\n"
    "keel load prog=tick_counter insns=" N " type=keel_tick\n"
    "keel verify prog=tick_counter insns=" N " verdict=accept max_insns=" N " stack=" N
    " verify_ns=10 arena_bytes=" N " emulated=0\n"
    "keel admit prog=tick_counter hook=tick budget=4096 max_insns=" N " status=ok\n"
    "keel attach prog=tick_counter hook=tick\n"
    "keel load prog=unsafe_oob insns=" N " type=keel_test\n"
    "keel verify prog=unsafe_oob insns=" N " verdict=reject stage=verify pc=" N
    " reason=map_value_out_of_bounds verify_ns=10 arena_bytes=" N " emulated=0\n"
    "keel reject prog=unsafe_oob pc=" N " reason=map_value_out_of_bounds\n"
    "keel arena name=program capacity=65536 peak=" N "\n"
    "keel arena name=verify capacity=65536 peak=" N "\n"
    "keel arena name=maps capacity=16384 peak=240 maps=6\n";
const char* const tick_program_lines =
    "keel run prog=tick_counter runs=21 ns_per_run_median=10 ns_per_insn=0\\.[0-9]{6} "
    "insns_median=" N " errors=0 mode=fast emulated=0 status=ok\n"
    "keel map prog=tick_counter map=tick_stats words=21," N "\n"
    "keel map prog=tick_counter map=tick_hist words=0,0,0,0,20,0,0,0,0,0,0,0,0,0,0,0\n";
#undef N

TEST_F(BootSequence, QemuHpetRate) {
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitOk),
              std::string("^keel boot arch=fake board=fake clock=synthetic period_fs=10000000 "
              "ns_per_tick=10\\.000000 emulated=0\n"
              "keel clock source=synthetic detail=fake\n") + service_lines + tick_program_lines +
              "keel timer period_ns=10000000 mean_ns=10000000 ticks=20 requested_ns=10000000 "
              "source=faketimer period_ticks=1000000 emulated=0 status=ok\n"
              "keel done status=ok\n$");
}

// A tick program that never runs (no ticks) fails the service too.
TEST_F(BootSequence, TickProgramThatNeverRuns) {
  fake.timer_fires = false;
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitFail),
              "keel run prog=tick_counter runs=0 errors=0 mode=fast emulated=0 status=fail\n"
              "keel map prog=tick_counter map=tick_stats words=0,0\n");
}

// 69,841,279 fs (a 14.318 MHz HPET, docs/platform.md): 10 ms is 143181 ticks, which
// last 9,999,944 ns; rounding the period to 69 ns would print 9,879,489.
TEST_F(BootSequence, FractionalHpetPeriod) {
  fake.rate = ClockRate{ClockRate::Kind::period_fs, 69'841'279};
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitOk),
              "clock=synthetic period_fs=69841279 ns_per_tick=69\\.841279 emulated=0\n"
              ".*keel timer period_ns=9999944 mean_ns=9999944 ticks=20 requested_ns=10000000 "
              "source=faketimer period_ticks=143181 ");
}

// 54 MHz (the Pi 5's generic timer): 18.518518 ns per tick, 10 ms exact.
TEST_F(BootSequence, FrequencyClock) {
  fake.rate = ClockRate{ClockRate::Kind::frequency_hz, 54'000'000};
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitOk),
              "clock=synthetic freq_hz=54000000 ns_per_tick=18\\.518518 emulated=0\n"
              ".*keel timer period_ns=10000000 mean_ns=10000000 ticks=20 .*period_ticks=540000 ");
}

TEST_F(BootSequence, NoClockFailsBeforeTheTimer) {
  fake.clock_ok = false;
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitFail),
              "^keel boot arch=fake board=fake clock=none emulated=0\n"
              "keel clock source=none detail=fake\n"
              "keel done status=fail\n$");
}

// A clock the board reports but make_converter() refuses (HPET 1.0a: at
// most 100 ns per tick) is no clock: no division by its rate.
TEST_F(BootSequence, OutOfSpecPeriodIsNoClock) {
  fake.rate = ClockRate{ClockRate::Kind::period_fs, 100'000'001};
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitFail),
              "^keel boot arch=fake board=fake clock=synthetic emulated=0\n"
              ".*keel done status=fail\n$");
}

TEST_F(BootSequence, TimerThatCannotBeCalibrated) {
  fake.timer_ok = false;
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitFail),
              "keel timer source=faketimer status=no-calibration\n"
              "keel done status=fail\n$");
}

TEST_F(BootSequence, TimerThatNeverFires) {
  fake.timer_fires = false;
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitFail),
              "keel timer ticks=0 source=faketimer status=no-ticks\n"
              "keel done status=fail\n$");
}

// A timer programmed in the wrong unit (10x slow) is caught by the bound.
TEST_F(BootSequence, TimerInTheWrongUnit) {
  fake.timer_scale = 10;
  EXPECT_EXIT(boot(), ::testing::ExitedWithCode(kExitFail),
              "keel timer period_ns=100000000 .* status=out-of-range\n"
              "keel done status=fail\n$");
}

// The loader's board facts (AArch64: the device tree's /model, /memory and
// the Pi firmware's revision) go into the boot line, between the board and
// the clock; spaces in the model become '_' (protocol.h).
TEST_F(BootSequence, BoardFactsInTheBootLine) {
  const BootInfo info{"keel.test=bogus",
                      {"Raspberry Pi 5 Model B Rev 1.0", 8ull << 30, true, 0xd04170}};
  EXPECT_EXIT(kernel_main(info), ::testing::ExitedWithCode(kExitFail),
              "^keel boot arch=fake board=fake model=Raspberry_Pi_5_Model_B_Rev_1\\.0 "
              "revision=0xd04170 memory_bytes=8589934592 clock=synthetic period_fs=10000000 ");
  const BootInfo memory_only{"keel.test=bogus", {nullptr, 1ull << 30, false, 0}};
  EXPECT_EXIT(kernel_main(memory_only), ::testing::ExitedWithCode(kExitFail),
              "^keel boot arch=fake board=fake memory_bytes=1073741824 clock=synthetic ");
}

TEST_F(BootSequence, UnknownSelfTestFails) {
  const BootInfo info{"keel.test=bogus", {}};
  EXPECT_EXIT(kernel_main(info), ::testing::ExitedWithCode(kExitFail),
              "keel selftest test=unknown expect=fault\n"
              "keel selftest test=unknown status=no-fault\n"
              "keel done status=fail\n$");
}

}  // namespace
}  // namespace keel
