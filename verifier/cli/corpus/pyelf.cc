#include "pyelf.h"

#include <sstream>
#include <utility>

#include "conformance_helpers.h"

namespace keel::cli::pyelf {

namespace {

// ELF64 sizes (System V gABI "ELF Header", "Sections", "Symbol Table",
// "Relocation").
constexpr uint64_t kEhdrSize = 64, kShdrSize = 64, kSymSize = 24, kRelSize = 16;

// The quoted names a statement may use: the gABI values of the enumerated
// header fields (uBPF's harness takes pyelftools' names for them).
struct Constant {
  const char* name;
  uint64_t value;
};
constexpr Constant kConstants[] = {
    {"ELFCLASSNONE", 0},   {"ELFCLASS32", 1},     {"ELFCLASS64", 2},   {"ELFDATANONE", 0},
    {"ELFDATA2LSB", 1},    {"ELFDATA2MSB", 2},    {"EV_NONE", 0},      {"EV_CURRENT", 1},
    {"ELFOSABI_NONE", 0},  {"ELFOSABI_SYSV", 0},  {"ELFOSABI_LINUX", 3}, {"ELFOSABI_GNU", 3},
    {"ET_NONE", 0},        {"ET_REL", 1},         {"ET_EXEC", 2},      {"ET_DYN", 3},
    {"EM_NONE", 0},        {"EM_BPF", 247},       {"SHT_NULL", 0},     {"SHT_PROGBITS", 1},
    {"SHT_SYMTAB", 2},     {"SHT_STRTAB", 3},     {"SHT_RELA", 4},     {"SHT_NOBITS", 8},
    {"SHT_REL", 9},
};

constexpr uint64_t kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3, kShtRel = 9;
constexpr uint64_t kShfAlloc = 0x2, kShfExecinstr = 0x4;
constexpr uint64_t kStbGlobal = 1, kSttNotype = 0;
constexpr uint64_t kRelBpf64_32 = 10;  // R_BPF_64_32: LLVM's call relocation (llvm_reloc.rst)

Part record(std::string name, std::vector<Field> fields) { return Part{std::move(name), std::move(fields), {}}; }
Part raw(std::string name, Bytes bytes) { return Part{std::move(name), {}, std::move(bytes)}; }

Part section_header(const std::string& name, uint64_t name_offset, uint64_t type, uint64_t flags,
                    uint64_t offset, uint64_t size, uint64_t link, uint64_t info, uint64_t align,
                    uint64_t entsize) {
  return record(name, {{"sh_name", 4, name_offset},
                       {"sh_type", 4, type},
                       {"sh_flags", 8, flags},
                       {"sh_addr", 8, 0},
                       {"sh_offset", 8, offset},
                       {"sh_size", 8, size},
                       {"sh_link", 4, link},
                       {"sh_info", 4, info},
                       {"sh_addralign", 8, align},
                       {"sh_entsize", 8, entsize}});
}

Part symbol(const std::string& name, uint64_t name_offset, uint64_t info, uint64_t shndx) {
  return record(name, {{"st_name", 4, name_offset},
                       {"st_info", 1, info},
                       {"st_other", 1, 0},
                       {"st_shndx", 2, shndx},
                       {"st_value", 8, 0},
                       {"st_size", 8, 0}});
}

// Appends `text` and its NUL to a string table; returns its offset.
uint64_t add_string(Bytes& table, const std::string& text) {
  const uint64_t offset = table.size();
  table.insert(table.end(), text.begin(), text.end());
  table.push_back(0);
  return offset;
}

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

// ---------------------------------------------------------------------------
// Statements

enum class Token : uint8_t { end, name, number, string, bytes, op };

struct Lexeme {
  Token kind = Token::end;
  std::string text;  // name, operator, string contents, bytes contents
  uint64_t number = 0;
};

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits one statement into lexemes; a `#` outside a string ends it.
bool lex(const std::string& line, std::vector<Lexeme>& out, std::string& why) {
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      break;
    } else if ((c == 'b' || c == 'B') && i + 1 < line.size() && (line[i + 1] == '\'' || line[i + 1] == '"')) {
      // A bytes literal: printable characters and the escapes \xHH \\ \' \" \n \r \t \0.
      const char quote = line[i + 1];
      Lexeme bytes{Token::bytes, "", 0};
      for (i += 2;; ++i) {
        if (i >= line.size()) {
          why = "unterminated bytes literal";
          return false;
        }
        if (line[i] == quote) break;
        if (line[i] != '\\') {
          bytes.text += line[i];
          continue;
        }
        if (++i >= line.size()) continue;  // reported as unterminated
        switch (line[i]) {
          case '\\': case '\'': case '"': bytes.text += line[i]; break;
          case 'n': bytes.text += '\n'; break;
          case 'r': bytes.text += '\r'; break;
          case 't': bytes.text += '\t'; break;
          case '0': bytes.text += '\0'; break;
          case 'x': {
            const int high = i + 1 < line.size() ? hex_value(line[i + 1]) : -1;
            const int low = i + 2 < line.size() ? hex_value(line[i + 2]) : -1;
            if (high < 0 || low < 0) {
              why = "bad \\x escape in a bytes literal";
              return false;
            }
            bytes.text += static_cast<char>(high << 4 | low);
            i += 2;
            break;
          }
          default:
            why = std::string("unsupported escape \\") + line[i] + " in a bytes literal";
            return false;
        }
      }
      ++i;
      out.push_back(std::move(bytes));
    } else if (is_name_start(c)) {
      size_t end = i;
      while (end < line.size() && is_name_char(line[end])) ++end;
      out.push_back({Token::name, line.substr(i, end - i), 0});
      i = end;
    } else if (c >= '0' && c <= '9') {
      size_t end = i;
      while (end < line.size() && is_name_char(line[end])) ++end;
      const std::string text = line.substr(i, end - i);
      const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
      uint64_t value = 0;
      bool good = !hex || text.size() > 2;
      for (size_t k = hex ? 2 : 0; k < text.size() && good; ++k) {
        const int digit = hex ? hex_value(text[k]) : (text[k] >= '0' && text[k] <= '9' ? text[k] - '0' : -1);
        const uint64_t base = hex ? 16 : 10;
        good = digit >= 0 && value <= (~uint64_t{0} - static_cast<uint64_t>(digit)) / base;
        value = value * base + static_cast<uint64_t>(digit);
      }
      if (!good) {
        why = "bad number '" + text + "'";
        return false;
      }
      out.push_back({Token::number, text, value});
      i = end;
    } else if (c == '\'' || c == '"') {
      const size_t end = line.find(c, i + 1);
      if (end == std::string::npos) {
        why = "unterminated string";
        return false;
      }
      out.push_back({Token::string, line.substr(i + 1, end - i - 1), 0});
      i = end + 1;
    } else if (line.compare(i, 2, "+=") == 0 || line.compare(i, 2, "<<") == 0) {
      out.push_back({Token::op, line.substr(i, 2), 0});
      i += 2;
    } else if (std::string("=|()[]:.").find(c) != std::string::npos) {
      out.push_back({Token::op, std::string(1, c), 0});
      ++i;
    } else {
      why = std::string("unexpected character '") + c + "'";
      return false;
    }
  }
  out.push_back({});
  return true;
}

