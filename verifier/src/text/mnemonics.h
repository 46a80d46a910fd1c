// The one mnemonic table shared by the assembler and the disassembler, so
// the two directions cannot disagree: a row names an instruction shape, the
// opcode byte, and the fields its mnemonic fixes (RFC 9669 §3–§5). The
// disassembler picks the canonical row matching a slot and checks that every
// field the text does not show is zero; the assembler picks a row by name.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/isa.h"

namespace keel::text {

// How a row's operands are written; which raw fields the text carries.
enum class Form : uint8_t {
  alu,          // `op %dst, %src` (opcode | src_x) or `op %dst, imm`; offset fixed by the row
  alu_reg,      // `op %dst, %src` only (movsx); opcode and offset fixed
  unary,        // `op %dst`; imm and offset fixed (neg: 0, le/be/bswap: width)
  jcc,          // `op %dst, %src|imm, target`; target in offset
  ja,           // `ja target`; target in offset
  ja32,         // `ja32 target`; target in imm (gotol)
  call_helper,  // `call imm` (src 0); `call %reg` is callx
  call_local,   // `call local target`; target in imm, src 1
  callx,        // `call %dst` (LLVM's encoding: opcode 0x8d, register in dst)
  exit,         // no operands
  lddw,         // `lddw %dst, imm64` or `lddw %dst, kind imm [+|- next_imm]`; two slots
  ldx,          // `op %dst, [%src+off]`
  st,           // `op [%dst+off], imm`
  stx,          // `op [%dst+off], %src`; also the atomics (imm fixed by the row)
  ld_abs,       // `op imm` (legacy packet load)
  ld_ind,       // `op %src, imm`
  raw,          // `.8byte value`: one slot as a little-endian 64-bit word
};

struct Mnemonic {
  const char* name;  // words separated by one space (`lock fetch add32`)
  Form form;
  uint8_t opcode;    // for Form::alu / Form::jcc the K opcode; X adds opcode::src_x
  uint8_t src;       // fixed src (call rows)
  int16_t offset;    // fixed offset (alu / alu_reg / unary rows)
  int32_t imm;       // fixed imm (unary / atomic rows)
  bool alias;        // accepted by the assembler, never printed
};

// All rows, canonical spelling before any alias of the same encoding.
const Mnemonic* mnemonic_table(size_t* count);

// The canonical row whose encoding `insn` has, with every field the text
// does not carry at its required value; nullptr when the slot can only be
// printed as `.8byte`. Does not look at a lddw's second slot.
const Mnemonic* canonical_row(const RawInsn& insn);

// The canonical row of the instruction at slot `index` (bytes holds
// `slots` slots), its first slot in `insn` and, for lddw, its second in
// `tail`; nullptr when the slot prints as `.8byte` (no row, or a lddw
// without a clean second slot: RFC 9669 §5.4 gives that slot only imm).
const Mnemonic* canonical_at(const uint8_t* bytes, size_t slots, size_t index, RawInsn& insn, RawInsn& tail);

// lddw source kinds (RFC 9669 §5.4, Table 12), indexed by the src field:
// 0 is the plain 64-bit immediate and has no name.
inline constexpr uint8_t kPseudoKindCount = 7;
const char* pseudo_kind_name(uint8_t src);

}  // namespace keel::text
