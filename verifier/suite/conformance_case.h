// One `-- result` file of the conformance suites (bpf_conformance, uBPF),
// from its program bytes to its verdict: decode with the conformance
// helpers, run in guarded then fast mode, verify as the "conformance"
// program type. `keel test-data` on the host and the bare-metal runner
// (runner/) both call this, so that their lines are comparable by
// construction while each ISA computes its own. Freestanding: no heap, all
// memory from the caller.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/platform.h"
#include "keel/verify.h"

namespace keel::suite {

// The "conformance" program type for a memory buffer of `mem_size` bytes
// (keel::make_conformance_type with the conformance helper prototypes).
// Not copyable: the type points into the object.
class ConformanceType {
 public:
  explicit ConformanceType(uint32_t mem_size);
  ConformanceType(const ConformanceType&) = delete;
  ConformanceType& operator=(const ConformanceType&) = delete;
  const ProgramType& type() const { return type_; }

 private:
  CtxField field_;
  ProgramType type_;
};

// VerifyOptions for the conformance type: privileged, unreachable code
// allowed (the suites keep dead code after exits; it is never run).
VerifyOptions conformance_verify_options();

// DecodeOptions for conformance programs: the defaults plus the
// conformance helper table.
DecodeOptions conformance_decode_options();

// Arena bytes one file's decode + verification gets, on every target: the
// same size everywhere, so that running out (Reason::out_of_memory) is
// the same verdict everywhere too.
inline constexpr size_t kConformanceArenaBytes = size_t{4} << 20;

// "unknown_opcode at pc 3" into `text` (always NUL-terminated).
void decode_error_text(const DecodeResult& result, char* text, size_t size);

// Memory one check needs besides the arena.
struct ConformanceScratch {
  uint8_t* mem_copy = nullptr;  // the program's private copy of -- mem
  size_t mem_capacity = 0;
  RunStack* stack = nullptr;
};

struct ConformanceOutcome {
  bool passed = false;
  char why[256] = {};         // !passed: what went wrong ("guarded: r0 = 0x1, expected 0x2")
  bool verified = false;      // the verifier ran (only after a clean guarded run)
  bool accepted = false;      // verified: its verdict
  char verify_why[640] = {};  // verified && !accepted: "<reason_name>: <describe()>"
};

// Runs a decoded program on `mem` (r1 = a private copy, r2 = its length;
// both 0 without memory) in guarded mode, verifies it, runs it in fast
// mode, and checks r0 against `expected_r0` each time. `arena` holds the
// verification's working memory.
void check_conformance_result(const Program& program, const uint8_t* mem, size_t mem_size, uint64_t expected_r0,
                              uint64_t insn_budget, Arena& arena, const ConformanceScratch& scratch,
                              ConformanceOutcome& out);

// Decodes `size` bytes of program (conformance_decode_options) into
// `decode_arena` and checks the result as above with `verify_arena` (give
// it kConformanceArenaBytes, as `keel test-data` does): "refused with
// <decode error>" when decoding fails.
void check_conformance_file(const uint8_t* bytes, size_t size, const uint8_t* mem, size_t mem_size,
                            uint64_t expected_r0, uint64_t insn_budget, Arena& decode_arena, Arena& verify_arena,
                            const ConformanceScratch& scratch, ConformanceOutcome& out);

}  // namespace keel::suite
