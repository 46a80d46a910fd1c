// Tests for the assembler and disassembler (verifier/src/text): every
// mnemonic's encoding, each error code with its position, and round trips
// (text -> bytes -> text -> bytes) over the corpus and over random slots.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "keel/isa.h"
#include "keel/text.h"
#include "text/mnemonics.h"

#if __has_include(<linux/bpf.h>)
#include <linux/bpf.h>
#define KEEL_HAVE_LINUX_BPF_H 1
#endif

namespace keel {
namespace {

// Encoding constants as linux/bpf.h spells them; checked against the
// header where it exists, so the expectations below are not keel's own.
constexpr uint8_t LD = 0x00, LDX = 0x01, ST = 0x02, STX = 0x03, ALU = 0x04, JMP = 0x05,
                  JMP32 = 0x06, ALU64 = 0x07;
constexpr uint8_t K = 0x00, X = 0x08;
constexpr uint8_t W = 0x00, H = 0x08, B = 0x10, DW = 0x18;
constexpr uint8_t IMM = 0x00, ABS = 0x20, IND = 0x40, MEM = 0x60, MEMSX = 0x80, ATOMIC = 0xc0;
constexpr uint8_t ADD = 0x00, SUB = 0x10, MUL = 0x20, DIV = 0x30, OR = 0x40, AND = 0x50,
                  LSH = 0x60, RSH = 0x70, NEG = 0x80, MOD = 0x90, XOR = 0xa0, MOV = 0xb0,
                  ARSH = 0xc0, END = 0xd0;
constexpr uint8_t TO_LE = 0x00, TO_BE = 0x08;
constexpr uint8_t JA = 0x00, JEQ = 0x10, JGT = 0x20, JGE = 0x30, JSET = 0x40, JNE = 0x50,
                  JSGT = 0x60, JSGE = 0x70, CALL = 0x80, EXIT = 0x90, JLT = 0xa0, JLE = 0xb0,
                  JSLT = 0xc0, JSLE = 0xd0;
constexpr int32_t FETCH = 0x01, XCHG = 0xe1, CMPXCHG = 0xf1;

#ifdef KEEL_HAVE_LINUX_BPF_H
static_assert(LD == BPF_LD && LDX == BPF_LDX && ST == BPF_ST && STX == BPF_STX && ALU == BPF_ALU &&
              JMP == BPF_JMP && JMP32 == BPF_JMP32 && ALU64 == BPF_ALU64);
static_assert(K == BPF_K && X == BPF_X && W == BPF_W && H == BPF_H && B == BPF_B && DW == BPF_DW);
static_assert(IMM == BPF_IMM && ABS == BPF_ABS && IND == BPF_IND && MEM == BPF_MEM &&
              ATOMIC == BPF_ATOMIC);
static_assert(ADD == BPF_ADD && SUB == BPF_SUB && MUL == BPF_MUL && DIV == BPF_DIV &&
              OR == BPF_OR && AND == BPF_AND && LSH == BPF_LSH && RSH == BPF_RSH &&
              NEG == BPF_NEG && MOD == BPF_MOD && XOR == BPF_XOR && MOV == BPF_MOV &&
              ARSH == BPF_ARSH && END == BPF_END && TO_LE == BPF_TO_LE && TO_BE == BPF_TO_BE);
static_assert(JA == BPF_JA && JEQ == BPF_JEQ && JGT == BPF_JGT && JGE == BPF_JGE &&
              JSET == BPF_JSET && JNE == BPF_JNE && JSGT == BPF_JSGT && JSGE == BPF_JSGE &&
              CALL == BPF_CALL && EXIT == BPF_EXIT && JLT == BPF_JLT && JLE == BPF_JLE &&
              JSLT == BPF_JSLT && JSLE == BPF_JSLE);
static_assert(FETCH == BPF_FETCH && XCHG == BPF_XCHG && CMPXCHG == BPF_CMPXCHG);
#ifdef BPF_MEMSX
static_assert(MEMSX == BPF_MEMSX);
#endif
#endif

// One slot as the corpus's `-- raw` sections write it.
constexpr uint64_t enc(uint8_t opcode, uint8_t dst, uint8_t src, int16_t offset, int32_t imm) {
  return uint64_t{opcode} | uint64_t{static_cast<uint8_t>(dst | src << 4)} << 8 |
         uint64_t{static_cast<uint16_t>(offset)} << 16 | uint64_t{static_cast<uint32_t>(imm)} << 32;
}

std::vector<uint8_t> to_bytes(const std::vector<uint64_t>& words) {
  std::vector<uint8_t> bytes(words.size() * 8);
  for (size_t i = 0; i < words.size(); ++i) {
    for (size_t b = 0; b < 8; ++b) bytes[i * 8 + b] = static_cast<uint8_t>(words[i] >> (8 * b));
  }
  return bytes;
}

struct Assembled {
  AsmResult result;
  std::vector<uint8_t> bytes;
};

Assembled assemble_text(const std::string& text, size_t capacity = 0, const AsmOptions& options = {}) {
  if (capacity == 0) capacity = text.size() + 2;  // a slot per line is at most 2 per character
  Assembled a;
  a.bytes.assign(capacity * 8, 0);
  a.result = assemble(text.data(), text.size(), a.bytes.data(), capacity, options);
  a.bytes.resize(a.result.slots * 8);
  return a;
}

std::vector<uint64_t> words_of(const std::string& text) {
  const Assembled a = assemble_text(text);
  EXPECT_TRUE(a.result.ok()) << text << ": " << asm_error_name(a.result.error) << " at "
                             << a.result.line << ":" << a.result.column;
  std::vector<uint64_t> words(a.bytes.size() / 8);
  std::memcpy(words.data(), a.bytes.data(), a.bytes.size());
  return words;
}

// Every slot disassembled, one line each.
std::string disassemble_all(const std::vector<uint8_t>& bytes) {
  std::string text;
  const size_t slots = bytes.size() / 8;
  char line[kDisassemblyLineMax];
  for (size_t i = 0; i < slots;) {
    const size_t used = disassemble_one(bytes.data(), slots, i, line, sizeof line);
    EXPECT_GT(used, 0u) << "slot " << i;
    if (used == 0) break;
    EXPECT_LT(std::strlen(line), kDisassemblyLineMax);
    text += line;
    text += '\n';
    i += used;
  }
  return text;
}

// Disassembles `bytes` and assembles the text again: must give `bytes`.
::testing::AssertionResult round_trips(const std::vector<uint8_t>& bytes) {
  const std::string text = disassemble_all(bytes);
  const Assembled again = assemble_text(text, bytes.size() / 8 + 1);
  if (!again.result.ok()) {
    std::istringstream lines(text);
    std::string bad;
    for (uint32_t i = 0; i < again.result.line; ++i) std::getline(lines, bad);
    return ::testing::AssertionFailure() << asm_error_name(again.result.error) << " at line "
                                         << again.result.line << ":" << again.result.column
                                         << " `" << bad << "`";
  }
  if (again.bytes != bytes) {
    for (size_t i = 0; i < bytes.size() / 8; ++i) {
      if (i * 8 >= again.bytes.size() ||
          std::memcmp(&bytes[i * 8], &again.bytes[i * 8], 8) != 0) {
        return ::testing::AssertionFailure() << "slot " << i << " differs; text:\n" << text;
      }
    }
    return ::testing::AssertionFailure() << "length differs; text:\n" << text;
  }
  return ::testing::AssertionSuccess();
}

// ---- every mnemonic -----------------------------------------------------

struct Case {
  const char* text;
  std::vector<uint64_t> words;
};

std::vector<Case> encoding_cases() {
  std::vector<Case> cases;
  struct Alu {
    const char* name;
    uint8_t op;
    int16_t offset;
  };
  const Alu alu[] = {{"add", ADD, 0}, {"sub", SUB, 0}, {"mul", MUL, 0}, {"div", DIV, 0},
                     {"sdiv", DIV, 1}, {"or", OR, 0},  {"and", AND, 0}, {"lsh", LSH, 0},
                     {"rsh", RSH, 0}, {"mod", MOD, 0}, {"smod", MOD, 1}, {"xor", XOR, 0},
                     {"mov", MOV, 0}, {"arsh", ARSH, 0}};
  static std::vector<std::string> storage;  // keeps the generated texts alive
  storage.reserve(1000);
  auto add = [&](std::string text, std::vector<uint64_t> words) {
    storage.push_back(std::move(text));
    cases.push_back({storage.back().c_str(), std::move(words)});
  };
  for (const Alu& a : alu) {
    const std::string n = a.name;
    add(n + " %r1, 2", {enc(ALU64 | K | a.op, 1, 0, a.offset, 2)});
    add(n + " %r9, %r10", {enc(ALU64 | X | a.op, 9, 10, a.offset, 0)});
    add(n + "32 %r1, -1", {enc(ALU | K | a.op, 1, 0, a.offset, -1)});
    add(n + "32 %r3, %r4", {enc(ALU | X | a.op, 3, 4, a.offset, 0)});
    add(n + "64 %r0, 0xffffffff", {enc(ALU64 | K | a.op, 0, 0, a.offset, -1)});  // alias
  }
  add("neg %r2", {enc(ALU64 | NEG, 2, 0, 0, 0)});
  add("neg32 %r2", {enc(ALU | NEG, 2, 0, 0, 0)});
  add("neg64 %r2", {enc(ALU64 | NEG, 2, 0, 0, 0)});
  add("movsx864 %r0, %r1", {enc(ALU64 | X | MOV, 0, 1, 8, 0)});
  add("movsx1664 %r0, %r1", {enc(ALU64 | X | MOV, 0, 1, 16, 0)});
  add("movsx3264 %r0, %r1", {enc(ALU64 | X | MOV, 0, 1, 32, 0)});
  add("movsx832 %r2, %r1", {enc(ALU | X | MOV, 2, 1, 8, 0)});
  add("movsx1632 %r2, %r1", {enc(ALU | X | MOV, 2, 1, 16, 0)});
  for (int bits : {16, 32, 64}) {
    const std::string b = std::to_string(bits);
    add("le" + b + " %r1", {enc(ALU | END | TO_LE, 1, 0, 0, bits)});
    add("be" + b + " %r1", {enc(ALU | END | TO_BE, 1, 0, 0, bits)});
    add("bswap" + b + " %r1", {enc(ALU64 | END, 1, 0, 0, bits)});
    add("swap" + b + " %r1", {enc(ALU64 | END, 1, 0, 0, bits)});
  }
  struct Jcc {
    const char* name;
    uint8_t op;
  };
  const Jcc jcc[] = {{"jeq", JEQ},   {"jgt", JGT},   {"jge", JGE},   {"jset", JSET},
                     {"jne", JNE},   {"jsgt", JSGT}, {"jsge", JSGE}, {"jlt", JLT},
                     {"jle", JLE},   {"jslt", JSLT}, {"jsle", JSLE}};
  for (const Jcc& j : jcc) {
    const std::string n = j.name;
    add(n + " %r1, 0x33, +1", {enc(JMP | K | j.op, 1, 0, 1, 0x33)});
    add(n + " %r1, %r2, -3", {enc(JMP | X | j.op, 1, 2, -3, 0)});
    add(n + "32 %r1, -5, +0", {enc(JMP32 | K | j.op, 1, 0, 0, -5)});
    add(n + "32 %r1, %r2, +32767", {enc(JMP32 | X | j.op, 1, 2, 32767, 0)});
  }
  add("ja +2", {enc(JMP | JA, 0, 0, 2, 0)});
  add("ja -32768", {enc(JMP | JA, 0, 0, -32768, 0)});
  add("ja32 +100000", {enc(JMP32 | JA, 0, 0, 0, 100000)});
  add("gotol -1", {enc(JMP32 | JA, 0, 0, 0, -1)});
  add("call 1", {enc(JMP | CALL, 0, 0, 0, 1)});
  add("call 0x4", {enc(JMP | CALL, 0, 0, 0, 4)});
  add("call helper 7", {enc(JMP | CALL, 0, 0, 0, 7)});
  add("call local +3", {enc(JMP | CALL, 0, 1, 0, 3)});
  add("call local -70000", {enc(JMP | CALL, 0, 1, 0, -70000)});
  add("call %r2", {enc(JMP | X | CALL, 2, 0, 0, 0)});
  add("callx %r5", {enc(JMP | X | CALL, 5, 0, 0, 0)});
  add("exit", {enc(JMP | EXIT, 0, 0, 0, 0)});
  add("lddw %r0, 0x1122334455667788",
      {enc(LD | IMM | DW, 0, 0, 0, 0x55667788), enc(0, 0, 0, 0, 0x11223344)});
  add("lddw %r3, -1", {enc(LD | IMM | DW, 3, 0, 0, -1), enc(0, 0, 0, 0, -1)});
  add("lddw %r0, 2147483648", {enc(LD | IMM | DW, 0, 0, 0, INT32_MIN), enc(0, 0, 0, 0, 0)});
  add("lddw %r1, map_fd 3", {enc(LD | IMM | DW, 1, 1, 0, 3), enc(0, 0, 0, 0, 0)});
  add("lddw %r1, map_value 3 + 16", {enc(LD | IMM | DW, 1, 2, 0, 3), enc(0, 0, 0, 0, 16)});
  add("lddw %r1, map_value 3 - 16", {enc(LD | IMM | DW, 1, 2, 0, 3), enc(0, 0, 0, 0, -16)});
  add("lddw %r2, var_addr 9", {enc(LD | IMM | DW, 2, 3, 0, 9), enc(0, 0, 0, 0, 0)});
  add("lddw %r2, code_addr -4", {enc(LD | IMM | DW, 2, 4, 0, -4), enc(0, 0, 0, 0, 0)});
  add("lddw %r2, map_idx 0", {enc(LD | IMM | DW, 2, 5, 0, 0), enc(0, 0, 0, 0, 0)});
  add("lddw %r2, map_idx_value 1 + 0xffffffff",
      {enc(LD | IMM | DW, 2, 6, 0, 1), enc(0, 0, 0, 0, -1)});
  struct Size {
    const char* suffix;
    uint8_t size;
  };
  const Size sizes[] = {{"w", W}, {"h", H}, {"b", B}, {"dw", DW}};
  for (const Size& s : sizes) {
    const std::string z = s.suffix;
    add("ldx" + z + " %r0, [%r1+4]", {enc(LDX | MEM | s.size, 0, 1, 4, 0)});
    add("ldx" + z + " %r0, [%r10-8]", {enc(LDX | MEM | s.size, 0, 10, -8, 0)});
    add("ldx" + z + " %r0, [%r2]", {enc(LDX | MEM | s.size, 0, 2, 0, 0)});
    add("st" + z + " [%r1+2], 0x11223344", {enc(ST | MEM | s.size, 1, 0, 2, 0x11223344)});
    add("stx" + z + " [%r1-8], %r2", {enc(STX | MEM | s.size, 1, 2, -8, 0)});
    if (s.size != DW) {
      add("ldxs" + z + " %r0, [%r1+0x88]", {enc(LDX | MEMSX | s.size, 0, 1, 0x88, 0)});
      add("ldabs" + z + " 12", {enc(LD | ABS | s.size, 0, 0, 0, 12)});
      add("ldind" + z + " %r1, -4", {enc(LD | IND | s.size, 0, 1, 0, -4)});
    }
  }
  struct Atomic {
    const char* name;
    int32_t op;
  };
  const Atomic atomics[] = {{"add", ADD}, {"or", OR}, {"and", AND}, {"xor", XOR}};
  for (const Atomic& a : atomics) {
    const std::string n = a.name;
    add("lock " + n + " [%r10-8], %r1", {enc(STX | ATOMIC | DW, 10, 1, -8, a.op)});
    add("lock " + n + "32 [%r10-4], %r1", {enc(STX | ATOMIC | W, 10, 1, -4, a.op)});
    add("lock fetch " + n + " [%r10-8], %r3", {enc(STX | ATOMIC | DW, 10, 3, -8, a.op | FETCH)});
    add("lock fetch " + n + "32 [%r10-4], %r3", {enc(STX | ATOMIC | W, 10, 3, -4, a.op | FETCH)});
  }
  add("lock xchg [%r10-8], %r1", {enc(STX | ATOMIC | DW, 10, 1, -8, XCHG)});
  add("lock xchg32 [%r10-8], %r1", {enc(STX | ATOMIC | W, 10, 1, -8, XCHG)});
  add("lock cmpxchg [%r10-8], %r1", {enc(STX | ATOMIC | DW, 10, 1, -8, CMPXCHG)});
  add("lock cmpxchg32 [%r10-8], %r1", {enc(STX | ATOMIC | W, 10, 1, -8, CMPXCHG)});
  add(".8byte 0x0000000000010005", {0x0000000000010005});
  add(".8byte -1", {~uint64_t{0}});
  return cases;
}

TEST(TextAssemble, EveryMnemonicEncodes) {
  for (const Case& c : encoding_cases()) {
    EXPECT_EQ(words_of(c.text), c.words) << c.text;
  }
}

TEST(TextAssemble, EveryMnemonicRoundTrips) {
  for (const Case& c : encoding_cases()) {
    EXPECT_TRUE(round_trips(to_bytes(c.words))) << c.text;
  }
}

TEST(TextAssemble, LddwRawSectionOfTheCorpusFile) {
  // bpf_conformance/tests/lddw.data
  EXPECT_EQ(words_of("lddw %r0, 0x1122334455667788\nexit\n"),
            (std::vector<uint64_t>{0x5566778800000018, 0x1122334400000000, 0x0000000000000095}));
}

TEST(TextAssemble, LabelsCommentsAndLayout) {
  const std::string text =
      "# leading comment\n"
      "\tmov %r0, 0   ; trailing\n"
      "start:\n"
      "  jeq %r1 ,%r2,  done # spaces anywhere between operands\n"
      "  lddw %r3, 1\n"
      "  ja start\n"
      "done: exit\r\n"
      "  call local start\n"
      "  ja32 done\n";
  EXPECT_EQ(words_of(text),
            (std::vector<uint64_t>{enc(ALU64 | MOV, 0, 0, 0, 0), enc(JMP | X | JEQ, 1, 2, 3, 0),
                                   enc(LD | DW, 3, 0, 0, 1), enc(0, 0, 0, 0, 0),
                                   enc(JMP | JA, 0, 0, -4, 0), enc(JMP | EXIT, 0, 0, 0, 0),
                                   enc(JMP | CALL, 0, 1, 0, -6), enc(JMP32 | JA, 0, 0, 0, -3)}));
}

TEST(TextAssemble, UndefinedExitLabelNamesTheFirstExit) {
  // As bpf_conformance's prime.data uses it.
  EXPECT_EQ(words_of("ja exit\nmov %r0, 1\nexit\nexit\n"),
            (std::vector<uint64_t>{enc(JMP | JA, 0, 0, 1, 0), enc(ALU64 | MOV, 0, 0, 0, 1),
                                   enc(JMP | EXIT, 0, 0, 0, 0), enc(JMP | EXIT, 0, 0, 0, 0)}));
  // A defined `exit` label wins.
  EXPECT_EQ(words_of("ja exit\nexit\nexit:\nexit\n"),
            (std::vector<uint64_t>{enc(JMP | JA, 0, 0, 1, 0), enc(JMP | EXIT, 0, 0, 0, 0),
                                   enc(JMP | EXIT, 0, 0, 0, 0)}));
}

TEST(TextAssemble, NumberRanges) {
  EXPECT_EQ(words_of("mov %r0, -2147483648"), (std::vector<uint64_t>{enc(ALU64 | MOV, 0, 0, 0, INT32_MIN)}));
  EXPECT_EQ(words_of("mov %r0, 4294967295"), (std::vector<uint64_t>{enc(ALU64 | MOV, 0, 0, 0, -1)}));
  EXPECT_EQ(words_of("mov %r0, 0X7FfFfFfF"), (std::vector<uint64_t>{enc(ALU64 | MOV, 0, 0, 0, INT32_MAX)}));
  EXPECT_EQ(words_of("lddw %r0, 18446744073709551615"),
            (std::vector<uint64_t>{enc(LD | DW, 0, 0, 0, -1), enc(0, 0, 0, 0, -1)}));
  EXPECT_EQ(words_of("lddw %r0, -9223372036854775808"),
            (std::vector<uint64_t>{enc(LD | DW, 0, 0, 0, 0), enc(0, 0, 0, 0, INT32_MIN)}));
  EXPECT_EQ(words_of("stw [%r1+32767], 0\nstw [%r1-32768], 0"),
            (std::vector<uint64_t>{enc(ST | MEM | W, 1, 0, 32767, 0), enc(ST | MEM | W, 1, 0, -32768, 0)}));
  EXPECT_EQ(words_of("ldxw %r0, [ %r1 + 0x10 ]"), (std::vector<uint64_t>{enc(LDX | MEM | W, 0, 1, 16, 0)}));
  EXPECT_EQ(words_of("ja 0"), (std::vector<uint64_t>{enc(JMP | JA, 0, 0, 0, 0)}));
}

// ---- disassembly ----------------------------------------------------------

std::string disassemble_words(const std::vector<uint64_t>& words, size_t index = 0) {
  const std::vector<uint8_t> bytes = to_bytes(words);
  char line[kDisassemblyLineMax];
  const size_t used = disassemble_one(bytes.data(), words.size(), index, line, sizeof line);
  return used == 0 ? "<none>" : std::string(line);
}

TEST(TextDisassemble, CanonicalText) {
  EXPECT_EQ(disassemble_words({enc(ALU | MOV, 0, 0, 0, 0)}), "mov32 %r0, 0");
  EXPECT_EQ(disassemble_words({enc(ALU64 | K | ADD, 9, 0, 0, -1)}), "add %r9, -1");
  EXPECT_EQ(disassemble_words({enc(ALU64 | K | AND, 9, 0, 0, 0x00ff00ff)}), "and %r9, 0xff00ff");
  EXPECT_EQ(disassemble_words({enc(ALU | K | DIV, 9, 0, 1, INT32_MIN)}), "sdiv32 %r9, 0x80000000");
  EXPECT_EQ(disassemble_words({enc(ALU64 | X | MOV, 0, 1, 16, 0)}), "movsx1664 %r0, %r1");
  EXPECT_EQ(disassemble_words({enc(ALU64 | END, 0, 0, 0, 16)}), "bswap16 %r0");
  EXPECT_EQ(disassemble_words({enc(JMP | K | JEQ, 1, 0, -2, 0x33)}), "jeq %r1, 51, -2");
  EXPECT_EQ(disassemble_words({enc(JMP32 | X | JSLE, 1, 2, 0, 0)}), "jsle32 %r1, %r2, +0");
  EXPECT_EQ(disassemble_words({enc(JMP | JA, 0, 0, 3, 0)}), "ja +3");
  EXPECT_EQ(disassemble_words({enc(JMP32 | JA, 0, 0, 0, -70000)}), "ja32 -70000");
  EXPECT_EQ(disassemble_words({enc(JMP | CALL, 0, 0, 0, 5)}), "call 5");
  EXPECT_EQ(disassemble_words({enc(JMP | CALL, 0, 1, 0, 3)}), "call local +3");
  EXPECT_EQ(disassemble_words({enc(JMP | X | CALL, 2, 0, 0, 0)}), "call %r2");
  EXPECT_EQ(disassemble_words({enc(LDX | MEM | B, 0, 1, 0, 0)}), "ldxb %r0, [%r1]");
  EXPECT_EQ(disassemble_words({enc(STX | MEM | DW, 10, 1, -8, 0)}), "stxdw [%r10-8], %r1");
  EXPECT_EQ(disassemble_words({enc(STX | ATOMIC | W, 10, 3, -4, OR | FETCH)}),
            "lock fetch or32 [%r10-4], %r3");
  EXPECT_EQ(disassemble_words({enc(LD | IND | H, 0, 3, 0, 8)}), "ldindh %r3, 8");
  EXPECT_EQ(disassemble_words({enc(LD | DW, 0, 0, 0, 0x55667788), enc(0, 0, 0, 0, 0x11223344)}),
            "lddw %r0, 0x1122334455667788");
  EXPECT_EQ(disassemble_words({enc(LD | DW, 0, 0, 0, -2), enc(0, 0, 0, 0, -1)}), "lddw %r0, -2");
  EXPECT_EQ(disassemble_words({enc(LD | DW, 1, 2, 0, 3), enc(0, 0, 0, 0, 16)}),
            "lddw %r1, map_value 3 + 16");
  EXPECT_EQ(disassemble_words({enc(LD | DW, 1, 6, 0, 3), enc(0, 0, 0, 0, INT32_MIN)}),
            "lddw %r1, map_idx_value 3 - 2147483648");
  EXPECT_EQ(disassemble_words({enc(LD | DW, 1, 1, 0, 3), enc(0, 0, 0, 0, 0)}), "lddw %r1, map_fd 3");
}

// keel's compiler builtins (isa.h) print and assemble by name.
TEST(TextDisassemble, BuiltinCallsByName) {
  const char* names[] = {"memset", "memcpy", "memmove", "memcmp"};
  for (int32_t id = kBuiltinMemset; id <= kBuiltinMemcmp; ++id) {
    const std::string text = std::string("call ") + names[id - kBuiltinMemset];
    EXPECT_EQ(disassemble_words({enc(JMP | CALL, 0, 0, 0, id)}), text);
    EXPECT_EQ(words_of(text), (std::vector<uint64_t>{enc(JMP | CALL, 0, 0, 0, id)}));
    EXPECT_TRUE(round_trips(to_bytes({enc(JMP | CALL, 0, 0, 0, id)})));
  }
  // Ids next to the range stay numbers; a local call is never a builtin.
  EXPECT_EQ(disassemble_words({enc(JMP | CALL, 0, 0, 0, kBuiltinMemcmp + 1)}), "call 0x10004");
  EXPECT_EQ(disassemble_words({enc(JMP | CALL, 0, 1, 0, kBuiltinMemset)}), "call local +65536");
  const Assembled bad = assemble_text("call memsett\n");
  EXPECT_EQ(bad.result.error, AsmError::bad_operand);
  EXPECT_EQ(bad.result.column, 6u);
}

TEST(TextDisassemble, NonCanonicalSlotsPrintRaw) {
  const uint64_t invalid[] = {
      enc(0xff, 0, 0, 0, 0),                    // unknown opcode
      enc(ALU64 | K | ADD, 0, 1, 0, 1),         // src set in a K form
      enc(ALU64 | X | ADD, 0, 1, 0, 1),         // imm set in an X form
      enc(ALU64 | K | ADD, 0, 0, 1, 1),         // offset set
      enc(ALU64 | K | MOV, 0, 0, 8, 1),         // movsx needs X
      enc(ALU64 | X | MOV, 0, 1, 24, 0),        // no such movsx width
      enc(ALU64 | X | NEG, 0, 0, 0, 0),         // neg has no X form
      enc(ALU | END, 0, 0, 0, 48),              // bad swap width
      enc(ALU64 | END | TO_BE, 0, 0, 0, 16),    // ALU64|END|X is not defined
      enc(ALU64 | K | MOV, 11, 0, 0, 1),        // register 11
      enc(JMP | JA, 0, 0, 1, 1),                // ja with imm
      enc(JMP32 | JA, 0, 0, 1, 1),              // ja32 with offset
      enc(JMP | CALL, 0, 2, 0, 1),              // call by BTF id: no syntax
      enc(JMP | CALL, 1, 0, 0, 1),              // call with dst
      enc(JMP | EXIT, 0, 0, 0, 1),              // exit with imm
      enc(JMP32 | CALL, 0, 0, 0, 1),            // no call in JMP32
      enc(LDX | MEMSX | DW, 0, 1, 0, 0),        // no 8-byte sign extension
      enc(STX | ATOMIC | DW, 10, 1, 0, 0x10),   // unknown atomic op
      enc(STX | ATOMIC | B, 10, 1, 0, 0),       // atomic byte
      enc(LD | ABS | DW, 0, 0, 0, 0),           // no 8-byte legacy load
      enc(LD | ABS | W, 1, 0, 0, 0),            // legacy load with dst
      enc(LD | DW, 0, 7, 0, 0),                 // unknown lddw kind (checked below with a tail)
  };
  for (uint64_t word : invalid) {
    const std::string text = disassemble_words({word, 0});
    EXPECT_EQ(text.rfind(".8byte 0x", 0), 0u) << std::hex << word << " -> " << text;
    EXPECT_EQ(text.size(), 25u) << text;
    EXPECT_TRUE(round_trips(to_bytes({word})));
  }
  // lddw with an unclean second slot, or none: printed slot by slot.
  const std::vector<uint64_t> bad_tails[] = {
      {enc(LD | DW, 0, 0, 0, 1), enc(0, 1, 0, 0, 0)},
      {enc(LD | DW, 0, 0, 0, 1), enc(0, 0, 1, 0, 0)},
      {enc(LD | DW, 0, 0, 0, 1), enc(0, 0, 0, 1, 0)},
      {enc(LD | DW, 0, 0, 0, 1), enc(ALU64 | MOV, 0, 0, 0, 0)},
      {enc(LD | DW, 0, 0, 0, 1)},
  };
  for (const auto& words : bad_tails) {
    EXPECT_EQ(disassemble_words(words), ".8byte 0x0000000100000018");
    EXPECT_TRUE(round_trips(to_bytes(words)));
  }
  EXPECT_EQ(disassemble_words({enc(LD | DW, 0, 0, 0, 1), enc(0, 0, 0, 0, 0)}, 1),
            ".8byte 0x0000000000000000");
}

TEST(TextDisassemble, BufferAndIndexLimits) {
  const std::vector<uint8_t> bytes = to_bytes({enc(ALU64 | MOV, 0, 0, 0, 1)});  // "mov %r0, 1"
  char line[16];
  std::memset(line, 'x', sizeof line);
  EXPECT_EQ(disassemble_one(bytes.data(), 1, 0, line, 10), 0u);
  EXPECT_EQ(line[0], '\0');
  EXPECT_EQ(disassemble_one(bytes.data(), 1, 0, line, 11), 1u);
  EXPECT_STREQ(line, "mov %r0, 1");
  EXPECT_EQ(disassemble_one(bytes.data(), 1, 1, line, sizeof line), 0u);
  EXPECT_EQ(disassemble_one(bytes.data(), 1, 0, nullptr, 0), 0u);
  EXPECT_EQ(disassemble_one(nullptr, 0, 0, line, sizeof line), 0u);
}

// ---- random slots ----------------------------------------------------------

TEST(TextRoundTrip, RandomSlots) {
  std::mt19937_64 rng(0x6b65656cu);
  constexpr size_t kSlots = 100000;
  std::vector<uint64_t> words(kSlots);
  size_t count = 0;
  const text::Mnemonic* table = text::mnemonic_table(&count);
  // Values that mnemonics fix: swap widths and atomic operations.
  static const uint32_t kSpecial[] = {16, 32, 64, 0x00, 0x01, 0x40, 0x41, 0x50, 0x51, 0xa0, 0xa1, 0xe1, 0xf1};
  const auto reg = [&] { return static_cast<uint8_t>(rng() % 11); };
  const auto any_offset = [&] {
    return static_cast<int16_t>(rng() % 2 == 0 ? static_cast<int>(rng() % 64) - 32 : static_cast<int>(rng()));
  };
  const auto any_imm = [&] {
    const auto pick = rng() % 4;
    return static_cast<int32_t>(pick == 0 ? 0
                                : pick == 1 ? static_cast<uint32_t>(rng() % 256) - 128
                                : pick == 2 ? kSpecial[rng() % std::size(kSpecial)]
                                            : static_cast<uint32_t>(rng()));
  };
  for (size_t i = 0; i < kSlots; ++i) {
    uint64_t& w = words[i];
    if (rng() % 8 == 0) {  // anything at all
      w = rng();
      continue;
    }
    // An instruction of a random row with fields it allows, then now and
    // then one byte flipped so that the near-misses are exercised too.
    const text::Mnemonic& m = table[rng() % count];
    uint8_t opcode = m.opcode, dst = reg(), src = reg();
    int16_t offset = any_offset();
    int32_t imm = any_imm();
    const bool x = rng() % 2 == 0;
    switch (m.form) {
      case text::Form::alu: case text::Form::jcc:
        if (m.form == text::Form::alu) offset = m.offset;
        if (x) { opcode |= X; imm = 0; } else { src = 0; }
        break;
      case text::Form::alu_reg: offset = m.offset; imm = 0; break;
      case text::Form::unary: offset = 0; imm = m.imm; src = 0; break;
      case text::Form::ja: dst = src = 0; imm = 0; break;
      case text::Form::ja32: dst = src = 0; offset = 0; break;
      case text::Form::call_helper: case text::Form::call_local: dst = 0; src = m.src; offset = 0; break;
      case text::Form::callx: src = 0; offset = 0; imm = 0; break;
      case text::Form::exit: dst = src = 0; offset = 0; imm = 0; break;
      case text::Form::lddw:
        offset = 0;
        src = static_cast<uint8_t>(rng() % 2 ? 0 : rng() % 7);
        if (i + 1 < kSlots) {
          words[i + 1] = uint64_t{static_cast<uint32_t>(any_imm())} << 32;
          ++i;
        }
        break;
      case text::Form::ldx: imm = 0; break;
      case text::Form::st: src = 0; break;
      case text::Form::stx: imm = m.imm; break;
      case text::Form::ld_abs: dst = src = 0; offset = 0; break;
      case text::Form::ld_ind: dst = 0; offset = 0; break;
      case text::Form::raw: break;
    }
    uint64_t slot = enc(opcode, dst, src, offset, imm);
    if (rng() % 10 == 0) slot ^= uint64_t{1} << (rng() % 64);
    w = slot;  // the first slot even when a lddw tail followed
  }
  const std::vector<uint8_t> bytes = to_bytes(words);
  const std::string text = disassemble_all(bytes);
  size_t raw = 0, lines = 0;
  std::set<std::string> printed;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line); ++lines) {
    if (line.rfind(".8byte", 0) == 0) ++raw;
    // The mnemonic's words: those before the first operand.
    std::istringstream words_of_line(line);
    std::string name;
    for (std::string word; words_of_line >> word;) {
      if (std::string("%[+-0123456789").find(word[0]) != std::string::npos) break;
      name += (name.empty() ? "" : " ") + word;
    }
    printed.insert(name);
  }
  EXPECT_LT(raw, lines / 2) << "the generator should mostly reach real instructions";
  std::cout << "[ random   ] " << lines << " lines, " << raw << " printed as .8byte\n";
  // Every canonical mnemonic of the shared table shows up at least once.
  for (size_t i = 0; i < count; ++i) {
    if (!table[i].alias) {
      EXPECT_EQ(printed.count(table[i].name), 1u) << table[i].name;
    }
  }
  EXPECT_TRUE(round_trips(bytes));
}

