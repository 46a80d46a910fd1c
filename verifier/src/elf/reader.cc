// ELF64 reader (System V gABI, "ELF Header", "Sections", "String Table",
// "Symbol Table"). Everything read from the file is checked against the
// file's size first; offsets are 64-bit and added with overflow checks.
#include "elf/reader.h"

#include "support/bytes.h"
#include "support/sort.h"

namespace keel::elf {

namespace {

constexpr size_t kEhdrSize = 64, kShdrSize = 64, kSymSize = 24;

template <class T>
T field(const uint8_t* base, size_t offset) {
  return bytes::load<T>(base + offset);
}

ElfResult fail(ElfError error, uint64_t offset, uint64_t value = 0) {
  ElfResult result;
  result.error = error;
  result.offset = offset;
  result.value = value;
  return result;
}

struct Extent {
  uint64_t begin;
  uint64_t end;
  uint32_t section;  // 0 = the ELF header, UINT32_MAX = the section header table
};

// Section data must not overlap another section's data, the ELF header or
// the section header table: a hostile object could otherwise make one byte
// mean two things (a relocation table that is also code, say).
ElfResult check_overlap(const File& file, uint64_t shoff, uint64_t table_size, Arena& arena) {
  const size_t mark = arena.mark();
  Extent* extents = arena.allocate<Extent>(size_t{file.section_count} + 2);
  if (extents == nullptr) return fail(ElfError::out_of_memory, 0);
  size_t count = 0;
  extents[count++] = {0, kEhdrSize, 0};
  extents[count++] = {shoff, shoff + table_size, UINT32_MAX};
  for (uint32_t i = 1; i < file.section_count; ++i) {
    const Section& s = file.sections[i];
    if (s.data == nullptr || s.size == 0) continue;
    extents[count++] = {s.offset, s.offset + s.size, i};
  }
  heap_sort(extents, count, [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
  ElfResult result;
  for (size_t i = 1; i < count; ++i) {
    if (extents[i].begin < extents[i - 1].end) {
      const uint32_t culprit = extents[i].section != 0 && extents[i].section != UINT32_MAX
                                   ? extents[i].section
                                   : extents[i - 1].section;
      result = error_at(file, ElfError::bad_section, culprit == UINT32_MAX ? 0 : culprit,
                        extents[i].begin);
      break;
    }
  }
  arena.release_to(mark);
  return result;
}

ElfResult read_symbols(File& file, Arena& arena) {
  for (uint32_t i = 1; i < file.section_count; ++i) {
    if (file.sections[i].type != kShtSymtab) continue;
    if (file.symtab != 0) return error_at(file, ElfError::bad_symbol_table, i, 0);  // gABI: at most one
    file.symtab = i;
  }
  if (file.symtab == 0) return {};
  const Section& table = file.sections[file.symtab];
  if (table.entsize != kSymSize || table.size % kSymSize != 0 || table.data == nullptr)
    return error_at(file, ElfError::bad_symbol_table, file.symtab, 0, table.entsize);
  if (table.link == 0 || table.link >= file.section_count ||
      file.sections[table.link].type != kShtStrtab)
    return error_at(file, ElfError::bad_link, file.symtab, 0, table.link);
  const uint64_t count = table.size / kSymSize;
  if (count > (1u << 24)) return error_at(file, ElfError::too_large, file.symtab, 0, count);
  file.symbol_count = static_cast<uint32_t>(count);
  file.symbols = arena.allocate<Symbol>(file.symbol_count);
  if (file.symbols == nullptr && count != 0) return fail(ElfError::out_of_memory, 0);
  for (uint32_t i = 0; i < file.symbol_count; ++i) {
    const uint8_t* raw = table.data + size_t{i} * kSymSize;
    Symbol& symbol = file.symbols[i];
    const uint64_t at = uint64_t{i} * kSymSize;
    ElfResult named = string_at(file, table.link, field<uint32_t>(raw, 0), symbol.name);
    if (!named.ok()) return error_at(file, ElfError::bad_string, file.symtab, at);
    const uint8_t info = raw[4];
    symbol.bind = static_cast<uint8_t>(info >> 4);
    symbol.type = static_cast<uint8_t>(info & 0xf);
    symbol.shndx = field<uint16_t>(raw, 6);
    symbol.value = field<uint64_t>(raw, 8);
    symbol.size = field<uint64_t>(raw, 16);
    if (symbol.shndx == kShnUndef || symbol.shndx == kShnAbs || symbol.shndx == kShnCommon)
      continue;
    if (symbol.shndx >= kShnLoreserve || symbol.shndx >= file.section_count)
      return error_at(file, ElfError::bad_symbol, file.symtab, at, symbol.shndx);
    // In ET_REL, st_value is an offset into the symbol's section (gABI
    // "Symbol Values"); the symbol must lie inside it.
    const Section& home = file.sections[symbol.shndx];
    if (symbol.type != kSttSection && !within(symbol.value, symbol.size, home.size))
      return error_at(file, ElfError::bad_symbol, file.symtab, at, i);
  }
  return {};
}

}  // namespace

ElfResult error_at(const File& file, ElfError error, uint32_t index, uint64_t offset,
                   uint64_t value) {
  ElfResult result;
  result.error = error;
  result.section = index;
  result.offset = offset;
  result.value = value;
  if (index != 0 && index < file.section_count && file.sections != nullptr)
    result.section_name = file.sections[index].name;
  return result;
}

ElfResult string_at(const File& file, uint32_t index, uint64_t offset, const char*& out) {
  const Section& table = file.sections[index];
  if (table.data == nullptr || offset >= table.size)
    return error_at(file, ElfError::bad_string, index, offset);
  const uint8_t* begin = table.data + offset;
  // A plain loop: memchr is not among the mem* functions the core may use.
  const uint64_t room = table.size - offset;
  uint64_t length = 0;
  while (length < room && begin[length] != 0) ++length;
  if (length == room) return error_at(file, ElfError::bad_string, index, offset);
  out = reinterpret_cast<const char*>(begin);
  return {};
}

ElfResult read_file(const uint8_t* bytes, size_t size, Arena& arena, File& out) {
  out = File{};
  out.bytes = bytes;
  out.size = size;
  if (bytes == nullptr || size < kEhdrSize) return fail(ElfError::truncated, size);
  // e_ident: magic, ELFCLASS64 (2), ELFDATA2LSB (1), EV_CURRENT (1), ELFOSABI_NONE (0).
  if (bytes[0] != 0x7f || bytes[1] != 'E' || bytes[2] != 'L' || bytes[3] != 'F')
    return fail(ElfError::bad_header, 0);
  if (bytes[4] != 2) return fail(ElfError::bad_header, 4, bytes[4]);
  if (bytes[5] != 1) return fail(ElfError::bad_header, 5, bytes[5]);
  if (bytes[6] != 1) return fail(ElfError::bad_header, 6, bytes[6]);
  // EI_OSABI: anything but ELFOSABI_NONE announces OS-specific extensions
  // (gABI "ELF Identification"), which could give the OS ranges of sh_type
  // or st_info a meaning keel does not know. Compilers write 0 for BPF (every
  // ebpf-samples object has it); libbpf 6.1 does not look (bpf_object__elf_init).
  if (bytes[7] != 0) return fail(ElfError::bad_header, 7, bytes[7]);
  const uint16_t type = field<uint16_t>(bytes, 16);
  if (type != 1) return fail(ElfError::not_relocatable, 16, type);  // ET_REL
  out.machine = field<uint16_t>(bytes, 18);
  // EM_NONE: LLVM's BPF backend wrote 0 before EM_BPF existed (2016); two
  // corpus objects (cilium bpf_lxc_jit.o, ovs datapath.o) are that old.
  if (out.machine != kEmBpf && out.machine != kEmNone)
    return fail(ElfError::wrong_machine, 18, out.machine);
  if (field<uint32_t>(bytes, 20) != 1) return fail(ElfError::bad_header, 20);
  if (field<uint16_t>(bytes, 52) != kEhdrSize) return fail(ElfError::bad_header, 52);

  const uint64_t shoff = field<uint64_t>(bytes, 40);
  const uint16_t shentsize = field<uint16_t>(bytes, 58);
  uint64_t shnum = field<uint16_t>(bytes, 60);
  uint32_t shstrndx = field<uint16_t>(bytes, 62);
  if (shoff == 0) return fail(ElfError::bad_section_table, 40);  // nothing to load
  if (shentsize != kShdrSize) return fail(ElfError::bad_section_table, 58, shentsize);
  if (!within(shoff, kShdrSize, size)) return fail(ElfError::bad_section_table, 40, shoff);
  // Extended numbering (gABI "Sections"): the real counts live in entry 0.
  // shoff is within the bytes in memory (checked above): a size_t everywhere.
  const size_t first_header = static_cast<size_t>(shoff);
  if (shnum == 0) shnum = field<uint64_t>(bytes, first_header + 32);
  if (shstrndx == kShnXindex) shstrndx = field<uint32_t>(bytes, first_header + 40);
  uint64_t table_size = 0;
  // The first header fits (above): the count is what runs past the end.
  if (mul_overflows(shnum, kShdrSize, table_size) || !within(shoff, table_size, size))
    return fail(ElfError::bad_section_table, 60, shnum);
  if (shnum > (1u << 20)) return fail(ElfError::too_large, 60, shnum);
  if (shstrndx == 0 || shstrndx >= shnum) return fail(ElfError::bad_section_table, 62, shstrndx);

  out.section_count = static_cast<uint32_t>(shnum);
  out.sections = arena.allocate<Section>(out.section_count);
  if (out.sections == nullptr) return fail(ElfError::out_of_memory, 0);
  for (uint32_t i = 0; i < out.section_count; ++i) {
    const uint8_t* raw = bytes + shoff + uint64_t{i} * kShdrSize;
    Section& s = out.sections[i];
    s.type = field<uint32_t>(raw, 4);
    s.flags = field<uint64_t>(raw, 8);
    s.offset = field<uint64_t>(raw, 24);
    s.size = field<uint64_t>(raw, 32);
    s.link = field<uint32_t>(raw, 40);
    s.info = field<uint32_t>(raw, 44);
    s.entsize = field<uint64_t>(raw, 56);
    if (i == 0 || s.type == kShtNull) continue;
    if (s.type != kShtNobits) {
      if (!within(s.offset, s.size, size)) return error_at(out, ElfError::bad_section, i, s.offset);
      s.data = bytes + s.offset;
    }
  }
  if (out.sections[shstrndx].type != kShtStrtab)
    return fail(ElfError::bad_section_table, 62, shstrndx);
  for (uint32_t i = 1; i < out.section_count; ++i) {
    const uint8_t* raw = bytes + shoff + uint64_t{i} * kShdrSize;
    const char* name = nullptr;
    if (!string_at(out, shstrndx, field<uint32_t>(raw, 0), name).ok())
      return error_at(out, ElfError::bad_string, shstrndx, field<uint32_t>(raw, 0), i);
    out.sections[i].name = name;
    // Checked once the section has a name for the error to give.
    const Section& s = out.sections[i];
    if (s.type != kShtNull && s.link >= out.section_count)
      return error_at(out, ElfError::bad_link, i, 0, s.link);
  }
  ElfResult overlap = check_overlap(out, shoff, table_size, arena);
  if (!overlap.ok()) return overlap;
  return read_symbols(out, arena);
}

}  // namespace keel::elf
