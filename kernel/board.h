// What the portable kernel needs from a board (docs/design.md, "The kernel"): a
// UART, a clock, a periodic tick and a way to end the run. Each board folder
// (boards/<name>/) implements these; the build picks the board (KEEL_BOARD),
// so no kernel/ file includes a board header or tests for one with #if.
#pragma once

#include <cstdint>

#include "protocol.h"
#include "time/ticks.h"

namespace keel::board {

const char* name();  ///< e.g. "qemu-x86"; appears as board= in the boot line
/// True on an emulator: its timings are not hardware timings and every line
/// that carries one says so (docs/evidence.md, "What may be claimed from what").
bool emulated();

void uart_init();
void uart_put(char c);  ///< blocks until the transmitter takes the byte

/// Finds and starts the clock, falling back when the preferred one is absent
/// (x86: HPET, else the TSC calibrated against the PIT). Returns false when
/// there is no usable clock at all; clock_rate() then has value 0.
[[nodiscard]] bool clock_init();
ClockRate clock_rate();     ///< the running clock's rate, for make_converter()
uint64_t clock_ticks();     ///< the running clock, monotonic
const char* clock_name();   ///< "hpet", "tsc", "cntpct", "none"
/// Appends the board's own clock facts to the `keel clock` line (base
/// address, counter width, and `fallback reason=...` when it fell back).
void clock_describe(Line& line);

/// Starts a periodic interrupt every `period_ns` (calibrated against the
/// clock); each one reaches keel::on_tick() (tick.h) through the arch's
/// interrupt path. False when the timer cannot be calibrated.
[[nodiscard]] bool timer_start(uint64_t period_ns);
void timer_stop();
const char* timer_name();  ///< "lapic", "cntp", ...
/// Appends the board's own timer facts (calibrated counts, vector) to the
/// `keel timer` line.
void timer_describe(Line& line);

/// How a run ends. Boards map it to what their harness sees (x86: a QEMU
/// exit status that no triple fault can produce).
enum class ExitCode : uint8_t { ok = 0, fail = 1, fault = 2 };
[[noreturn]] void exit(ExitCode code);

}  // namespace keel::board