TEST(TextRoundTrip, UniformRandomBytesAtEveryIndex) {
  // 100k slots of uniformly random bytes; every index (not only instruction
  // starts) disassembles to a line that assembles to the slots it consumed.
  std::mt19937_64 rng(7);
  constexpr size_t kSlots = 100000;
  std::vector<uint64_t> words(kSlots);
  for (uint64_t& w : words) w = rng();
  for (size_t i = 0; i + 1 < kSlots; i += 97) words[i] = (words[i] & ~uint64_t{0xff}) | (LD | DW);
  const std::vector<uint8_t> bytes = to_bytes(words);
  char line[kDisassemblyLineMax];
  uint8_t out[16];
  size_t failures = 0;
  for (size_t i = 0; i < kSlots && failures < 10; ++i) {
    const size_t used = disassemble_one(bytes.data(), kSlots, i, line, sizeof line);
    ASSERT_GT(used, 0u);
    const AsmResult r = assemble(line, std::strlen(line), out, 2);
    if (!r.ok() || r.slots != used || std::memcmp(out, &bytes[i * 8], used * 8) != 0) {
      ADD_FAILURE() << "slot " << i << ": " << line;
      ++failures;
    }
  }
  EXPECT_TRUE(round_trips(bytes));
}

TEST(TextRoundTrip, GarbageTextNeverCrashes) {
  std::mt19937_64 rng(42);
  static const char kAlphabet[] = "%r0123456789x+-[],:# \t\nabcdefghijklmnopqrstuvwxyz.;\0\xff";
  const std::string alphabet(kAlphabet, sizeof kAlphabet - 1);
  const std::vector<std::string> words = {"mov", "lddw", "ja", "jeq32", "call", "local", "lock", "fetch",
                                          "%r10", "%r1", "[%r1+4]", ",", "+1", "-0x8000", "0xffffffffffffffffff",
                                          "map_value", "exit", "x:", "\n", ".8byte", "+"};
  std::vector<uint8_t> out(64 * 8);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const size_t n = rng() % 12;
    for (size_t k = 0; k < n; ++k) {
      if (rng() & 1) {
        text += words[rng() % words.size()];
        text += ' ';
      } else {
        text += alphabet[rng() % alphabet.size()];
      }
    }
    const AsmResult r = assemble(text.data(), text.size(), out.data(), rng() % 65);
    if (!r.ok()) {
      EXPECT_GE(r.line, 1u) << text;
      EXPECT_GE(r.column, 1u) << text;
    }
  }
  // Empty and null inputs.
  EXPECT_TRUE(assemble(nullptr, 0, nullptr, 0).ok());
  EXPECT_TRUE(assemble("", 0, nullptr, 0).ok());
  // A megabyte-long line and a megabyte-long number.
  const std::string long_word(1 << 20, 'a');
  AsmResult r = assemble(long_word.data(), long_word.size(), out.data(), 64);
  EXPECT_EQ(r.error, AsmError::unknown_mnemonic);
  const std::string long_number = "mov %r0, " + std::string(1 << 20, '0') + "1";
  EXPECT_EQ(words_of(long_number), (std::vector<uint64_t>{enc(ALU64 | MOV, 0, 0, 0, 1)}));
}

