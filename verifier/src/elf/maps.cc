// Pass 5 of the loader (elf/loader.h): the maps of the object, numbered in
// section order and by offset within a maps section:
//   - legacy `maps` sections: one struct bpf_map_def (libbpf), or a longer
//     variant (the Linux samples' bpf_load_map_def, iproute2's bpf_elf_map)
//     per symbol;
//   - the BTF `.maps` section: one variable per map, its definition in BTF;
//   - global data (.data, .rodata, .bss and their suffixed forms): one array
//     map of one entry per section.
// The inner map templates of BTF maps of maps follow them all
// (MapDescriptor::template_only). Map types come from the platform's table
// (keel/platform_linux.h).
//
// FIXME: relocations of `.maps` itself (the inner maps a map of maps starts
// with, prog-array `values` initialisers) are not read: the verifier needs
// only the inner map template, which the BTF definition gives, and a prog
// array starts empty either way.
#include "elf/loader.h"
#include "keel/platform_linux.h"
#include "support/bytes.h"
#include "support/search.h"
#include "support/sort.h"

namespace keel::elf {

namespace {

constexpr uint32_t kLinuxMapArray = 2;  // BPF_MAP_TYPE_ARRAY: global data
// Map flags (uapi linux/bpf.h).
constexpr uint32_t kRdonlyProg = 1u << 7, kWronlyProg = 1u << 8;

uint32_t u32_at(const uint8_t* p) { return bytes::load<uint32_t>(p); }

bool holds_maps(uint32_t linux_type) {
  const MapType type = map_type_for_linux(linux_type);
  return type == MapType::array_of_maps || type == MapType::hash_of_maps;
}

bool holds_fds(uint32_t linux_type) {
  const LinuxMapType* row = find_linux_map_type(linux_type);
  return row != nullptr && row->holds_fds;
}

// What may serve as an inner map template here: the maps whose lookups and
// helpers keel models by value (bpf_map_meta_alloc refuses maps of maps).
bool plain_template(MapType type) {
  return type == MapType::array || type == MapType::hash || type == MapType::percpu_array ||
         type == MapType::percpu_hash || type == MapType::lru_hash ||
         type == MapType::lru_percpu_hash || type == MapType::lpm_trie || type == MapType::ringbuf;
}

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

// Turns the inner_map_idx ordinals of legacy maps of maps into map indices.
void resolve_legacy_templates(Arena& arena, MapTable& out) {
  uint32_t legacy = 0;
  for (uint32_t i = 0; i < out.count; ++i) legacy += out.info[i].kind == ElfMapKind::legacy ? 1 : 0;
  const size_t mark = arena.mark();
  uint32_t* by_ordinal = arena.allocate<uint32_t>(legacy);
  uint32_t ordinal = 0;
  for (uint32_t i = 0; i < out.count && by_ordinal != nullptr; ++i) {
    if (out.info[i].kind == ElfMapKind::legacy) by_ordinal[ordinal++] = i;
  }
  for (uint32_t i = 0; i < out.count; ++i) {
    MapDescriptor& d = out.maps[i];
    if (out.info[i].kind != ElfMapKind::legacy || !d.has_inner_map) continue;
    // Without the scratch table no template is resolved: lookups through
    // these maps are then rejected, never checked against a wrong one.
    const bool found = by_ordinal != nullptr && d.inner_map < ordinal &&
                       plain_template(out.maps[by_ordinal[d.inner_map]].type);
    d.has_inner_map = found;
    d.inner_map = found ? by_ordinal[d.inner_map] : 0;
  }
  arena.release_to(mark);
}

}  // namespace

ElfResult collect_maps(const File& file, const SectionIndex& index, const DebugInfo& debug, Arena& arena,
                       MapTable& out) {
  const uint32_t n = file.section_count;
  out.data_map = arena.allocate<int32_t>(n);
  out.first = arena.allocate<uint32_t>(n);
  out.span = arena.allocate<uint32_t>(n);
  if (out.data_map == nullptr || out.first == nullptr || out.span == nullptr)
    return error_at(file, ElfError::out_of_memory, 0, 0);
  for (uint32_t i = 1; i < n; ++i) out.data_map[i] = -1;
  uint32_t maps_datasec = 0;  // BTF id of the `.maps` DATASEC, found on first use

  // Pass 0 counts, pass 1 fills.
  uint32_t templates = 0;
  uint32_t next_template = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      next_template = out.count;
      out.maps = arena.allocate<MapDescriptor>(uint64_t{out.count} + templates);
      out.info = arena.allocate<ElfMap>(uint64_t{out.count} + templates);
      if ((out.maps == nullptr || out.info == nullptr) && out.count + templates != 0)
        return error_at(file, ElfError::out_of_memory, 0, 0);
    }
    uint32_t next = 0;  // the index of the section's first map
    for (uint32_t sec = 1; sec < n; ++sec) {
      const Section& s = file.sections[sec];
      const SectionKind kind = index.kinds[sec];
      if (kind == SectionKind::data) {
        if (s.size == 0) continue;
        if (s.size > UINT32_MAX) return error_at(file, ElfError::too_large, sec, 0, s.size);
        if (pass == 1) {
          // A global-data section is one array map of one entry whose value
          // is the whole section (libbpf); .rodata is read-only to programs.
          MapDescriptor& d = out.maps[next];
          d.type = MapType::array;
          d.key_size = 4;
          d.value_size = static_cast<uint32_t>(s.size);
          d.max_entries = 1;
          d.read_only = starts_with(s.name, ".rodata");
          // libbpf freezes .rodata maps once it has written their bytes
          // (bpf_object__populate_internal_map), so their contents are known.
          if (d.read_only) d.frozen_value = s.data;
          ElfMap& info = out.info[next];
          info.name = s.name;
          info.kind = ElfMapKind::global_data;
          info.linux_type = kLinuxMapArray;
          info.map_flags = d.read_only ? kRdonlyProg : 0;
          info.section_index = sec;
          info.initial = s.data;
          out.data_map[sec] = static_cast<int32_t>(next);
        }
        ++next;
        continue;
      }
      if (kind != SectionKind::legacy_maps && kind != SectionKind::btf_maps) continue;
      if (s.size > UINT32_MAX) return error_at(file, ElfError::too_large, sec, 0, s.size);
      // The map symbols of this section, sorted by offset.
      const size_t mark = arena.mark();
      const uint32_t symbols_begin = index.symbol_first[sec], symbols_end = index.symbol_first[sec + 1];
      uint32_t* symbols = arena.allocate<uint32_t>(symbols_end - symbols_begin);
      if (symbols == nullptr && symbols_end != symbols_begin) return error_at(file, ElfError::out_of_memory, 0, 0);
      uint32_t count = 0;
      for (uint32_t j = symbols_begin; j < symbols_end; ++j) {
        const Symbol& sym = file.symbols[index.symbols[j]];
        if (sym.type != kSttSection && sym.type != kSttFile) symbols[count++] = index.symbols[j];
      }
      const Symbol* table = file.symbols;
      heap_sort(symbols, count, [table](uint32_t a, uint32_t b) { return table[a].value < table[b].value; });
      ElfResult result;
      for (uint32_t k = 1; k < count && result.ok(); ++k) {
        if (table[symbols[k]].value == table[symbols[k - 1]].value)
          result = error_at(file, ElfError::bad_map_section, sec, table[symbols[k]].value, symbols[k]);
      }
      if (result.ok() && kind == SectionKind::legacy_maps && s.size != 0) {
        // libbpf: one `struct bpf_map_def` (or a longer variant) per symbol;
        // the entry size is the section size over the number of symbols.
        if (count == 0 || s.size % count != 0 || s.size / count < 16 || s.data == nullptr) {
          result = error_at(file, ElfError::bad_map_section, sec, 0, count);
        } else {
          const uint64_t entry = s.size / count;
          for (uint32_t k = 0; k < count && result.ok(); ++k) {
            const Symbol& sym = table[symbols[k]];
            if (sym.value % entry != 0 || !within(sym.value, entry, s.size)) {
              result = error_at(file, ElfError::bad_map_section, sec, sym.value, symbols[k]);
            } else if (pass == 1) {
              const uint8_t* def = s.data + sym.value;
              MapDescriptor& d = out.maps[next + k];
              ElfMap& info = out.info[next + k];
              info.linux_type = u32_at(def);
              d.type = map_type_for_linux(info.linux_type);
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
                for (uint32_t i = 0; i < next; ++i) ordinal += out.info[i].kind == ElfMapKind::legacy ? 1 : 0;
              }
              if (holds_maps(info.linux_type) && ordinal < kMaxMaps) {
                d.has_inner_map = true;
                d.inner_map = ordinal;
              }
            }
          }
        }
      } else if (result.ok() && kind == SectionKind::btf_maps && count != 0) {
        if (!debug.has_btf) result = error_at(file, ElfError::bad_map_definition, sec, 0);
        for (uint32_t k = 0; k < count && result.ok() && debug.has_btf; ++k) {
          const Symbol& sym = table[symbols[k]];
          BtfMapDef def;
          uint64_t at_fault = 0;
          if (maps_datasec == 0) maps_datasec = btf_find_datasec(debug.btf, ".maps");
          if (btf_map_definition(debug.btf, maps_datasec, sym.name, def, at_fault) != ElfError::ok) {
            result = error_at(file, ElfError::bad_map_definition, sec, sym.value, at_fault);
            break;
          }
          const bool has_template = holds_maps(def.type) && def.has_inner;
          if (pass == 0) {
            templates += has_template ? 1 : 0;
            continue;
          }
          // Linux fixes these sizes for the fd-holding map kinds; libbpf
          // fills them in when the BTF definition leaves them out.
          const bool fd_map = holds_fds(def.type);
          if (fd_map && !def.has_key) def.key_size = 4;
          if (fd_map && !def.has_value) def.value_size = 4;
          MapDescriptor& d = out.maps[next + k];
          ElfMap& info = out.info[next + k];
          info.linux_type = def.type;
          d.type = map_type_for_linux(def.type);
          d.key_size = def.key_size;
          d.value_size = def.value_size;
          d.max_entries = def.max_entries;
          info.map_flags = def.map_flags;
          info.kind = ElfMapKind::btf;
          if (has_template) {
            MapDescriptor& t = out.maps[next_template];
            ElfMap& t_info = out.info[next_template];
            t.type = map_type_for_linux(def.inner_type);
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
        out.first[sec] = next;
        out.span[sec] = (kind == SectionKind::legacy_maps && s.size == 0) ? 0 : count;
        for (uint32_t k = 0; k < out.span[sec]; ++k) {
          const Symbol& sym = table[symbols[k]];
          MapDescriptor& d = out.maps[next + k];
          ElfMap& info = out.info[next + k];
          info.name = sym.name;
          info.section_index = sec;
          info.offset = static_cast<uint32_t>(sym.value);
          d.read_only = (info.map_flags & kRdonlyProg) != 0;
          d.write_only = (info.map_flags & kWronlyProg) != 0;
        }
      }
      arena.release_to(mark);
      if (!result.ok()) return result;
      if (pass == 1 && kind == SectionKind::btf_maps && count != 0 && !debug.has_btf) {
        return error_at(file, ElfError::bad_map_definition, sec, 0);
      }
      next += (kind == SectionKind::legacy_maps && s.size == 0) ? 0 : count;
      if (next > kMaxMaps) return error_at(file, ElfError::too_large, sec, 0, next);
    }
    out.count = next;
  }
  resolve_legacy_templates(arena, out);
  out.count += templates;
  return {};
}

ElfResult find_map(const File& file, const MapTable& maps, const Symbol& symbol, uint64_t offset,
                   uint32_t reloc_section, uint64_t reloc_offset, uint32_t& index) {
  // The section's maps are sorted by offset.
  const uint32_t sec = symbol.shndx;
  const uint32_t end = maps.first[sec] + maps.span[sec];
  const uint32_t at =
      partition_index(maps.first[sec], end, [&](uint32_t i) { return maps.info[i].offset < offset; });
  if (at < end && maps.info[at].offset == offset) {
    index = at;
    return {};
  }
  ElfResult result = error_at(file, ElfError::bad_relocation_target, reloc_section, reloc_offset, offset);
  result.symbol = symbol.name;
  return result;
}

}  // namespace keel::elf
