// The trace of an analysis (VerifyOptions::step_log): the state entering
// each instruction the fixpoint steps through, handed to the caller's sink.
#pragma once

#include <cstdint>

#include "analysis/state.h"
#include "keel/verify.h"

namespace keel {

// Renders `s` into log.buffer and calls log.step for `pc`.
void log_step(const StepLog& log, const State& s, uint32_t pc);

}  // namespace keel
