#include "failure_path.h"

#include "keel/text.h"

namespace keel::cli {

namespace {

bool is_lddw(Op op) { return op >= Op::lddw_imm64 && op <= Op::lddw_map_idx_value; }
bool is_conditional(Op op) { return op >= Op::jeq64_imm && op <= Op::jsle32_reg; }

// The size of a rendered state the sink takes; longer ones are cut (a
// frame's registers and 64 stack slots fit easily).
constexpr size_t kStateText = 8192;

}  // namespace

TraceRecorder::TraceRecorder(size_t keep) : keep_(keep == 0 ? 1 : keep), buffer_(kStateText) {
  sink_.step = &TraceRecorder::step;
  sink_.context = this;
  sink_.buffer = buffer_.data();
  sink_.size = buffer_.size();
}

void TraceRecorder::step(void* context, uint32_t pc, const char* state) {
  auto* self = static_cast<TraceRecorder*>(context);
  if (self->steps_.size() == self->keep_) {
    self->steps_.pop_front();
    ++self->dropped_;
  }
  self->steps_.push_back(TraceStep{pc, state});
}

bool leads_to(const Program& program, uint32_t from, uint32_t to) {
  if (from >= program.count) return false;
  const Insn& insn = program.insns[from];
  const int64_t target = int64_t{from} + 1 + insn.offset;
  if (insn.op == Op::exit) return false;
  if (insn.op == Op::ja) return target == to;
  if (is_conditional(insn.op) || insn.op == Op::call_local) return to == from + 1 || target == to;
  return to == from + (is_lddw(insn.op) ? 2u : 1u);
}

bool state_holds_reference(const std::string& state, uint32_t pc) {
  const size_t list = state.find("refs=[");
  if (list == std::string::npos) return false;
  // "refs=[12,40,...]": "..." stands for references no longer tracked one by one.
  uint64_t value = 0;
  bool digits = false;
  for (size_t i = list + 6; i < state.size(); ++i) {
    const char c = state[i];
    if (c >= '0' && c <= '9') {
      value = value * 10 + static_cast<uint64_t>(c - '0');
      digits = true;
      continue;
    }
    if (c == '.') return true;
    if (digits && value == pc) return true;
    if (c == ']') return false;
    value = 0;
    digits = false;
  }
  return false;
}

FailurePath failure_path(const Program& program, const TraceRecorder& recorder, uint32_t pc, size_t limit,
                         uint32_t reference) {
  FailurePath path;
  const std::deque<TraceStep>& steps = recorder.steps();
  // The rejected visit: the last of `pc` (the analysis stops at it).
  size_t at = steps.size();
  while (at > 0 && steps[at - 1].pc != pc) --at;
  if (at == 0 || limit == 0) return path;
  std::vector<size_t> chain{at - 1};
  size_t current = at - 1;
  bool before_acquire = reference != kNoReference;
  for (size_t i = current; i-- > 0 && steps[current].pc != 0;) {
    if (!leads_to(program, steps[i].pc, steps[current].pc)) continue;
    // The state entering the acquiring call does not hold the reference yet.
    if (before_acquire && steps[i].pc != reference && !state_holds_reference(steps[i].state, reference)) continue;
    if (steps[i].pc == reference) before_acquire = false;
    if (chain.size() == limit) {
      path.cut = true;
      break;
    }
    chain.push_back(i);
    current = i;
  }
  // Back to the entry, unless the recording lost the start.
  if (!path.cut && steps[current].pc != 0) path.cut = true;
  for (size_t i = chain.size(); i-- > 0;) path.steps.push_back(steps[chain[i]]);
  return path;
}

std::string render_path(const FailurePath& path, const uint8_t* bytes, size_t slots) {
  if (path.steps.empty()) return "no trace: the rejection was found after the analysis stepped through the program\n";
  std::string text = "path to the rejection, " + std::to_string(path.steps.size()) +
                     " instructions, each under the state entering it";
  text += path.cut ? " (trace cut: the path's earlier instructions are not shown):\n" : ", from the entry:\n";
  const std::string* last_state = nullptr;
  for (const TraceStep& step : path.steps) {
    char line[kDisassemblyLineMax];
    if (bytes == nullptr || disassemble_one(bytes, slots, step.pc, line, sizeof line) == 0) line[0] = '\0';
    std::string pc = std::to_string(step.pc);
    if (pc.size() < 4) pc.insert(0, 4 - pc.size(), ' ');
    if (last_state == nullptr || *last_state != step.state) {
      // The state entering the instruction, as an assembler comment; one
      // line a frame.
      size_t begin = 0;
      while (begin <= step.state.size()) {
        size_t end = step.state.find('\n', begin);
        if (end == std::string::npos) end = step.state.size();
        text += "      ; " + step.state.substr(begin, end - begin) + "\n";
        begin = end + 1;
      }
    }
    last_state = &step.state;
    text += pc + ": " + line + "\n";
  }
  return text;
}

}  // namespace keel::cli
