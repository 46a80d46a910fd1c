// The decoded instruction form shared by every stage after the decoder.
// One `Insn` per 8-byte slot of the input, so a pc is the same number in the
// input, in diagnostics and in the interpreter (as in Linux). The second slot
// of a `lddw` holds Op::lddw_tail and is never executed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel {

// Opcode fields (RFC 9669 §3, §4, §5). Used by the decoder, the assembler
// and the disassembler; later stages switch on Op instead.
namespace opcode {
inline constexpr uint8_t cls_ld = 0x00, cls_ldx = 0x01, cls_st = 0x02, cls_stx = 0x03,
                         cls_alu = 0x04, cls_jmp = 0x05, cls_jmp32 = 0x06, cls_alu64 = 0x07;
inline constexpr uint8_t src_k = 0x00, src_x = 0x08;
inline constexpr uint8_t size_w = 0x00, size_h = 0x08, size_b = 0x10, size_dw = 0x18;
inline constexpr uint8_t mode_imm = 0x00, mode_abs = 0x20, mode_ind = 0x40, mode_mem = 0x60,
                         mode_memsx = 0x80, mode_atomic = 0xc0;
inline constexpr int32_t atomic_fetch = 0x01, atomic_xchg = 0xe0 | atomic_fetch,
                         atomic_cmpxchg = 0xf0 | atomic_fetch;
inline constexpr uint8_t class_of(uint8_t op) { return op & 0x07; }
}  // namespace opcode

inline constexpr uint32_t kRegisterCount = 11;  // r0..r10; r10 is the read-only frame pointer
inline constexpr uint32_t kStackSize = 512;     // bytes per frame (RFC 9669 §2.4 leaves it to the platform; Linux uses 512)
inline constexpr uint32_t kMaxCallDepth = 8;    // frames, as Linux's MAX_CALL_FRAMES

// Every operation the ISA defines, one value per (operation, operand kind,
// width) so the interpreter's dispatch needs no further decoding.
// Naming: <operation><width>_<operand>; `_imm` uses Insn::imm, `_reg` uses src.
#define KEEL_ALU_OPS(X)                                                             \
  X(add) X(sub) X(mul) X(div) X(sdiv) X(or) X(and) X(lsh) X(rsh) X(mod) X(smod)   \
  X(xor) X(mov) X(arsh)
#define KEEL_JMP_OPS(X) \
  X(jeq) X(jgt) X(jge) X(jset) X(jne) X(jsgt) X(jsge) X(jlt) X(jle) X(jslt) X(jsle)
#define KEEL_ATOMIC_OPS(X) X(add) X(or) X(and) X(xor)

enum class Op : uint8_t {
#define KEEL_ALU_ENUM(name) name##64_imm, name##64_reg, name##32_imm, name##32_reg,
  KEEL_ALU_OPS(KEEL_ALU_ENUM)
#undef KEEL_ALU_ENUM
  neg64, neg32,
  movsx64_8, movsx64_16, movsx64_32, movsx32_8, movsx32_16,
  le16, le32, le64, be16, be32, be64, bswap16, bswap32, bswap64,
#define KEEL_JMP_ENUM(name) name##64_imm, name##64_reg, name##32_imm, name##32_reg,
  KEEL_JMP_OPS(KEEL_JMP_ENUM)
#undef KEEL_JMP_ENUM
  ja,            // offset = relative target (ja32/gotol's imm is moved here too)
  call_helper,   // imm = helper id
  call_local,    // offset = relative target of the callee (RFC's imm, moved)
  callx,         // dst = register holding the helper id (Linux/LLVM encoding)
  exit,
  // lddw by source kind (RFC 9669 §5.4); imm holds the full 64-bit immediate
  // for kind imm64, the 32-bit handle / index for the pseudo kinds, whose
  // `next_imm` (e.g. the offset into a map value) is the lddw_tail's imm.
  lddw_imm64, lddw_map_fd, lddw_map_value, lddw_var_addr, lddw_code_addr,
  lddw_map_idx, lddw_map_idx_value,
  lddw_tail,     // the second slot of any lddw; imm = that slot's imm (next_imm)
  ldxb, ldxh, ldxw, ldxdw, ldxsb, ldxsh, ldxsw,
  stb, sth, stw, stdw,        // [dst + offset] = imm
  stxb, stxh, stxw, stxdw,    // [dst + offset] = src
#define KEEL_ATOMIC_ENUM(name) atomic32_##name, atomic32_fetch_##name, atomic64_##name, atomic64_fetch_##name,
  KEEL_ATOMIC_OPS(KEEL_ATOMIC_ENUM)
#undef KEEL_ATOMIC_ENUM
  atomic32_xchg, atomic64_xchg, atomic32_cmpxchg, atomic64_cmpxchg,
  ld_abs_b, ld_abs_h, ld_abs_w, ld_ind_b, ld_ind_h, ld_ind_w,  // legacy packet loads
  count_
};

inline constexpr size_t kOpCount = static_cast<size_t>(Op::count_);

// 16 bytes. `offset` is the RFC's 16-bit offset sign-extended, except for
// jumps and local calls where it is the relative target whatever field it
// was encoded in. `imm` is the RFC's 32-bit immediate sign-extended, or the
// full 64-bit value of lddw_imm64. The second slot's imm (`next_imm`, an
// offset into a map value for example) is the imm of the lddw_tail Insn.
struct Insn {
  Op op;
  uint8_t dst;
  uint8_t src;
  uint8_t opcode;   // the raw opcode byte, kept for diagnostics
  int32_t offset;
  int64_t imm;
};
static_assert(sizeof(Insn) == 16);

struct Program {
  const Insn* insns = nullptr;
  uint32_t count = 0;  // slots, lddw counting two
};

// Raw 8-byte instruction fields (RFC 9669 §3: little-endian, dst in the
// low nibble of the register byte).
struct RawInsn {
  uint8_t opcode;
  uint8_t dst;
  uint8_t src;
  int16_t offset;
  int32_t imm;
};

// Reads slot `index` of a little-endian instruction stream.
RawInsn read_raw(const uint8_t* bytes, size_t index);
// Writes one slot.
void write_raw(uint8_t* bytes, size_t index, const RawInsn& insn);

// Stable lower-case name of an operation (for diagnostics and tests).
const char* op_name(Op op);

// keel's compiler builtins (docs/adr/0011): clang lowers some
// __builtin_mem* calls to calls of the C functions, which Linux lacks. They
// are helper calls (src 0) with these ids, far above Linux's (211 in 6.1),
// offered by every program type and run by the interpreter itself.
// Arguments as in C: memset(r1 dst, r2 byte, r3 n), memcpy/memmove(r1 dst,
// r2 src, r3 n), memcmp(r1 a, r2 b, r3 n); memcmp's r0 is -1, 0 or 1, the
// others leave r0 undefined (the verifier treats it as unset).
inline constexpr int32_t kBuiltinMemset = 0x10000, kBuiltinMemcpy = 0x10001,
                         kBuiltinMemmove = 0x10002, kBuiltinMemcmp = 0x10003;
inline constexpr bool is_builtin(uint64_t id) {
  return id - uint64_t{kBuiltinMemset} <= uint64_t{kBuiltinMemcmp - kBuiltinMemset};
}
// "memset", ... for a builtin id, otherwise nullptr.
const char* builtin_name(uint64_t id);
// The id of the builtin called `name` (ended by a NUL or after `length` bytes), or 0.
int32_t builtin_id(const char* name, size_t length);

}  // namespace keel
