// Disassembler: one slot (two for lddw) to one line of the syntax that
// assemble() reads, chosen so that assembling the line gives back the very
// same bytes. Anything the canonical text cannot carry prints as `.8byte`.
#include "keel/isa.h"
#include "keel/text.h"
#include "support/bytes.h"
#include "text/mnemonics.h"

namespace keel {

namespace {

using text::Form;
using text::Mnemonic;

// Appends to a caller buffer, remembering whether anything did not fit.
class Writer {
 public:
  Writer(char* buffer, size_t size) : buffer_(buffer), size_(size) {}

  void put(char c) {
    if (length_ + 1 < size_) buffer_[length_] = c;
    ++length_;
  }
  void put(const char* s) {
    while (*s != '\0') put(*s++);
  }
  void unsigned_decimal(uint64_t value) {
    char digits[20];
    size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (n > 0) put(digits[--n]);
  }
  void hex(uint64_t value, size_t min_digits) {
    put("0x");
    char digits[16];
    size_t n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value & 0xf];
      value >>= 4;
    } while (value != 0);
    while (n < min_digits) digits[n++] = '0';
    while (n > 0) put(digits[--n]);
  }
  // `+N` / `-N`, or `N` / `-N` without `plus`.
  void signed_decimal(int64_t value, bool plus) {
    const uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    if (value < 0) {
      put('-');
    } else if (plus) {
      put('+');
    }
    unsigned_decimal(magnitude);
  }
  // An immediate: small values in decimal, others as the field's bit
  // pattern in hex (masks read better that way); both assemble identically.
  void immediate(int64_t value, int bits) {
    if (value > -0x10000 && value < 0x10000) {
      signed_decimal(value, false);
    } else {
      const uint64_t pattern = bits == 64 ? static_cast<uint64_t>(value)
                                          : static_cast<uint64_t>(value) & 0xffffffffu;
      hex(pattern, 1);
    }
  }
  void reg(uint8_t r) {
    put("%r");
    unsigned_decimal(r);
  }
  void memory(uint8_t r, int16_t offset) {
    put('[');
    reg(r);
    if (offset != 0) signed_decimal(offset, true);
    put(']');
  }
  void separator() { put(", "); }

  // NUL-terminates; false when the line did not fit.
  bool finish() {
    if (size_ == 0) return false;
    if (length_ + 1 > size_) {
      buffer_[0] = '\0';
      return false;
    }
    buffer_[length_] = '\0';
    return true;
  }

 private:
  char* buffer_;
  size_t size_;
  size_t length_ = 0;
};

void write_raw_slot(Writer& w, const uint8_t* slot) {
  w.put(".8byte ");
  w.hex(bytes::load<uint64_t>(slot), 16);
}

// The second slot of a lddw carries only imm (RFC 9669 §5.4).
bool clean_tail(const RawInsn& tail) {
  return tail.opcode == 0 && tail.dst == 0 && tail.src == 0 && tail.offset == 0;
}

// Writes the operands of `insn` for row `m`; returns the slots consumed.
size_t write_insn(Writer& w, const Mnemonic& m, const RawInsn& insn, const RawInsn* tail) {
  const bool x = (insn.opcode & opcode::src_x) != 0;
  w.put(m.name);
  switch (m.form) {
    case Form::alu:
    case Form::alu_reg:
      w.put(' ');
      w.reg(insn.dst);
      w.separator();
      if (x) {
        w.reg(insn.src);
      } else {
        w.immediate(insn.imm, 32);
      }
      return 1;
    case Form::unary:
    case Form::callx:
      w.put(' ');
      w.reg(insn.dst);
      return 1;
    case Form::jcc:
      w.put(' ');
      w.reg(insn.dst);
      w.separator();
      if (x) {
        w.reg(insn.src);
      } else {
        w.immediate(insn.imm, 32);
      }
      w.separator();
      w.signed_decimal(insn.offset, true);
      return 1;
    case Form::ja:
      w.put(' ');
      w.signed_decimal(insn.offset, true);
      return 1;
    case Form::ja32:
    case Form::call_local:
      w.put(' ');
      w.signed_decimal(insn.imm, true);
      return 1;
    case Form::call_helper:
    case Form::ld_abs:
      w.put(' ');
      w.immediate(insn.imm, 32);
      return 1;
    case Form::exit:
    case Form::raw:
      return 1;
    case Form::lddw: {
      w.put(' ');
      w.reg(insn.dst);
      w.separator();
      const int32_t next_imm = tail->imm;
      if (insn.src == 0) {
        const uint64_t value = (static_cast<uint64_t>(static_cast<uint32_t>(next_imm)) << 32) |
                               static_cast<uint32_t>(insn.imm);
        w.immediate(static_cast<int64_t>(value), 64);
      } else {
        w.put(text::pseudo_kind_name(insn.src));
        w.put(' ');
        w.immediate(insn.imm, 32);
        if (next_imm != 0) {
          w.put(next_imm < 0 ? " - " : " + ");
          w.unsigned_decimal(next_imm < 0 ? 0 - static_cast<uint64_t>(static_cast<int64_t>(next_imm))
                                          : static_cast<uint64_t>(next_imm));
        }
      }
      return 2;
    }
    case Form::ldx:
      w.put(' ');
      w.reg(insn.dst);
      w.separator();
      w.memory(insn.src, insn.offset);
      return 1;
    case Form::st:
      w.put(' ');
      w.memory(insn.dst, insn.offset);
      w.separator();
      w.immediate(insn.imm, 32);
      return 1;
    case Form::stx:
      w.put(' ');
      w.memory(insn.dst, insn.offset);
      w.separator();
      w.reg(insn.src);
      return 1;
    case Form::ld_ind:
      w.put(' ');
      w.reg(insn.src);
      w.separator();
      w.immediate(insn.imm, 32);
      return 1;
  }
  return 1;
}

}  // namespace

size_t disassemble_one(const uint8_t* bytes, size_t slots, size_t index, char* buffer,
                       size_t buffer_size) {
  Writer w(buffer, buffer_size);
  if (bytes == nullptr || index >= slots) {
    w.finish();
    return 0;
  }
  const RawInsn insn = read_raw(bytes, index);
  const Mnemonic* m = text::canonical_row(insn);
  RawInsn tail{};
  if (m != nullptr && m->form == Form::lddw) {
    // A lddw without a clean second slot is printed slot by slot.
    if (index + 1 < slots) tail = read_raw(bytes, index + 1);
    if (index + 1 >= slots || !clean_tail(tail)) m = nullptr;
  }
  size_t consumed = 1;
  if (m == nullptr) {
    write_raw_slot(w, bytes + index * 8);
  } else {
    consumed = write_insn(w, *m, insn, &tail);
  }
  return w.finish() ? consumed : 0;
}

}  // namespace keel
