// Disassembler: one slot (two for lddw) to one line of the syntax that
// assemble() reads, chosen so that assembling the line gives back the very
// same bytes. Anything the canonical text cannot carry prints as `.8byte`.
#include "keel/isa.h"
#include "keel/text.h"
#include "support/bytes.h"
#include "support/text_writer.h"
#include "text/listing.h"
#include "text/mnemonics.h"

namespace keel {

namespace {

using text::Form;
using text::Mnemonic;

// TextWriter plus the pieces of an instruction line.
class Writer : public TextWriter {
 public:
  using TextWriter::TextWriter;

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
    decimal(r);
  }
  void memory(uint8_t r, int16_t offset) {
    put('[');
    reg(r);
    if (offset != 0) signed_decimal(offset, true);
    put(']');
  }
  void separator() { put(", "); }
};

void write_raw_slot(Writer& w, const uint8_t* slot) {
  w.put(".8byte ");
  w.hex(bytes::load<uint64_t>(slot), 16);
}

// A jump's target: `+N`, or with labels the target's label.
void target(Writer& w, const ListingOptions* listing, size_t index, int64_t relative) {
  if (listing != nullptr && listing->labels) {
    text::write_label(w, *listing, static_cast<int64_t>(index) + 1 + relative);
  } else {
    w.signed_decimal(relative, true);
  }
}

// Writes the operands of `insn` (at slot `index`) for row `m`, with the
// names of `listing` when given; returns the slots consumed.
size_t write_insn(Writer& w, const Mnemonic& m, const RawInsn& insn, const RawInsn* tail,
                  const ListingOptions* listing, size_t index) {
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
      target(w, listing, index, insn.offset);
      return 1;
    case Form::ja:
      w.put(' ');
      target(w, listing, index, insn.offset);
      return 1;
    case Form::ja32:
    case Form::call_local:
      w.put(' ');
      target(w, listing, index, insn.imm);
      return 1;
    case Form::call_helper:
    case Form::ld_abs: {
      const char* builtin =
          m.form == Form::call_helper ? builtin_name(static_cast<uint64_t>(int64_t{insn.imm})) : nullptr;
      const char* helper = m.form == Form::call_helper && builtin == nullptr && listing != nullptr
                               ? text::helper_name(*listing, insn.imm)
                               : nullptr;
      w.put(' ');
      if (builtin != nullptr) {
        w.put(builtin);  // `call memset` (isa.h)
      } else if (helper != nullptr) {
        w.put(helper);  // a listing's `call bpf_map_lookup_elem`
      } else {
        w.immediate(insn.imm, 32);
      }
      return 1;
    }
    case Form::exit:
    case Form::raw:
      return 1;
    case Form::lddw: {
      w.put(' ');
      w.reg(insn.dst);
      w.separator();
      const int32_t next_imm = tail->imm;
      if (listing != nullptr && text::write_map_name(w, *listing, insn.src, insn.imm, next_imm)) return 2;
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
          w.decimal(next_imm < 0 ? 0 - static_cast<uint64_t>(static_cast<int64_t>(next_imm))
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

// One line in the conformance syntax, with the names of `listing` when given.
size_t disassemble_conformance(const uint8_t* bytes, size_t slots, size_t index, const ListingOptions* listing,
                               char* buffer, size_t buffer_size) {
  Writer w(buffer, buffer_size);
  if (bytes == nullptr || index >= slots) {
    w.finish_whole();
    return 0;
  }
  RawInsn insn{}, tail{};
  // A lddw without a clean second slot is printed slot by slot.
  const Mnemonic* m = text::canonical_at(bytes, slots, index, insn, tail);
  size_t consumed = 1;
  if (m == nullptr) {
    write_raw_slot(w, bytes + index * 8);
  } else {
    consumed = write_insn(w, *m, insn, &tail, listing, index);
  }
  return w.finish_whole() ? consumed : 0;
}

}  // namespace

size_t disassemble_one(const uint8_t* bytes, size_t slots, size_t index, char* buffer,
                       size_t buffer_size) {
  return disassemble_conformance(bytes, slots, index, nullptr, buffer, buffer_size);
}

size_t disassemble_line(const uint8_t* bytes, size_t slots, size_t index, const ListingOptions& options,
                        char* buffer, size_t buffer_size) {
  if (options.syntax == Syntax::llvm && bytes != nullptr && index < slots)
    return text::disassemble_llvm(bytes, slots, index, options, buffer, buffer_size);
  return disassemble_conformance(bytes, slots, index, &options, buffer, buffer_size);
}

bool jump_target(const uint8_t* bytes, size_t slots, size_t index, size_t& target) {
  if (bytes == nullptr || index >= slots) return false;
  const RawInsn insn = read_raw(bytes, index);
  const Mnemonic* m = text::canonical_row(insn);
  if (m == nullptr) return false;
  int64_t relative = 0;
  switch (m->form) {
    case Form::jcc:
    case Form::ja:
      relative = insn.offset;
      break;
    case Form::ja32:
    case Form::call_local:
      relative = insn.imm;
      break;
    default:
      return false;
  }
  const int64_t slot = static_cast<int64_t>(index) + 1 + relative;
  if (slot < 0 || static_cast<uint64_t>(slot) >= slots) return false;
  target = static_cast<size_t>(slot);
  return true;
}

}  // namespace keel
