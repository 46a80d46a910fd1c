// The decoder's opcode table: one row per opcode byte that RFC 9669 defines,
// with what each of the four fields may hold. decode.cc does the generic
// field checks from the row and one small extra check per row `kind` for the
// encodings whose meaning depends on offset, imm or src.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/isa.h"

namespace keel::decode_table {

// What a field of the 8-byte slot may hold (RFC 9669 §3: fields an
// instruction does not use must be zero).
enum class Field : uint8_t {
  zero,   // unused: must be 0 (else reserved_field)
  any,    // any value
  read,   // a register the instruction reads: 0..10 (RFC 9669 §3.1)
  write,  // a register the instruction writes: 0..9, r10 being the read-only frame pointer
  kind,   // checked by the row's kind
};

// The extra check a row needs beyond its fields.
enum class Kind : uint8_t {
  none,     // nothing more: op is the row's op
  invalid,  // not an RFC 9669 opcode
  signed_op,  // DIV/MOD: offset 0 unsigned, 1 signed (RFC 9669 §4.1: sdiv/smod)
  movsx,    // MOV X: offset 0 mov, 8/16/32 sign-extending move (§4.1)
  endian,   // END: imm 16/32/64 selects the width (§4.2)
  ja32,     // JMP32 JA: the target is in imm (§4.3, "gotol")
  call,     // JMP CALL K: src selects helper / local / BTF id (§4.3.1, §4.3.2)
  lddw,     // LD IMM DW: src is the §5.4 source kind, a second slot follows
  atomic,   // STX ATOMIC: imm is the operation (§5.3)
  legacy,   // LD ABS/IND: only when DecodeOptions::allow_legacy_packet_loads (§5.5)
};

struct Row {
  uint8_t opcode;
  Op op;  // for kinded rows: the first of a run of consecutive Ops the kind picks from
  Kind kind;
  Field dst, src, offset, imm;
};

namespace rows {
using F = Field;
using K = Kind;
inline constexpr F Z = F::zero, A = F::any, R = F::read, W = F::write, X = F::kind;

// ALU and ALU64 (RFC 9669 §4.1, §4.2). `_K` rows take imm, `_X` rows src.
#define KEEL_ALU_K(code, op, kind, off) Row{code, Op::op, K::kind, W, Z, off, A}
#define KEEL_ALU_X(code, op, kind, off) Row{code, Op::op, K::kind, W, R, off, Z}
// Conditional jumps (§4.3): offset is the relative target.
#define KEEL_JCC_K(code, op) Row{code, Op::op, K::none, R, Z, A, A}
#define KEEL_JCC_X(code, op) Row{code, Op::op, K::none, R, R, A, Z}

inline constexpr Row kRows[] = {
    // ---- ALU: 32-bit ----
    KEEL_ALU_K(0x04, add32_imm, none, Z),   KEEL_ALU_X(0x0c, add32_reg, none, Z),
    KEEL_ALU_K(0x14, sub32_imm, none, Z),   KEEL_ALU_X(0x1c, sub32_reg, none, Z),
    KEEL_ALU_K(0x24, mul32_imm, none, Z),   KEEL_ALU_X(0x2c, mul32_reg, none, Z),
    KEEL_ALU_K(0x34, div32_imm, signed_op, X), KEEL_ALU_X(0x3c, div32_reg, signed_op, X),
    KEEL_ALU_K(0x44, or32_imm, none, Z),    KEEL_ALU_X(0x4c, or32_reg, none, Z),
    KEEL_ALU_K(0x54, and32_imm, none, Z),   KEEL_ALU_X(0x5c, and32_reg, none, Z),
    KEEL_ALU_K(0x64, lsh32_imm, none, Z),   KEEL_ALU_X(0x6c, lsh32_reg, none, Z),
    KEEL_ALU_K(0x74, rsh32_imm, none, Z),   KEEL_ALU_X(0x7c, rsh32_reg, none, Z),
    Row{0x84, Op::neg32, K::none, W, Z, Z, Z},  // NEG has no operand: K only
    KEEL_ALU_K(0x94, mod32_imm, signed_op, X), KEEL_ALU_X(0x9c, mod32_reg, signed_op, X),
    KEEL_ALU_K(0xa4, xor32_imm, none, Z),   KEEL_ALU_X(0xac, xor32_reg, none, Z),
    KEEL_ALU_K(0xb4, mov32_imm, none, Z),   KEEL_ALU_X(0xbc, mov32_reg, movsx, X),
    KEEL_ALU_K(0xc4, arsh32_imm, none, Z),  KEEL_ALU_X(0xcc, arsh32_reg, none, Z),
    Row{0xd4, Op::le16, K::endian, W, Z, Z, X},  // END TO_LE
    Row{0xdc, Op::be16, K::endian, W, Z, Z, X},  // END TO_BE
    // ---- ALU64 ----
    KEEL_ALU_K(0x07, add64_imm, none, Z),   KEEL_ALU_X(0x0f, add64_reg, none, Z),
    KEEL_ALU_K(0x17, sub64_imm, none, Z),   KEEL_ALU_X(0x1f, sub64_reg, none, Z),
    KEEL_ALU_K(0x27, mul64_imm, none, Z),   KEEL_ALU_X(0x2f, mul64_reg, none, Z),
    KEEL_ALU_K(0x37, div64_imm, signed_op, X), KEEL_ALU_X(0x3f, div64_reg, signed_op, X),
    KEEL_ALU_K(0x47, or64_imm, none, Z),    KEEL_ALU_X(0x4f, or64_reg, none, Z),
    KEEL_ALU_K(0x57, and64_imm, none, Z),   KEEL_ALU_X(0x5f, and64_reg, none, Z),
    KEEL_ALU_K(0x67, lsh64_imm, none, Z),   KEEL_ALU_X(0x6f, lsh64_reg, none, Z),
    KEEL_ALU_K(0x77, rsh64_imm, none, Z),   KEEL_ALU_X(0x7f, rsh64_reg, none, Z),
    Row{0x87, Op::neg64, K::none, W, Z, Z, Z},
    KEEL_ALU_K(0x97, mod64_imm, signed_op, X), KEEL_ALU_X(0x9f, mod64_reg, signed_op, X),
    KEEL_ALU_K(0xa7, xor64_imm, none, Z),   KEEL_ALU_X(0xaf, xor64_reg, none, Z),
    KEEL_ALU_K(0xb7, mov64_imm, none, Z),   KEEL_ALU_X(0xbf, mov64_reg, movsx, X),
    KEEL_ALU_K(0xc7, arsh64_imm, none, Z),  KEEL_ALU_X(0xcf, arsh64_reg, none, Z),
    Row{0xd7, Op::bswap16, K::endian, W, Z, Z, X},  // END under ALU64 is bswap; only the TO_LE bit (§4.2)
    // ---- JMP ----
    Row{0x05, Op::ja, K::none, Z, Z, A, Z},
    KEEL_JCC_K(0x15, jeq64_imm),  KEEL_JCC_X(0x1d, jeq64_reg),
    KEEL_JCC_K(0x25, jgt64_imm),  KEEL_JCC_X(0x2d, jgt64_reg),
    KEEL_JCC_K(0x35, jge64_imm),  KEEL_JCC_X(0x3d, jge64_reg),
    KEEL_JCC_K(0x45, jset64_imm), KEEL_JCC_X(0x4d, jset64_reg),
    KEEL_JCC_K(0x55, jne64_imm),  KEEL_JCC_X(0x5d, jne64_reg),
    KEEL_JCC_K(0x65, jsgt64_imm), KEEL_JCC_X(0x6d, jsgt64_reg),
    KEEL_JCC_K(0x75, jsge64_imm), KEEL_JCC_X(0x7d, jsge64_reg),
    Row{0x85, Op::call_helper, K::call, Z, X, Z, A},
    // callx: the register is in dst as LLVM emits it and Linux documents it
    // (Documentation/bpf/linux-notes.rst); src, offset and imm are reserved.
    Row{0x8d, Op::callx, K::none, R, Z, Z, Z},
    Row{0x95, Op::exit, K::none, Z, Z, Z, Z},
    KEEL_JCC_K(0xa5, jlt64_imm),  KEEL_JCC_X(0xad, jlt64_reg),
    KEEL_JCC_K(0xb5, jle64_imm),  KEEL_JCC_X(0xbd, jle64_reg),
    KEEL_JCC_K(0xc5, jslt64_imm), KEEL_JCC_X(0xcd, jslt64_reg),
    KEEL_JCC_K(0xd5, jsle64_imm), KEEL_JCC_X(0xdd, jsle64_reg),
    // ---- JMP32 (no CALL or EXIT in this class) ----
    Row{0x06, Op::ja, K::ja32, Z, Z, Z, A},
    KEEL_JCC_K(0x16, jeq32_imm),  KEEL_JCC_X(0x1e, jeq32_reg),
    KEEL_JCC_K(0x26, jgt32_imm),  KEEL_JCC_X(0x2e, jgt32_reg),
    KEEL_JCC_K(0x36, jge32_imm),  KEEL_JCC_X(0x3e, jge32_reg),
    KEEL_JCC_K(0x46, jset32_imm), KEEL_JCC_X(0x4e, jset32_reg),
    KEEL_JCC_K(0x56, jne32_imm),  KEEL_JCC_X(0x5e, jne32_reg),
    KEEL_JCC_K(0x66, jsgt32_imm), KEEL_JCC_X(0x6e, jsgt32_reg),
    KEEL_JCC_K(0x76, jsge32_imm), KEEL_JCC_X(0x7e, jsge32_reg),
    KEEL_JCC_K(0xa6, jlt32_imm),  KEEL_JCC_X(0xae, jlt32_reg),
    KEEL_JCC_K(0xb6, jle32_imm),  KEEL_JCC_X(0xbe, jle32_reg),
    KEEL_JCC_K(0xc6, jslt32_imm), KEEL_JCC_X(0xce, jslt32_reg),
    KEEL_JCC_K(0xd6, jsle32_imm), KEEL_JCC_X(0xde, jsle32_reg),
    // ---- LD: lddw, legacy packet loads (no DW size for those) ----
    Row{0x18, Op::lddw_imm64, K::lddw, W, X, Z, A},
    // Linux's rules for the reserved fields: ABS takes imm only, IND src + imm;
    // both write r0 implicitly, so dst is unused.
    Row{0x20, Op::ld_abs_w, K::legacy, Z, Z, Z, A},
    Row{0x28, Op::ld_abs_h, K::legacy, Z, Z, Z, A},
    Row{0x30, Op::ld_abs_b, K::legacy, Z, Z, Z, A},
    Row{0x40, Op::ld_ind_w, K::legacy, Z, R, Z, A},
    Row{0x48, Op::ld_ind_h, K::legacy, Z, R, Z, A},
    Row{0x50, Op::ld_ind_b, K::legacy, Z, R, Z, A},
    // ---- LDX: dst = [src + offset]; MEMSX has no DW (§5.2) ----
    Row{0x61, Op::ldxw, K::none, W, R, A, Z},
    Row{0x69, Op::ldxh, K::none, W, R, A, Z},
    Row{0x71, Op::ldxb, K::none, W, R, A, Z},
    Row{0x79, Op::ldxdw, K::none, W, R, A, Z},
    Row{0x81, Op::ldxsw, K::none, W, R, A, Z},
    Row{0x89, Op::ldxsh, K::none, W, R, A, Z},
    Row{0x91, Op::ldxsb, K::none, W, R, A, Z},
    // ---- ST: [dst + offset] = imm; dst is only read, so r10 is fine ----
    Row{0x62, Op::stw, K::none, R, Z, A, A},
    Row{0x6a, Op::sth, K::none, R, Z, A, A},
    Row{0x72, Op::stb, K::none, R, Z, A, A},
    Row{0x7a, Op::stdw, K::none, R, Z, A, A},
    // ---- STX: [dst + offset] = src; atomics only W and DW (§5.3) ----
    Row{0x63, Op::stxw, K::none, R, R, A, Z},
    Row{0x6b, Op::stxh, K::none, R, R, A, Z},
    Row{0x73, Op::stxb, K::none, R, R, A, Z},
    Row{0x7b, Op::stxdw, K::none, R, R, A, Z},
    Row{0xc3, Op::atomic32_add, K::atomic, R, R, A, X},
    Row{0xdb, Op::atomic64_add, K::atomic, R, R, A, X},
};

#undef KEEL_ALU_K
#undef KEEL_ALU_X
#undef KEEL_JCC_K
#undef KEEL_JCC_X
}  // namespace rows

inline constexpr size_t kDefinedOpcodes = sizeof(rows::kRows) / sizeof(rows::kRows[0]);

struct Table {
  Row row[256];
};

// Spreads the rows over all 256 opcode bytes; a byte with no row is invalid.
constexpr Table build() {
  Table table{};
  for (size_t i = 0; i < 256; ++i) {
    table.row[i] = Row{static_cast<uint8_t>(i), Op::count_, Kind::invalid, Field::zero, Field::zero,
                       Field::zero, Field::zero};
  }
  for (const Row& row : rows::kRows) table.row[row.opcode] = row;
  return table;
}

inline constexpr Table kTable = build();

// Each opcode appears once: a duplicate row would shadow another.
constexpr bool rows_unique() {
  for (size_t i = 0; i < kDefinedOpcodes; ++i)
    for (size_t j = i + 1; j < kDefinedOpcodes; ++j)
      if (rows::kRows[i].opcode == rows::kRows[j].opcode) return false;
  return true;
}
static_assert(rows_unique(), "two rows for one opcode byte");
static_assert(kDefinedOpcodes == 126, "RFC 9669 defines 126 opcode bytes (legacy ABS/IND included)");

}  // namespace keel::decode_table
