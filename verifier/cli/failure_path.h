// The path to a rejection, from the trace of an analysis (VerifyOptions::
// step_log): `keel verify --log` prints it, instruction by instruction with
// the state entering each, as Linux's log_level 2 does for the path it
// failed on; the leak of a reference is located on it (the exit path).
//
// keel's analysis joins states where paths meet, so there is no one
// concrete path: the path here is the chain of visits that fed the failing
// one, found backwards from the rejected pc by taking each time the latest
// earlier visit of an instruction that leads to the current one (its
// predecessor in the program's control flow).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "keel/isa.h"
#include "keel/verify.h"

namespace keel::cli {

// One instruction the analysis stepped through, and the state entering it.
struct TraceStep {
  uint32_t pc = 0;
  std::string state;
};

// Records the last `keep` steps of an analysis (older ones are dropped and
// counted), through the StepLog it hands out.
class TraceRecorder {
 public:
  explicit TraceRecorder(size_t keep);
  const StepLog& sink() const { return sink_; }
  const std::deque<TraceStep>& steps() const { return steps_; }
  uint64_t dropped() const { return dropped_; }

 private:
  static void step(void* context, uint32_t pc, const char* state);
  size_t keep_;
  std::deque<TraceStep> steps_;
  uint64_t dropped_ = 0;
  std::vector<char> buffer_;
  StepLog sink_;
};

inline constexpr uint32_t kNoReference = UINT32_MAX;

struct FailurePath {
  std::vector<TraceStep> steps;  // oldest first; the last is the rejected pc
  bool cut = false;              // the path goes back further than `steps` (limit, or the recording's start)
};

// Whether control may go from the instruction at `from` straight to `to`
// (fall through, jump, call into a subprogram or step over the call).
bool leads_to(const Program& program, uint32_t from, uint32_t to);

// The path to `pc`, at most `limit` steps; empty when the trace never
// stepped through `pc` (a rejection found after the fixpoint: loop bounds,
// the stack of the call chain). With `reference` (the pc that acquired a
// reference), the path back to that pc takes only visits whose state may
// hold the reference: the path on which it leaks, not one where it was
// released before the paths joined.
FailurePath failure_path(const Program& program, const TraceRecorder& recorder, uint32_t pc, size_t limit,
                         uint32_t reference = kNoReference);

// Whether a rendered state (describe_state's "refs=[12,40]") may hold the
// reference acquired at `pc`.
bool state_holds_reference(const std::string& state, uint32_t pc);

// The path as text: a heading (saying when the path is cut), then one
// "pc: instruction" line a step (disassembled from `bytes`, `slots` long)
// with the state under it where it differs from the step before.
std::string render_path(const FailurePath& path, const uint8_t* bytes, size_t slots);

}  // namespace keel::cli