// ---- errors -----------------------------------------------------------------

struct ErrorCase {
  std::string text;
  AsmError error;
  uint32_t line;
  uint32_t column;
  size_t capacity = 16;
};

TEST(TextAssemble, ErrorsCarryLineAndColumn) {
  const ErrorCase cases[] = {
      {"mov %r0, 1\n  foo %r1\n", AsmError::unknown_mnemonic, 2, 3},
      {"exit\n%r1\n", AsmError::unknown_mnemonic, 2, 1},
      {"l: l2: exit\n", AsmError::unknown_mnemonic, 1, 4},
      {"lock fetch xchg [%r10-8], %r1", AsmError::unknown_mnemonic, 1, 1},
      {"exit\nmov %r0\n", AsmError::bad_operand, 2, 8},          // missing operand: past the end
      {"mov %r0 # , 1", AsmError::bad_operand, 1, 9},            // missing comma before the comment
      {"exit 1", AsmError::bad_operand, 1, 6},                   // trailing operand
      {"mov r0, 1", AsmError::bad_operand, 1, 5},                // register without %
      {"mov %r0, foo", AsmError::bad_operand, 1, 10},
      {"ldxw %r0, %r1", AsmError::bad_operand, 1, 11},           // memory operand expected
      {"ldxw %r0, [%r1+4", AsmError::bad_operand, 1, 17},        // missing ]
      {"lddw %r0, map_thing 3", AsmError::bad_operand, 1, 11},
      {"ja", AsmError::bad_operand, 1, 3},
      {"mov %r99, 1", AsmError::bad_register, 1, 5},
      {"mov %r11, 1", AsmError::bad_register, 1, 5},             // RFC 9669 §2.3: r0..r10 only
      {"stxdw [%r10-8], %r15", AsmError::bad_register, 1, 17},
      {"mov %r0, %r16", AsmError::bad_register, 1, 10},
      {"mov %x1, 1", AsmError::bad_register, 1, 5},
      {"neg %r1x", AsmError::bad_register, 1, 5},
      {"mov %r0, 0x100000000", AsmError::bad_number, 1, 10},
      {"mov %r0, -2147483649", AsmError::bad_number, 1, 10},
      {"mov32 %r0, 12abc", AsmError::bad_number, 1, 12},
      {"mov %r0, 0x", AsmError::bad_number, 1, 10},
      {"mov %r0, -", AsmError::bad_number, 1, 10},
      {"mov %r0, 1.5", AsmError::bad_number, 1, 10},
      {"lddw %r0, 0x10000000000000000", AsmError::bad_number, 1, 11},
      {"lddw %r0, 99999999999999999999", AsmError::bad_number, 1, 11},
      {"lddw %r0, -9223372036854775809", AsmError::bad_number, 1, 11},
      {"ja +32768", AsmError::bad_number, 1, 4},
      {"ja32 -2147483649", AsmError::bad_number, 1, 6},
      {"ldxw %r0, [%r1+32768]", AsmError::bad_number, 1, 15},
      {"ldxw %r0, [%r1+zz]", AsmError::bad_number, 1, 16},
      {"lddw %r1, map_value 3 + 0x100000000", AsmError::bad_number, 1, 23},
      {"exit\nexit\nja nowhere\n", AsmError::unknown_label, 3, 4},
      {"jeq %r1, 0, nowhere", AsmError::unknown_label, 1, 13},
      {"call local f", AsmError::unknown_label, 1, 12},
      {"a:\nexit\n  a:\n", AsmError::duplicate_label, 3, 3},
      {"exit\nexit\n", AsmError::output_full, 2, 1, 1},
      {"exit\n  lddw %r0, 1\n", AsmError::output_full, 2, 3, 2},
      {"exit", AsmError::output_full, 1, 1, 0},
  };
  for (const ErrorCase& c : cases) {
    std::vector<uint8_t> out(c.capacity * 8 + 1);
    const AsmResult r = assemble(c.text.data(), c.text.size(), c.capacity ? out.data() : nullptr, c.capacity);
    EXPECT_EQ(r.error, c.error) << c.text << " gave " << asm_error_name(r.error);
    EXPECT_EQ(r.line, c.line) << c.text;
    EXPECT_EQ(r.column, c.column) << c.text;
    // Every error says what would have been valid there.
    ASSERT_NE(r.expected, nullptr) << c.text;
    EXPECT_GT(std::strlen(r.expected), 3u) << c.text;
  }
  // output_full reports how much was written.
  std::vector<uint8_t> out(8);
  const AsmResult full = assemble("exit\nexit\n", 10, out.data(), 1);
  EXPECT_EQ(full.slots, 1u);
}

