// BTF parsing (Documentation/bpf/btf.rst §2 "BTF Type and String
// Encoding", §4.2 ".BTF.ext section"). Every record is bounds-checked while
// the type index is built; later lookups only check ids.
#include "elf/btf.h"

#include "support/bytes.h"
#include "support/search.h"
#include "support/sort.h"

namespace keel::elf {

namespace {

constexpr uint16_t kBtfMagic = 0xeb9f;
constexpr uint32_t kMaxDepth = 32;  // typedef/const chains: a cycle must not loop forever

// `offset` is 64-bit because the parsers count in uint64_t (section sizes
// and offsets of the ELF64 file); every caller has checked it against the
// length of bytes already in memory, so it fits a size_t on a 32-bit
// target too.
uint32_t u32(const uint8_t* p, uint64_t offset) { return bytes::load<uint32_t>(p + static_cast<size_t>(offset)); }

// strcmp order (libc's strcmp is not available to the core).
int compare(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return static_cast<int>(static_cast<unsigned char>(*a)) - static_cast<int>(static_cast<unsigned char>(*b));
}

// Section indices 1..n-1 sorted by name, so that naming a section costs a
// binary search rather than a scan of the whole table per .BTF.ext block.
uint32_t* sections_by_name(const File& file, Arena& arena) {
  uint32_t* order = arena.allocate<uint32_t>(file.section_count);
  if (order == nullptr) return nullptr;
  for (uint32_t i = 1; i < file.section_count; ++i) order[i - 1] = i;
  heap_sort(order, file.section_count - 1, [&file](uint32_t a, uint32_t b) {
    const int c = compare(file.sections[a].name, file.sections[b].name);
    return c != 0 ? c < 0 : a < b;
  });
  return order;
}

// The lowest-numbered section called `name`, or 0.
uint32_t find_section(const File& file, const uint32_t* by_name, const char* name) {
  const uint32_t low = partition_index(uint32_t{0}, file.section_count - 1, [&](uint32_t i) {
    return compare(file.sections[by_name[i]].name, name) < 0;
  });
  if (low < file.section_count - 1 && same(file.sections[by_name[low]].name, name)) return by_name[low];
  return 0;
}

// Bytes of kind-specific data after the common 12-byte header (btf.rst §2.2).
bool extra_size(uint32_t kind, uint32_t vlen, uint64_t& out) {
  switch (kind) {
    case kBtfInt: case kBtfVar: case kBtfDeclTag: out = 4; return true;
    case kBtfPtr: case kBtfFwd: case kBtfTypedef: case kBtfVolatile: case kBtfConst:
    case kBtfRestrict: case kBtfFunc: case kBtfFloat: case kBtfTypeTag: out = 0; return true;
    case kBtfArray: out = 12; return true;
    case kBtfStruct: case kBtfUnion: case kBtfDatasec: case kBtfEnum64: out = uint64_t{vlen} * 12; return true;
    case kBtfEnum: case kBtfFuncProto: out = uint64_t{vlen} * 8; return true;
    default: return false;
  }
}

// `__uint(name, N)` is `int (*name)[N]`: N is the array's nelems.
bool uint_member(const Btf& btf, uint32_t type_id, uint32_t& out) {
  BtfType pointer;
  if (!btf_type(btf, btf_skip_modifiers(btf, type_id), pointer) || pointer.kind != kBtfPtr)
    return false;
  BtfType array;
  if (!btf_type(btf, btf_skip_modifiers(btf, pointer.size_or_type), array) ||
      array.kind != kBtfArray)
    return false;
  out = u32(array.extra, 8);
  return true;
}

// `__type(name, T)` is `typeof(T) *name`: the size of T.
bool type_member(const Btf& btf, uint32_t type_id, uint32_t& out) {
  BtfType pointer;
  if (!btf_type(btf, btf_skip_modifiers(btf, type_id), pointer) || pointer.kind != kBtfPtr)
    return false;
  uint64_t size = 0;
  if (!btf_type_size(btf, pointer.size_or_type, size) || size > UINT32_MAX) return false;
  out = static_cast<uint32_t>(size);
  return true;
}

ElfError map_members(const Btf& btf, uint32_t struct_id, uint32_t depth, BtfMapDef& out,
                     uint64_t& value);

// `__array(values, struct inner)` is `struct inner *values[]`: a map of
// maps declares its inner map template there. A prog array's `values`
// (pointers to functions) and other shapes declare none.
void inner_member(const Btf& btf, uint32_t type_id, BtfMapDef& out) {
  BtfType array;
  if (!btf_type(btf, btf_skip_modifiers(btf, type_id), array) || array.kind != kBtfArray) return;
  BtfType pointer;
  if (!btf_type(btf, btf_skip_modifiers(btf, u32(array.extra, 0)), pointer) ||
      pointer.kind != kBtfPtr)
    return;
  const uint32_t target = btf_skip_modifiers(btf, pointer.size_or_type);
  BtfType inner_def;
  if (!btf_type(btf, target, inner_def) || inner_def.kind != kBtfStruct) return;
  // An inner definition keel cannot read leaves the template unknown (a
  // lookup through the outer map is then rejected), not the object.
  BtfMapDef inner;
  uint64_t at_fault = 0;
  if (map_members(btf, target, 1, inner, at_fault) != ElfError::ok) return;
  out.has_inner = true;
  out.inner_type = inner.type;
  out.inner_key_size = inner.key_size;
  out.inner_value_size = inner.value_size;
  out.inner_max_entries = inner.max_entries;
  out.inner_map_flags = inner.map_flags;
}

ElfError map_members(const Btf& btf, uint32_t struct_id, uint32_t depth, BtfMapDef& out,
                     uint64_t& value) {
  BtfType def;
  if (struct_id == 0 || !btf_type(btf, struct_id, def) || def.kind != kBtfStruct)
    return ElfError::bad_map_definition;
  value = struct_id;
  for (uint32_t i = 0; i < def.vlen; ++i) {
    const uint8_t* member = def.extra + size_t{i} * 12;
    const char* member_name = btf_string(btf, u32(member, 0));
    const uint32_t member_type = u32(member, 4);
    if (member_name == nullptr) return ElfError::bad_map_definition;
    bool ok = true;
    if (same(member_name, "type")) {
      ok = uint_member(btf, member_type, out.type);
      out.has_type = ok;
    } else if (same(member_name, "max_entries")) {
      ok = uint_member(btf, member_type, out.max_entries);
    } else if (same(member_name, "map_flags")) {
      ok = uint_member(btf, member_type, out.map_flags);
    } else if (same(member_name, "key_size")) {
      ok = out.has_key || uint_member(btf, member_type, out.key_size);
      out.has_key = true;
    } else if (same(member_name, "value_size")) {
      ok = out.has_value || uint_member(btf, member_type, out.value_size);
      out.has_value = true;
    } else if (same(member_name, "key")) {
      ok = type_member(btf, member_type, out.key_size);
      out.has_key = true;
    } else if (same(member_name, "value")) {
      ok = type_member(btf, member_type, out.value_size);
      out.has_value = true;
    } else if (same(member_name, "values") && depth == 0) {
      inner_member(btf, member_type, out);
    }
    // Others (pinning, numa_node, map_extra; a prog array's `values`) do
    // not change what the verifier sees.
    if (!ok) {
      value = member_type;
      return ElfError::bad_map_definition;
    }
  }
  if (!out.has_type) return ElfError::bad_map_definition;
  return ElfError::ok;
}

}  // namespace

ElfError parse_btf_bytes(const uint8_t* base, uint64_t size, Arena& arena, Btf& out,
                         BtfFault& fault) {
  out = Btf{};
  fault = BtfFault{};
  uint64_t& at_fault = fault.offset;
  if (base == nullptr || size < 24) return ElfError::bad_btf;
  if (bytes::load<uint16_t>(base) != kBtfMagic || base[2] != 1) return ElfError::bad_btf;
  const uint32_t hdr_len = u32(base, 4);
  const uint32_t type_off = u32(base, 8), type_len = u32(base, 12);
  const uint32_t str_off = u32(base, 16), str_len = u32(base, 20);
  at_fault = 4;
  fault.value = hdr_len;
  if (hdr_len < 24 || hdr_len > size) return ElfError::bad_btf;
  fault.value = 0;
  const uint64_t data_size = size - hdr_len;
  at_fault = 8;
  if (!within(type_off, type_len, data_size)) return ElfError::bad_btf;
  at_fault = 16;
  if (!within(str_off, str_len, data_size) || str_len == 0) return ElfError::bad_btf;
  out.types = base + hdr_len + type_off;
  out.strings = base + hdr_len + str_off;
  out.strings_size = str_len;
  at_fault = 20;
  if (out.strings[str_len - 1] != 0) return ElfError::bad_btf;

  // Two passes: count the records, then index them.
  for (int pass = 0; pass < 2; ++pass) {
    uint32_t* offsets = nullptr;
    if (pass == 1) {
      offsets = arena.allocate<uint32_t>(out.type_count);
      at_fault = 0;
      if (offsets == nullptr && out.type_count != 0) return ElfError::out_of_memory;
      out.offsets = offsets;
    }
    uint64_t at = 0;
    uint32_t count = 0;
    while (at < type_len) {
      at_fault = hdr_len + uint64_t{type_off} + at;
      if (type_len - at < 12) return ElfError::bad_btf;
      const uint32_t info = u32(out.types, at + 4);
      const uint32_t kind = (info >> 24) & 0x1f;
      uint64_t extra = 0;
      if (!extra_size(kind, info & 0xffff, extra)) {
        fault.value = kind;
        return ElfError::bad_btf;
      }
      if (extra > type_len - at - 12) return ElfError::bad_btf;
      if (offsets != nullptr) offsets[count] = static_cast<uint32_t>(at);
      ++count;
      at += 12 + extra;
    }
    out.type_count = count;
  }
  fault = BtfFault{};
  return ElfError::ok;
}

ElfResult parse_btf(const File& file, uint32_t section, Arena& arena, Btf& out) {
  const Section& s = file.sections[section];
  BtfFault fault;
  const ElfError error = parse_btf_bytes(s.data, s.size, arena, out, fault);
  if (error == ElfError::ok) return {};
  return error_at(file, error, section, fault.offset, fault.value);
}

bool btf_type(const Btf& btf, uint32_t id, BtfType& out) {
  if (id == 0 || id > btf.type_count) return false;
  const uint8_t* p = btf.types + btf.offsets[id - 1];
  out.name_off = u32(p, 0);
  const uint32_t info = u32(p, 4);
  out.kind = (info >> 24) & 0x1f;
  out.vlen = info & 0xffff;
  out.kind_flag = (info >> 31) != 0;
  out.size_or_type = u32(p, 8);
  out.extra = p + 12;
  return true;
}

const char* btf_string(const Btf& btf, uint32_t offset) {
  // The table ends in NUL (checked by parse_btf), so any in-range offset
  // starts a terminated string.
  if (offset >= btf.strings_size) return nullptr;
  return reinterpret_cast<const char*>(btf.strings + offset);
}

uint32_t btf_skip_modifiers(const Btf& btf, uint32_t id) {
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    BtfType t;
    if (!btf_type(btf, id, t)) return 0;
    if (t.kind != kBtfTypedef && t.kind != kBtfVolatile && t.kind != kBtfConst &&
        t.kind != kBtfRestrict && t.kind != kBtfTypeTag)
      return id;
    id = t.size_or_type;
  }
  return 0;
}

