#include "analysis/step_log.h"

#include "analysis/engine.h"

namespace keel {

void log_step(const StepLog& log, const State& s, uint32_t pc) {
  if (log.step == nullptr || log.buffer == nullptr || log.size == 0) return;
  (void)render_state(&s, log.buffer, log.size);
  log.step(log.context, pc, log.buffer);
}

}  // namespace keel