TEST(TextAssemble, ErrorsSayWhatWasExpected) {
  const struct {
    const char* text;
    const char* expected;
  } cases[] = {
      {"mov %r11, 1", "a register %r0..%r10"},
      {"mov r0, 1", "a register %r0..%r10"},
      {"add %r0, [%r1]", "a register %rN or a number"},
      {"ldxw %r0, %r1", "a memory operand [%rN+offset]"},
      {"ldxw %r0, [%r1+4", "']' closing [%rN+offset]"},
      {"mov %r0 1", "',' before the next operand"},
      {"jeq %r1, 0, %r2", "a jump target: +N, -N or a label"},
      {"frob %r1", "an instruction mnemonic (mov, ldxw, jeq, exit, ...) or a label"},
      {"exit 1", "the end of the line (or a # comment)"},
      {"ja +40000", "an offset from -32768 to +32767"},
      {"mov %r0, 0x100000000", "a number from -2147483648 to 4294967295"},
      {"ja nowhere", "a label defined as 'name:' on some line"},
  };
  for (const auto& c : cases) {
    const Assembled a = assemble_text(c.text);
    ASSERT_FALSE(a.result.ok()) << c.text;
    ASSERT_NE(a.result.expected, nullptr) << c.text;
    EXPECT_STREQ(a.result.expected, c.expected) << c.text;
  }
  EXPECT_EQ(assemble_text("exit").result.expected, nullptr);
}

