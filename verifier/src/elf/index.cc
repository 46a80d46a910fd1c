// Passes 1 to 3 of the loader (elf/loader.h): what each section is, which
// symbols each section holds, the BTF, and the relocations of code sorted by
// the offset they patch. Nothing here is applied yet; everything later
// passes index by is checked here first.
#include "elf/loader.h"
#include "support/bytes.h"
#include "support/result.h"
#include "support/sort.h"

namespace keel::elf {

namespace {

bool is_data_section(const char* name) {
  return same(name, ".data") || starts_with(name, ".data.") || same(name, ".rodata") ||
         starts_with(name, ".rodata.") || same(name, ".bss") || starts_with(name, ".bss.");
}

SectionKind kind_of(const Section& s) {
  if (s.type == kShtProgbits && (s.flags & kShfExecinstr) != 0) return SectionKind::code;
  if (same(s.name, "maps") || starts_with(s.name, "maps/")) return SectionKind::legacy_maps;
  if (same(s.name, ".maps")) return SectionKind::btf_maps;
  if ((s.flags & kShfAlloc) != 0 && is_data_section(s.name)) return SectionKind::data;
  return SectionKind::other;
}

bool is_relocation_table(const Section& s) { return s.type == kShtRel || s.type == kShtRela; }

uint64_t entry_size(const Section& s) { return s.type == kShtRela ? 24 : 16; }

}  // namespace

ElfResult index_sections(const File& file, Arena& arena, SectionIndex& out) {
  const uint32_t n = file.section_count;
  out.kinds = arena.allocate<SectionKind>(n);
  out.symbol_first = arena.allocate<uint32_t>(size_t{n} + 1);
  out.symbols = arena.allocate<uint32_t>(file.symbol_count);
  if (out.kinds == nullptr || out.symbol_first == nullptr || (out.symbols == nullptr && file.symbol_count != 0))
    return error_at(file, ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 1; i < n; ++i) out.kinds[i] = kind_of(file.sections[i]);

  // Counting sort by section (SHN_UNDEF/ABS/COMMON symbols belong to none).
  for (uint32_t k = 0; k < file.symbol_count; ++k) {
    const uint16_t shndx = file.symbols[k].shndx;
    if (shndx != kShnUndef && shndx < n) ++out.symbol_first[shndx + 1];
  }
  for (uint32_t i = 1; i <= n; ++i) out.symbol_first[i] += out.symbol_first[i - 1];
  const size_t mark = arena.mark();
  uint32_t* fill = arena.allocate<uint32_t>(n);
  if (fill == nullptr) return error_at(file, ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < n; ++i) fill[i] = out.symbol_first[i];
  for (uint32_t k = 0; k < file.symbol_count; ++k) {
    const uint16_t shndx = file.symbols[k].shndx;
    if (shndx != kShnUndef && shndx < n) out.symbols[fill[shndx]++] = k;
  }
  arena.release_to(mark);
  return {};
}

ElfResult parse_debug_info(const File& file, const SectionIndex& index, Arena& arena, DebugInfo& out) {
  const uint32_t n = file.section_count;
  for (uint32_t i = 1; i < n; ++i) {
    if (index.kinds[i] != SectionKind::other || !same(file.sections[i].name, ".BTF")) continue;
    KEEL_TRY(parse_btf(file, i, arena, out.btf));
    out.has_btf = true;
  }
  // .BTF.ext refers to .BTF's strings: parsed once .BTF is known.
  for (uint32_t i = 1; i < n; ++i) {
    if (!same(file.sections[i].name, ".BTF.ext")) continue;
    if (!out.has_btf) return error_at(file, ElfError::bad_btf_ext, i, 0);
    KEEL_TRY(parse_btf_ext(file, i, out.btf, arena, out.ext));
    out.has_ext = true;
  }
  return {};
}

Relocation read_relocation(const File& file, uint32_t table, uint64_t entry) {
  const Section& s = file.sections[table];
  Relocation out;
  out.rela = s.type == kShtRela;
  const uint8_t* p = s.data + entry * entry_size(s);
  out.offset = bytes::load<uint64_t>(p);
  const uint64_t info = bytes::load<uint64_t>(p + 8);
  out.symbol = static_cast<uint32_t>(info >> 32);
  out.type = static_cast<uint32_t>(info & 0xffffffffu);
  out.addend = out.rela ? bytes::load<int64_t>(p + 16) : 0;
  return out;
}

// Tables patching other sections (debug info, BTF, .eh_frame) are never
// applied and only need a valid target index.
ElfResult index_code_relocations(const File& file, const SectionIndex& index, Arena& arena,
                                 CodeRelocations& out) {
  const uint32_t n = file.section_count;
  out.first = arena.allocate<uint64_t>(size_t{n} + 1);
  if (out.first == nullptr) return error_at(file, ElfError::out_of_memory, 0, 0);
  uint64_t total = 0;
  for (uint32_t i = 1; i < n; ++i) {
    const Section& s = file.sections[i];
    if (!is_relocation_table(s)) continue;
    if (s.info == 0 || s.info >= n) return error_at(file, ElfError::bad_relocation, i, 0, s.info);
    if (index.kinds[s.info] != SectionKind::code) continue;
    const uint64_t entry = entry_size(s);
    if (s.entsize != entry || s.size % entry != 0 || s.data == nullptr)
      return error_at(file, ElfError::bad_relocation, i, 0, s.entsize);
    // gABI "Sections": a relocation table's sh_link is its symbol table.
    if (file.symtab == 0 || s.link != file.symtab) return error_at(file, ElfError::bad_link, i, 0, s.link);
    const Section& target = file.sections[s.info];
    for (uint64_t k = 0; k < s.size / entry; ++k) {
      const Relocation r = read_relocation(file, i, k);
      if (r.symbol >= file.symbol_count)
        return error_at(file, ElfError::symbol_out_of_range, i, k * entry, r.symbol);
      if (r.offset % 8 != 0 || !within(r.offset, 8, target.size))
        return error_at(file, ElfError::bad_relocation, i, k * entry, r.offset);
    }
    out.first[s.info + 1] += s.size / entry;  // counts, turned into starts below
    total += s.size / entry;
    if (total > kMaxSlots) return error_at(file, ElfError::too_large, i, 0, total);
  }
  for (uint32_t i = 1; i <= n; ++i) out.first[i] += out.first[i - 1];
  // total <= kMaxSlots (2^30): a size_t on 32-bit targets too.
  out.refs = arena.allocate<RelocationRef>(static_cast<size_t>(total));
  if (out.refs == nullptr && total != 0) return error_at(file, ElfError::out_of_memory, 0, 0);
  const size_t mark = arena.mark();
  uint64_t* fill = arena.allocate<uint64_t>(n);
  if (fill == nullptr) return error_at(file, ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < n; ++i) fill[i] = out.first[i];
  for (uint32_t i = 1; i < n; ++i) {
    const Section& s = file.sections[i];
    if (!is_relocation_table(s) || index.kinds[s.info] != SectionKind::code) continue;
    for (uint64_t k = 0; k < s.size / entry_size(s); ++k) {
      const Relocation r = read_relocation(file, i, k);
      out.refs[fill[s.info]++] = {r.offset, i, static_cast<uint32_t>(k)};
    }
  }
  arena.release_to(mark);
  for (uint32_t i = 1; i < n; ++i) {
    heap_sort(out.refs + out.first[i], static_cast<size_t>(out.first[i + 1] - out.first[i]),
              [](const RelocationRef& a, const RelocationRef& b) { return a.offset < b.offset; });
  }
  return {};
}

}  // namespace keel::elf
