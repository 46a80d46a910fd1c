#include "text/mnemonics.h"

namespace keel::text {

namespace {

using namespace keel::opcode;

// ALU operation codes (RFC 9669 §4.1, Table 5) and jump codes (§4.3, Table 6).
constexpr uint8_t kAdd = 0x00, kSub = 0x10, kMul = 0x20, kDiv = 0x30, kOr = 0x40, kAnd = 0x50,
                  kLsh = 0x60, kRsh = 0x70, kNeg = 0x80, kMod = 0x90, kXor = 0xa0, kMov = 0xb0,
                  kArsh = 0xc0, kEnd = 0xd0;
constexpr uint8_t kJa = 0x00, kJeq = 0x10, kJgt = 0x20, kJge = 0x30, kJset = 0x40, kJne = 0x50,
                  kJsgt = 0x60, kJsge = 0x70, kCall = 0x80, kExit = 0x90, kJlt = 0xa0,
                  kJle = 0xb0, kJslt = 0xc0, kJsle = 0xd0;
// Atomic operations (RFC 9669 §5.3, Table 11): the ALU code, | fetch.
constexpr int32_t kAtomicAdd = 0x00, kAtomicOr = 0x40, kAtomicAnd = 0x50, kAtomicXor = 0xa0;
// Byte swaps: the source bit of ALU|END selects the target order (§4.2).
constexpr uint8_t kToLe = src_k, kToBe = src_x;

constexpr Mnemonic row(const char* name, Form form, uint8_t op, int16_t offset = 0,
                       int32_t imm = 0, uint8_t src = 0) {
  return Mnemonic{name, form, op, src, offset, imm, false};
}
constexpr Mnemonic alias(Mnemonic m) {
  m.alias = true;
  return m;
}

#define KEEL_ALU_ROWS(name, code, off)                             \
  row(name, Form::alu, cls_alu64 | (code), off),                   \
  row(name "32", Form::alu, cls_alu | (code), off),                \
  alias(row(name "64", Form::alu, cls_alu64 | (code), off))
#define KEEL_JCC_ROWS(name, code) \
  row(name, Form::jcc, cls_jmp | (code)), row(name "32", Form::jcc, cls_jmp32 | (code))
#define KEEL_ATOMIC_ROWS(name, code)                                              \
  row("lock " name, Form::stx, cls_stx | mode_atomic | size_dw, 0, code),         \
  row("lock " name "32", Form::stx, cls_stx | mode_atomic | size_w, 0, code),     \
  row("lock fetch " name, Form::stx, cls_stx | mode_atomic | size_dw, 0,          \
      (code) | atomic_fetch),                                                     \
  row("lock fetch " name "32", Form::stx, cls_stx | mode_atomic | size_w, 0,      \
      (code) | atomic_fetch)

constexpr Mnemonic kTable[] = {
    KEEL_ALU_ROWS("add", kAdd, 0),
    KEEL_ALU_ROWS("sub", kSub, 0),
    KEEL_ALU_ROWS("mul", kMul, 0),
    KEEL_ALU_ROWS("div", kDiv, 0),
    KEEL_ALU_ROWS("sdiv", kDiv, 1),  // RFC 9669 §4.1: offset 1 selects the signed form
    KEEL_ALU_ROWS("or", kOr, 0),
    KEEL_ALU_ROWS("and", kAnd, 0),
    KEEL_ALU_ROWS("lsh", kLsh, 0),
    KEEL_ALU_ROWS("rsh", kRsh, 0),
    KEEL_ALU_ROWS("mod", kMod, 0),
    KEEL_ALU_ROWS("smod", kMod, 1),
    KEEL_ALU_ROWS("xor", kXor, 0),
    KEEL_ALU_ROWS("mov", kMov, 0),
    KEEL_ALU_ROWS("arsh", kArsh, 0),
    row("neg", Form::unary, cls_alu64 | kNeg),
    row("neg32", Form::unary, cls_alu | kNeg),
    alias(row("neg64", Form::unary, cls_alu64 | kNeg)),
    // MOVSX: MOV|X with offset = the source width in bits (§4.1).
    row("movsx864", Form::alu_reg, cls_alu64 | kMov | src_x, 8),
    row("movsx1664", Form::alu_reg, cls_alu64 | kMov | src_x, 16),
    row("movsx3264", Form::alu_reg, cls_alu64 | kMov | src_x, 32),
    row("movsx832", Form::alu_reg, cls_alu | kMov | src_x, 8),
    row("movsx1632", Form::alu_reg, cls_alu | kMov | src_x, 16),
    row("le16", Form::unary, cls_alu | kEnd | kToLe, 0, 16),
    row("le32", Form::unary, cls_alu | kEnd | kToLe, 0, 32),
    row("le64", Form::unary, cls_alu | kEnd | kToLe, 0, 64),
    row("be16", Form::unary, cls_alu | kEnd | kToBe, 0, 16),
    row("be32", Form::unary, cls_alu | kEnd | kToBe, 0, 32),
    row("be64", Form::unary, cls_alu | kEnd | kToBe, 0, 64),
    row("bswap16", Form::unary, cls_alu64 | kEnd, 0, 16),
    row("bswap32", Form::unary, cls_alu64 | kEnd, 0, 32),
    row("bswap64", Form::unary, cls_alu64 | kEnd, 0, 64),
    // uBPF's older name for the unconditional swap, kept by bpf_conformance
    // (swap16.data expects 0x8877665544332211 -> 0x1122: ALU64|END).
    alias(row("swap16", Form::unary, cls_alu64 | kEnd, 0, 16)),
    alias(row("swap32", Form::unary, cls_alu64 | kEnd, 0, 32)),
    alias(row("swap64", Form::unary, cls_alu64 | kEnd, 0, 64)),

    row("ja", Form::ja, cls_jmp | kJa),
    row("ja32", Form::ja32, cls_jmp32 | kJa),
    alias(row("gotol", Form::ja32, cls_jmp32 | kJa)),
    KEEL_JCC_ROWS("jeq", kJeq),
    KEEL_JCC_ROWS("jgt", kJgt),
    KEEL_JCC_ROWS("jge", kJge),
    KEEL_JCC_ROWS("jset", kJset),
    KEEL_JCC_ROWS("jne", kJne),
    KEEL_JCC_ROWS("jsgt", kJsgt),
    KEEL_JCC_ROWS("jsge", kJsge),
    KEEL_JCC_ROWS("jlt", kJlt),
    KEEL_JCC_ROWS("jle", kJle),
    KEEL_JCC_ROWS("jslt", kJslt),
    KEEL_JCC_ROWS("jsle", kJsle),
    row("call", Form::call_helper, cls_jmp | kCall, 0, 0, 0),
    row("call local", Form::call_local, cls_jmp | kCall, 0, 0, 1),
    row("call", Form::callx, cls_jmp | kCall | src_x),
    alias(row("call helper", Form::call_helper, cls_jmp | kCall, 0, 0, 0)),
    alias(row("callx", Form::callx, cls_jmp | kCall | src_x)),
    row("exit", Form::exit, cls_jmp | kExit),

    row("lddw", Form::lddw, cls_ld | mode_imm | size_dw),
    row("ldxw", Form::ldx, cls_ldx | mode_mem | size_w),
    row("ldxh", Form::ldx, cls_ldx | mode_mem | size_h),
    row("ldxb", Form::ldx, cls_ldx | mode_mem | size_b),
    row("ldxdw", Form::ldx, cls_ldx | mode_mem | size_dw),
    row("ldxsw", Form::ldx, cls_ldx | mode_memsx | size_w),
    row("ldxsh", Form::ldx, cls_ldx | mode_memsx | size_h),
    row("ldxsb", Form::ldx, cls_ldx | mode_memsx | size_b),
    row("stw", Form::st, cls_st | mode_mem | size_w),
    row("sth", Form::st, cls_st | mode_mem | size_h),
    row("stb", Form::st, cls_st | mode_mem | size_b),
    row("stdw", Form::st, cls_st | mode_mem | size_dw),
    row("stxw", Form::stx, cls_stx | mode_mem | size_w),
    row("stxh", Form::stx, cls_stx | mode_mem | size_h),
    row("stxb", Form::stx, cls_stx | mode_mem | size_b),
    row("stxdw", Form::stx, cls_stx | mode_mem | size_dw),
    KEEL_ATOMIC_ROWS("add", kAtomicAdd),
    KEEL_ATOMIC_ROWS("or", kAtomicOr),
    KEEL_ATOMIC_ROWS("and", kAtomicAnd),
    KEEL_ATOMIC_ROWS("xor", kAtomicXor),
    row("lock xchg", Form::stx, cls_stx | mode_atomic | size_dw, 0, atomic_xchg),
    row("lock xchg32", Form::stx, cls_stx | mode_atomic | size_w, 0, atomic_xchg),
    row("lock cmpxchg", Form::stx, cls_stx | mode_atomic | size_dw, 0, atomic_cmpxchg),
    row("lock cmpxchg32", Form::stx, cls_stx | mode_atomic | size_w, 0, atomic_cmpxchg),
    // Legacy packet loads (RFC 9669 §5.5; Linux BPF_LD|BPF_ABS / BPF_IND).
    row("ldabsw", Form::ld_abs, cls_ld | mode_abs | size_w),
    row("ldabsh", Form::ld_abs, cls_ld | mode_abs | size_h),
    row("ldabsb", Form::ld_abs, cls_ld | mode_abs | size_b),
    row("ldindw", Form::ld_ind, cls_ld | mode_ind | size_w),
    row("ldindh", Form::ld_ind, cls_ld | mode_ind | size_h),
    row("ldindb", Form::ld_ind, cls_ld | mode_ind | size_b),

    row(".8byte", Form::raw, 0),
};

#undef KEEL_ALU_ROWS
#undef KEEL_JCC_ROWS
#undef KEEL_ATOMIC_ROWS

constexpr size_t kTableSize = sizeof(kTable) / sizeof(kTable[0]);

constexpr const char* kPseudoKinds[kPseudoKindCount] = {
    nullptr, "map_fd", "map_value", "var_addr", "code_addr", "map_idx", "map_idx_value",
};

bool is_reg(uint8_t r) { return r < kRegisterCount; }

// Whether `insn` has the encoding `m` names (opcode and the fields the
// mnemonic itself fixes), before looking at the free fields.
bool encodes(const Mnemonic& m, const RawInsn& insn) {
  switch (m.form) {
    case Form::alu:
      return (insn.opcode & ~src_x) == m.opcode && insn.offset == m.offset;
    case Form::jcc:
      return (insn.opcode & ~src_x) == m.opcode;
    case Form::alu_reg:
      return insn.opcode == m.opcode && insn.offset == m.offset;
    case Form::unary:
      return insn.opcode == m.opcode && insn.imm == m.imm;
    case Form::call_helper:
    case Form::call_local:
      return insn.opcode == m.opcode && insn.src == m.src;
    case Form::stx:
      return insn.opcode == m.opcode && insn.imm == m.imm;
    case Form::raw:
      return false;
    default:
      return insn.opcode == m.opcode;
  }
}

// Whether every field the text of form `m` does not show has its required
// value, and the registers it shows exist.
bool fields_canonical(const Mnemonic& m, const RawInsn& insn) {
  const bool x = (insn.opcode & src_x) != 0;
  switch (m.form) {
    case Form::alu:
    case Form::jcc:
      return is_reg(insn.dst) && (x ? is_reg(insn.src) && insn.imm == 0 : insn.src == 0);
    case Form::alu_reg:
      return is_reg(insn.dst) && is_reg(insn.src) && insn.imm == 0;
    case Form::unary:
      return is_reg(insn.dst) && insn.src == 0 && insn.offset == 0;
    case Form::ja:
      return insn.dst == 0 && insn.src == 0 && insn.imm == 0;
    case Form::ja32:
      return insn.dst == 0 && insn.src == 0 && insn.offset == 0;
    case Form::call_helper:
    case Form::call_local:
      return insn.dst == 0 && insn.offset == 0;
    case Form::callx:
      return is_reg(insn.dst) && insn.src == 0 && insn.offset == 0 && insn.imm == 0;
    case Form::exit:
      return insn.dst == 0 && insn.src == 0 && insn.offset == 0 && insn.imm == 0;
    case Form::lddw:
      return is_reg(insn.dst) && insn.src < kPseudoKindCount && insn.offset == 0;
    case Form::ldx:
      return is_reg(insn.dst) && is_reg(insn.src) && insn.imm == 0;
    case Form::st:
      return is_reg(insn.dst) && insn.src == 0;
    case Form::stx:
      return is_reg(insn.dst) && is_reg(insn.src);
    case Form::ld_abs:
      return insn.dst == 0 && insn.src == 0 && insn.offset == 0;
    case Form::ld_ind:
      return insn.dst == 0 && is_reg(insn.src) && insn.offset == 0;
    case Form::raw:
      return false;
  }
  return false;
}

}  // namespace

const Mnemonic* mnemonic_table(size_t* count) {
  *count = kTableSize;
  return kTable;
}

const Mnemonic* canonical_row(const RawInsn& insn) {
  for (const Mnemonic& m : kTable) {
    if (m.alias || !encodes(m, insn)) continue;
    // Canonical rows have distinct encodings, so the first match is the only one.
    return fields_canonical(m, insn) ? &m : nullptr;
  }
  return nullptr;
}

const char* pseudo_kind_name(uint8_t src) {
  return src < kPseudoKindCount ? kPseudoKinds[src] : nullptr;
}

const Mnemonic* canonical_at(const uint8_t* bytes, size_t slots, size_t index, RawInsn& insn, RawInsn& tail) {
  insn = read_raw(bytes, index);
  tail = RawInsn{};
  const Mnemonic* m = canonical_row(insn);
  if (m == nullptr || m->form != Form::lddw) return m;
  if (index + 1 >= slots) return nullptr;
  tail = read_raw(bytes, index + 1);
  const bool clean = tail.opcode == 0 && tail.dst == 0 && tail.src == 0 && tail.offset == 0;
  return clean ? m : nullptr;
}

}  // namespace keel::text