bool btf_type_size(const Btf& btf, uint32_t id, uint64_t& size) {
  uint64_t multiplier = 1;
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    BtfType t;
    if (!btf_type(btf, id, t)) return false;
    switch (t.kind) {
      case kBtfInt: case kBtfEnum: case kBtfStruct: case kBtfUnion: case kBtfDatasec:
      case kBtfFloat: case kBtfEnum64:
        return !mul_overflows(multiplier, t.size_or_type, size);
      case kBtfPtr:
        return !mul_overflows(multiplier, 8, size);
      case kBtfTypedef: case kBtfVolatile: case kBtfConst: case kBtfRestrict:
      case kBtfTypeTag: case kBtfVar:
        id = t.size_or_type;
        break;
      case kBtfArray:
        if (mul_overflows(multiplier, u32(t.extra, 8), multiplier)) return false;
        id = u32(t.extra, 0);
        break;
      default:
        return false;  // void, functions, forward declarations have no size
    }
  }
  return false;
}

uint32_t btf_find_datasec(const Btf& btf, const char* name) {
  for (uint32_t id = 1; id <= btf.type_count; ++id) {
    BtfType t;
    btf_type(btf, id, t);
    if (t.kind != kBtfDatasec) continue;
    const char* t_name = btf_string(btf, t.name_off);
    if (t_name != nullptr && same(t_name, name)) return id;
  }
  return 0;
}