// Recursive descent over the lexemes of one statement.
class Parser {
 public:
  explicit Parser(const std::vector<Lexeme>& lexemes) : lexemes_(lexemes) {}

  const Lexeme& peek() const { return lexemes_[at_]; }
  const Lexeme& take() { return lexemes_[at_ < lexemes_.size() - 1 ? at_++ : at_]; }
  bool at_end() const { return peek().kind == Token::end; }
  bool next_is(const char* op) const { return peek().kind == Token::op && peek().text == op; }
  bool accept(const char* op) {
    if (!next_is(op)) return false;
    ++at_;
    return true;
  }
  bool accept_name(const char* name) {
    if (peek().kind != Token::name || peek().text != name) return false;
    ++at_;
    return true;
  }

  // expr := shift ('|' shift)* ; shift := atom ('<<' atom)* ; atom := NUMBER | 'NAME' | '(' expr ')'
  bool expression(uint64_t& value, std::string& why) {
    if (!shift(value, why)) return false;
    while (accept("|")) {
      uint64_t right = 0;
      if (!shift(right, why)) return false;
      value |= right;
    }
    return true;
  }

 private:
  bool shift(uint64_t& value, std::string& why) {
    if (!atom(value, why)) return false;
    while (accept("<<")) {
      uint64_t by = 0;
      if (!atom(by, why)) return false;
      // Python's integers do not wrap: bits shifted past 64 are a value
      // no field can hold.
      if (by >= 64 || (by > 0 && (value >> (64 - by)) != 0)) {
        why = "value of '<<' exceeds 64 bits";
        return false;
      }
      value <<= by;
    }
    return true;
  }

