#include "bpf/pipeline.h"

#include "bpf/program_types.h"

namespace keel::bpf {

ElfResult load(const uint8_t* bytes, size_t size, Arena& arena, Object& out) {
  return load_object(bytes, size, load_options(), arena, out);
}

const ProgramType* program_type(const ElfProgram& program) {
  if (!program.status.ok()) return nullptr;
  return find_program_type(platform(), program.type_name);
}

DecodeResult decode_program(const ElfProgram& program, const ProgramType& type, Arena& arena,
                            Program& out) {
  return decode(program.insns, size_t{program.slots} * 8, decode_options(type), arena, out);
}

Verdict verify_program(const Program& program, const ProgramType& type, const Object& object,
                       Arena& arena) {
  return verify(program, type, verify_options(object.maps, object.map_count), arena);
}

Outcome decode_outcome(const DecodeResult& result) {
  Outcome outcome;
  outcome.accepted = false;
  outcome.pc = result.pc;
  outcome.reason = decode_error_name(result.error);
  outcome.stage = "decode";
  return outcome;
}

Outcome verify_outcome(const Verdict& verdict) {
  Outcome outcome;
  outcome.accepted = verdict.ok();
  outcome.pc = verdict.pc;
  outcome.reason = reason_name(verdict.reason);
  outcome.stage = "verify";
  outcome.verdict = verdict;
  return outcome;
}

Outcome load_outcome(const ElfProgram& program) {
  Outcome outcome;
  outcome.accepted = false;
  outcome.stage = "load";
  outcome.reason = program.status.ok() ? "not_a_kernel_program_type" : elf_error_name(program.status.error);
  return outcome;
}

Line load_line(const ElfProgram& program, const ProgramType* type) {
  Line line("load");
  line.str("prog", program.name).dec("insns", program.slots);
  line.str("type", type != nullptr ? type->name : "none");
  return line;
}

Line verify_line(const ElfProgram& program, const Outcome& outcome) {
  Line line("verify");
  line.str("prog", program.name).dec("insns", program.slots);
  if (outcome.accepted) {
    line.str("verdict", "accept").dec("max_insns", outcome.verdict.max_insns_executed)
        .dec("stack", outcome.verdict.stack_depth);
  } else {
    line.str("verdict", "reject").str("stage", outcome.stage).dec("pc", outcome.pc)
        .str("reason", outcome.reason);
  }
  return line;
}

Line reject_line(const ElfProgram& program, const Outcome& outcome) {
  Line line("reject");
  line.str("prog", program.name).dec("pc", outcome.pc).str("reason", outcome.reason);
  return line;
}

}  // namespace keel::bpf