ElfError btf_map_definition(const Btf& btf, uint32_t datasec, const char* name, BtfMapDef& out,
                            uint64_t& value) {
  out = BtfMapDef{};
  value = datasec;
  // The `.maps` DATASEC lists one VAR per map (libbpf's BTF-defined maps).
  BtfType sec;
  if (!btf_type(btf, datasec, sec) || sec.kind != kBtfDatasec) return ElfError::bad_map_definition;
  uint32_t struct_id = 0;
  for (uint32_t i = 0; i < sec.vlen; ++i) {
    BtfType var;
    const uint32_t var_id = u32(sec.extra, size_t{i} * 12);
    if (!btf_type(btf, var_id, var) || var.kind != kBtfVar) {
      value = var_id;
      return ElfError::bad_map_definition;
    }
    const char* var_name = btf_string(btf, var.name_off);
    if (var_name != nullptr && same(var_name, name)) {
      struct_id = btf_skip_modifiers(btf, var.size_or_type);
      value = var_id;
      break;
    }
  }
  return map_members(btf, struct_id, 0, out, value);
}

ElfResult parse_btf_ext(const File& file, uint32_t section, const Btf& btf, Arena& arena,
                        BtfExt& out) {
  out = BtfExt{};
  const Section& s = file.sections[section];
  if (s.data == nullptr || s.size < 24) return error_at(file, ElfError::bad_btf_ext, section, 0);
  const uint8_t* base = s.data;
  if (bytes::load<uint16_t>(base) != kBtfMagic || base[2] != 1)
    return error_at(file, ElfError::bad_btf_ext, section, 0);
  const uint32_t hdr_len = u32(base, 4);
  if (hdr_len < 24 || hdr_len > s.size)
    return error_at(file, ElfError::bad_btf_ext, section, 4, hdr_len);
  const uint64_t data_size = s.size - hdr_len;
  const uint32_t* by_name = sections_by_name(file, arena);
  if (by_name == nullptr) return error_at(file, ElfError::out_of_memory, section, 0);

  struct Table {
    uint32_t off, len, min_record;
    const BtfExtBlock** blocks;
    uint32_t* block_count;
  };
  Table tables[3] = {
      {u32(base, 8), u32(base, 12), 8, &out.func_info, &out.func_info_blocks},
      {u32(base, 16), u32(base, 20), 16, &out.line_info, &out.line_info_blocks},
      {0, 0, 16, &out.core_relo, &out.core_relo_blocks},
  };
  if (hdr_len >= 32) {  // core_relo_off/len were added later (btf.rst §4.2)
    tables[2].off = u32(base, 24);
    tables[2].len = u32(base, 28);
  }
  for (int t = 0; t < 3; ++t) {
    const Table& table = tables[t];
    if (table.len == 0) continue;
    const uint64_t header_field = 8 + 8 * static_cast<uint64_t>(t);
    if (!within(table.off, table.len, data_size) || table.len < 4)
      return error_at(file, ElfError::bad_btf_ext, section, header_field);
    const uint8_t* p = base + hdr_len + table.off;
    const uint64_t start = hdr_len + uint64_t{table.off};
    const uint32_t record_size = u32(p, 0);
    if (record_size < table.min_record || record_size % 4 != 0)
      return error_at(file, ElfError::bad_btf_ext, section, start, record_size);
    // Two passes: count the blocks, then fill them.
    uint32_t count = 0;
    BtfExtBlock* blocks = nullptr;
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) {
        blocks = arena.allocate<BtfExtBlock>(count);
        if (blocks == nullptr && count != 0)
          return error_at(file, ElfError::out_of_memory, section, 0);
      }
      uint64_t at = 4;
      uint32_t index = 0;
      while (at < table.len) {
        if (table.len - at < 8) return error_at(file, ElfError::bad_btf_ext, section, start + at);
        const uint32_t name_off = u32(p, at);
        const uint32_t num = u32(p, at + 4);
        uint64_t bytes_needed = 0;
        if (mul_overflows(num, record_size, bytes_needed) || bytes_needed > table.len - at - 8)
          return error_at(file, ElfError::bad_btf_ext, section, start + at, num);
        if (pass == 1) {
          BtfExtBlock& block = blocks[index];
          const char* name = btf_string(btf, name_off);
          if (name == nullptr) return error_at(file, ElfError::bad_btf_ext, section, start + at);
          block.section = find_section(file, by_name, name);
          block.records = p + at + 8;
          block.count = num;
          block.record_size = record_size;
          block.offset = start + at + 8;
          block.sorted = true;
          for (uint32_t r = 0; r < num; ++r) {
            if (r > 0 && u32(block.records + uint64_t{r} * record_size, 0) <
                             u32(block.records + uint64_t{r - 1} * record_size, 0))
              block.sorted = false;
            const uint8_t* record = block.records + uint64_t{r} * record_size;
            const uint64_t where = block.offset + uint64_t{r} * record_size;
            if (u32(record, 0) % 8 != 0)  // insn_off is in bytes in the object file
              return error_at(file, ElfError::bad_btf_ext, section, where, u32(record, 0));
            if (t == 1 && (btf_string(btf, u32(record, 4)) == nullptr ||
                           btf_string(btf, u32(record, 8)) == nullptr))
              return error_at(file, ElfError::bad_btf_ext, section, where);
          }
        }
        ++index;
        at += 8 + bytes_needed;
      }
      count = index;
    }
    *table.blocks = blocks;
    *table.block_count = count;
  }
  return {};
}

}  // namespace keel::elf