  bool atom(uint64_t& value, std::string& why) {
    const Lexeme& lexeme = take();
    if (lexeme.kind == Token::number) {
      value = lexeme.number;
      return true;
    }
    if (lexeme.kind == Token::string) {
      for (const Constant& constant : kConstants) {
        if (lexeme.text != constant.name) continue;
        value = constant.value;
        return true;
      }
      why = "unknown constant '" + lexeme.text + "'";
      return false;
    }
    if (lexeme.kind == Token::op && lexeme.text == "(") {
      if (!expression(value, why)) return false;
      if (accept(")")) return true;
      why = "expected ')'";
      return false;
    }
    why = lexeme.kind == Token::end ? "expression ends early" : "expected a number, a quoted constant or '('";
    return false;
  }

  const std::vector<Lexeme>& lexemes_;
  size_t at_ = 0;
};

}  // namespace

// ---------------------------------------------------------------------------
// Parts

Field* Part::field(const std::string& path) {
  for (Field& f : fields)
    if (f.name == path) return &f;
  return nullptr;
}

const Field* Part::field(const std::string& path) const {
  for (const Field& f : fields)
    if (f.name == path) return &f;
  return nullptr;
}

void Part::serialize(Bytes& out) const {
  if (!is_record()) {
    out.insert(out.end(), raw.begin(), raw.end());
    return;
  }
  // Always little-endian and ELF64-shaped, whatever EI_DATA and EI_CLASS
  // say: a statement changes values, never the layout (as in uBPF's harness).
  for (const Field& f : fields)
    for (uint8_t i = 0; i < f.width; ++i) out.push_back(static_cast<uint8_t>(f.value >> (8 * i)));
}

size_t Part::size() const {
  if (!is_record()) return raw.size();
  size_t total = 0;
  for (const Field& f : fields) total += f.width;
  return total;
}

// ---------------------------------------------------------------------------
// The template: `return sqrti(42 * 42)` as a relocatable ELF64 BPF object
// the way clang lays one out (ELF header, section contents, section
// headers last):
//   [1] .text      mov r1, 1764; call sqrti; exit
//   [2] .rel.text  sqrti_rel: R_BPF_64_32 at offset 8 against symbol 1
//   [3] .symtab    first_sym (the null symbol), sqrti_sym (global, undefined)
//   [4] .strtab    "\0sqrti\0"
//   [5] .shstrtab  section names
// The call is written as clang writes a call of an external function
// (src 1, imm -1): the relocation is what names the helper.

