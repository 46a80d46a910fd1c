// Assembler and disassembler for the text syntax of the bpf_conformance
// suite (`mov32 %r0, 0`, `ldxw %r0, [%r1+4]`, `jeq %r1, 0, +2`, labels,
// `call local name`). Disassembly assembles back to the same bytes.
//
// Syntax beyond the corpus's own (the mnemonic table is text/mnemonics.cc):
// - `#` or `;` starts a comment; `name:` defines a label (an instruction may
//   follow it on the line); an undefined `exit` names the first `exit`.
// - Registers `%r0`..`%r10` (RFC 9669 §2.3). AsmOptions::any_register_field
//   takes `%r11`..`%r15` too (the field's 4 bits), for tests that need a
//   program the decoder must reject; the disassembler prints such slots as
//   .8byte, so its output never needs them.
// - Numbers: decimal or 0x-hex, optionally signed. A 32-bit field takes
//   -2^31 .. 2^32-1 (0xffffffff is the bit pattern); lddw takes 64 bits.
// - Targets: `+N` / `-N` relative to the next slot, or a label. `ja32`
//   (gotol) and `call local +N` keep the target in imm.
// - `call N` is a helper call, `call %rN` callx (opcode 0x8d, register in
//   dst, as LLVM encodes it); `call memset` (memcpy, memmove, memcmp) is
//   the helper call of that compiler builtin (isa.h); `swap16/32/64` and
//   `<op>64` are accepted as aliases of `bswap16/32/64` and `<op>`.
// - lddw source kinds (RFC 9669 §5.4): `lddw %r1, map_fd 3`,
//   `lddw %r1, map_value 3 + 16` (next_imm = 16; `- 16` for negative),
//   `var_addr`, `code_addr`, `map_idx`, `map_idx_value` likewise.
// - Legacy packet loads: `ldabsw imm`, `ldindw %rS, imm` (also b, h).
// - `.8byte 0x<16 hex digits>`: one raw slot as a little-endian 64-bit word;
//   the disassembler prints every slot that is not a canonical instruction
//   (unknown opcode, non-zero unused field, register > 10, lddw without a
//   clean second slot) this way.
// Syntax errors are reported first (pass 1), then label and capacity
// errors in line order. Labels are found by re-scanning the text: no table,
// no limit, O(text × label references) time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/result.h"

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

struct AsmDetail {
  uint32_t line = 0;    // 1-based, of the error
  uint32_t column = 0;  // 1-based, of the error
  size_t slots = 0;     // instructions written (lddw counts two)
  /// What would have been valid at line:column ("a register %r0..%r10"), a static string; null when ok.
  const char* expected = nullptr;
};
using AsmResult = Result<AsmError, AsmDetail>;

struct AsmOptions {
  /// Take `%r11`..`%r15`, which the 4-bit register fields hold but the ISA lacks (uBPF's error tests).
  bool any_register_field = false;
};

// Assembles `text` into `out` (capacity `out_slots` 8-byte slots).
[[nodiscard]] AsmResult assemble(const char* text, size_t length, uint8_t* out, size_t out_slots,
                                 const AsmOptions& options = {});

// The longest line disassemble_one() writes, NUL included.
inline constexpr size_t kDisassemblyLineMax = 64;

// Writes one line (no newline) for the instruction at slot `index` into
// `buffer`; returns the slots consumed (2 for lddw, 0 when the buffer is too
// small). Jumps print relative offsets (`+3`, `-2`). An undecodable slot
// prints as `.8byte 0x...` so that any input round-trips.
size_t disassemble_one(const uint8_t* bytes, size_t slots, size_t index, char* buffer,
                       size_t buffer_size);

// ---- listings (`keel disasm`): names, labels and LLVM's syntax ------------

enum class Syntax : uint8_t {
  conformance,  // the syntax above (`ldxw %r2, [%r1+4]`)
  llvm,         // llvm-objdump's (`r2 = *(u32 *)(r1 + 4)`, `if r1 > 5 goto +3`)
};

// How disassemble_line() writes an instruction. Every hook is optional; a
// listing that uses them is for reading, not for assemble() (disassemble_one
// is the round-trip form).
struct ListingOptions {
  Syntax syntax = Syntax::conformance;
  /// Jumps and local calls name their target: the function starting there
  /// (function_at), else `.L<slot>`; conformance syntax writes the label in
  /// place of the offset, LLVM's keeps the offset and adds `<label>`.
  bool labels = false;
  /// The name of helper `id` for `call` ("bpf_map_lookup_elem"), or nullptr.
  const char* (*helper_name)(int32_t id) = nullptr;
  /// The name of map `index` (lddw's imm for map_fd, map_value, map_idx and
  /// map_idx_value), e.g. "counters" or ".bss", or nullptr.
  const char* (*map_name)(const void* context, uint32_t index) = nullptr;
  /// For a value address (map_value, map_idx_value: map `index`, byte `offset`): the global
  /// variable there ("hits") with the offset into it in `*within`, or nullptr.
  const char* (*variable_at)(const void* context, uint32_t index, int32_t offset, int32_t* within) = nullptr;
  /// The name of the function whose first slot is `slot`, or nullptr.
  const char* (*function_at)(const void* context, size_t slot) = nullptr;
  /// Passed to map_name, variable_at and function_at.
  const void* context = nullptr;
};

// The longest line disassemble_line() writes without its names, NUL included.
inline constexpr size_t kListingLineMax = 96;

// Writes one line (no newline) for the instruction at slot `index` as
// `options` say; returns the slots consumed (2 for lddw, 0 when the buffer
// is too small). A slot with no canonical instruction prints as `.8byte`.
size_t disassemble_line(const uint8_t* bytes, size_t slots, size_t index, const ListingOptions& options,
                        char* buffer, size_t buffer_size);

// The slot that the jump or local call at `index` goes to, into `target`;
// false for any other instruction or a target outside the program.
bool jump_target(const uint8_t* bytes, size_t slots, size_t index, size_t& target);

}  // namespace keel
