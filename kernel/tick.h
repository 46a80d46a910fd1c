// The periodic tick: the arch's timer interrupt calls on_tick(), which
// counts and hands the tick to the BPF service (service.h), where tick
// programs will run. Runs with interrupts masked; keep it short.
#pragma once

#include <cstdint>

namespace keel {

void on_tick();
uint64_t tick_count();  ///< ticks since timer_start(); safe outside the interrupt

}  // namespace keel
