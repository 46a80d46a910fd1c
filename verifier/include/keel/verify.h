// Stage "verify": decoded Program + program type + maps -> Verdict. A
// rejection is data (pc, reason, detail); describe() renders it. Accepted
// programs come with their bounds: worst-case instructions and stack use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/isa.h"
#include "keel/platform.h"
#include "keel/spec_guard.h"

namespace keel {

enum class Reason : uint8_t {
  ok,
  // structure (found before the analysis)
  unreachable_code,
  irreducible_loop,
  recursion,
  call_depth,              // more than kMaxCallDepth nested BPF-to-BPF calls
  // values
  uninit_register,         // detail.reg read before written
  uninit_stack,            // read of stack bytes never written
  bad_return_value,        // r0 at exit outside the program type's range, or a pointer
  pointer_leak,            // pointer stored/returned/compared where the policy forbids it
  pointer_arithmetic,      // arithmetic the pointer kind forbids
  pointer_comparison,      // comparison of pointers of different kinds
  scalar_dereference,      // load/store through a scalar
  null_dereference,        // through a pointer that may be NULL
  invalid_dereference,     // through a pointer kind that has no memory (packet_end, map_ptr, func), or a partial spill/fill of a pointer
  // memory
  stack_out_of_bounds,
  ctx_bad_access,          // offset/size not allowed for the program type's context
  ctx_mixed_access,        // one load/store reaches the context on one path and other memory on another
  sock_bad_access,         // through a socket pointer: not a field Linux lets a program read at that offset/size
  map_value_out_of_bounds,
  packet_out_of_bounds,    // beyond the range proven by a comparison with data_end
  memory_out_of_bounds,    // helper-returned memory
  read_only_write,         // store into read-only memory (read-only map, packet, ctx field)
  write_only_read,
  misaligned_access,       // with VerifyOptions::strict_alignment
  variable_stack_access,   // stack access at an offset not known exactly (where not allowed)
  // calls
  unknown_helper,          // id not available to the program type (or only when privileged)
  helper_argument,         // detail.reg does not match the prototype's kind
  unsupported_helper,      // prototype uses kinds keel does not model
  unresolved_map,          // lddw names a map that VerifyOptions::maps does not hold
  legacy_packet_load,      // ld_abs/ld_ind where the type forbids it, or r6 is not the context
  unprivileged_call,       // BPF-to-BPF call without VerifyOptions::privileged (Linux needs CAP_BPF)
  // references (sockets from lookups, ring buffer records): detail.limit is the acquiring pc
  unreleased_reference,    // a reference is not released on some path to this exit
  reference_held,          // a tail call or ld_abs/ld_ind (which may end the program) while a reference may be held
  release_unreferenced,    // detail.reg, given to a releasing helper, holds no acquired reference
  double_release,          // detail.reg's reference was released already
  use_after_release,       // detail.reg's object was released
  reference_store,         // a pointer holding a reference stored outside registers and stack
  too_many_references,     // more than 8 references held at once
  reference_reacquired,    // an instruction acquires again while the reference it acquired before may be held
  // termination and cost
  unbounded_loop,          // no trip-count bound proven for the loop headed at pc
  division_by_zero,        // only with VerifyOptions::reject_division_by_zero
  unsupported_instruction, // with VerifyOptions::linux_rules: an instruction Linux 6.1 does not have
  too_complex,             // analysis exceeded VerifyOptions::max_iterations
  out_of_memory,           // the arena cannot hold the analysis state
};

// Stable snake_case name ("map_value_out_of_bounds").
const char* reason_name(Reason reason);

// A few integers that make a rejection precise; which ones are meaningful
// depends on the reason (describe() knows).
struct Detail {
  int32_t reg = -1;      // register involved, -1 when none
  int32_t size = 0;      // access size
  int64_t offset = 0;    // access offset (fixed part)
  int64_t min = 0;       // proven bounds of the offending value / offset
  int64_t max = 0;
  uint32_t limit = 0;    // region size, or the loop header for unbounded_loop
  uint8_t kind = 0;      // the register's kind (a RegKind value), when relevant; for too_complex one of kTooComplex*
  int64_t allowed_min = 0;  // bad_return_value: the range r0 must lie in at this exit
  int64_t allowed_max = 0;
};

// Detail::kind of a too_complex verdict: which limit was reached.
inline constexpr uint8_t kTooComplexAnalysis = 0;   // max_iterations, or the analysis' own caps
/// A loop's worst case (at its header) passed VerifyOptions::max_loop_insns: min the limit, max the cost
/// (INT64_MAX: more than 64 bits can count).
inline constexpr uint8_t kTooComplexLoopInsns = 1;
/// The program's worst case passed VerifyOptions::max_insns_bound at pc (a loop header, a call, or the
/// block where the longest path passes it): min the limit, max the cost as above.
inline constexpr uint8_t kTooComplexInsns = 2;

struct Verdict {
  Reason reason = Reason::ok;
  uint32_t pc = 0;
  Detail detail;
  // Filled when accepted:
  uint64_t max_insns_executed = 0;  // sound upper bound on instructions in one run, <= max_insns_bound
  uint32_t stack_depth = 0;         // bytes, summed over the deepest call chain
  uint32_t spec_guards = 0;         // unprivileged: slots whose SpecGuard run() must apply (VerifyOptions)
  bool ok() const { return reason == Reason::ok; }
};

// A sink for the trace of an analysis (`keel verify --log`): called with
// the state entering each instruction the analysis steps through, in the
// order it does, rendered as describe_state() renders a state into the
// caller's `buffer` (a longer rendering is cut, NUL-terminated). The core
// keeps nothing: bounding and filtering the trace is the caller's.
struct StepLog {
  void (*step)(void* context, uint32_t pc, const char* state) = nullptr;
  void* context = nullptr;
  char* buffer = nullptr;
  size_t size = 0;
};

struct VerifyOptions {
  /// Linux's privileged mode (CAP_BPF + CAP_PERFMON): pointer leaks and privileged helpers allowed.
  bool privileged = true;
  /// Reject loads/stores that are not naturally aligned (BPF_F_STRICT_ALIGNMENT).
  bool strict_alignment = false;
  /// Division and modulo by zero are defined (RFC 9669 §4.1); set to reject them anyway.
  bool reject_division_by_zero = false;
  /// Also reject what Linux 6.1 rejects outside keel's safety model: division/modulo by an immediate 0,
  /// shifts by an immediate >= the width, and instructions newer than 6.1 (sdiv, smod, movsx, ldxs*, bswap, gotol, callx).
  bool linux_rules = false;
  /// Also analyse the successor a comparison proves impossible, with the unrefined state, as unprivileged
  /// Linux does against Spectre v1 (a mispredicted branch runs it speculatively). Always on when
  /// `privileged` is false.
  bool speculative_paths = false;
  /// Unprivileged only: program.count entries that verify() fills with the hardening run() must apply
  /// (RunOptions::spec_guards) to an accepted program on a CPU that speculates; Verdict::spec_guards
  /// counts the slots that need it, with or without this table (the verdict does not depend on it).
  SpecGuard* spec_guards = nullptr;
  /// Let reads of never-written stack bytes yield unknown values, as privileged Linux does (allow_uninit_stack).
  bool allow_uninit_stack_reads = false;
  /// Reject code no path reaches (Linux does).
  bool reject_unreachable = true;
  /// Maps referenced by lddw (imm = index into this array).
  const MapDescriptor* maps = nullptr;
  /// Entries in `maps`.
  uint32_t map_count = 0;
  /// Cap on abstract block visits, a guard against pathological inputs (the documented bound holds below it).
  uint32_t max_iterations = 1u << 20;
  /// Most instructions one entry into a loop may execute, nested loops and calls included; more is
  /// too_complex at the loop's header. Linux 6.1 walks every iteration of a bounded loop and stops at
  /// BPF_COMPLEXITY_LIMIT_INSNS (1,000,000 processed instructions), so it loads no longer loop.
  uint64_t max_loop_insns = 1'000'000;
  /// Most instructions one run may execute (Verdict::max_insns_executed); more is too_complex. The
  /// default, 2^43, is bpf_loop's 2^23 runs (BPF_MAX_LOOPS) of a callback of 2^20 instructions.
  uint64_t max_insns_bound = uint64_t{1} << 43;
  /// The trace sink, or nullptr. With one, no run of constant instructions is folded (each is traced);
  /// the verdict is the same.
  const StepLog* step_log = nullptr;
};

// Verifies `program` as `type`. All memory comes from `arena`; exhaustion is
// Reason::out_of_memory. Never fails in any other way.
[[nodiscard]] Verdict verify(const Program& program, const ProgramType& type,
                             const VerifyOptions& options, Arena& arena);

// Renders `verdict` as one line ("pc 12: r3 is a pointer to map value of size
// 48, access at offset 48 size 4 is out of bounds") into `buffer`, always
// NUL-terminated; returns the length it would need (like snprintf).
size_t describe(const Verdict& verdict, char* buffer, size_t size);

// What the program's source calls the things a rejection mentions, so that
// describe() can name them as the user wrote them: "helper bpf_spin_lock
// (93)" rather than "helper 93", "map 2 (events)". Every field is optional.
struct DescribeContext {
  /// The verified program: a rejected helper call names the helper it calls.
  const Program* program = nullptr;
  /// The program type, named where a helper is not available to it.
  const ProgramType* type = nullptr;
  /// The name of helper `id` ("bpf_spin_lock"), or nullptr (e.g. linux_helper_name).
  const char* (*helper_name)(int32_t id) = nullptr;
  /// The names of VerifyOptions::maps by index; an entry may be nullptr.
  const char* const* map_names = nullptr;
  /// Entries in `map_names`.
  uint32_t map_count = 0;
};

// describe() with the names `context` knows.
size_t describe(const Verdict& verdict, const DescribeContext& context, char* buffer, size_t size);

// Re-runs the analysis of `program` and renders the abstract state on entry
// to the instruction at `pc` (joined over every way the analysis reached it
// before it stopped; for a rejection pass verdict.pc) into `buffer`, one
// line per frame: registers, then stack slots, e.g. "frame 0: r1=ctx+0
// r2=scalar[0,255] fp-8=spill:map_value(map 0)+0 fp-16=mmmm0000" (m: data,
// 0: zero, .: uninitialized). Always NUL-terminated; returns the length it
// would need; "unreached" when no state reached pc.
size_t describe_state(const Program& program, const ProgramType& type, const VerifyOptions& options,
                      Arena& arena, uint32_t pc, char* buffer, size_t size);

}  // namespace keel
