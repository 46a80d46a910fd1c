// Pass 4 of the loader (elf/loader.h): the functions of each code section,
// from its STT_FUNC symbols, sorted by start, aliases merged, overlaps
// refused; a code section without function symbols is one function.
#include "elf/loader.h"
#include "support/search.h"
#include "support/sort.h"

namespace keel::elf {

ElfResult collect_functions(const File& file, const SectionIndex& index, TextPrograms text, Arena& arena,
                            FunctionTable& out) {
  const uint32_t n = file.section_count;
  out.first = arena.allocate<uint32_t>(n);
  out.count_in = arena.allocate<uint32_t>(n);
  if (out.first == nullptr || out.count_in == nullptr) return error_at(file, ElfError::out_of_memory, 0, 0);
  // Upper bound: every FUNC symbol, plus one whole-section function per code section.
  uint64_t bound = file.symbol_count;
  for (uint32_t i = 1; i < n; ++i) bound += index.kinds[i] == SectionKind::code;
  // A count past size_t (a 32-bit target) cannot be allocated: refused
  // here rather than truncated into a too-small array.
  if constexpr (sizeof(size_t) < sizeof(uint64_t)) {
    if (bound > SIZE_MAX) return error_at(file, ElfError::out_of_memory, 0, 0);
  }
  out.functions = arena.allocate<Function>(static_cast<size_t>(bound));
  if (out.functions == nullptr && bound != 0) return error_at(file, ElfError::out_of_memory, 0, 0);
  for (uint32_t sec = 1; sec < n; ++sec) {
    if (index.kinds[sec] != SectionKind::code) continue;
    const Section& s = file.sections[sec];
    if (s.size % 8 != 0) return error_at(file, ElfError::bad_program, sec, s.size);
    if (s.size / 8 > kMaxSlots) return error_at(file, ElfError::too_large, sec, 0, s.size);
    Function* begin = out.functions + out.count;
    uint32_t count = 0;
    // uBPF runs `.text` from its first byte to its last, ignoring symbols.
    const bool whole = text == TextPrograms::whole_section && same(s.name, ".text");
    const uint32_t symbols_end = index.symbol_first[sec + 1];
    for (uint32_t j = whole ? symbols_end : index.symbol_first[sec]; j < symbols_end; ++j) {
      const uint32_t k = index.symbols[j];
      const Symbol& sym = file.symbols[k];
      if (sym.type != kSttFunc || sym.size == 0) continue;
      if (sym.value % 8 != 0 || sym.size % 8 != 0)
        return error_at(file, ElfError::bad_symbol, file.symtab, uint64_t{k} * 24, k);
      begin[count++] = {sym.name, sec, static_cast<uint32_t>(sym.value / 8),
                        static_cast<uint32_t>(sym.size / 8), sym.bind != kStbLocal};
    }
    heap_sort(begin, count, [](const Function& a, const Function& b) {
      return a.start != b.start ? a.start < b.start : a.global < b.global;
    });
    // Aliases (same start and size) collapse into one, the global name kept.
    uint32_t kept = 0;
    for (uint32_t k = 0; k < count; ++k) {
      if (kept > 0 && begin[kept - 1].start == begin[k].start && begin[kept - 1].slots == begin[k].slots) {
        begin[kept - 1] = begin[k];
        continue;
      }
      if (kept > 0 && begin[kept - 1].start + begin[kept - 1].slots > begin[k].start)
        return error_at(file, ElfError::bad_symbol, sec, uint64_t{begin[k].start} * 8);
      begin[kept++] = begin[k];
    }
    if (kept == 0 && s.size > 0) {
      const char* name = s.name[0] == '?' ? s.name + 1 : s.name;
      begin[kept++] = {name, sec, 0, static_cast<uint32_t>(s.size / 8), true};
    }
    out.first[sec] = out.count;
    out.count_in[sec] = kept;
    out.count += kept;
  }
  return {};
}

const Function* function_at(const File& file, const SectionIndex& index, const FunctionTable& table,
                            uint32_t section, uint64_t slot) {
  if (section == 0 || section >= file.section_count || index.kinds[section] != SectionKind::code)
    return nullptr;
  // The last function of the section starting at or before `slot`.
  const uint32_t first = table.first[section];
  const uint32_t after = partition_index(first, first + table.count_in[section],
                                         [&](uint32_t i) { return table.functions[i].start <= slot; });
  if (after == first) return nullptr;
  const Function& f = table.functions[after - 1];
  return slot < uint64_t{f.start} + f.slots ? &f : nullptr;
}

}  // namespace keel::elf
