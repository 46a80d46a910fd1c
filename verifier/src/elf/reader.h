// ELF64 little-endian reader for relocatable objects (System V gABI,
// "Object Files" chapter): section headers, string tables and the symbol
// table, each checked against the file before anything reads it. Internal
// to the loader (elf/loader.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/elf.h"
#include "support/strings.h"

namespace keel::elf {

// gABI constants the loader uses.
inline constexpr uint32_t kShtNull = 0, kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3,
                          kShtRela = 4, kShtNobits = 8, kShtRel = 9;
inline constexpr uint64_t kShfWrite = 0x1, kShfAlloc = 0x2, kShfExecinstr = 0x4;
inline constexpr uint8_t kSttNotype = 0, kSttObject = 1, kSttFunc = 2, kSttSection = 3,
                         kSttFile = 4;
inline constexpr uint8_t kStbLocal = 0, kStbGlobal = 1, kStbWeak = 2;
inline constexpr uint16_t kShnUndef = 0, kShnLoreserve = 0xff00, kShnAbs = 0xfff1,
                          kShnCommon = 0xfff2, kShnXindex = 0xffff;
inline constexpr uint16_t kEmNone = 0, kEmBpf = 247;

struct Section {
  const char* name = "";
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t entsize = 0;
  const uint8_t* data = nullptr;  // nullptr for SHT_NOBITS and SHT_NULL
};

struct Symbol {
  const char* name = "";
  uint64_t value = 0;
  uint64_t size = 0;
  uint16_t shndx = 0;
  uint8_t type = 0;
  uint8_t bind = 0;
};

struct File {
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  uint16_t machine = 0;
  Section* sections = nullptr;
  uint32_t section_count = 0;
  uint32_t symtab = 0;  // section index of SHT_SYMTAB, 0 when absent
  Symbol* symbols = nullptr;
  uint32_t symbol_count = 0;
};

// Parses and checks the header, the section table (bounds, overlap, names)
// and the symbol table (names, section indices, value/size in section).
[[nodiscard]] ElfResult read_file(const uint8_t* bytes, size_t size, Arena& arena, File& out);

// A NUL-terminated string at `offset` in string-table section `index`.
[[nodiscard]] ElfResult string_at(const File& file, uint32_t index, uint64_t offset,
                                  const char*& out);

// An error value naming section `index` of `file`.
ElfResult error_at(const File& file, ElfError error, uint32_t index, uint64_t offset,
                   uint64_t value = 0);

using keel::same;
using keel::starts_with;

// `a + b` into `out`, false on overflow.
inline bool add_overflows(uint64_t a, uint64_t b, uint64_t& out) {
  return __builtin_add_overflow(a, b, &out);
}
inline bool mul_overflows(uint64_t a, uint64_t b, uint64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}
// [offset, offset + length) lies within [0, limit).
inline bool within(uint64_t offset, uint64_t length, uint64_t limit) {
  return offset <= limit && length <= limit - offset;
}

}  // namespace keel::elf
