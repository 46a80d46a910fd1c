// The verdict half of the BPF service, shared by the kernel and the host
// check (kernel/tests): ELF object -> kernel program type -> decode ->
// verify, and the protocol fields that state the verdict. The kernel adds
// only what the host cannot know (verify_ns, arena_bytes) to the same
// lines, so the two can be compared field by field (docs/adr/0010).
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/decode.h"
#include "keel/elf.h"
#include "keel/verify.h"
#include "protocol.h"

namespace keel::bpf {

/// Loads an embedded object with the kernel's LoadOptions.
[[nodiscard]] ElfResult load(const uint8_t* bytes, size_t size, Arena& arena, Object& out);

/// The kernel type of a loaded program, or nullptr (no kernel section, or
/// the loader could not prepare it: ElfProgram::status).
const ProgramType* program_type(const ElfProgram& program);

/// Decodes `program` for `type`; storage from `arena`.
[[nodiscard]] DecodeResult decode_program(const ElfProgram& program, const ProgramType& type,
                                          Arena& arena, Program& out);

/// Verifies with the kernel's strict options against `object`'s maps.
[[nodiscard]] Verdict verify_program(const Program& program, const ProgramType& type,
                                     const Object& object, Arena& arena);

/// What the service says about one program, wherever it stopped.
struct Outcome {
  bool accepted = false;
  uint32_t pc = 0;              ///< the rejected instruction (slot)
  const char* reason = "ok";    ///< a stable snake_case name (reason_name, decode_error_name, ...)
  const char* stage = "verify"; ///< "load", "decode" or "verify"
  Verdict verdict;              ///< valid when stage is "verify"
};

Outcome decode_outcome(const DecodeResult& result);
Outcome verify_outcome(const Verdict& verdict);
/// A program the loader could not prepare, or whose section is no kernel type.
Outcome load_outcome(const ElfProgram& program);

/// `keel load prog=<name> insns=<slots> type=<type>`.
Line load_line(const ElfProgram& program, const ProgramType* type);
/// `keel verify prog=... insns=... verdict=accept max_insns=... stack=...` or
/// `... verdict=reject stage=... pc=... reason=...`: the fields host and
/// kernel must agree on; the kernel appends its timings.
Line verify_line(const ElfProgram& program, const Outcome& outcome);
/// `keel reject prog=... pc=... reason=...` (rejections only).
Line reject_line(const ElfProgram& program, const Outcome& outcome);

}  // namespace keel::bpf
