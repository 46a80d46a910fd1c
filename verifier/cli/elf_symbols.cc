#include "elf_symbols.h"

#include <cstring>

namespace keel::cli {

namespace {

// ELF64 (System V gABI, "Object Files"): header, section header and symbol
// field offsets.
constexpr size_t kHeaderSize = 64, kShoff = 0x28, kShentsize = 0x3a, kShnum = 0x3c;
constexpr size_t kSectionSize = 64, kShType = 4, kShOffset = 0x18, kShSize = 0x20, kShLink = 0x28, kShEntsize = 0x38;
constexpr size_t kSymbolSize = 24, kStInfo = 4, kStShndx = 6, kStValue = 8, kStSize = 16;
constexpr uint32_t kShtSymtab = 2;
constexpr uint8_t kSttObject = 1;

template <typename T>
T load(const Bytes& bytes, uint64_t offset) {
  T value{};
  if (offset <= bytes.size() && sizeof(T) <= bytes.size() - offset) std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

bool fits(const Bytes& bytes, uint64_t offset, uint64_t size) {
  return offset <= bytes.size() && size <= bytes.size() - offset;
}

}  // namespace

std::vector<DataSymbol> data_symbols(const Bytes& bytes) {
  std::vector<DataSymbol> symbols;
  // ELFCLASS64 (byte 4 = 2), ELFDATA2LSB (byte 5 = 1).
  if (bytes.size() < kHeaderSize || bytes[4] != 2 || bytes[5] != 1) return symbols;
  const uint64_t shoff = load<uint64_t>(bytes, kShoff);
  const uint16_t shentsize = load<uint16_t>(bytes, kShentsize);
  const uint16_t shnum = load<uint16_t>(bytes, kShnum);
  if (shentsize < kSectionSize || !fits(bytes, shoff, uint64_t{shnum} * shentsize)) return symbols;
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t header = shoff + uint64_t{i} * shentsize;
    if (load<uint32_t>(bytes, header + kShType) != kShtSymtab) continue;
    const uint64_t offset = load<uint64_t>(bytes, header + kShOffset);
    const uint64_t size = load<uint64_t>(bytes, header + kShSize);
    const uint64_t entsize = load<uint64_t>(bytes, header + kShEntsize);
    const uint32_t link = load<uint32_t>(bytes, header + kShLink);
    if (entsize < kSymbolSize || !fits(bytes, offset, size) || link >= shnum) return symbols;
    const uint64_t strings = shoff + uint64_t{link} * shentsize;
    const uint64_t str_offset = load<uint64_t>(bytes, strings + kShOffset);
    const uint64_t str_size = load<uint64_t>(bytes, strings + kShSize);
    if (!fits(bytes, str_offset, str_size)) return symbols;
    for (uint64_t at = offset; at + entsize <= offset + size; at += entsize) {
      if ((load<uint8_t>(bytes, at + kStInfo) & 0xf) != kSttObject) continue;
      const uint32_t name = load<uint32_t>(bytes, at);
      if (name >= str_size) continue;
      const char* text = reinterpret_cast<const char*>(bytes.data() + str_offset + name);
      const size_t length = strnlen(text, str_size - name);
      if (length == 0 || length == str_size - name) continue;  // unnamed or unterminated
      symbols.push_back(DataSymbol{load<uint16_t>(bytes, at + kStShndx), load<uint64_t>(bytes, at + kStValue),
                                   load<uint64_t>(bytes, at + kStSize), std::string(text, length)});
    }
    break;  // one symbol table per object
  }
  return symbols;
}

}  // namespace keel::cli
