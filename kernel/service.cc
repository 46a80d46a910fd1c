// FIXME: nothing is embedded yet. Once the verifier lands, start() walks the
// image's program table: decode and verify each (keel/verify.h) with an arena
// carved from a static buffer, admit it when its worst-case instruction count
// fits the hook's budget (tick_period_ns), attach it, and emit
// `keel bpf event=load|verify|admit|attach ...`; on_tick() runs the tick
// programs with the interpreter's fast mode; finish() reports run counts.
#include "service.h"

namespace keel::service {

bool start(const Environment&) { return true; }

void on_tick(uint64_t) {}

bool finish() { return true; }

}  // namespace keel::service
