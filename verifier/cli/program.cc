#include "program.h"

#include <cstdio>
#include <cstring>
#include <vector>

#include "conformance_case.h"
#include "conformance_helpers.h"
#include "keel/arena.h"

namespace keel::cli {

AsmResult assemble_text(const std::string& text, Bytes& out, const AsmOptions& options) {
  // Every line yields at most two slots (lddw); retry if the assembler
  // still asks for more (e.g. lines joined by a separator).
  size_t lines = 1;
  for (const char c : text) lines += c == '\n';
  size_t slots = 2 * lines + 2;
  for (;;) {
    out.assign(slots * 8, 0);
    const AsmResult result = assemble(text.data(), text.size(), out.data(), slots, options);
    if (result.error == AsmError::output_full && slots < (size_t{1} << 26)) {
      slots *= 4;
      continue;
    }
    out.resize(result.ok() ? result.slots * 8 : 0);
    return result;
  }
}

std::string asm_error_message(const std::string& name, const AsmResult& result) {
  return name + ":" + std::to_string(result.line) + ":" + std::to_string(result.column) +
         ": error: " + asm_error_name(result.error) +
         (result.expected != nullptr ? std::string(": expected ") + result.expected : std::string());
}

std::string raw_program_problem(const Bytes& bytes) {
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "\x7f" "ELF", 4) == 0)
    return "ELF objects are not supported yet by this command (keel verify and keel disasm take them)";
  if (bytes.empty()) return "empty program";
  if (bytes.size() % 8 != 0)
    return "length " + std::to_string(bytes.size()) + " is not a multiple of 8 (eBPF instructions are 8 bytes)";
  return "";
}

Bytes load_program_file(const std::string& path) { return program_from_bytes(path, read_file(path)); }

Bytes program_from_bytes(const std::string& path, Bytes bytes) {
  if (has_extension(path, ".s")) {
    const std::string text(bytes.begin(), bytes.end());
    const AsmResult result = assemble_text(text, bytes);
    if (!result.ok()) throw DiagnosticError(asm_error_message(path, result));
    if (bytes.empty()) throw CliError(path + ": no instructions");
    return bytes;
  }
  const std::string problem = raw_program_problem(bytes);
  if (!problem.empty()) throw CliError(path + ": " + problem);
  return bytes;
}

DecodeResult DecodedProgram::decode(const Bytes& bytes) {
  const DecodeOptions options = suite::conformance_decode_options();
  // The decoded form is 16 bytes a slot; leave the decoder room for its
  // own tables and grow the arena only if it really runs out.
  size_t size = bytes.size() * 8 + 65536;
  for (;;) {
    memory_ = std::make_unique<uint8_t[]>(size);
    Arena arena(memory_.get(), size);
    program_ = Program{};
    const DecodeResult result = keel::decode(bytes.data(), bytes.size(), options, arena, program_);
    if (result.error == DecodeError::out_of_memory && size < (size_t{1} << 30)) {
      size *= 4;
      continue;
    }
    return result;
  }
}

RunResult execute(const Program& program, const Bytes& memory, RunMode mode, uint64_t budget) {
  Bytes copy = memory;
  const auto stack = std::make_unique<RunStack>();
  const uint64_t base = copy.empty() ? 0 : reinterpret_cast<uintptr_t>(copy.data());

  suite::HelperMemory helper_memory;
  helper_memory.add(base, copy.size());
  helper_memory.add(reinterpret_cast<uintptr_t>(stack->bytes), sizeof stack->bytes);
  const HelperTable helpers = suite::conformance_helper_table(helper_memory);

  const Region region{base, copy.size(), true};
  RunOptions options;
  options.mode = mode;
  options.insn_budget = budget;
  options.helpers = &helpers;
  options.regions = copy.empty() ? nullptr : &region;
  options.region_count = copy.empty() ? 0 : 1;
  return run(program, base, copy.size(), options, *stack);
}

std::string trap_message(const RunResult& result) {
  std::string message = std::string("trap: ") + run_status_name(result.status) + " at pc " + std::to_string(result.pc);
  if (result.status == RunStatus::out_of_bounds || result.status == RunStatus::address_overflow)
    message += " (address " + hex(result.address) + ")";
  return message;
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

uint64_t slot_at(const Bytes& bytes, size_t slot) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = value << 8 | bytes[slot * 8 + static_cast<size_t>(i)];
  return value;
}

std::string roundtrip_problem(const Bytes& bytes) {
  const size_t slots = bytes.size() / 8;
  std::vector<std::string> lines;
  std::string text;
  char line[256];
  for (size_t pc = 0; pc < slots;) {
    const size_t used = disassemble_one(bytes.data(), slots, pc, line, sizeof line);
    if (used == 0) return "disassembler: nothing printed for pc " + std::to_string(pc);
    lines.emplace_back(line);
    text += lines.back() + "\n";
    pc += used;
  }
  Bytes again;
  const AsmResult result = assemble_text(text, again);
  if (!result.ok()) {
    const std::string source = result.line >= 1 && result.line <= lines.size() ? lines[result.line - 1] : "?";
    return "round trip: the disassembly \"" + source + "\" does not assemble (" + asm_error_name(result.error) + ")";
  }
  if (again == bytes) return "";
  for (size_t slot = 0; slot < slots; ++slot) {
    if (slot * 8 >= again.size() || slot_at(again, slot) != slot_at(bytes, slot))
      return "round trip: slot " + std::to_string(slot) + " " + hex(slot_at(bytes, slot)) + " comes back as " +
             (slot * 8 < again.size() ? hex(slot_at(again, slot)) : "nothing");
  }
  return "round trip: " + std::to_string(again.size() / 8) + " slots come back from " + std::to_string(slots);
}

}  // namespace keel::cli
