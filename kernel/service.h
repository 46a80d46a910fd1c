// The BPF service's place in the boot sequence: load -> verify -> admit ->
// attach -> run of the programs embedded in the image (docs/design.md, "The
// kernel"). kernel_main() calls start() once the clock and the periodic
// timer are running and before interrupts are enabled, on_tick() runs from
// every timer interrupt, and finish() after the timed run, before `keel done`.
// The program types, helpers and memory sizes: docs/adr/0010.
//
// Lines, per program: `keel load`, `keel verify` (verdict, bounds, and the
// kernel's verify_ns and arena_bytes), `keel reject` when rejected, `keel
// admit`, `keel attach`, `keel trace` from the program, `keel run` (run-once
// programs at start, tick programs from finish() with their median time),
// `keel map` (a tick program's maps); `keel expect` when a verdict differs
// from kernel/programs/manifest.cc (a wrong run-once r0 fails its `keel
// run` line); `keel arena` for each static memory region's capacity and peak.
#pragma once

#include <cstdint>

#include "time/ticks.h"

namespace keel::service {

struct Environment {
  const TickConverter* clock;  ///< the board clock's ticks <-> ns
  uint64_t tick_period_ns;     ///< the requested timer period (a hook's time budget)
};

/// Loads, verifies, admits and attaches the embedded programs, one protocol
/// line per step. False fails the run (`keel done status=fail`).
[[nodiscard]] bool start(const Environment& environment);

/// Runs the programs attached to the tick hook. Interrupt context.
void on_tick(uint64_t tick);

/// Detaches and reports per-program results. False fails the run.
[[nodiscard]] bool finish();

}  // namespace keel::service
