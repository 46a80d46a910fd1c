// Assembler and disassembler for the text syntax of the bpf_conformance
// suite (`mov32 %r0, 0`, `ldxw %r0, [%r1+4]`, `jeq %r1, 0, +2`, labels,
// `call local name`). Disassembly assembles back to the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel {

enum class AsmError : uint8_t {
  ok,
  unknown_mnemonic,
  bad_operand,       // wrong kind or count of operands
  bad_register,
  bad_number,        // malformed or out of range for its field
  unknown_label,
  duplicate_label,
  output_full,       // more instructions than the output buffer holds
};

const char* asm_error_name(AsmError error);

struct AsmResult {
  AsmError error = AsmError::ok;
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based
  size_t slots = 0;     // instructions written (lddw counts two)
  bool ok() const { return error == AsmError::ok; }
};

// Assembles `text` into `out` (capacity `out_slots` 8-byte slots).
[[nodiscard]] AsmResult assemble(const char* text, size_t length, uint8_t* out, size_t out_slots);

// Writes one line (no newline) for the instruction at slot `index` into
// `buffer`; returns the slots consumed (2 for lddw, 0 when the buffer is too
// small). Jumps print relative offsets (`+3`, `-2`). An undecodable slot
// prints as `.8byte 0x...` so that any input round-trips.
size_t disassemble_one(const uint8_t* bytes, size_t slots, size_t index, char* buffer,
                       size_t buffer_size);

}  // namespace keel
