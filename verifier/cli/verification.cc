#include "verification.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "keel/arena.h"
#include "keel/elf.h"

namespace keel::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Arena sizes: start small (most programs need well under a megabyte) and
// grow by 4x while the analysis reports out_of_memory.
constexpr size_t kFirstArena = size_t{4} << 20;
constexpr size_t kLastArena = size_t{1} << 32;

// libbpf's bpf_core_poison call decodes, as Linux loads it: the analysis
// rejects it as an unknown helper only if it is reachable (keel/elf.h).
bool helper_of_type(const void* context, int32_t id) {
  return id == kCorePoisonHelper || find_helper(*static_cast<const ProgramType*>(context), id) != nullptr;
}

uint64_t since(Clock::time_point start) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

// A rejection whose path is the one holding a reference (detail.limit: the acquiring pc).
bool leaks_reference(const Verdict& verdict) {
  return verdict.reason == Reason::unreleased_reference || verdict.reason == Reason::reference_held;
}

std::string render(const Verdict& verdict, const Program& program, const ProgramType& type,
                   const CheckOptions& options) {
  DescribeContext context;
  context.program = &program;
  context.type = &type;
  context.helper_name = options.helper_name;
  context.map_names = options.map_names;
  context.map_count = options.map_names != nullptr ? options.verify.map_count : 0;
  char text[512];
  describe(verdict, context, text, sizeof text);
  return text;
}

// Verifies into `check`, growing the arena; then, when asked, renders the
// state at the rejected pc in an arena of the size that sufficed.
void run_verifier(const Program& program, const ProgramType& type, const CheckOptions& options,
                  Clock::time_point start, Check& check) {
  size_t size = kFirstArena;
  std::unique_ptr<uint8_t[]> memory;
  for (;;) {
    memory = std::make_unique_for_overwrite<uint8_t[]>(size);
    Arena arena(memory.get(), size);
    check.verdict = verify(program, type, options.verify, arena);
    check.arena_bytes = arena.peak();
    if (check.verdict.reason != Reason::out_of_memory || size >= kLastArena) break;
    size *= 4;
  }
  check.verify_ns = since(start);
  check.reason = reason_name(check.verdict.reason);
  check.message = render(check.verdict, program, type, options);
  if (options.with_state && !check.verdict.ok()) {
    Arena arena(memory.get(), size);
    std::vector<char> text(1 << 16);
    describe_state(program, type, options.verify, arena, check.verdict.pc, text.data(), text.size());
    check.state = text.data();
  }
  if (options.path_steps != 0 && !check.verdict.ok()) {
    // Keep far more visits than the path shows: the path skips the visits
    // of other branches in between.
    TraceRecorder recorder(std::max<size_t>(options.path_steps * 16, size_t{1} << 14));
    VerifyOptions traced = options.verify;
    traced.step_log = &recorder.sink();
    Arena arena(memory.get(), size);
    const Verdict again = verify(program, type, traced, arena);
    // Tracing folds no constants but gives the same verdict; a path is shown only for it.
    if (again.reason == check.verdict.reason && again.pc == check.verdict.pc)
      check.path = failure_path(program, recorder, check.verdict.pc, options.path_steps,
                                leaks_reference(check.verdict) ? check.verdict.detail.limit : kNoReference);
  }
}

}  // namespace

uint32_t instruction_count(const Program& program) {
  uint32_t count = 0;
  for (uint32_t pc = 0; pc < program.count; ++pc) count += program.insns[pc].op != Op::lddw_tail;
  return count;
}

Check check_program(const uint8_t* bytes, size_t size, const ProgramType& type, const CheckOptions& options) {
  Check check;
  const Clock::time_point start = Clock::now();
  DecodeOptions decode_options;
  decode_options.max_insns = options.max_insns;
  decode_options.helper_exists = helper_of_type;
  decode_options.helper_context = &type;
  // The decoded form is 16 bytes a slot; grow only if the decoder runs out.
  size_t arena_size = size * 8 + 65536;
  std::unique_ptr<uint8_t[]> memory;
  Program program;
  for (;;) {
    memory = std::make_unique_for_overwrite<uint8_t[]>(arena_size);
    Arena arena(memory.get(), arena_size);
    program = Program{};
    check.decoded = decode(bytes, size, decode_options, arena, program);
    if (check.decoded.error != DecodeError::out_of_memory || arena_size >= (size_t{1} << 30)) break;
    arena_size *= 4;
  }
  if (!check.decoded.ok()) {
    check.verify_ns = since(start);
    check.insns = static_cast<uint32_t>(size / 8);
    check.reason = std::string("decode:") + decode_error_name(check.decoded.error);
    check.message = "pc " + std::to_string(check.decoded.pc) + ": decode: " + decode_error_name(check.decoded.error);
    if (check.decoded.error == DecodeError::unknown_helper && check.decoded.pc < size / 8) {
      const int32_t id = read_raw(bytes, check.decoded.pc).imm;
      const char* name = options.helper_name != nullptr ? options.helper_name(id) : nullptr;
      const std::string helper = name != nullptr ? std::string(name) + " (" + std::to_string(id) + ")" : std::to_string(id);
      check.message += " (helper " + helper + " is not one " + (type.name != nullptr ? type.name : "this type") + " offers)";
    }
    return check;
  }
  check.insns = instruction_count(program);
  run_verifier(program, type, options, start, check);
  return check;
}

Check check_decoded(const Program& program, const ProgramType& type, const CheckOptions& options) {
  Check check;
  const Clock::time_point start = Clock::now();
  check.insns = instruction_count(program);
  run_verifier(program, type, options, start, check);
  return check;
}

}  // namespace keel::cli
