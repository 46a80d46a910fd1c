// Running the verifier for the commands: decode for a program type, verify
// in an arena that grows when the analysis runs out of it, render the
// verdict (and the abstract state at a rejection) and time the whole.
// Shared by `verify`, `run` and `test-data`.
#pragma once

#include <cstdint>
#include <string>

#include "cli.h"
#include "conformance_case.h"
#include "failure_path.h"
#include "keel/decode.h"
#include "keel/platform.h"
#include "keel/verify.h"

namespace keel::cli {

// The result of decode + verify of one program.
struct Check {
  DecodeResult decoded;    // not ok: decode() refused the program (a rejection too)
  Verdict verdict;         // meaningful when decoded.ok()
  uint32_t insns = 0;      // instructions, lddw counted once
  std::string reason;      // reason_name(), or "decode:<decode_error_name>"
  std::string message;     // describe(), or "pc N: decode: <error>"
  std::string state;       // CheckOptions::with_state and a verifier rejection: describe_state at its pc
  size_t arena_bytes = 0;  // Arena::peak() of the verification
  uint64_t verify_ns = 0;  // steady_clock around decode + verify, their arenas' allocation included
  FailurePath path;        // CheckOptions::path_steps and a verifier rejection: the path to its pc

  bool accepted() const { return decoded.ok() && verdict.ok(); }
  uint32_t pc() const { return decoded.ok() ? verdict.pc : decoded.pc; }
};

struct CheckOptions {
  /// Passed to verify(); maps included.
  VerifyOptions verify;
  /// Largest program decode() takes, in slots (Linux: 1M).
  uint32_t max_insns = 1u << 20;
  /// Render the abstract state at a rejected pc (re-runs the analysis).
  bool with_state = false;
  /// Names helpers in the message ("bpf_spin_lock (93)"): linux_helper_name for Linux types.
  const char* (*helper_name)(int32_t id) = nullptr;
  /// Names of verify.maps by index (verify.map_count entries, any may be nullptr), or nullptr.
  const char* const* map_names = nullptr;
  /// Trace the path to a rejection (re-runs the analysis with a StepLog): at most this many steps, 0 none.
  size_t path_steps = 0;
};

// Decodes `size` bytes (helpers: those `type` offers) and verifies them as `type`.
Check check_program(const uint8_t* bytes, size_t size, const ProgramType& type, const CheckOptions& options);

// Verifies an already decoded program (no decode time counted).
Check check_decoded(const Program& program, const ProgramType& type, const CheckOptions& options);

// Instructions in a decoded program, lddw counted once.
uint32_t instruction_count(const Program& program);

// The "conformance" program type and its options (suite/conformance_case.h).
using suite::ConformanceType;
using suite::conformance_verify_options;

}  // namespace keel::cli