ElfTemplate::ElfTemplate() {
  Bytes strtab{0}, shstrtab{0};
  const uint64_t sqrti_name = add_string(strtab, "sqrti");
  const uint64_t text_name = add_string(shstrtab, ".text");
  const uint64_t rel_name = add_string(shstrtab, ".rel.text");
  const uint64_t symtab_name = add_string(shstrtab, ".symtab");
  const uint64_t strtab_name = add_string(shstrtab, ".strtab");
  const uint64_t shstrtab_name = add_string(shstrtab, ".shstrtab");
  const Bytes text = {
      0xb7, 0x01, 0x00, 0x00, 0xe4, 0x06, 0x00, 0x00,  // mov r1, 1764
      0x85, 0x10, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,  // call -1 (src 1), relocated
      0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // exit
  };

  const uint64_t text_offset = kEhdrSize;
  const uint64_t rel_offset = align_up(text_offset + text.size(), 8);
  const uint64_t symtab_offset = align_up(rel_offset + kRelSize, 8);
  const uint64_t symtab_size = 2 * kSymSize;
  const uint64_t strtab_offset = symtab_offset + symtab_size;
  const uint64_t shstrtab_offset = strtab_offset + strtab.size();
  const uint64_t shoff = align_up(shstrtab_offset + shstrtab.size(), 8);

  add(record("ehdr", {{"e_ident.EI_MAG0", 1, 0x7f},
                      {"e_ident.EI_MAG1", 1, 'E'},
                      {"e_ident.EI_MAG2", 1, 'L'},
                      {"e_ident.EI_MAG3", 1, 'F'},
                      {"e_ident.EI_CLASS", 1, 2},    // ELFCLASS64
                      {"e_ident.EI_DATA", 1, 1},     // ELFDATA2LSB
                      {"e_ident.EI_VERSION", 1, 1},  // EV_CURRENT
                      {"e_ident.EI_OSABI", 1, 0},    // ELFOSABI_NONE
                      {"e_ident.EI_ABIVERSION", 1, 0},
                      {"e_ident.EI_PAD", 7, 0},
                      {"e_type", 2, 1},  // ET_REL
                      {"e_machine", 2, 247},  // EM_BPF
                      {"e_version", 4, 1},
                      {"e_entry", 8, 0},
                      {"e_phoff", 8, 0},
                      {"e_shoff", 8, shoff},
                      {"e_flags", 4, 0},
                      {"e_ehsize", 2, kEhdrSize},
                      {"e_phentsize", 2, 0},
                      {"e_phnum", 2, 0},
                      {"e_shentsize", 2, kShdrSize},
                      {"e_shnum", 2, kSectionCount},
                      {"e_shstrndx", 2, kShstrtabSection}}));
  add(raw("text", text));
  add(raw("text_pad", Bytes(rel_offset - (text_offset + text.size()), 0)));
  add(record("sqrti_rel", {{"r_offset", 8, 8}, {"r_info", 8, uint64_t{1} << 32 | kRelBpf64_32}}));
  add(symbol("first_sym", 0, 0, 0));
  add(symbol("sqrti_sym", sqrti_name, kStbGlobal << 4 | kSttNotype, 0));
  add(raw("strtab", strtab));
  add(raw("shstrtab", shstrtab));
  add(raw("shdr_pad", Bytes(shoff - (shstrtab_offset + shstrtab.size()), 0)));
  add(section_header("first_shdr", 0, 0, 0, 0, 0, 0, 0, 0, 0));
  add(section_header("text_shdr", text_name, kShtProgbits, kShfAlloc | kShfExecinstr, text_offset, text.size(), 0, 0, 8, 0));
  add(section_header("rel_shdr", rel_name, kShtRel, 0, rel_offset, kRelSize, kSymtabSection, kTextSection, 8, kRelSize));
  // sh_info of a symbol table: one past its last local symbol (gABI "Sections").
  add(section_header("symtab_shdr", symtab_name, kShtSymtab, 0, symtab_offset, symtab_size, kStrtabSection, 1, 8, kSymSize));
  add(section_header("strtab_shdr", strtab_name, kShtStrtab, 0, strtab_offset, strtab.size(), 0, 0, 1, 0));
  add(section_header("shstrtab_shdr", shstrtab_name, kShtStrtab, 0, shstrtab_offset, shstrtab.size(), 0, 0, 1, 0));
}

Part& ElfTemplate::add(Part part) {
  order_.push_back(part.name);
  parts_.push_back(std::move(part));
  return parts_.back();
}

Part* ElfTemplate::find(const std::string& name) {
  for (Part& part : parts_)
    if (part.name == name) return &part;
  return nullptr;
}

const Part* ElfTemplate::part(const std::string& name) const {
  for (const Part& part : parts_)
    if (part.name == name) return &part;
  return nullptr;
}

Bytes ElfTemplate::serialize() const {
  Bytes out;
  for (const std::string& name : order_) part(name)->serialize(out);
  return out;
}

