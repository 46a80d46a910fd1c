// Assembler for the bpf_conformance text syntax (see keel/text.h).
//
// No heap and no label table: pass 1 parses every line and reports the
// first syntax error; pass 2 parses again and emits, resolving a label by
// re-scanning the text for its definition (a cheap scan that only reads the
// first words of each line). Time is O(text × label references), memory a
// few words of stack, and no input is too long or too big to be reported as
// an error with its line and column.
#include "keel/isa.h"
#include "keel/text.h"
#include "support/bytes.h"
#include "text/mnemonics.h"

namespace keel {

const char* asm_error_name(AsmError error) {
  switch (error) {
    case AsmError::ok: return "ok";
    case AsmError::unknown_mnemonic: return "unknown_mnemonic";
    case AsmError::bad_operand: return "bad_operand";
    case AsmError::bad_register: return "bad_register";
    case AsmError::bad_number: return "bad_number";
    case AsmError::unknown_label: return "unknown_label";
    case AsmError::duplicate_label: return "duplicate_label";
    case AsmError::output_full: return "output_full";
  }
  return "invalid";
}

namespace {

using text::Form;
using text::Mnemonic;

// ---- characters -----------------------------------------------------------

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ident_start(char c) { return is_alpha(c) || c == '_' || c == '.'; }
bool is_ident(char c) { return is_ident_start(c) || is_digit(c); }
bool is_comment(char c) { return c == '#' || c == ';'; }

bool same(const char* a, size_t a_length, const char* b, size_t b_length) {
  if (a_length != b_length) return false;
  for (size_t i = 0; i < a_length; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// ---- lines ------------------------------------------------------------------

struct Line {
  const char* begin;
  const char* end;  // the '\n' or the end of the text
  uint32_t number;  // 1-based
};

class Lines {
 public:
  Lines(const char* text, size_t length) : p_(text), end_(text + length) {}
  bool next(Line& line) {
    if (done_) return false;
    const char* q = p_;
    while (q != end_ && *q != '\n') ++q;
    if (number_ < UINT32_MAX) ++number_;
    line = Line{p_, q, number_};
    if (q == end_) {
      done_ = true;
    } else {
      p_ = q + 1;
    }
    return true;
  }

 private:
  const char* p_;
  const char* end_;
  uint32_t number_ = 0;
  bool done_ = false;
};

// ---- one parsed line ------------------------------------------------------

struct [[nodiscard]] Status {
  AsmError error = AsmError::ok;
  const char* at = nullptr;        // where, for the column
  const char* expected = nullptr;  // what would have been valid there (AsmResult::expected)
};

struct Statement {
  const char* label = nullptr;  // a `name:` definition on this line
  size_t label_length = 0;
  const Mnemonic* row = nullptr;  // null when the line has no instruction
  const char* mnemonic = nullptr;
  size_t slots = 0;
  RawInsn insn[2] = {};
  uint64_t raw = 0;             // Form::raw: the whole slot
  const char* target = nullptr; // a label reference, resolved in pass 2
  size_t target_length = 0;
  bool target_in_imm = false;   // ja32 and call local keep the target in imm
};

// A number as written: sign and magnitude, range-checked per field later.
struct Number {
  bool negative = false;
  uint64_t magnitude = 0;
};

class Parser {
 public:
  Parser(const Line& line, const AsmOptions& options)
      : p_(line.begin), end_(line.end), registers_(options.any_register_field ? kRegisterField : kRegisterCount) {}

  Status parse(Statement& s) {
    skip_space();
    if (at_end()) return {};
    if (!is_ident_start(*p_)) return fail(AsmError::unknown_mnemonic, kExpectMnemonic);
    const char* word = p_;
    const char* q = p_;
    while (q != end_ && is_ident(*q)) ++q;
    if (q != end_ && *q == ':') {
      s.label = word;
      s.label_length = static_cast<size_t>(q - word);
      p_ = q + 1;
      skip_space();
      if (at_end()) return {};
      if (!is_ident_start(*p_)) return fail(AsmError::unknown_mnemonic, kExpectMnemonic);
    }
    s.mnemonic = p_;
    s.row = match_row();
    if (s.row == nullptr) return fail(AsmError::unknown_mnemonic, kExpectMnemonic);
    s.slots = s.row->form == Form::lddw ? 2 : 1;
    s.insn[0] = RawInsn{s.row->opcode, 0, s.row->src, s.row->offset, s.row->imm};
    Status status = operands(s);
    if (status.error != AsmError::ok) return status;
    skip_space();
    if (!at_end()) return fail(AsmError::bad_operand, "the end of the line (or a # comment)");
    return {};
  }

 private:
  bool at_end() const { return p_ == end_ || is_comment(*p_); }
  void skip_space() {
    while (p_ != end_ && is_space(*p_)) ++p_;
  }
  Status fail(AsmError error, const char* expected) const { return Status{error, p_, expected}; }
  Status fail_at(AsmError error, const char* at, const char* expected) const { return Status{error, at, expected}; }

  static constexpr const char* kExpectMnemonic = "an instruction mnemonic (mov, ldxw, jeq, exit, ...) or a label";
  static constexpr const char* kExpectRegister = "a register %r0..%r10";
  static constexpr const char* kExpectAnyRegister = "a register %r0..%r15";
  static constexpr const char* kExpectImm32 = "a number from -2147483648 to 4294967295";
  const char* expect_register() const { return registers_ == kRegisterCount ? kExpectRegister : kExpectAnyRegister; }

  // The row whose name (its words, each separated by any blanks) starts the
  // rest of the line, taking the longest; advances past it.
  const Mnemonic* match_row() {
    size_t count = 0;
    const Mnemonic* table = text::mnemonic_table(&count);
    const Mnemonic* best = nullptr;
    const char* best_end = nullptr;
    size_t best_words = 0;
    for (size_t i = 0; i < count; ++i) {
      size_t words = 0;
      const char* after = match_name(table[i].name, &words);
      if (after != nullptr && words > best_words) {
        best = &table[i];
        best_end = after;
        best_words = words;
      }
    }
    if (best != nullptr) p_ = best_end;
    return best;
  }

  const char* match_name(const char* name, size_t* words) const {
    const char* q = p_;
    *words = 1;
    while (*name != '\0') {
      if (*name == ' ') {
        if (q == end_ || !is_space(*q)) return nullptr;
        while (q != end_ && is_space(*q)) ++q;
        ++name;
        ++*words;
        continue;
      }
      if (q == end_ || *q != *name) return nullptr;
      ++q;
      ++name;
    }
    return (q == end_ || !is_ident(*q)) ? q : nullptr;
  }

  Status comma() {
    skip_space();
    if (p_ == end_ || *p_ != ',') return fail(AsmError::bad_operand, "',' before the next operand");
    ++p_;
    return {};
  }

  bool next_is(char c) {
    skip_space();
    return p_ != end_ && *p_ == c;
  }

  // `%rN` with N in 0..10 (RFC 9669 §2.3: eleven registers); with
  // AsmOptions::any_register_field 0..15, all the 4-bit field holds, for
  // the uBPF error tests that write `%r11` to get a program the decoder
  // must reject.
  static constexpr uint32_t kRegisterField = 16;
  static constexpr uint32_t kRegisterCount = 11;
  Status reg(uint8_t& out) {
    skip_space();
    if (p_ == end_ || *p_ != '%') return fail(AsmError::bad_operand, expect_register());
    const char* start = p_++;
    const char* q = p_;
    while (q != end_ && is_ident(*q)) ++q;
    if (q - p_ < 2 || *p_ != 'r') return fail_at(AsmError::bad_register, start, expect_register());
    uint32_t value = 0;
    for (const char* d = p_ + 1; d != q; ++d) {
      if (!is_digit(*d) || value >= registers_) return fail_at(AsmError::bad_register, start, expect_register());
      value = value * 10 + static_cast<uint32_t>(*d - '0');
    }
    if (value >= registers_) return fail_at(AsmError::bad_register, start, expect_register());
    out = static_cast<uint8_t>(value);
    p_ = q;
    return {};
  }

  static constexpr const char* kExpectDigits = "decimal or 0x-hex digits";
  static constexpr const char* kExpect64 = "a number that fits 64 bits";

  // Decimal or 0x-hex digits, no sign; the whole [A-Za-z0-9_] run must be
  // the number.
  Status magnitude(uint64_t& out) {
    const char* start = p_;
    const char* q = p_;
    while (q != end_ && is_ident(*q)) ++q;
    p_ = q;
    if (q == start || !is_digit(*start)) return fail_at(AsmError::bad_number, start, kExpectDigits);
    uint64_t value = 0;
    const char* d = start;
    if (q - start > 2 && start[0] == '0' && (start[1] == 'x' || start[1] == 'X')) {
      for (d = start + 2; d != q; ++d) {
        uint64_t digit;
        if (is_digit(*d)) {
          digit = static_cast<uint64_t>(*d - '0');
        } else if (*d >= 'a' && *d <= 'f') {
          digit = static_cast<uint64_t>(*d - 'a' + 10);
        } else if (*d >= 'A' && *d <= 'F') {
          digit = static_cast<uint64_t>(*d - 'A' + 10);
        } else {
          return fail_at(AsmError::bad_number, start, kExpectDigits);
        }
        if ((value >> 60) != 0) return fail_at(AsmError::bad_number, start, kExpect64);
        value = value << 4 | digit;
      }
    } else {
      for (; d != q; ++d) {
        if (!is_digit(*d)) return fail_at(AsmError::bad_number, start, kExpectDigits);
        const auto digit = static_cast<uint64_t>(*d - '0');
        if (value > (UINT64_MAX - digit) / 10) return fail_at(AsmError::bad_number, start, kExpect64);
        value = value * 10 + digit;
      }
    }
    out = value;
    return {};
  }

  // An optionally signed number; `start` receives where it began.
  Status number(Number& out, const char*& start) {
    skip_space();
    start = p_;
    if (p_ == end_ || !(is_digit(*p_) || *p_ == '+' || *p_ == '-')) {
      return fail(AsmError::bad_operand, "a number");
    }
    out.negative = *p_ == '-';
    if (*p_ == '+' || *p_ == '-') ++p_;
    Status status = magnitude(out.magnitude);
    if (status.error != AsmError::ok) status.at = start;
    return status;
  }

  // A 32-bit field: -2^31 .. 2^32-1, stored as its low 32 bits.
  static bool to_imm32(const Number& n, int32_t& out) {
    if (n.negative ? n.magnitude > (uint64_t{1} << 31) : n.magnitude > UINT32_MAX) return false;
    const uint64_t bits = n.negative ? 0 - n.magnitude : n.magnitude;
    out = static_cast<int32_t>(static_cast<uint32_t>(bits));
    return true;
  }
  static bool to_signed(const Number& n, int64_t min, int64_t max, int64_t& out) {
    if (n.negative) {
      if (n.magnitude > static_cast<uint64_t>(-(min + 1)) + 1) return false;
      out = n.magnitude == 0 ? 0 : -static_cast<int64_t>(n.magnitude - 1) - 1;
    } else {
      if (n.magnitude > static_cast<uint64_t>(max)) return false;
      out = static_cast<int64_t>(n.magnitude);
    }
    return true;
  }

  Status imm32(int32_t& out) {
    Number n;
    const char* start = nullptr;
    Status status = number(n, start);
    if (status.error != AsmError::ok) return status;
    if (!to_imm32(n, out)) return fail_at(AsmError::bad_number, start, kExpectImm32);
    return {};
  }

  // A 64-bit value: -2^63 .. 2^64-1.
  Status imm64(uint64_t& out) {
    Number n;
    const char* start = nullptr;
    Status status = number(n, start);
    if (status.error != AsmError::ok) return status;
    if (n.negative && n.magnitude > (uint64_t{1} << 63))
      return fail_at(AsmError::bad_number, start, "a number from -2^63 to 2^64-1");
    out = n.negative ? 0 - n.magnitude : n.magnitude;
    return {};
  }

  // `%rN` or an immediate, choosing the X or K form of `insn`.
  Status reg_or_imm(RawInsn& insn) {
    if (next_is('%')) {
      insn.opcode |= opcode::src_x;
      return reg(insn.src);
    }
    Status status = imm32(insn.imm);
    if (status.error == AsmError::bad_operand) status.expected = "a register %rN or a number";
    return status;
  }

  // `[%rN]`, `[%rN+off]` or `[%rN-off]`.
  Status memory(uint8_t& r, int16_t& offset) {
    skip_space();
    if (p_ == end_ || *p_ != '[') return fail(AsmError::bad_operand, "a memory operand [%rN+offset]");
    ++p_;
    Status status = reg(r);
    if (status.error != AsmError::ok) return status;
    skip_space();
    offset = 0;
    if (p_ != end_ && (*p_ == '+' || *p_ == '-')) {
      Number n;
      n.negative = *p_ == '-';
      const char* start = p_++;
      skip_space();
      const char* digits = p_;
      status = magnitude(n.magnitude);
      if (status.error != AsmError::ok) return fail_at(AsmError::bad_number, digits, kExpectDigits);
      int64_t value = 0;
      if (!to_signed(n, INT16_MIN, INT16_MAX, value)) return fail_at(AsmError::bad_number, start, kExpectOffset);
      offset = static_cast<int16_t>(value);
      skip_space();
    }
    if (p_ == end_ || *p_ != ']') return fail(AsmError::bad_operand, "']' closing [%rN+offset]");
    ++p_;
    return {};
  }

  static constexpr const char* kExpectOffset = "an offset from -32768 to +32767";

  // `+N`, `-N`, `N` (relative to the next slot) or a label name.
  Status target(Statement& s, bool in_imm) {
    skip_space();
    s.target_in_imm = in_imm;
    if (p_ != end_ && is_ident_start(*p_)) {
      s.target = p_;
      while (p_ != end_ && is_ident(*p_)) ++p_;
      s.target_length = static_cast<size_t>(p_ - s.target);
      return {};
    }
    Number n;
    const char* start = nullptr;
    Status status = number(n, start);
    if (status.error == AsmError::bad_operand) status.expected = "a jump target: +N, -N or a label";
    if (status.error != AsmError::ok) return status;
    int64_t value = 0;
    if (in_imm) {
      if (!to_signed(n, INT32_MIN, INT32_MAX, value))
        return fail_at(AsmError::bad_number, start, "a jump offset from -2147483648 to +2147483647");
      s.insn[0].imm = static_cast<int32_t>(value);
    } else {
      if (!to_signed(n, INT16_MIN, INT16_MAX, value)) return fail_at(AsmError::bad_number, start, kExpectOffset);
      s.insn[0].offset = static_cast<int16_t>(value);
    }
    return {};
  }

  // lddw's value: a 64-bit immediate, or `kind imm [+|- next_imm]`.
  Status lddw_value(Statement& s) {
    skip_space();
    RawInsn& insn = s.insn[0];
    if (p_ != end_ && is_ident_start(*p_)) {
      const char* name = p_;
      while (p_ != end_ && is_ident(*p_)) ++p_;
      const auto length = static_cast<size_t>(p_ - name);
      uint8_t kind = 1;
      while (kind < text::kPseudoKindCount) {
        const char* k = text::pseudo_kind_name(kind);
        size_t k_length = 0;
        while (k[k_length] != '\0') ++k_length;
        if (same(name, length, k, k_length)) break;
        ++kind;
      }
      if (kind == text::kPseudoKindCount)
        return fail_at(AsmError::bad_operand, name,
                       "a 64-bit number or a source kind (map_fd, map_value, var_addr, code_addr, map_idx, "
                       "map_idx_value)");
      insn.src = kind;
      Status status = imm32(insn.imm);
      if (status.error != AsmError::ok) return status;
      skip_space();
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) {
        Number n;
        n.negative = *p_ == '-';
        const char* start = p_++;
        skip_space();
        const char* digits = p_;
        status = magnitude(n.magnitude);
        if (status.error != AsmError::ok) return fail_at(AsmError::bad_number, digits, kExpectDigits);
        if (!to_imm32(n, s.insn[1].imm)) return fail_at(AsmError::bad_number, start, kExpectImm32);
      }
      return {};
    }
    uint64_t value = 0;
    Status status = imm64(value);
    if (status.error != AsmError::ok) return status;
    insn.imm = static_cast<int32_t>(static_cast<uint32_t>(value));
    s.insn[1].imm = static_cast<int32_t>(static_cast<uint32_t>(value >> 32));
    return {};
  }

#define TEXT_TRY(expr)                                  \
  do {                                                  \
    Status status_ = (expr);                            \
    if (status_.error != AsmError::ok) return status_;  \
  } while (0)

  Status operands(Statement& s) {
    RawInsn& insn = s.insn[0];
    switch (s.row->form) {
      case Form::alu:
      case Form::jcc:
        TEXT_TRY(reg(insn.dst));
        TEXT_TRY(comma());
        TEXT_TRY(reg_or_imm(insn));
        if (s.row->form == Form::jcc) {
          TEXT_TRY(comma());
          TEXT_TRY(target(s, false));
        }
        return {};
      case Form::alu_reg:
        TEXT_TRY(reg(insn.dst));
        TEXT_TRY(comma());
        return reg(insn.src);
      case Form::unary:
      case Form::callx:
        return reg(insn.dst);
      case Form::ja:
        return target(s, false);
      case Form::ja32:
      case Form::call_local:
        return target(s, true);
      case Form::call_helper:
        if (next_is('%')) {  // `call %rN` is callx
          insn.opcode |= opcode::src_x;
          return reg(insn.dst);
        }
        if (p_ != end_ && is_ident_start(*p_)) {  // `call memset`: a builtin (isa.h)
          const char* name = p_;
          while (p_ != end_ && is_ident(*p_)) ++p_;
          insn.imm = builtin_id(name, static_cast<size_t>(p_ - name));
          return insn.imm != 0 ? Status{}
                               : fail_at(AsmError::bad_operand, name,
                                         "a helper id, %rN, or a builtin (memset, memcpy, memmove, memcmp)");
        }
        return imm32(insn.imm);
      case Form::exit:
        return {};
      case Form::lddw:
        TEXT_TRY(reg(insn.dst));
        TEXT_TRY(comma());
        return lddw_value(s);
      case Form::ldx:
        TEXT_TRY(reg(insn.dst));
        TEXT_TRY(comma());
        return memory(insn.src, insn.offset);
      case Form::st:
        TEXT_TRY(memory(insn.dst, insn.offset));
        TEXT_TRY(comma());
        return imm32(insn.imm);
      case Form::stx:
        TEXT_TRY(memory(insn.dst, insn.offset));
        TEXT_TRY(comma());
        return reg(insn.src);
      case Form::ld_abs:
        return imm32(insn.imm);
      case Form::ld_ind:
        TEXT_TRY(reg(insn.src));
        TEXT_TRY(comma());
        return imm32(insn.imm);
      case Form::raw:
        return imm64(s.raw);
    }
    return fail(AsmError::unknown_mnemonic, kExpectMnemonic);
  }

#undef TEXT_TRY

  const char* p_;
  const char* end_;
  uint32_t registers_;  // registers %r0.. that reg() takes
};

// ---- label scan -------------------------------------------------------------

// What a line that pass 1 accepted holds, read from its first words only.
struct Glance {
  const char* label = nullptr;
  size_t label_length = 0;
  size_t slots = 0;
  bool is_exit = false;
};

Glance glance(const Line& line) {
  Glance g;
  const char* p = line.begin;
  auto skip = [&] {
    while (p != line.end && is_space(*p)) ++p;
  };
  auto word_end = [&](const char* q) {
    while (q != line.end && is_ident(*q)) ++q;
    return q;
  };
  skip();
  const char* q = word_end(p);
  if (q != line.end && *q == ':') {
    g.label = p;
    g.label_length = static_cast<size_t>(q - p);
    p = q + 1;
    skip();
    q = word_end(p);
  }
  if (q == p) return g;  // no instruction (blank or comment)
  const auto length = static_cast<size_t>(q - p);
  g.slots = same(p, length, "lddw", 4) ? 2 : 1;
  g.is_exit = same(p, length, "exit", 4);
  return g;
}

struct LabelSite {
  bool found = false;
  size_t slot = 0;       // the slot the label names
  uint32_t line = 0;     // the line of its first definition
};

// The first definition of `name`; failing that, `exit` names the first
// exit instruction (bpf_conformance's assembler does the same: prime.data
// jumps to `exit` without defining it).
LabelSite find_label(const char* text, size_t length, const char* name, size_t name_length) {
  LabelSite site;
  LabelSite first_exit;
  Lines lines(text, length);
  Line line;
  size_t slot = 0;
  while (lines.next(line)) {
    const Glance g = glance(line);
    if (g.label != nullptr && same(g.label, g.label_length, name, name_length)) {
      return LabelSite{true, slot, line.number};
    }
    if (g.is_exit && !first_exit.found) first_exit = LabelSite{true, slot, 0};
    slot += g.slots;
  }
  if (same(name, name_length, "exit", 4)) return first_exit;
  return site;
}

uint32_t column_of(const Line& line, const char* at) {
  const auto column = static_cast<uint64_t>(at - line.begin) + 1;
  return column > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(column);
}

}  // namespace

AsmResult assemble(const char* text, size_t length, uint8_t* out, size_t out_slots, const AsmOptions& options) {
  AsmResult result;
  if (text == nullptr) length = 0;
  if (out == nullptr) out_slots = 0;

  // Pass 1: syntax, so that pass 2 may trust every line's shape.
  Lines lines(text, length);
  Line line;
  while (lines.next(line)) {
    Statement s;
    const Status status = Parser(line, options).parse(s);
    if (status.error != AsmError::ok) {
      return AsmResult{status.error, {line.number, column_of(line, status.at), 0, status.expected}};
    }
  }

  // Pass 2: labels, capacity, emission.
  Lines again(text, length);
  size_t slot = 0;
  while (again.next(line)) {
    Statement s;
    (void)Parser(line, options).parse(s);  // cannot fail: pass 1 accepted it
    auto fail = [&](AsmError error, const char* at, const char* expected) {
      return AsmResult{error, {line.number, column_of(line, at), slot, expected}};
    };
    if (s.label != nullptr &&
        find_label(text, length, s.label, s.label_length).line != line.number) {
      return fail(AsmError::duplicate_label, s.label, "a label not defined on an earlier line");
    }
    if (s.row == nullptr) continue;
    if (out_slots - slot < s.slots) return fail(AsmError::output_full, s.mnemonic, "fewer instructions");
    if (s.target != nullptr) {
      const LabelSite site = find_label(text, length, s.target, s.target_length);
      if (!site.found) return fail(AsmError::unknown_label, s.target, "a label defined as 'name:' on some line");
      // Relative to the next slot (RFC 9669 §4.3); computed in 64 bits, so
      // huge programs give a range error, never a wrapped offset.
      const int64_t relative = static_cast<int64_t>(site.slot) - static_cast<int64_t>(slot) - 1;
      if (s.target_in_imm) {
        if (relative < INT32_MIN || relative > INT32_MAX)
          return fail(AsmError::bad_number, s.target, "a label within 2^31 slots");
        s.insn[0].imm = static_cast<int32_t>(relative);
      } else {
        if (relative < INT16_MIN || relative > INT16_MAX)
          return fail(AsmError::bad_number, s.target, "a label within 32767 slots (ja32 reaches further)");
        s.insn[0].offset = static_cast<int16_t>(relative);
      }
    }
    if (s.row->form == Form::raw) {
      bytes::store<uint64_t>(out + slot * 8, s.raw);
    } else {
      for (size_t i = 0; i < s.slots; ++i) write_raw(out, slot + i, s.insn[i]);
    }
    slot += s.slots;
  }
  result.slots = slot;
  return result;
}

}  // namespace keel