TEST(TextAssemble, AnyRegisterFieldTakesR11ToR15) {
  // The 4-bit fields hold 11..15, which a decoder must refuse; uBPF's error
  // tests need programs that carry them.
  AsmOptions options;
  options.any_register_field = true;
  const Assembled a = assemble_text("mov %r11, 1\nmov %r0, %r15\n", 0, options);
  ASSERT_TRUE(a.result.ok()) << asm_error_name(a.result.error);
  EXPECT_EQ(a.bytes, to_bytes({enc(ALU64 | K | MOV, 11, 0, 0, 1), enc(ALU64 | X | MOV, 0, 15, 0, 0)}));
  const Assembled wide = assemble_text("mov %r16, 1", 0, options);
  EXPECT_EQ(wide.result.error, AsmError::bad_register);
  EXPECT_STREQ(wide.result.expected, "a register %r0..%r15");
}

TEST(TextAssemble, LabelOutOfRangeForItsField) {
  std::string body;
  for (int i = 0; i < 32768; ++i) body += "exit\n";
  body += "far: exit\n";
  const Assembled a = assemble_text("ja far\n" + body);
  EXPECT_EQ(a.result.error, AsmError::bad_number);
  EXPECT_EQ(a.result.line, 1u);
  EXPECT_EQ(a.result.column, 4u);
  // The same distance fits ja32's 32-bit field.
  EXPECT_TRUE(assemble_text("ja32 far\n" + body).result.ok());
}