// The statement forms of uBPF's tests/elf/*.data:
//   PART.FIELD[.FIELD] = EXPR      PART.FIELD[.FIELD] += EXPR
//   NAME = b'...'                  (a raw part, new or replacing one)
//   del order[:]                   order.append('NAME')
bool ElfTemplate::run(const std::string& statement, std::string& why) {
  std::vector<Lexeme> lexemes;
  if (!lex(statement, lexemes, why)) return false;
  Parser p(lexemes);
  if (p.at_end()) return true;  // blank or comment
  auto finish = [&]() {
    if (p.at_end()) return true;
    why = "unexpected '" + p.peek().text + "' after the statement";
    return false;
  };

  if (p.accept_name("del")) {
    if (!(p.accept_name("order") && p.accept("[") && p.accept(":") && p.accept("]"))) {
      why = "only 'del order[:]' is supported";
      return false;
    }
    if (!finish()) return false;
    order_.clear();
    return true;
  }
  if (p.peek().kind != Token::name) {
    why = "a statement starts with a name";
    return false;
  }
  std::vector<std::string> target{p.take().text};
  while (p.accept(".")) {
    if (p.peek().kind != Token::name) {
      why = "expected a name after '.'";
      return false;
    }
    target.push_back(p.take().text);
  }

  if (target.size() == 2 && target[0] == "order" && target[1] == "append" && p.accept("(")) {
    if (p.peek().kind != Token::string) {
      why = "order.append wants a quoted part name";
      return false;
    }
    const std::string name = p.take().text;
    if (!p.accept(")")) {
      why = "expected ')'";
      return false;
    }
    if (!finish()) return false;
    if (find(name) == nullptr) {
      why = "no part named '" + name + "'";
      return false;
    }
    order_.push_back(name);
    return true;
  }

  const bool add_to = p.accept("+=");
  if (!add_to && !p.accept("=")) {
    why = "expected '=' or '+='";
    return false;
  }
  if (target[0] == "order") {
    why = "'order' changes only through 'del order[:]' and 'order.append(...)'";
    return false;
  }

  if (p.peek().kind == Token::bytes) {
    if (target.size() != 1 || add_to) {
      why = "a bytes literal is assigned to a part name (NAME = b'...')";
      return false;
    }
    Bytes bytes(p.peek().text.begin(), p.peek().text.end());
    p.take();
    if (!finish()) return false;
    if (Part* existing = find(target[0])) {
      *existing = raw(target[0], std::move(bytes));
    } else {
      parts_.push_back(raw(target[0], std::move(bytes)));
    }
    return true;
  }

  if (target.size() < 2) {
    why = "assign to a field (PART.FIELD = ...), not to '" + target[0] + "'";
    return false;
  }
  Part* part = find(target[0]);
  if (part == nullptr || !part->is_record()) {
    why = part == nullptr ? "no part named '" + target[0] + "'" : "'" + target[0] + "' has no fields";
    return false;
  }
  std::string path = target[1];
  for (size_t i = 2; i < target.size(); ++i) path += "." + target[i];
  Field* field = part->field(path);
  if (field == nullptr) {
    why = "'" + target[0] + "' has no field '" + path + "'";
    return false;
  }
  uint64_t value = 0;
  if (!p.expression(value, why) || !finish()) return false;
  if (add_to) {
    if (value > ~uint64_t{0} - field->value) {
      why = "'+=' exceeds 64 bits";
      return false;
    }
    value += field->value;
  }
  if (field->width < 8 && (value >> (8 * field->width)) != 0) {
    why = "value " + std::to_string(value) + " does not fit the " + std::to_string(field->width) +
          "-byte field " + target[0] + "." + path;
    return false;
  }
  field->value = value;
  return true;
}

bool build_object(const std::string& body, uint32_t first_line, Bytes& out, std::string& why) {
  ElfTemplate elf;
  std::istringstream in(body);
  std::string line;
  for (uint32_t number = first_line; std::getline(in, line); ++number) {
    std::string problem;
    if (elf.run(line, problem)) continue;
    size_t begin = line.find_first_not_of(" \t");
    const size_t end = line.find_last_not_of(" \t\r");
    if (begin == std::string::npos) begin = 0;
    why = "-- pyelf line " + std::to_string(number) + ": " + problem + ": `" +
          line.substr(begin, end == std::string::npos ? 0 : end - begin + 1) + "`";
    return false;
  }
  out = elf.serialize();
  return true;
}

ElfResult load_like_ubpf(const Bytes& object, Bytes& program) {
  LoadOptions options;
  options.program_type = "conformance";
  options.text_programs = TextPrograms::whole_section;
  options.extern_helper = &suite::conformance_helper_id;
  // A template-sized object needs a few KiB; out_of_memory would be a
  // failure of the file, not a crash.
  std::vector<uint8_t> memory(object.size() * 64 + (size_t{1} << 16));
  Arena arena(memory.data(), memory.size());
  Object loaded;
  const ElfResult result = load_object(object.data(), object.size(), options, arena, loaded);
  if (result.ok()) {
    const ElfProgram& only = loaded.programs[0];  // whole_section: exactly one
    program.assign(only.insns, only.insns + size_t{only.slots} * 8);
  }
  return result;
}

}  // namespace keel::cli::pyelf
