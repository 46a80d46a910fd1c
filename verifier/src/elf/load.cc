// load_object(): ELF sections -> programs (with subprograms linked in, as
// libbpf links them), maps (legacy `maps`, BTF `.maps`, global data) and
// line info. Relocation types per the LLVM BPF backend documentation
// ("BPF relocations"): R_BPF_64_64 on lddw (map or function address),
// R_BPF_64_32 on BPF-to-BPF calls; the others only appear in debug and BTF
// sections, which the loader does not patch.
//
// FIXME: relocations of `.maps` itself (the inner maps a map of maps starts
// with, prog-array `values` initialisers) are not read: the verifier needs
// only the inner map template, which the BTF definition gives, and a prog
// array starts empty either way.
#include "elf/btf.h"
#include "elf/reader.h"
#include "elf/sort.h"
#include "keel/elf.h"
#include "keel/isa.h"
#include "support/bytes.h"

namespace keel {

namespace {

using namespace elf;

constexpr uint32_t kRelNone = 0, kRel64_64 = 1, kRel64_32 = 10;
constexpr uint8_t kOpLddw = 0x18, kOpCall = 0x85;
constexpr uint8_t kPseudoMapFd = 1, kPseudoMapValue = 2, kPseudoCall = 1, kPseudoFunc = 4;
constexpr uint8_t kPseudoMapIdx = 5, kPseudoMapIdxValue = 6;

// uapi bpf.h: the lddw source kinds whose imm a loader replaces by a map.
constexpr bool names_map(uint8_t src) {
  return src == kPseudoMapFd || src == kPseudoMapValue || src == kPseudoMapIdx || src == kPseudoMapIdxValue;
}
constexpr uint32_t kMaxSlots = 1u << 30;
constexpr uint32_t kMaxMaps = 1u << 20;
// Linux BPF_MAP_TYPE_* and map flags (uapi linux/bpf.h).
constexpr uint32_t kMapHash = 1, kMapArray = 2, kMapProgArray = 3, kMapPerfEventArray = 4,
                   kMapPercpuHash = 5, kMapPercpuArray = 6, kMapStackTrace = 7,
                   kMapCgroupArray = 8, kMapLruHash = 9, kMapLruPercpuHash = 10,
                   kMapLpmTrie = 11, kMapArrayOfMaps = 12, kMapHashOfMaps = 13, kMapDevmap = 14,
                   kMapSockmap = 15, kMapCpumap = 16, kMapXskmap = 17, kMapSockhash = 18, kMapDevmapHash = 25, kMapRingbuf = 27;
constexpr uint32_t kRdonlyProg = 1u << 7, kWronlyProg = 1u << 8;

// A function of a code section: an STT_FUNC symbol, or the whole section
// when it has none (objects from before LLVM emitted function symbols).
struct Function {
  const char* name;
  uint32_t section;
  uint32_t start;  // slot in the section
  uint32_t slots;
  bool global;
};

enum class SectionKind : uint8_t { other, code, legacy_maps, btf_maps, data };

// Where one relocation entry is: its table and index, and the offset it patches.
struct RelRef {
  uint64_t offset;
  uint32_t table;
  uint32_t entry;
};

struct Reloc {
  uint64_t offset;
  uint32_t symbol;
  uint32_t type;
  int64_t addend;
  bool rela;
};

MapType map_type_of(uint32_t linux_type) {
  switch (linux_type) {
    case kMapArray: return MapType::array;
    case kMapHash: return MapType::hash;
    case kMapPercpuArray: return MapType::percpu_array;
    case kMapPercpuHash: return MapType::percpu_hash;
    case kMapLruHash: return MapType::lru_hash;
    case kMapLruPercpuHash: return MapType::lru_percpu_hash;
    case kMapProgArray: return MapType::prog_array;
    case kMapPerfEventArray: return MapType::perf_event_array;
    case kMapRingbuf: return MapType::ringbuf;
    case kMapStackTrace: return MapType::stack_trace;
    case kMapLpmTrie: return MapType::lpm_trie;
    case kMapCgroupArray: return MapType::cgroup_array;
    case kMapArrayOfMaps: return MapType::array_of_maps;
    case kMapHashOfMaps: return MapType::hash_of_maps;
    case kMapDevmap: return MapType::devmap;
    case kMapDevmapHash: return MapType::devmap_hash;
    case kMapCpumap: return MapType::cpumap;
    case kMapXskmap: return MapType::xskmap;
    case kMapSockmap: return MapType::sockmap;
    case kMapSockhash: return MapType::sockhash;
    default: return MapType::other;
  }
}

bool holds_maps(uint32_t linux_type) {
  return linux_type == kMapArrayOfMaps || linux_type == kMapHashOfMaps;
}

// What may serve as an inner map template here: the maps whose lookups and
// helpers keel models by value (bpf_map_meta_alloc refuses maps of maps).
bool plain_template(MapType type) {
  return type == MapType::array || type == MapType::hash || type == MapType::percpu_array ||
         type == MapType::percpu_hash || type == MapType::lru_hash ||
         type == MapType::lru_percpu_hash || type == MapType::lpm_trie || type == MapType::ringbuf;
}

bool is_data_section(const char* name) {
  return same(name, ".data") || starts_with(name, ".data.") || same(name, ".rodata") ||
         starts_with(name, ".rodata.") || same(name, ".bss") || starts_with(name, ".bss.");
}

uint32_t u32_at(const uint8_t* p) { return bytes::load<uint32_t>(p); }

// iproute2's struct bpf_elf_map (36 bytes, cilium's legacy maps) names the
// inner map template of a map of maps by `inner_id` (at 28): the first map
// of the section whose `id` (at 20) it is (iproute2 lib/bpf_legacy.c,
// bpf_find_map_id). Its position among the section's `count` definitions
// (symbols sorted by offset) in `size` bytes, or UINT32_MAX.
uint32_t template_by_id(const uint8_t* data, uint64_t size, const Symbol* table, const uint32_t* symbols,
                        uint32_t count, const uint8_t* def) {
  const uint32_t inner_id = u32_at(def + 28);
  if (inner_id == 0) return UINT32_MAX;
  for (uint32_t k = 0; k < count; ++k) {
    const uint64_t at = table[symbols[k]].value;
    if (at <= size && size - at >= 36 && u32_at(data + at + 20) == inner_id) return k;
  }
  return UINT32_MAX;
}

// The first record of `block` that may lie at or after byte `offset` of its
// section: binary search when the block is sorted, else the first record.
uint32_t first_record_at(const BtfExtBlock& block, uint64_t offset) {
  if (!block.sorted) return 0;
  uint32_t low = 0, high = block.count;
  while (low < high) {
    const uint32_t middle = low + (high - low) / 2;
    if (u32_at(block.records + uint64_t{middle} * block.record_size) < offset) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

class Loader {
 public:
  Loader(const File& file, const LoadOptions& options, Arena& arena)
      : file_(file), options_(options), arena_(arena) {}

  ElfResult run(Object& out);

 private:
  ElfResult fail(ElfError error, uint32_t section, uint64_t offset, uint64_t value = 0) const {
    return error_at(file_, error, section, offset, value);
  }
  ElfResult classify_sections();
  ElfResult index_symbols();
  ElfResult check_relocations();
  ElfResult collect_functions();
  ElfResult collect_maps();
  ElfResult load_program(const Function& entry, ElfProgram& program);

  bool reloc_at(uint32_t rel_section, uint64_t index, Reloc& out) const;
  const Function* function_at(uint32_t section, uint64_t slot) const;
  ElfResult map_index(const Symbol& symbol, uint64_t offset, uint32_t reloc_section,
                      uint64_t reloc_offset, uint32_t& index) const;

  // Linking one program.
  struct Placed {
    uint32_t function;
    uint32_t pc;
  };
  ElfResult place(uint32_t section, uint64_t slot, uint32_t from_section, uint64_t from_offset,
                  uint32_t& pc);
  ElfResult process(const Placed& placed, uint8_t* out);
  void program_error(const ElfResult& result);

  const File& file_;
  const LoadOptions& options_;
  Arena& arena_;
  SectionKind* kinds_ = nullptr;
  // Relocations of code sections, grouped by the section they patch and
  // sorted by offset there: relocs_[reloc_first_[s] .. reloc_first_[s + 1]).
  RelRef* relocs_ = nullptr;
  uint64_t* reloc_first_ = nullptr;
  // Symbols grouped by their section: symbol_index_[symbol_first_[s] .. symbol_first_[s + 1]).
  uint32_t* symbol_index_ = nullptr;
  uint32_t* symbol_first_ = nullptr;
  Function* functions_ = nullptr;
  uint32_t function_count_ = 0;
  uint32_t* first_function_ = nullptr;  // per section
  uint32_t* section_functions_ = nullptr;
  Btf btf_;
  bool has_btf_ = false;
  BtfExt ext_;
  bool has_ext_ = false;
  MapDescriptor* maps_ = nullptr;
  ElfMap* map_info_ = nullptr;
  uint32_t map_count_ = 0;
  int32_t* data_map_ = nullptr;  // per section: the global-data map, -1
  // Per maps section: its maps are [map_first_[s], map_first_[s] + map_span_[s]), by offset.
  uint32_t* map_first_ = nullptr;
  uint32_t* map_span_ = nullptr;
  uint32_t maps_datasec_ = 0;  // BTF id of the `.maps` DATASEC
  void resolve_legacy_templates();

  // Per program being linked.
  Placed* placed_ = nullptr;
  uint32_t placed_count_ = 0;
  int32_t* placed_of_ = nullptr;  // per function: index into placed_, -1
  uint32_t total_slots_ = 0;
  ElfResult program_status_;
};

bool Loader::reloc_at(uint32_t rel_section, uint64_t index, Reloc& out) const {
  const Section& s = file_.sections[rel_section];
  out.rela = s.type == kShtRela;
  const uint8_t* p = s.data + index * (out.rela ? 24 : 16);
  out.offset = bytes::load<uint64_t>(p);
  const uint64_t info = bytes::load<uint64_t>(p + 8);
  out.symbol = static_cast<uint32_t>(info >> 32);
  out.type = static_cast<uint32_t>(info & 0xffffffffu);
  out.addend = out.rela ? bytes::load<int64_t>(p + 16) : 0;
  return true;
}

ElfResult Loader::classify_sections() {
  const uint32_t n = file_.section_count;
  kinds_ = arena_.allocate<SectionKind>(n);
  data_map_ = arena_.allocate<int32_t>(n);
  map_first_ = arena_.allocate<uint32_t>(n);
  map_span_ = arena_.allocate<uint32_t>(n);
  first_function_ = arena_.allocate<uint32_t>(n);
  section_functions_ = arena_.allocate<uint32_t>(n);
  if (kinds_ == nullptr || data_map_ == nullptr || map_first_ == nullptr || map_span_ == nullptr ||
      first_function_ == nullptr || section_functions_ == nullptr)
    return fail(ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 1; i < n; ++i) {
    const Section& s = file_.sections[i];
    data_map_[i] = -1;
    if (s.type == kShtProgbits && (s.flags & kShfExecinstr) != 0) {
      kinds_[i] = SectionKind::code;
    } else if (same(s.name, "maps") || starts_with(s.name, "maps/")) {
      kinds_[i] = SectionKind::legacy_maps;
    } else if (same(s.name, ".maps")) {
      kinds_[i] = SectionKind::btf_maps;
    } else if ((s.flags & kShfAlloc) != 0 && is_data_section(s.name)) {
      kinds_[i] = SectionKind::data;
    } else if (same(s.name, ".BTF")) {
      ElfResult r = parse_btf(file_, i, arena_, btf_);
      if (!r.ok()) return r;
      has_btf_ = true;
    }
  }
  // .BTF.ext refers to .BTF's strings: parse it once .BTF is known.
  for (uint32_t i = 1; i < n; ++i) {
    if (!same(file_.sections[i].name, ".BTF.ext")) continue;
    if (!has_btf_) return fail(ElfError::bad_btf_ext, i, 0);
    ElfResult r = parse_btf_ext(file_, i, btf_, arena_, ext_);
    if (!r.ok()) return r;
    has_ext_ = true;
  }
  return {};
}

// Relocation tables of code sections are checked whole, whether or not a
// program ends up using the function they patch; tables patching other
// sections (debug info, BTF, .eh_frame) are never applied and only need a
// valid target index.
ElfResult Loader::check_relocations() {
  const uint32_t n = file_.section_count;
  reloc_first_ = arena_.allocate<uint64_t>(size_t{n} + 1);
  if (reloc_first_ == nullptr) return fail(ElfError::out_of_memory, 0, 0);
  uint64_t total = 0;
  for (uint32_t i = 1; i < n; ++i) {
    const Section& s = file_.sections[i];
    if (s.type != kShtRel && s.type != kShtRela) continue;
    if (s.info == 0 || s.info >= n) return fail(ElfError::bad_relocation, i, 0, s.info);
    if (kinds_[s.info] != SectionKind::code) continue;
    const uint64_t entry = s.type == kShtRela ? 24 : 16;
    if (s.entsize != entry || s.size % entry != 0 || s.data == nullptr)
      return fail(ElfError::bad_relocation, i, 0, s.entsize);
    // gABI "Sections": a relocation table's sh_link is its symbol table.
    if (file_.symtab == 0 || s.link != file_.symtab) return fail(ElfError::bad_link, i, 0, s.link);
    const Section& target = file_.sections[s.info];
    for (uint64_t k = 0; k < s.size / entry; ++k) {
      Reloc r;
      reloc_at(i, k, r);
      if (r.symbol >= file_.symbol_count)
        return fail(ElfError::symbol_out_of_range, i, k * entry, r.symbol);
      if (r.offset % 8 != 0 || !within(r.offset, 8, target.size))
        return fail(ElfError::bad_relocation, i, k * entry, r.offset);
    }
    reloc_first_[s.info + 1] += s.size / entry;  // counts, turned into starts below
    total += s.size / entry;
    if (total > kMaxSlots) return fail(ElfError::too_large, i, 0, total);
  }
  for (uint32_t i = 1; i <= n; ++i) reloc_first_[i] += reloc_first_[i - 1];
  // total <= kMaxSlots (2^30): a size_t on 32-bit targets too.
  relocs_ = arena_.allocate<RelRef>(static_cast<size_t>(total));
  if (relocs_ == nullptr && total != 0) return fail(ElfError::out_of_memory, 0, 0);
  const size_t mark = arena_.mark();
  uint64_t* fill = arena_.allocate<uint64_t>(n);
  if (fill == nullptr) return fail(ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < n; ++i) fill[i] = reloc_first_[i];
  for (uint32_t i = 1; i < n; ++i) {
    const Section& s = file_.sections[i];
    if ((s.type != kShtRel && s.type != kShtRela) || kinds_[s.info] != SectionKind::code) continue;
    const uint64_t entry = s.type == kShtRela ? 24 : 16;
    for (uint64_t k = 0; k < s.size / entry; ++k) {
      Reloc r;
      reloc_at(i, k, r);
      relocs_[fill[s.info]++] = {r.offset, i, static_cast<uint32_t>(k)};
    }
  }
  arena_.release_to(mark);
  for (uint32_t i = 1; i < n; ++i) {
    heap_sort(relocs_ + reloc_first_[i], static_cast<size_t>(reloc_first_[i + 1] - reloc_first_[i]),
              [](const RelRef& a, const RelRef& b) { return a.offset < b.offset; });
  }
  return {};
}

ElfResult Loader::index_symbols() {
  const uint32_t n = file_.section_count;
  symbol_first_ = arena_.allocate<uint32_t>(size_t{n} + 1);
  symbol_index_ = arena_.allocate<uint32_t>(file_.symbol_count);
  if (symbol_first_ == nullptr || (symbol_index_ == nullptr && file_.symbol_count != 0))
    return fail(ElfError::out_of_memory, 0, 0);
  // Counting sort by section (SHN_UNDEF/ABS/COMMON symbols belong to none).
  for (uint32_t k = 0; k < file_.symbol_count; ++k) {
    const uint16_t shndx = file_.symbols[k].shndx;
    if (shndx != kShnUndef && shndx < n) ++symbol_first_[shndx + 1];
  }
  for (uint32_t i = 1; i <= n; ++i) symbol_first_[i] += symbol_first_[i - 1];
  const size_t mark = arena_.mark();
  uint32_t* fill = arena_.allocate<uint32_t>(n);
  if (fill == nullptr) return fail(ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < n; ++i) fill[i] = symbol_first_[i];
  for (uint32_t k = 0; k < file_.symbol_count; ++k) {
    const uint16_t shndx = file_.symbols[k].shndx;
    if (shndx != kShnUndef && shndx < n) symbol_index_[fill[shndx]++] = k;
  }
  arena_.release_to(mark);
  return {};
}

ElfResult Loader::collect_functions() {
  // Upper bound: every FUNC symbol, plus one whole-section function per code section.
  uint64_t bound = file_.symbol_count;
  for (uint32_t i = 1; i < file_.section_count; ++i) bound += kinds_[i] == SectionKind::code;
  // A count past size_t (a 32-bit target) cannot be allocated: refused
  // here rather than truncated into a too-small array.
  if constexpr (sizeof(size_t) < sizeof(uint64_t)) {
    if (bound > SIZE_MAX) return fail(ElfError::out_of_memory, 0, 0);
  }
  functions_ = arena_.allocate<Function>(static_cast<size_t>(bound));
  if (functions_ == nullptr && bound != 0) return fail(ElfError::out_of_memory, 0, 0);
  for (uint32_t sec = 1; sec < file_.section_count; ++sec) {
    if (kinds_[sec] != SectionKind::code) continue;
    const Section& s = file_.sections[sec];
    if (s.size % 8 != 0) return fail(ElfError::bad_program, sec, s.size);
    if (s.size / 8 > kMaxSlots) return fail(ElfError::too_large, sec, 0, s.size);
    Function* begin = functions_ + function_count_;
    uint32_t count = 0;
    // uBPF runs `.text` from its first byte to its last, ignoring symbols.
    const bool whole = options_.text_programs == TextPrograms::whole_section && same(s.name, ".text");
    for (uint32_t j = whole ? symbol_first_[sec + 1] : symbol_first_[sec]; j < symbol_first_[sec + 1]; ++j) {
      const uint32_t k = symbol_index_[j];
      const Symbol& sym = file_.symbols[k];
      if (sym.type != kSttFunc || sym.size == 0) continue;
      if (sym.value % 8 != 0 || sym.size % 8 != 0)
        return fail(ElfError::bad_symbol, file_.symtab, uint64_t{k} * 24, k);
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
        return fail(ElfError::bad_symbol, sec, uint64_t{begin[k].start} * 8);
      begin[kept++] = begin[k];
    }
    if (kept == 0 && s.size > 0) {
      const char* name = s.name[0] == '?' ? s.name + 1 : s.name;
      begin[kept++] = {name, sec, 0, static_cast<uint32_t>(s.size / 8), true};
    }
    first_function_[sec] = function_count_;
    section_functions_[sec] = kept;
    function_count_ += kept;
  }
  return {};
}

const Function* Loader::function_at(uint32_t section, uint64_t slot) const {
  if (section == 0 || section >= file_.section_count || kinds_[section] != SectionKind::code)
    return nullptr;
  uint32_t low = first_function_[section];
  uint32_t high = low + section_functions_[section];
  while (low < high) {  // last function starting at or before `slot`
    const uint32_t middle = low + (high - low) / 2;
    if (functions_[middle].start <= slot) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low == first_function_[section]) return nullptr;
  const Function& f = functions_[low - 1];
  return slot < uint64_t{f.start} + f.slots ? &f : nullptr;
}

ElfResult Loader::collect_maps() {
  // Pass 0 counts, pass 1 fills; maps are numbered in section order, and
  // by offset within a maps section. The inner map templates of BTF maps of
  // maps follow them (MapDescriptor::template_only).
  uint32_t templates = 0;
  uint32_t next_template = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      next_template = map_count_;
      maps_ = arena_.allocate<MapDescriptor>(uint64_t{map_count_} + templates);
      map_info_ = arena_.allocate<ElfMap>(uint64_t{map_count_} + templates);
      if ((maps_ == nullptr || map_info_ == nullptr) && map_count_ + templates != 0)
        return fail(ElfError::out_of_memory, 0, 0);
    }
    uint32_t index = 0;
    for (uint32_t sec = 1; sec < file_.section_count; ++sec) {
      const Section& s = file_.sections[sec];
      const SectionKind kind = kinds_[sec];
      if (kind == SectionKind::data) {
        if (s.size == 0) continue;
        if (s.size > UINT32_MAX) return fail(ElfError::too_large, sec, 0, s.size);
        if (pass == 1) {
          // A global-data section is one array map of one entry whose value
          // is the whole section (libbpf); .rodata is read-only to programs.
          MapDescriptor& d = maps_[index];
          d.type = MapType::array;
          d.key_size = 4;
          d.value_size = static_cast<uint32_t>(s.size);
          d.max_entries = 1;
          d.read_only = starts_with(s.name, ".rodata");
          // libbpf freezes .rodata maps once it has written their bytes
          // (bpf_object__populate_internal_map), so their contents are known.
          if (d.read_only) d.frozen_value = s.data;
          ElfMap& info = map_info_[index];
          info.name = s.name;
          info.kind = ElfMapKind::global_data;
          info.linux_type = kMapArray;
          info.map_flags = d.read_only ? kRdonlyProg : 0;
          info.section_index = sec;
          info.initial = s.data;
          data_map_[sec] = static_cast<int32_t>(index);
        }
        ++index;
        continue;
      }
      if (kind != SectionKind::legacy_maps && kind != SectionKind::btf_maps) continue;
      if (s.size > UINT32_MAX) return fail(ElfError::too_large, sec, 0, s.size);
      // The map symbols of this section, sorted by offset.
      const size_t mark = arena_.mark();
      uint32_t* symbols = arena_.allocate<uint32_t>(symbol_first_[sec + 1] - symbol_first_[sec]);
      if (symbols == nullptr && symbol_first_[sec + 1] != symbol_first_[sec])
        return fail(ElfError::out_of_memory, 0, 0);
      uint32_t count = 0;
      for (uint32_t j = symbol_first_[sec]; j < symbol_first_[sec + 1]; ++j) {
        const Symbol& sym = file_.symbols[symbol_index_[j]];
        if (sym.type != kSttSection && sym.type != kSttFile) symbols[count++] = symbol_index_[j];
      }
      const Symbol* table = file_.symbols;
      heap_sort(symbols, count, [table](uint32_t a, uint32_t b) { return table[a].value < table[b].value; });
      ElfResult result;
      for (uint32_t k = 1; k < count && result.ok(); ++k) {
        if (table[symbols[k]].value == table[symbols[k - 1]].value)
          result = fail(ElfError::bad_map_section, sec, table[symbols[k]].value, symbols[k]);
      }
      if (result.ok() && kind == SectionKind::legacy_maps && s.size != 0) {
        // libbpf: one `struct bpf_map_def` (or a longer variant) per symbol;
        // the entry size is the section size over the number of symbols.
        if (count == 0 || s.size % count != 0 || s.size / count < 16 || s.data == nullptr) {
          result = fail(ElfError::bad_map_section, sec, 0, count);
        } else {
          const uint64_t entry = s.size / count;
          for (uint32_t k = 0; k < count && result.ok(); ++k) {
            const Symbol& sym = table[symbols[k]];
            if (sym.value % entry != 0 || !within(sym.value, entry, s.size)) {
              result = fail(ElfError::bad_map_section, sec, sym.value, symbols[k]);
            } else if (pass == 1) {
              const uint8_t* def = s.data + sym.value;
              MapDescriptor& d = maps_[index + k];
              ElfMap& info = map_info_[index + k];
              info.linux_type = u32_at(def);
              d.type = map_type_of(info.linux_type);
              d.key_size = u32_at(def + 4);
              d.value_size = u32_at(def + 8);
              d.max_entries = u32_at(def + 12);
              info.map_flags = entry >= 20 ? u32_at(def + 16) : 0;
              info.kind = ElfMapKind::legacy;
              // The Linux samples' struct bpf_load_map_def (28 bytes) adds
              // inner_map_idx: the ordinal of the template among the legacy
              // definitions; resolved below once all are numbered.
              uint32_t ordinal = entry == 28 ? u32_at(def + 20) : UINT32_MAX;
              const uint32_t by_id =
                  entry == 36 ? template_by_id(s.data, s.size, table, symbols, count, def) : UINT32_MAX;
              if (by_id != UINT32_MAX) {
                ordinal = by_id;  // this section's position; its maps follow the legacy ones before it
                for (uint32_t i = 0; i < index; ++i) ordinal += map_info_[i].kind == ElfMapKind::legacy ? 1 : 0;
              }
              if (holds_maps(info.linux_type) && ordinal < kMaxMaps) {
                d.has_inner_map = true;
                d.inner_map = ordinal;
              }
            }
          }
        }
      } else if (result.ok() && kind == SectionKind::btf_maps && count != 0) {
        if (!has_btf_) result = fail(ElfError::bad_map_definition, sec, 0);
        for (uint32_t k = 0; k < count && result.ok() && has_btf_; ++k) {
          const Symbol& sym = table[symbols[k]];
          BtfMapDef def;
          uint64_t at_fault = 0;
          if (maps_datasec_ == 0) maps_datasec_ = btf_find_datasec(btf_, ".maps");
          if (btf_map_definition(btf_, maps_datasec_, sym.name, def, at_fault) != ElfError::ok) {
            result = fail(ElfError::bad_map_definition, sec, sym.value, at_fault);
            break;
          }
          const bool has_template = holds_maps(def.type) && def.has_inner;
          if (pass == 0) {
            templates += has_template ? 1 : 0;
            continue;
          }
          // Linux fixes these sizes for the fd-holding map kinds; libbpf
          // fills them in when the BTF definition leaves them out.
          const bool fd_map = def.type == kMapProgArray || def.type == kMapPerfEventArray ||
                              def.type == kMapCgroupArray || def.type == kMapArrayOfMaps ||
                              def.type == kMapHashOfMaps || def.type == kMapDevmap ||
                              def.type == kMapCpumap || def.type == kMapXskmap ||
                              def.type == kMapDevmapHash;
          if (fd_map && !def.has_key) def.key_size = 4;
          if (fd_map && !def.has_value) def.value_size = 4;
          MapDescriptor& d = maps_[index + k];
          ElfMap& info = map_info_[index + k];
          info.linux_type = def.type;
          d.type = map_type_of(def.type);
          d.key_size = def.key_size;
          d.value_size = def.value_size;
          d.max_entries = def.max_entries;
          info.map_flags = def.map_flags;
          info.kind = ElfMapKind::btf;
          if (has_template) {
            MapDescriptor& t = maps_[next_template];
            ElfMap& t_info = map_info_[next_template];
            t.type = map_type_of(def.inner_type);
            t.key_size = def.inner_key_size;
            t.value_size = def.inner_value_size;
            t.max_entries = def.inner_max_entries;
            t.read_only = (def.inner_map_flags & kRdonlyProg) != 0;
            t.write_only = (def.inner_map_flags & kWronlyProg) != 0;
            t.template_only = true;
            t_info.name = sym.name;
            t_info.kind = ElfMapKind::btf;
            t_info.linux_type = def.inner_type;
            t_info.map_flags = def.inner_map_flags;
            t_info.section_index = sec;
            t_info.offset = static_cast<uint32_t>(sym.value);
            d.has_inner_map = plain_template(t.type);
            d.inner_map = next_template++;
          }
        }
      }
      if (result.ok() && pass == 1) {
        map_first_[sec] = index;
        map_span_[sec] = (kind == SectionKind::legacy_maps && s.size == 0) ? 0 : count;
        for (uint32_t k = 0; k < map_span_[sec]; ++k) {
          const Symbol& sym = table[symbols[k]];
          MapDescriptor& d = maps_[index + k];
          ElfMap& info = map_info_[index + k];
          info.name = sym.name;
          info.section_index = sec;
          info.offset = static_cast<uint32_t>(sym.value);
          d.read_only = (info.map_flags & kRdonlyProg) != 0;
          d.write_only = (info.map_flags & kWronlyProg) != 0;
        }
      }
      arena_.release_to(mark);
      if (!result.ok()) return result;
      if (pass == 1 && kind == SectionKind::btf_maps && count != 0 && !has_btf_) {
        return fail(ElfError::bad_map_definition, sec, 0);
      }
      index += (kind == SectionKind::legacy_maps && s.size == 0) ? 0 : count;
      if (index > kMaxMaps) return fail(ElfError::too_large, sec, 0, index);
    }
    map_count_ = index;
  }
  resolve_legacy_templates();
  map_count_ += templates;
  return {};
}

// Turns the inner_map_idx ordinals of legacy maps of maps into map indices.
void Loader::resolve_legacy_templates() {
  uint32_t legacy = 0;
  for (uint32_t i = 0; i < map_count_; ++i) legacy += map_info_[i].kind == ElfMapKind::legacy ? 1 : 0;
  const size_t mark = arena_.mark();
  uint32_t* by_ordinal = arena_.allocate<uint32_t>(legacy);
  uint32_t ordinal = 0;
  for (uint32_t i = 0; i < map_count_ && by_ordinal != nullptr; ++i) {
    if (map_info_[i].kind == ElfMapKind::legacy) by_ordinal[ordinal++] = i;
  }
  for (uint32_t i = 0; i < map_count_; ++i) {
    MapDescriptor& d = maps_[i];
    if (map_info_[i].kind != ElfMapKind::legacy || !d.has_inner_map) continue;
    // Without the scratch table no template is resolved: lookups through
    // these maps are then rejected, never checked against a wrong one.
    const bool found = by_ordinal != nullptr && d.inner_map < ordinal &&
                       plain_template(maps_[by_ordinal[d.inner_map]].type);
    d.has_inner_map = found;
    d.inner_map = found ? by_ordinal[d.inner_map] : 0;
  }
  arena_.release_to(mark);
}

ElfResult Loader::map_index(const Symbol& symbol, uint64_t offset, uint32_t reloc_section,
                            uint64_t reloc_offset, uint32_t& index) const {
  // The section's maps are sorted by offset: binary search.
  const uint32_t sec = symbol.shndx;
  uint32_t low = map_first_[sec], high = map_first_[sec] + map_span_[sec];
  while (low < high) {
    const uint32_t middle = low + (high - low) / 2;
    if (map_info_[middle].offset < offset) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low < map_first_[sec] + map_span_[sec] && map_info_[low].offset == offset) {
    index = low;
    return {};
  }
  ElfResult result = fail(ElfError::bad_relocation_target, reloc_section, reloc_offset, offset);
  result.symbol = symbol.name;
  return result;
}

void Loader::program_error(const ElfResult& result) {
  if (program_status_.ok()) program_status_ = result;
}

// The pc of (section, slot) in the program being linked, placing the
// function that holds it at the end when it is not there yet.
ElfResult Loader::place(uint32_t section, uint64_t slot, uint32_t from_section,
                        uint64_t from_offset, uint32_t& pc) {
  const Function* f = function_at(section, slot);
  if (f == nullptr) return fail(ElfError::bad_call, from_section, from_offset, slot);
  const uint32_t id = static_cast<uint32_t>(f - functions_);
  if (placed_of_[id] < 0) {
    if (uint64_t{total_slots_} + f->slots > kMaxSlots)
      return fail(ElfError::too_large, from_section, from_offset, total_slots_);
    placed_of_[id] = static_cast<int32_t>(placed_count_);
    placed_[placed_count_++] = {id, total_slots_};
    total_slots_ += f->slots;
  }
  pc = static_cast<uint32_t>(placed_[placed_of_[id]].pc + (slot - f->start));
  return {};
}

// Finds the code references of one placed function (placing their
// targets), and with `out` also copies it there and applies its
// relocations. The same walk runs twice per program: first to learn the
// program's size, then to write it.
ElfResult Loader::process(const Placed& placed, uint8_t* out) {
  const Function& f = functions_[placed.function];
  const Section& s = file_.sections[f.section];
  const uint8_t* code = s.data + uint64_t{f.start} * 8;
  if (out != nullptr) __builtin_memcpy(out + uint64_t{placed.pc} * 8, code, uint64_t{f.slots} * 8);

  const size_t mark = arena_.mark();
  uint8_t* relocated = arena_.allocate<uint8_t>(f.slots);
  if (relocated == nullptr) return fail(ElfError::out_of_memory, 0, 0);
  ElfResult result;
  const uint64_t begin = uint64_t{f.start} * 8, end = begin + uint64_t{f.slots} * 8;
  // The relocations inside [begin, end): binary search for the first.
  uint64_t low = reloc_first_[f.section], high = reloc_first_[f.section + 1];
  while (low < high) {
    const uint64_t middle = low + (high - low) / 2;
    if (relocs_[middle].offset < begin) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  for (uint64_t i = low; i < reloc_first_[f.section + 1] && relocs_[i].offset < end && result.ok(); ++i) {
      const uint32_t rel = relocs_[i].table;
      const uint64_t entry = file_.sections[rel].type == kShtRela ? 24 : 16;
      const uint64_t k = relocs_[i].entry;
      Reloc r;
      reloc_at(rel, k, r);
      const uint64_t at = k * entry;  // for errors: the entry in the relocation table
      const uint32_t local = static_cast<uint32_t>((r.offset - begin) / 8);
      const uint32_t pc = placed.pc + local;
      const uint8_t* insn = code + uint64_t{local} * 8;
      const int32_t imm = bytes::load<int32_t>(insn + 4);
      const Symbol& sym = file_.symbols[r.symbol];
      // Old LLVM (EM_NONE objects) wrote type 0 where R_BPF_64_64 is now.
      uint32_t type = r.type;
      if (type == kRelNone && file_.machine == kEmNone) type = kRel64_64;
      if (type == kRelNone) continue;  // patches nothing: the instruction stays unrelocated
      relocated[local] = 1;
      if (type != kRel64_64 && type != kRel64_32) {
        result = fail(ElfError::unsupported_relocation, rel, at, type);
        break;
      }
      if (sym.shndx == kShnUndef) {
        // A call the caller resolves by name (uBPF's registered functions),
        // else a call of memset/memcpy/memmove/memcmp, which clang emits for
        // some __builtin_mem*: keel's builtin of that name (ADR 0011).
        const bool call = type == kRel64_32 && insn[0] == kOpCall && (insn[1] >> 4) == kPseudoCall;
        int32_t helper = -1;
        if (call && options_.extern_helper != nullptr)
          helper = options_.extern_helper(options_.extern_helper_context, sym.name);
        if (call && helper < 0) {
          const int32_t builtin = builtin_id(sym.name, SIZE_MAX);  // 0: none (ids are 0x10000 up)
          if (builtin != 0) helper = builtin;
        }
        if (helper >= 0) {
          if (out != nullptr) {
            out[uint64_t{pc} * 8 + 1] = static_cast<uint8_t>(insn[1] & 0x0f);  // src 0: a helper call
            bytes::store<int32_t>(out + uint64_t{pc} * 8 + 4, helper);
          }
          continue;
        }
        // Any other extern (kfunc, ksym, kconfig, another object's function):
        // nothing here can resolve it.
        ElfResult missing = fail(ElfError::missing_symbol, rel, at, r.symbol);
        missing.symbol = sym.name;
        program_error(missing);
        continue;
      }
      if (sym.shndx >= file_.section_count) {
        result = fail(ElfError::bad_relocation_target, rel, at, r.symbol);
        break;
      }
      // Offsets wrap as unsigned 64-bit values (no signed overflow on
      // hostile addends); range checks below reject what wrapped.
      const uint64_t addend = static_cast<uint64_t>(r.rela ? r.addend : int64_t{imm});
      if (type == kRel64_32) {
        // BPF-to-BPF call: target slot = symbol slot + imm + 1 (REL), or
        // (symbol + addend) / 8 (RELA).
        if (insn[0] != kOpCall || (insn[1] >> 4) != kPseudoCall) {
          result = fail(ElfError::bad_relocation_target, rel, at, insn[0]);
          break;
        }
        const uint64_t target =
            sym.value + (r.rela ? addend : static_cast<uint64_t>((int64_t{imm} + 1) * 8));
        uint32_t target_pc = 0;
        if (target % 8 != 0 || kinds_[sym.shndx] != SectionKind::code) {
          result = fail(ElfError::bad_call, rel, at, r.symbol);
          result.symbol = sym.name;
          break;
        }
        result = place(sym.shndx, target / 8, rel, at, target_pc);
        if (result.ok() && out != nullptr) {
          bytes::store<int32_t>(out + uint64_t{pc} * 8 + 4, static_cast<int32_t>(int64_t{target_pc} - pc - 1));
        }
        continue;
      }
      // R_BPF_64_64: a lddw whose imm is a map, global data or a function.
      if (insn[0] != kOpLddw || local + 1 >= f.slots) {
        result = fail(ElfError::bad_relocation_target, rel, at, insn[0]);
        break;
      }
      const uint64_t offset = sym.value + addend;
      const SectionKind kind = kinds_[sym.shndx];
      uint8_t* patch = out != nullptr ? out + uint64_t{pc} * 8 : nullptr;
      const uint8_t dst = insn[1] & 0x0f;
      if (kind == SectionKind::code) {
        // Address of a function (bpf_loop callbacks): BPF_PSEUDO_FUNC, imm
        // relative to the next slot like a call.
        uint32_t target_pc = 0;
        if (offset % 8 != 0) {
          result = fail(ElfError::bad_call, rel, at, r.symbol);
          result.symbol = sym.name;
          break;
        }
        result = place(sym.shndx, offset / 8, rel, at, target_pc);
        if (result.ok() && patch != nullptr) {
          patch[1] = static_cast<uint8_t>(dst | (kPseudoFunc << 4));
          bytes::store<int32_t>(patch + 4, static_cast<int32_t>(int64_t{target_pc} - pc - 1));
          bytes::store<int32_t>(patch + 12, 0);
        }
      } else if (kind == SectionKind::legacy_maps || kind == SectionKind::btf_maps) {
        uint32_t index = 0;
        if (out == nullptr) continue;
        result = map_index(sym, offset, rel, at, index);
        if (result.ok()) {
          patch[1] = static_cast<uint8_t>(dst | (kPseudoMapFd << 4));
          bytes::store<int32_t>(patch + 4, static_cast<int32_t>(index));
          bytes::store<int32_t>(patch + 12, 0);
        }
      } else if (kind == SectionKind::data && data_map_[sym.shndx] >= 0) {
        if (offset > file_.sections[sym.shndx].size) {
          result = fail(ElfError::bad_relocation_target, rel, at, offset);
          break;
        }
        if (patch != nullptr) {
          patch[1] = static_cast<uint8_t>(dst | (kPseudoMapValue << 4));
          bytes::store<int32_t>(patch + 4, data_map_[sym.shndx]);
          bytes::store<int32_t>(patch + 12, static_cast<int32_t>(offset));
        }
      } else {
        result = fail(ElfError::bad_relocation_target, rel, at, sym.shndx);
      }
  }
  // Calls with no relocation are pc-relative within the section; every
  // lddw must end inside the function. A map reference with no relocation
  // names no map of the object: libbpf hands it to the kernel as it is, and
  // Linux refuses its imm as a map fd (resolve_pseudo_ldimm64).
  for (uint32_t local = 0; local < f.slots && result.ok(); ++local) {
    const uint8_t* insn = code + uint64_t{local} * 8;
    if (insn[0] == kOpLddw) {
      if (local + 1 >= f.slots) {
        result = fail(ElfError::bad_program, f.section, begin + uint64_t{local} * 8);
      } else if (names_map(insn[1] >> 4) && !relocated[local]) {
        program_error(fail(ElfError::unrelocated_map_reference, f.section, begin + uint64_t{local} * 8, insn[1] >> 4));
      }
      ++local;
      continue;
    }
    if (insn[0] != kOpCall || (insn[1] >> 4) != kPseudoCall || relocated[local]) continue;
    const int64_t target = int64_t{f.start} + local + 1 + bytes::load<int32_t>(insn + 4);
    const uint32_t pc = placed.pc + local;
    uint32_t target_pc = 0;
    if (target < 0) {
      result = fail(ElfError::bad_call, f.section, begin + uint64_t{local} * 8);
      break;
    }
    result = place(f.section, static_cast<uint64_t>(target), f.section, begin + uint64_t{local} * 8, target_pc);
    if (result.ok() && out != nullptr)
      bytes::store<int32_t>(out + uint64_t{pc} * 8 + 4, static_cast<int32_t>(int64_t{target_pc} - pc - 1));
  }
  arena_.release_to(mark);
  return result;
}

ElfResult Loader::load_program(const Function& entry, ElfProgram& program) {
  const Section& home = file_.sections[entry.section];
  program.name = entry.name;
  program.section = home.name[0] == '?' ? home.name + 1 : home.name;
  program.section_index = entry.section;
  program.autoload = home.name[0] != '?';
  program_status_ = ElfResult{};

  // Link: place the entry, then whatever the placed functions reach (the
  // loop sees functions placed while it runs). The second walk over the
  // same placement writes the code.
  for (uint32_t i = 0; i < placed_count_; ++i) placed_of_[placed_[i].function] = -1;
  placed_count_ = 0;
  total_slots_ = 0;
  uint32_t entry_pc = 0;
  ElfResult result = place(entry.section, entry.start, entry.section, uint64_t{entry.start} * 8, entry_pc);
  for (uint32_t i = 0; i < placed_count_ && result.ok(); ++i) result = process(placed_[i], nullptr);
  if (!result.ok()) return result;
  const uint32_t count = placed_count_;
  const uint32_t slots = total_slots_;
  uint8_t* insns = arena_.allocate<uint8_t>(uint64_t{slots} * 8);
  ElfFunction* functions = arena_.allocate<ElfFunction>(count);
  if (insns == nullptr || functions == nullptr) return fail(ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < count && result.ok(); ++i) result = process(placed_[i], insns);
  if (!result.ok()) return result;
  for (uint32_t i = 0; i < count; ++i) {
    const Function& f = functions_[placed_[i].function];
    functions[i] = {f.name, f.section, file_.sections[f.section].name, f.start, placed_[i].pc, f.slots};
  }
  program.insns = insns;
  program.slots = slots;
  program.own_slots = entry.slots;
  program.functions = functions;
  program.function_count = count;
  for (uint32_t pc = 0; pc < slots; ++pc) {
    ++program.instruction_count;
    if (insns[uint64_t{pc} * 8] == kOpLddw) ++pc;
  }

  // Line info of every placed function, moved to its pc.
  if (has_ext_) {
    for (int pass = 0; pass < 2; ++pass) {
      SourceLine* lines = nullptr;
      if (pass == 1) {
        lines = arena_.allocate<SourceLine>(program.line_count);
        if (lines == nullptr && program.line_count != 0) return fail(ElfError::out_of_memory, 0, 0);
      }
      uint32_t n = 0;
      for (uint32_t i = 0; i < count; ++i) {
        const ElfFunction& f = functions[i];
        for (uint32_t b = 0; b < ext_.line_info_blocks; ++b) {
          const BtfExtBlock& block = ext_.line_info[b];
          if (block.section != f.section) continue;
          for (uint32_t r = first_record_at(block, uint64_t{f.section_slot} * 8); r < block.count; ++r) {
            const uint8_t* record = block.records + uint64_t{r} * block.record_size;
            const uint64_t slot = u32_at(record) / 8;
            if (block.sorted && slot >= uint64_t{f.section_slot} + f.slots) break;
            if (slot < f.section_slot || slot >= uint64_t{f.section_slot} + f.slots) continue;
            if (lines != nullptr) {
              SourceLine& line = lines[n];
              line.pc = static_cast<uint32_t>(f.pc + (slot - f.section_slot));
              line.file = btf_string(btf_, u32_at(record + 4));
              line.text = btf_string(btf_, u32_at(record + 8));
              const uint32_t line_col = u32_at(record + 12);
              line.line = line_col >> 10;  // btf.rst: BPF_LINE_INFO_LINE_NUM
              line.column = line_col & 0x3ff;
            }
            ++n;
          }
        }
      }
      program.line_count = n;
      if (lines != nullptr) {
        heap_sort(lines, n, [](const SourceLine& a, const SourceLine& b) { return a.pc < b.pc; });
        program.lines = lines;
      }
    }
    // CO-RE relocations need the running kernel's BTF, which keel does not
    // have: name the first one that lands in this program.
    for (uint32_t i = 0; i < count && program_status_.ok(); ++i) {
      const ElfFunction& f = functions[i];
      for (uint32_t b = 0; b < ext_.core_relo_blocks && program_status_.ok(); ++b) {
        const BtfExtBlock& block = ext_.core_relo[b];
        if (block.section != f.section) continue;
        for (uint32_t r = first_record_at(block, uint64_t{f.section_slot} * 8); r < block.count; ++r) {
          const uint8_t* record = block.records + uint64_t{r} * block.record_size;
          const uint64_t slot = u32_at(record) / 8;
          if (block.sorted && slot >= uint64_t{f.section_slot} + f.slots) break;
          if (slot < f.section_slot || slot >= uint64_t{f.section_slot} + f.slots) continue;
          program_error(fail(ElfError::unsupported_core_relocation, f.section, u32_at(record),
                             u32_at(record + 12)));
          break;
        }
      }
    }
  }

  // Program type: forced, then the caller's table, then libbpf's.
  const char* type = options_.program_type;
  if (type == nullptr && options_.section_type != nullptr)
    type = options_.section_type(options_.section_type_context, program.section);
  if (type == nullptr) type = program_type_for_section(program.section);
  program.type_name = type;
  if (type == nullptr) program_error(fail(ElfError::unknown_program_type, entry.section, uint64_t{entry.start} * 8));
  program.status = program_status_;
  return {};
}

ElfResult Loader::run(Object& out) {
  ElfResult r = classify_sections();
  if (r.ok()) r = index_symbols();
  if (r.ok()) r = check_relocations();
  if (r.ok()) r = collect_functions();
  if (r.ok()) r = collect_maps();
  if (!r.ok()) return r;

  // Which functions are programs.
  bool other_code = false;
  for (uint32_t sec = 1; sec < file_.section_count; ++sec) {
    if (kinds_[sec] == SectionKind::code && section_functions_[sec] != 0 &&
        !same(file_.sections[sec].name, ".text"))
      other_code = true;
  }
  bool* is_program = arena_.allocate<bool>(function_count_);
  if (is_program == nullptr && function_count_ != 0) return fail(ElfError::out_of_memory, 0, 0);
  uint32_t program_count = 0;
  const bool whole_text = options_.text_programs == TextPrograms::whole_section;
  for (uint32_t sec = 1; sec < file_.section_count; ++sec) {
    if (kinds_[sec] != SectionKind::code) continue;
    const uint32_t first = first_function_[sec], n = section_functions_[sec];
    const bool text = same(file_.sections[sec].name, ".text");
    if (whole_text) {
      // The first executable .text only, as ubpf_load_elf() takes it.
      if (!text || program_count != 0) continue;
    } else if (text && (options_.text_programs == TextPrograms::never ||
                        (options_.text_programs == TextPrograms::when_no_sections && other_code))) {
      continue;
    }
    for (uint32_t i = first; i < first + n; ++i) {
      // Outside .text every function is a program (libbpf accepts static
      // ones too: cilium's tail calls are); in .text only global ones are.
      is_program[i] = !text || functions_[i].global;
      program_count += is_program[i];
    }
  }
  if (whole_text && program_count == 0) {
    // Name the `.text` that is not executable code (or empty), when there is one.
    uint32_t text = 0;
    for (uint32_t sec = 1; sec < file_.section_count && text == 0; ++sec)
      if (same(file_.sections[sec].name, ".text")) text = sec;
    return fail(ElfError::no_program, text, 0);
  }
  ElfProgram* programs = arena_.allocate<ElfProgram>(program_count);
  placed_ = arena_.allocate<Placed>(function_count_);
  placed_of_ = arena_.allocate<int32_t>(function_count_);
  if ((programs == nullptr || placed_ == nullptr || placed_of_ == nullptr) && function_count_ != 0)
    return fail(ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 0; i < function_count_; ++i) placed_of_[i] = -1;
  placed_count_ = 0;
  uint32_t k = 0;
  for (uint32_t i = 0; i < function_count_; ++i) {
    if (!is_program[i]) continue;
    r = load_program(functions_[i], programs[k]);
    if (!r.ok()) return r;
    if (!programs[k].status.ok() && !options_.partial) return programs[k].status;
    ++k;
  }

  out.programs = programs;
  out.program_count = program_count;
  out.maps = maps_;
  out.map_info = map_info_;
  out.map_count = map_count_;
  out.has_btf = has_btf_;
  out.has_btf_ext = has_ext_;
  for (uint32_t sec = 1; sec < file_.section_count; ++sec) {
    const Section& s = file_.sections[sec];
    if (!same(s.name, "license") || s.data == nullptr) continue;
    for (uint64_t i = 0; i < s.size; ++i) {
      if (s.data[i] == 0) {
        out.license = reinterpret_cast<const char*>(s.data);
        break;
      }
    }
  }
  return {};
}

}  // namespace

ElfResult load_object(const uint8_t* bytes, size_t size, const LoadOptions& options, Arena& arena,
                      Object& out) {
  out = Object{};
  File file;
  ElfResult r = read_file(bytes, size, arena, file);
  if (!r.ok()) return r;
  Loader loader(file, options, arena);
  return loader.run(out);
}

const SourceLine* find_source_line(const ElfProgram& program, uint32_t pc) {
  const ElfFunction* function = find_function(program, pc);
  uint32_t low = 0, high = program.line_count;
  while (low < high) {  // first line with line.pc > pc
    const uint32_t middle = low + (high - low) / 2;
    if (program.lines[middle].pc <= pc) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low == 0) return nullptr;
  const SourceLine& line = program.lines[low - 1];
  if (function != nullptr && line.pc < function->pc) return nullptr;
  return &line;
}

const ElfFunction* find_function(const ElfProgram& program, uint32_t pc) {
  for (uint32_t i = 0; i < program.function_count; ++i) {
    const ElfFunction& f = program.functions[i];
    if (pc >= f.pc && pc - f.pc < f.slots) return &f;
  }
  return nullptr;
}

}  // namespace keel