TEST(TextAssemble, ErrorNamesAreDistinct) {
  std::set<std::string> names;
  for (int e = 0; e <= static_cast<int>(AsmError::output_full); ++e) {
    names.insert(asm_error_name(static_cast<AsmError>(e)));
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(AsmError::output_full) + 1);
}

// ---- the corpus ---------------------------------------------------------------

struct DataFile {
  bool has_asm = false;
  std::string asm_text;
  std::vector<std::vector<uint64_t>> raws;
};

DataFile read_data_file(const std::filesystem::path& path) {
  DataFile file;
  std::ifstream in(path);
  std::string line, section;
  std::vector<uint64_t>* raw = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("-- ", 0) == 0) {
      section = line.substr(3);
      raw = nullptr;
      if (section == "asm") {
        file.has_asm = true;
      } else if (section.rfind("asm @ ", 0) == 0) {
        const auto beside = path.parent_path() / section.substr(6);
        if (std::filesystem::exists(beside)) {
          std::ifstream asm_in(beside);
          std::stringstream all;
          all << asm_in.rdbuf();
          file.asm_text = all.str();
          file.has_asm = true;
        }
        section.clear();
      } else if (section == "raw") {
        file.raws.emplace_back();
        raw = &file.raws.back();
      }
      continue;
    }
    if (section == "asm") {
      file.asm_text += line + "\n";
    } else if (raw != nullptr) {
      const auto start = line.find_first_not_of(" \t");
      if (start == std::string::npos || line[start] == '#') continue;
      raw->push_back(std::stoull(line.substr(start), nullptr, 16));
    }
  }
  return file;
}

