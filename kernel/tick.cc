#include "tick.h"

#include "service.h"

namespace keel {
namespace {

// The one mutable global the tick needs: written only by the interrupt
// handler on the one CPU, read by the boot sequence. Relaxed atomic loads and
// stores are plain 64-bit moves on x86-64 and AArch64 (no read-modify-write,
// so no libatomic or outline-atomics call) and cannot tear.
uint64_t ticks = 0;

}  // namespace

void on_tick() {
  const uint64_t now = __atomic_load_n(&ticks, __ATOMIC_RELAXED) + 1;
  __atomic_store_n(&ticks, now, __ATOMIC_RELAXED);
  service::on_tick(now);
}

uint64_t tick_count() { return __atomic_load_n(&ticks, __ATOMIC_RELAXED); }

}  // namespace keel
