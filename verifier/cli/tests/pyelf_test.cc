// Tests for `keel test-data`'s -- pyelf support (verifier/cli/pyelf.cc):
// the template object, the statement interpreter, loading as uBPF loads,
// and the mapping of uBPF's ELF loader wording to keel's errors
// (ubpf_wording.cc). Independent of the corpus: the uBPF cases are written
// out here.
#include "pyelf.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "conformance_helpers.h"
#include "ubpf_wording.h"

namespace keel::cli::pyelf {
namespace {

uint64_t le(const Bytes& b, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{b.at(at + i)} << (8 * i);
  return value;
}

Bytes build(const std::string& body) {
  Bytes out;
  std::string why;
  EXPECT_TRUE(build_object(body, 1, out, why)) << why;
  return out;
}

std::string build_error(const std::string& body) {
  Bytes out;
  std::string why;
  EXPECT_FALSE(build_object(body, 10, out, why)) << body;
  return why;
}

std::string describe_result(const ElfResult& result) {
  char text[256];
  describe(result, text, sizeof text);
  return text;
}

TEST(PyelfTemplate, LayoutAndHeader) {
  const Bytes b = build("");
  const ElfTemplate elf;
  // ELF header, .text, .rel.text, .symtab, .strtab, .shstrtab, headers last.
  ASSERT_EQ(b.size(), 592u);
  EXPECT_EQ(std::memcmp(b.data(), "\x7f" "ELF\x02\x01\x01\x00", 8), 0);
  EXPECT_EQ(le(b, 16, 2), 1u);    // ET_REL
  EXPECT_EQ(le(b, 18, 2), 247u);  // EM_BPF
  EXPECT_EQ(le(b, 40, 8), 208u);  // e_shoff
  EXPECT_EQ(le(b, 60, 2), kSectionCount);
  EXPECT_EQ(le(b, 62, 2), kShstrtabSection);
  // .text holds mov r1, 1764; call -1 (src 1, to be relocated); exit.
  const uint64_t text_header = 208 + 64 * kTextSection;
  const uint64_t text = le(b, text_header + 24, 8);
  EXPECT_EQ(le(b, text_header + 32, 8), 24u);
  EXPECT_EQ(le(b, text, 8), 0x000006e4000001b7u);
  EXPECT_EQ(le(b, text + 8, 8), 0xffffffff00001085u);
  EXPECT_EQ(le(b, text + 16, 8), 0x95u);
  // One R_BPF_64_32 against symbol 1 (sqrti_sym) at the call.
  const Part* rel = elf.part("sqrti_rel");
  ASSERT_NE(rel, nullptr);
  EXPECT_EQ(rel->field("r_offset")->value, 8u);
  EXPECT_EQ(rel->field("r_info")->value, (uint64_t{1} << 32) | 10);
  EXPECT_EQ(le(b, 208 + 64 * kRelSection + 40, 4), kSymtabSection);  // sh_link
  EXPECT_EQ(le(b, 208 + 64 * kSymtabSection + 40, 4), kStrtabSection);
}

TEST(PyelfTemplate, LoadsAsUbpfDoes) {
  Bytes program;
  const Bytes object = build("");  // the result's names point into it
  const ElfResult result = load_like_ubpf(object, program);
  ASSERT_TRUE(result.ok()) << describe_result(result);
  ASSERT_EQ(program.size(), 24u);
  // The call now names helper sqrti (src 0, imm = its id).
  const int32_t sqrti = suite::conformance_helper_id(nullptr, "sqrti");
  ASSERT_GE(sqrti, 0);
  EXPECT_EQ(le(program, 0, 8), 0x000006e4000001b7u);
  EXPECT_EQ(le(program, 8, 8), (uint64_t{static_cast<uint32_t>(sqrti)} << 32) | 0x85);
  EXPECT_EQ(le(program, 16, 8), 0x95u);
  EXPECT_EQ(suite::conformance_helper_id(nullptr, "qrti"), -1);
}

TEST(PyelfStatements, FieldAssignment) {
  const Bytes base = build("");
  Bytes b = build("ehdr.e_shoff = 1024\n");
  EXPECT_EQ(le(b, 40, 8), 1024u);
  b[40] = base[40], b[41] = base[41];
  EXPECT_EQ(b, base);  // nothing else moved

  b = build("ehdr.e_ident.EI_DATA = 'ELFDATA2MSB'\nehdr.e_ident.EI_OSABI = 'ELFOSABI_LINUX'");
  EXPECT_EQ(b[5], 2);
  EXPECT_EQ(b[7], 3);
  EXPECT_EQ(le(b, 60, 2), kSectionCount);  // still written little-endian

  b = build("text_shdr.sh_type = 'SHT_NULL'  # a comment\n\n   \n");
  EXPECT_EQ(le(b, 208 + 64 * kTextSection + 4, 4), 0u);

  // Offsets are the template's: a longer .text overrides nothing.
  b = build("text = b'\\x95\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x95\\0\\0\\0\\0\\0\\0\\0\\x95'");
  EXPECT_EQ(b.size(), 592u - 24u + 17u);
  EXPECT_EQ(le(b, 40, 8), 208u);
}

TEST(PyelfStatements, ExpressionsAndAugmentedAssignment) {
  ElfTemplate elf;
  std::string why;
  ASSERT_TRUE(elf.run("sqrti_rel.r_info = (10 << 32) | 2", why)) << why;
  EXPECT_EQ(elf.part("sqrti_rel")->field("r_info")->value, (uint64_t{10} << 32) | 2);
  ASSERT_TRUE(elf.run("sqrti_rel.r_info = 0x1 << 63 | (1 | 2) << 4", why)) << why;
  EXPECT_EQ(elf.part("sqrti_rel")->field("r_info")->value, (uint64_t{1} << 63) | 0x30);
  const uint64_t name = elf.part("sqrti_sym")->field("st_name")->value;
  ASSERT_TRUE(elf.run("sqrti_sym.st_name += 1", why)) << why;
  EXPECT_EQ(elf.part("sqrti_sym")->field("st_name")->value, name + 1);
  ASSERT_TRUE(elf.run("ehdr.e_machine = 1", why)) << why;
  EXPECT_EQ(elf.part("ehdr")->field("e_machine")->value, 1u);
}

TEST(PyelfStatements, OrderAndBytesParts) {
  // tests/elf/ehdr-short.data: the file becomes the 4 magic bytes.
  const Bytes b = build("del order[:]\nmagic = b'\\x7fELF'\norder.append('magic')\n");
  EXPECT_EQ(b, (Bytes{0x7f, 'E', 'L', 'F'}));
  EXPECT_EQ(build("del order[:]\norder.append('ehdr')\norder.append('ehdr')").size(), 128u);
  Bytes program;
  EXPECT_EQ(load_like_ubpf(build("del order[:]\nmagic = b'\\x7fELF'\norder.append('magic')"), program).error,
            ElfError::truncated);
}

TEST(PyelfStatements, OutsideTheGrammarFailsNamingTheLine) {
  const struct {
    const char* body;
    const char* message;
  } cases[] = {
      {"ehdr.e_bogus = 1", "-- pyelf line 10: 'ehdr' has no field 'e_bogus': `ehdr.e_bogus = 1`"},
      {"\nnope.sh_size = 1", "-- pyelf line 11: no part named 'nope'"},
      {"ehdr.e_type = 'ET_WHATEVER'", "unknown constant 'ET_WHATEVER'"},
      {"ehdr.e_shnum = 70000", "value 70000 does not fit the 2-byte field ehdr.e_shnum"},
      {"ehdr.e_shnum = (1", "expected ')'"},
      {"ehdr.e_shnum = 1 + 2", "unexpected character '+'"},
      {"ehdr.e_shnum =", "expression ends early"},
      {"ehdr.e_shnum = 1; x = 2", "unexpected character ';'"},
      {"ehdr.e_shnum = 1 2", "unexpected '2' after the statement"},
      {"sqrti_rel.r_info = 1 << 64", "exceeds 64 bits"},
      {"sqrti_rel.r_info = 3 << 63", "exceeds 64 bits"},
      {"import os", "expected '=' or '+='"},
      {"del order[0]", "only 'del order[:]' is supported"},
      {"order.append('nope')", "no part named 'nope'"},
      {"order = []", "'order' changes only through"},
      {"ehdr = 5", "assign to a field"},
      {"ehdr.e_shnum = b'\\x01'", "a bytes literal is assigned to a part name"},
      {"magic = b'\\x7", "bad \\x escape"},
      {"magic = b'abc", "unterminated bytes literal"},
      {"text.size = 1", "'text' has no fields"},
      {"ehdr.e_shnum = 0x", "bad number '0x'"},
      {"ehdr.e_shnum = 99999999999999999999999", "bad number"},
      {"ehdr.e_shnum -= 1", "unexpected character '-'"},
  };
  for (const auto& c : cases) {
    const std::string why = build_error(c.body);
    EXPECT_NE(why.find(c.message), std::string::npos) << c.body << " -> " << why;
    EXPECT_EQ(why.rfind("-- pyelf line ", 0), 0u) << why;
  }
  // The first bad line stops the build; the good ones before it ran.
  EXPECT_NE(build_error("ehdr.e_shoff = 1024\nehdr.e_shoff += x\n").find("line 11"), std::string::npos);
}

// uBPF's tests/elf/*.data, statement and loader wording: keel's loader must
// refuse each for the reason the wording names (ubpf_wording.cc), and the
// mapping must not accept a different reason.
TEST(PyelfUbpfCases, RefusedForTheSameReason) {
  const struct {
    const char* statements;
    const char* wording;
  } cases[] = {
      {"sqrti_rel.r_offset = 500", "Failed to load code: bad relocation offset"},
      {"symtab_shdr.sh_link = 30", "Failed to load code: bad string table section index"},
      {"sqrti_rel.r_info = (10 << 32) | 2", "Failed to load code: bad symbol index"},
      {"sqrti_sym.st_name = 100", "Failed to load code: bad symbol name"},
      {"rel_shdr.sh_link = 30", "Failed to load code: bad symbol table section index"},
      {"sqrti_rel.r_info = (1 << 32) | 3", "Failed to load code: bad relocation type 3"},
      {"ehdr.e_shoff = 1024", "Failed to load code: bad section header offset or size"},
      {"ehdr.e_shentsize = 1024", "Failed to load code: bad section header offset or size"},
      {"text_shdr.sh_offset = 1024", "Failed to load code: bad section offset or size"},
      {"text_shdr.sh_size = 1024", "Failed to load code: bad section offset or size"},
      {"del order[:]\nmagic = b'\\x7fELF'\norder.append('magic')", "Failed to load code: not enough data for ELF header"},
      {"text_shdr.sh_type = 'SHT_NULL'", "Failed to load code: text section not found"},
      {"sqrti_sym.st_name += 1", "Failed to load code: function 'qrti' not found"},
      {"ehdr.e_shnum = 1024", "Failed to load code: too many sections"},
      {"ehdr.e_ident.EI_DATA = 'ELFDATA2MSB'", "Failed to load code: wrong byte order"},
      {"ehdr.e_ident.EI_CLASS = 'ELFCLASS32'", "Failed to load code: wrong class"},
      {"ehdr.e_machine = 1", "Failed to load code: wrong machine, expected none or BPF, got 1"},
      {"ehdr.e_ident.EI_OSABI = 'ELFOSABI_LINUX'", "Failed to load code: wrong OS ABI"},
      {"ehdr.e_type = 0", "Failed to load code: wrong type, expected relocatable"},
      {"ehdr.e_ident.EI_VERSION = 2", "Failed to load code: wrong version"},
  };
  for (const auto& c : cases) {
    Bytes program;
    const Bytes object = build(c.statements);  // the result's names point into it
    const ElfResult result = load_like_ubpf(object, program);
    ExpectedElfError expected;
    ASSERT_TRUE(map_elf_error(c.wording, expected)) << c.wording;
    EXPECT_TRUE(expected.accepts(result)) << c.statements << ": " << describe_result(result) << ", expected "
                                          << expected.describe();
    // Every other case's reason is a different one.
    for (const auto& other : cases) {
      if (std::string(other.wording) == c.wording) continue;
      ExpectedElfError wrong;
      ASSERT_TRUE(map_elf_error(other.wording, wrong));
      EXPECT_FALSE(wrong.accepts(result)) << c.statements << " accepted as \"" << other.wording << "\"";
    }
  }
}

TEST(PyelfUbpfCases, WordingDetails) {
  ExpectedElfError e;
  ASSERT_TRUE(map_elf_error("Failed to load code: function 'qrti' not found", e));
  EXPECT_EQ(e.symbol, "qrti");
  EXPECT_EQ(e.describe(), "missing_symbol in a section named .rel* (symbol 'qrti')");
  ASSERT_TRUE(map_elf_error("Failed to load code: wrong machine, expected none or BPF, got 62", e));
  EXPECT_TRUE(e.has_value);
  EXPECT_EQ(e.value, 62u);
  ElfResult machine;
  machine.error = ElfError::wrong_machine;
  machine.offset = 18;
  machine.value = 1;
  EXPECT_FALSE(e.accepts(machine));  // got 62, keel saw 1
  machine.value = 62;
  EXPECT_TRUE(e.accepts(machine));
  EXPECT_FALSE(map_elf_error("Failed to load code: the moon is made of cheese", e));
}

}  // namespace
}  // namespace keel::cli::pyelf