// ---- listings -----------------------------------------------------------------

// The listing line of the first instruction of `text`.
std::string listing_of(const std::string& text, const ListingOptions& options, size_t index = 0) {
  const Assembled a = assemble_text(text);
  EXPECT_TRUE(a.result.ok()) << text;
  char line[256];
  const size_t used = disassemble_line(a.bytes.data(), a.bytes.size() / 8, index, options, line, sizeof line);
  EXPECT_GT(used, 0u) << text;
  return line;
}

std::string llvm_of(const std::string& text) {
  ListingOptions options;
  options.syntax = Syntax::llvm;
  return listing_of(text, options);
}

TEST(TextListing, LlvmSyntax) {
  // What llvm-objdump -d prints (LLVM's BPFInstrInfo.td asm strings).
  const std::pair<const char*, const char*> cases[] = {
      {"mov %r6, %r1", "r6 = r1"},
      {"mov32 %r0, -1", "w0 = -1"},
      {"add %r2, -4", "r2 += -4"},
      {"arsh32 %r1, 2", "w1 s>>= 2"},
      {"sdiv %r1, %r2", "r1 s/= r2"},
      {"smod32 %r1, 3", "w1 s%= 3"},
      {"movsx832 %r1, %r2", "w1 = (s8)w2"},
      {"neg %r3", "r3 = -r3"},
      {"be16 %r1", "r1 = be16 r1"},
      {"le64 %r1", "r1 = le64 r1"},
      {"bswap32 %r1", "r1 = bswap32 r1"},
      {"ldxw %r2, [%r1+4]", "r2 = *(u32 *)(r1 + 4)"},
      {"ldxsh %r2, [%r1-2]", "r2 = *(s16 *)(r1 - 2)"},
      {"stdw [%r10-8], 7", "*(u64 *)(r10 - 8) = 7"},
      {"stxb [%r10-1], %r3", "*(u8 *)(r10 - 1) = r3"},
      {"lddw %r1, 0x100000000", "r1 = 4294967296 ll"},
      {"lddw %r1, map_fd 3", "r1 = map_fd 3 ll"},
      {"lddw %r1, map_value 2 + 16", "r1 = map_value 2 + 16 ll"},
      {"ja -1", "goto -1"},
      {"ja32 +5", "gotol +5"},
      {"jsgt %r1, 5, +3", "if r1 s> 5 goto +3"},
      {"jlt32 %r1, %r2, -2", "if w1 < w2 goto -2"},
      {"jset %r1, 8, +0", "if r1 & 8 goto +0"},
      {"call 1", "call 1"},
      {"call local +4", "call 4"},
      {"call %r2", "callx r2"},
      {"exit", "exit"},
      {"lock add [%r1+0], %r2", "lock *(u64 *)(r1 + 0) += r2"},
      {"lock add32 [%r1+8], %r2", "lock *(u32 *)(r1 + 8) += r2"},
      {"lock or32 [%r1+0], %r2", "lock *(u32 *)(r1 + 0) |= w2"},
      {"lock fetch add [%r1+0], %r2", "r2 = atomic_fetch_add((u64 *)(r1 + 0), r2)"},
      {"lock fetch xor32 [%r1-4], %r2", "w2 = atomic_fetch_xor((u32 *)(r1 - 4), w2)"},
      {"lock xchg [%r1+0], %r2", "r2 = xchg_64(r1 + 0, r2)"},
      {"lock cmpxchg32 [%r1+0], %r2", "w0 = cmpxchg32_32(r1 + 0, w0, w2)"},
      {"ldabsh 12", "r0 = *(u16 *)skb[12]"},
      {"ldindb %r1, 14", "r0 = *(u8 *)skb[r1 + 14]"},
      {".8byte 0x00000000000000ff", ".8byte 0x00000000000000ff"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(llvm_of(text), want) << text;
}

TEST(TextListing, EveryCanonicalInstructionHasAnLlvmForm) {
  ListingOptions options;
  options.syntax = Syntax::llvm;
  for (const Case& c : encoding_cases()) {
    const std::vector<uint8_t> bytes = to_bytes(c.words);
    char line[256];
    ASSERT_GT(disassemble_line(bytes.data(), bytes.size() / 8, 0, options, line, sizeof line), 0u) << c.text;
    if (std::string(c.text).rfind(".8byte", 0) != 0) {
      EXPECT_EQ(std::string(line).find(".8byte"), std::string::npos) << c.text;
    }
  }
}

const char* test_helper_name(int32_t id) { return id == 1 ? "bpf_map_lookup_elem" : nullptr; }
const char* test_map_name(const void*, uint32_t index) { return index == 0 ? "counters" : index == 1 ? ".bss" : nullptr; }
const char* test_variable_at(const void*, uint32_t index, int32_t offset, int32_t* within) {
  if (index != 1 || offset < 8 || offset >= 24) return nullptr;
  *within = offset - 8;
  return "table";
}
const char* test_function_at(const void*, size_t slot) { return slot == 5 ? "helper_fn" : nullptr; }

TEST(TextListing, NamesAndLabels) {
  ListingOptions options;
  options.labels = true;
  options.helper_name = test_helper_name;
  options.map_name = test_map_name;
  options.variable_at = test_variable_at;
  options.function_at = test_function_at;
  EXPECT_EQ(listing_of("lddw %r1, map_fd 0", options), "lddw %r1, counters");
  EXPECT_EQ(listing_of("lddw %r1, map_value 1 + 12", options), "lddw %r1, table + 4");
  EXPECT_EQ(listing_of("lddw %r1, map_value 1 + 30", options), "lddw %r1, .bss + 30");  // no variable there
  EXPECT_EQ(listing_of("lddw %r1, map_fd 7", options), "lddw %r1, map_fd 7");           // no name
  EXPECT_EQ(listing_of("call 1", options), "call bpf_map_lookup_elem");
  EXPECT_EQ(listing_of("call 2", options), "call 2");
  EXPECT_EQ(listing_of("call memset", options), "call memset");
  EXPECT_EQ(listing_of("jeq %r1, 0, +2\nexit\nexit\nexit", options), "jeq %r1, 0, .L3");
  EXPECT_EQ(listing_of("call local +4\nexit\nexit\nexit\nexit\nexit", options), "call local helper_fn");
  options.syntax = Syntax::llvm;
  EXPECT_EQ(listing_of("jeq %r1, 0, +2\nexit\nexit\nexit", options), "if r1 == 0 goto +2 <.L3>");
  EXPECT_EQ(listing_of("call local +4\nexit\nexit\nexit\nexit\nexit", options), "call 4 <helper_fn>");
  EXPECT_EQ(listing_of("lddw %r1, map_fd 0", options), "r1 = counters ll");
  EXPECT_EQ(listing_of("call 1", options), "call bpf_map_lookup_elem");
  // Without hooks, a conformance listing is disassemble_one's line.
  EXPECT_EQ(listing_of("jeq %r1, 0, +2\nexit\nexit\nexit", ListingOptions{}), "jeq %r1, 0, +2");
}

TEST(TextListing, JumpTargets) {
  const Assembled a = assemble_text("jeq %r1, 0, +1\nja -2\ncall local -3\ncall 1\nlddw %r0, 1\nexit\n");
  ASSERT_TRUE(a.result.ok());
  const size_t slots = a.bytes.size() / 8;
  size_t target = 99;
  ASSERT_TRUE(jump_target(a.bytes.data(), slots, 0, target));
  EXPECT_EQ(target, 2u);
  ASSERT_TRUE(jump_target(a.bytes.data(), slots, 1, target));
  EXPECT_EQ(target, 0u);
  ASSERT_TRUE(jump_target(a.bytes.data(), slots, 2, target));
  EXPECT_EQ(target, 0u);
  EXPECT_FALSE(jump_target(a.bytes.data(), slots, 3, target));  // a helper call
  EXPECT_FALSE(jump_target(a.bytes.data(), slots, 4, target));
  EXPECT_FALSE(jump_target(a.bytes.data(), slots, 99, target));
  // Out of the program: no target.
  const Assembled out = assemble_text("ja +5\nexit\n");
  EXPECT_FALSE(jump_target(out.bytes.data(), out.bytes.size() / 8, 0, target));
}

TEST(TextRoundTrip, Corpus) {
  const std::filesystem::path corpus = KEEL_CORPUS_DIR;
  if (!std::filesystem::is_directory(corpus / "bpf_conformance")) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL() << "corpus not found at " << corpus;
    GTEST_SKIP() << "skipped: corpus not found";
  }
  size_t asm_files = 0, raw_sections = 0, matched_raw = 0;
  for (const char* suite : {"bpf_conformance/tests", "ubpf/tests"}) {
    ASSERT_TRUE(std::filesystem::is_directory(corpus / suite)) << suite;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(corpus / suite)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".data") continue;
      const DataFile file = read_data_file(entry.path());
      const std::string name = entry.path().lexically_relative(corpus).string();
      if (file.has_asm) {
        // uBPF's error tests write %r11 to get a program the decoder refuses.
        AsmOptions options;
        options.any_register_field = true;
        const Assembled a = assemble_text(file.asm_text, 0, options);
        EXPECT_TRUE(a.result.ok()) << name << ": " << asm_error_name(a.result.error) << " at "
                                   << a.result.line << ":" << a.result.column;
        if (!a.result.ok()) continue;
        EXPECT_TRUE(round_trips(a.bytes)) << name;
        ++asm_files;
        // Where a file gives both, the `-- raw` words are the encoding of the asm.
        if (file.raws.size() == 1) {
          EXPECT_EQ(a.bytes, to_bytes(file.raws[0])) << name;
          ++matched_raw;
        }
      }
      for (const auto& words : file.raws) {
        EXPECT_TRUE(round_trips(to_bytes(words))) << name << " (raw)";
        ++raw_sections;
      }
    }
  }
  std::cout << "[ corpus   ] " << asm_files << " asm programs and " << raw_sections
            << " raw sections round-trip; " << matched_raw << " raw sections match their asm\n";
  EXPECT_GE(asm_files, 370u);
  EXPECT_GE(raw_sections, 19u);
}

}  // namespace
}  // namespace keel
