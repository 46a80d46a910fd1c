// The LLVM syntax of a listing (keel/text.h Syntax::llvm): what
// llvm-objdump -d prints for BPF (LLVM's BPFInstrInfo.td asm strings:
// `r2 = *(u32 *)(r1 + 4)`, `if w1 s> 5 goto -3`, `lock *(u64 *)(r1 + 0) += r2`).
// Which slots are instructions is the conformance table's decision
// (text::canonical_row), so both syntaxes print `.8byte` for the same slots.
#include "keel/isa.h"
#include "support/bytes.h"
#include "text/listing.h"
#include "text/mnemonics.h"

namespace keel::text {

namespace {

using namespace keel::opcode;

class Writer : public TextWriter {
 public:
  using TextWriter::TextWriter;
  // `r3`, or `w3` for the 32-bit view of a register.
  void reg(uint8_t r, bool wide = true) {
    put(wide ? 'r' : 'w');
    decimal(r);
  }
  // `(r1 + 4)`, `(r10 - 8)`.
  void address(uint8_t r, int64_t offset) {
    put('(');
    reg(r);
    put(offset < 0 ? " - " : " + ");
    decimal(offset < 0 ? 0 - static_cast<uint64_t>(offset) : static_cast<uint64_t>(offset));
    put(')');
  }
  // `*(u32 *)(r1 + 4)`; `s` for the sign-extending loads.
  void memory(uint8_t size, uint8_t r, int64_t offset, bool sign = false) {
    put("*(");
    width(size, sign);
    put(" *)");
    address(r, offset);
  }
  void width(uint8_t size, bool sign = false) {
    put(sign ? 's' : 'u');
    decimal(size == size_b ? 8 : size == size_h ? 16 : size == size_w ? 32 : 64);
  }
};

// ALU operators by RFC 9669 §4.1 code (Table 5); offset 1 makes div and mod signed.
const char* alu_operator(uint8_t code, int16_t offset) {
  switch (code) {
    case 0x00: return "+=";
    case 0x10: return "-=";
    case 0x20: return "*=";
    case 0x30: return offset == 1 ? "s/=" : "/=";
    case 0x40: return "|=";
    case 0x50: return "&=";
    case 0x60: return "<<=";
    case 0x70: return ">>=";
    case 0x90: return offset == 1 ? "s%=" : "%=";
    case 0xa0: return "^=";
    case 0xb0: return "=";
    case 0xc0: return "s>>=";
  }
  return "?=";
}

// Jump comparisons by §4.3 code (Table 6).
const char* jump_operator(uint8_t code) {
  switch (code) {
    case 0x10: return "==";
    case 0x20: return ">";
    case 0x30: return ">=";
    case 0x40: return "&";
    case 0x50: return "!=";
    case 0x60: return "s>";
    case 0x70: return "s>=";
    case 0xa0: return "<";
    case 0xb0: return "<=";
    case 0xc0: return "s<";
    case 0xd0: return "s<=";
  }
  return "?";
}

// Atomic operations by §5.3 code (Table 11), without the fetch bit.
const char* atomic_name(int32_t code) {
  switch (code) {
    case 0x00: return "add";
    case 0x40: return "or";
    case 0x50: return "and";
    case 0xa0: return "xor";
  }
  return "?";
}

// `+3` / `-3`, and ` <label>` when the listing names targets.
void target(Writer& w, const ListingOptions& options, size_t index, int64_t relative) {
  w.signed_decimal(relative, true);
  if (!options.labels) return;
  w.put(" <");
  write_label(w, options, static_cast<int64_t>(index) + 1 + relative);
  w.put('>');
}

void write_alu(Writer& w, const Mnemonic& m, const RawInsn& insn) {
  const bool wide = class_of(insn.opcode) == cls_alu64;
  const uint8_t code = insn.opcode & 0xf0;
  const bool x = (insn.opcode & src_x) != 0;
  if (code == 0x80) {  // neg
    w.reg(insn.dst, wide);
    w.put(" = -");
    w.reg(insn.dst, wide);
    return;
  }
  if (code == 0xd0) {  // byte swaps: `r1 = be16 r1`, `r1 = bswap32 r1`
    w.reg(insn.dst);
    w.put(" = ");
    w.put(wide ? "bswap" : x ? "be" : "le");
    w.decimal(static_cast<uint64_t>(insn.imm));
    w.put(' ');
    w.reg(insn.dst);
    return;
  }
  w.reg(insn.dst, wide);
  w.put(' ');
  if (m.form == Form::alu_reg) {  // movsx: `r1 = (s8)r2`
    w.put("= (s");
    w.decimal(static_cast<uint64_t>(insn.offset));
    w.put(')');
    w.reg(insn.src, wide);
    return;
  }
  w.put(alu_operator(code, insn.offset));
  w.put(' ');
  if (x) {
    w.reg(insn.src, wide);
  } else {
    w.signed_decimal(insn.imm);
  }
}

void write_jump(Writer& w, const Mnemonic& m, const RawInsn& insn, const ListingOptions& options, size_t index) {
  switch (m.form) {
    case Form::ja:
      w.put("goto ");
      target(w, options, index, insn.offset);
      return;
    case Form::ja32:
      w.put("gotol ");
      target(w, options, index, insn.imm);
      return;
    case Form::exit:
      w.put("exit");
      return;
    case Form::callx:
      w.put("callx ");
      w.reg(insn.dst);
      return;
    case Form::call_local:
      w.put("call ");
      w.signed_decimal(insn.imm);
      if (options.labels) {
        w.put(" <");
        write_label(w, options, static_cast<int64_t>(index) + 1 + insn.imm);
        w.put('>');
      }
      return;
    case Form::call_helper: {
      w.put("call ");
      const char* builtin = builtin_name(static_cast<uint64_t>(int64_t{insn.imm}));
      const char* helper = builtin == nullptr ? helper_name(options, insn.imm) : nullptr;
      if (builtin != nullptr) {
        w.put(builtin);
      } else if (helper != nullptr) {
        w.put(helper);
      } else {
        w.signed_decimal(insn.imm);
      }
      return;
    }
    default:
      break;
  }
  const bool wide = class_of(insn.opcode) == cls_jmp;
  w.put("if ");
  w.reg(insn.dst, wide);
  w.put(' ');
  w.put(jump_operator(insn.opcode & 0xf0));
  w.put(' ');
  if ((insn.opcode & src_x) != 0) {
    w.reg(insn.src, wide);
  } else {
    w.signed_decimal(insn.imm);
  }
  w.put(" goto ");
  target(w, options, index, insn.offset);
}

void write_atomic(Writer& w, const RawInsn& insn) {
  const uint8_t size = insn.opcode & 0x18;
  const bool wide = size == size_dw;
  if (insn.imm == atomic_xchg || insn.imm == atomic_cmpxchg) {
    const bool cmp = insn.imm == atomic_cmpxchg;
    w.reg(cmp ? 0 : insn.src, wide);
    w.put(cmp ? " = cmpxchg" : " = xchg");
    w.put(wide ? "_64(" : "32_32(");
    w.reg(insn.dst);
    w.put(insn.offset < 0 ? " - " : " + ");
    w.decimal(insn.offset < 0 ? 0 - static_cast<uint64_t>(int64_t{insn.offset}) : static_cast<uint64_t>(insn.offset));
    w.put(", ");
    if (cmp) {
      w.reg(0, wide);
      w.put(", ");
    }
    w.reg(insn.src, wide);
    w.put(')');
    return;
  }
  const int32_t code = insn.imm & ~atomic_fetch;
  if ((insn.imm & atomic_fetch) != 0) {  // `r2 = atomic_fetch_add((u64 *)(r1 + 0), r2)`
    w.reg(insn.src, wide);
    w.put(" = atomic_fetch_");
    w.put(atomic_name(code));
    w.put("((");
    w.width(size);
    w.put(" *)");
    w.address(insn.dst, insn.offset);
    w.put(", ");
    w.reg(insn.src, wide);
    w.put(')');
    return;
  }
  w.put("lock ");  // `lock *(u64 *)(r1 + 0) += r2`
  w.memory(size, insn.dst, insn.offset);
  w.put(' ');
  w.put(code == 0x00 ? "+=" : code == 0x40 ? "|=" : code == 0x50 ? "&=" : "^=");
  w.put(' ');
  // LLVM decodes the 32-bit add as the original XADDW, with a 64-bit
  // register name; or/and/xor exist only in the alu32 form (`w`).
  w.reg(insn.src, wide || code == 0x00);
}

size_t write_insn(Writer& w, const Mnemonic& m, const RawInsn& insn, const RawInsn& tail, const ListingOptions& options,
                  size_t index) {
  const uint8_t cls = class_of(insn.opcode);
  const uint8_t size = insn.opcode & 0x18;
  switch (m.form) {
    case Form::alu:
    case Form::alu_reg:
    case Form::unary:
      write_alu(w, m, insn);
      return 1;
    case Form::lddw:
      w.reg(insn.dst);
      w.put(" = ");
      if (!write_map_name(w, options, insn.src, insn.imm, tail.imm)) {
        if (insn.src == 0) {
          const uint64_t value = (static_cast<uint64_t>(static_cast<uint32_t>(tail.imm)) << 32) |
                                 static_cast<uint32_t>(insn.imm);
          w.signed_decimal(static_cast<int64_t>(value));
        } else {
          w.put(pseudo_kind_name(insn.src));
          w.put(' ');
          w.signed_decimal(insn.imm);
          if (tail.imm != 0) {
            w.put(tail.imm < 0 ? " - " : " + ");
            w.decimal(tail.imm < 0 ? 0 - static_cast<uint64_t>(int64_t{tail.imm}) : static_cast<uint64_t>(tail.imm));
          }
        }
      }
      w.put(" ll");
      return 2;
    case Form::ldx:
      w.reg(insn.dst);
      w.put(" = ");
      w.memory(size, insn.src, insn.offset, (insn.opcode & 0xe0) == mode_memsx);
      return 1;
    case Form::st:
      w.memory(size, insn.dst, insn.offset);
      w.put(" = ");
      w.signed_decimal(insn.imm);
      return 1;
    case Form::stx:
      if ((insn.opcode & 0xe0) == mode_atomic) {
        write_atomic(w, insn);
        return 1;
      }
      w.memory(size, insn.dst, insn.offset);
      w.put(" = ");
      w.reg(insn.src);
      return 1;
    case Form::ld_abs:
    case Form::ld_ind:  // `r0 = *(u8 *)skb[12]`, `r0 = *(u8 *)skb[r1 + 12]`
      w.put("r0 = *(");
      w.width(size);
      w.put(" *)skb[");
      if (m.form == Form::ld_ind) {
        w.reg(insn.src);
        if (insn.imm != 0) {
          w.put(insn.imm < 0 ? " - " : " + ");
          w.decimal(insn.imm < 0 ? 0 - static_cast<uint64_t>(int64_t{insn.imm}) : static_cast<uint64_t>(insn.imm));
        }
      } else {
        w.signed_decimal(insn.imm);
      }
      w.put(']');
      return 1;
    case Form::raw:
      break;
    default:
      if (cls == cls_jmp || cls == cls_jmp32) {
        write_jump(w, m, insn, options, index);
        return 1;
      }
      break;
  }
  return 0;
}

}  // namespace

size_t disassemble_llvm(const uint8_t* bytes, size_t slots, size_t index, const ListingOptions& options,
                        char* buffer, size_t buffer_size) {
  Writer w(buffer, buffer_size);
  RawInsn insn{}, tail{};
  const Mnemonic* m = canonical_at(bytes, slots, index, insn, tail);
  size_t consumed = m != nullptr ? write_insn(w, *m, insn, tail, options, index) : 0;
  if (consumed == 0) {  // what the conformance table has no row for
    w.put(".8byte ");
    w.hex(bytes::load<uint64_t>(bytes + index * 8), 16);
    consumed = 1;
  }
  return w.finish_whole() ? consumed : 0;
}

}  // namespace keel::text
