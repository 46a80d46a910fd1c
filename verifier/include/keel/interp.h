// Stage "run": executes a decoded Program. Fast mode trusts the verifier;
// guarded mode checks every memory access against the regions the caller
// granted and reports a violation as a trap (the soundness oracle).
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/isa.h"
#include "keel/spec_guard.h"

namespace keel {

// A range of memory the program may touch in guarded mode.
struct Region {
  uint64_t base = 0;
  uint64_t size = 0;
  bool writable = false;
};

inline constexpr uint32_t kMaxRegions = 32;

struct HelperCall {
  uint64_t args[5];      // r1..r5
  void* user;            // HelperTable::user
  // A helper that hands memory to the program (a map value, say) grants it
  // here so that guarded mode lets the program use it. Returns false when
  // the region table is full.
  bool (*grant)(HelperCall& call, const Region& region);
  void* interp_state;    // for grant; opaque to the helper
  bool stop;             // set to end the program now; r0 = the returned value
};

using HelperFn = uint64_t (*)(HelperCall& call);

struct HelperTable {
  const HelperFn* fns = nullptr;  // indexed by helper id; nullptr = unknown
  uint32_t count = 0;
  void* user = nullptr;
};

enum class RunMode : uint8_t { fast, guarded };

struct RunOptions {
  /// fast: no memory checks (the program was verified); guarded: every access checked.
  RunMode mode = RunMode::fast;
  /// Instructions executed before the run is stopped with RunStatus::budget_exhausted.
  uint64_t insn_budget = 1u << 24;
  /// Helper implementations by id (the compiler builtins of isa.h are run by the interpreter).
  const HelperTable* helpers = nullptr;
  /// Memory the program may use besides its own stack (context, packet, maps), guarded mode only.
  const Region* regions = nullptr;
  /// Entries in `regions` (at most kMaxRegions minus those granted at run time).
  uint32_t region_count = 0;
  /// The hardening verify() wrote for an unprivileged program (VerifyOptions::spec_guards), one per
  /// slot, or nullptr: operands masked and barriers run as each entry says.
  const SpecGuard* spec_guards = nullptr;
};

enum class RunStatus : uint8_t {
  ok,
  out_of_bounds,       // guarded: access outside every region (or a write to a read-only one)
  address_overflow,    // guarded: base + offset wrapped around
  unknown_helper,      // call to an id without an implementation
  call_depth_exceeded, // more than kMaxCallDepth frames
  budget_exhausted,
  unresolved_lddw,     // a pseudo lddw (map fd, ...) reached the interpreter unresolved
  legacy_packet_load,  // ld_abs/ld_ind without packet support
};

const char* run_status_name(RunStatus status);

struct RunResult {
  RunStatus status = RunStatus::ok;
  uint64_t r0 = 0;
  uint32_t pc = 0;             // instruction that trapped
  uint64_t address = 0;        // faulting address for memory traps
  uint64_t insns_executed = 0;
};

// Stack memory for every frame; owned by the caller so that the kernel
// decides where it lives.
struct RunStack {
  alignas(16) uint8_t bytes[kStackSize * kMaxCallDepth];
};

// Runs `program` from slot 0 with r1 = arg1, r2 = arg2.
[[nodiscard]] RunResult run(const Program& program, uint64_t arg1, uint64_t arg2,
                            const RunOptions& options, RunStack& stack);

}  // namespace keel
