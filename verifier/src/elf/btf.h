// BTF and .BTF.ext, as much as the loader needs (Documentation/bpf/btf.rst,
// uapi linux/btf.h): the type table for BTF-defined maps (`.maps`), and the
// func_info / line_info / CO-RE relocation record tables per ELF section.
// Internal to the loader.
#pragma once

#include <cstddef>
#include <cstdint>

#include "elf/reader.h"
#include "keel/arena.h"
#include "keel/elf.h"

namespace keel::elf {

// BTF_KIND_* (btf.rst §2.2).
enum BtfKind : uint32_t {
  kBtfInt = 1, kBtfPtr = 2, kBtfArray = 3, kBtfStruct = 4, kBtfUnion = 5, kBtfEnum = 6,
  kBtfFwd = 7, kBtfTypedef = 8, kBtfVolatile = 9, kBtfConst = 10, kBtfRestrict = 11,
  kBtfFunc = 12, kBtfFuncProto = 13, kBtfVar = 14, kBtfDatasec = 15, kBtfFloat = 16,
  kBtfDeclTag = 17, kBtfTypeTag = 18, kBtfEnum64 = 19,
};

struct BtfType {
  uint32_t name_off = 0;
  uint32_t kind = 0;
  uint32_t vlen = 0;
  bool kind_flag = false;     // btf.rst §2.1 info bit 31 (bitfield offsets, signed enums)
  uint32_t size_or_type = 0;  // size for INT/ENUM/STRUCT/UNION/DATASEC/FLOAT, a type id otherwise
  const uint8_t* extra = nullptr;  // the kind-specific data after the 12-byte common part
};

struct Btf {
  const uint8_t* types = nullptr;
  const uint32_t* offsets = nullptr;  // offsets[id - 1]: the type's offset in `types`
  uint32_t type_count = 0;            // ids 1..type_count (0 is void)
  const uint8_t* strings = nullptr;
  uint32_t strings_size = 0;
};

// Checks the header, every type record's extent and kind.
[[nodiscard]] ElfResult parse_btf(const File& file, uint32_t section, Arena& arena, Btf& out);

// The same over raw bytes (the kernel's BTF, /sys/kernel/btf/vmlinux):
// bad_btf with the byte offset at fault (and the header length or the
// unknown kind as value), or out_of_memory.
struct BtfFault {
  uint64_t offset = 0;
  uint64_t value = 0;
};
[[nodiscard]] ElfError parse_btf_bytes(const uint8_t* bytes, uint64_t size, Arena& arena, Btf& out,
                                       BtfFault& fault);

bool btf_type(const Btf& btf, uint32_t id, BtfType& out);
// The NUL-terminated string at `offset`, or nullptr.
const char* btf_string(const Btf& btf, uint32_t offset);
// Follows typedef/const/volatile/restrict/type_tag (bounded depth); 0 on failure.
uint32_t btf_skip_modifiers(const Btf& btf, uint32_t id);
// The size in bytes of type `id` (btf.rst: arrays multiply, pointers are 8).
bool btf_type_size(const Btf& btf, uint32_t id, uint64_t& size);

// What `__uint(...)` / `__type(...)` declare in a `.maps` variable.
struct BtfMapDef {
  uint32_t type = 0, key_size = 0, value_size = 0, max_entries = 0, map_flags = 0;
  bool has_type = false, has_key = false, has_value = false;
  // A map of maps: the inner map template that `__array(values, struct {...})`
  // declares (libbpf parse_btf_map_def), one level deep.
  bool has_inner = false;
  uint32_t inner_type = 0, inner_key_size = 0, inner_value_size = 0, inner_max_entries = 0,
           inner_map_flags = 0;
};

// The id of the DATASEC called `name` (".maps"), or 0.
uint32_t btf_find_datasec(const Btf& btf, const char* name);

// The definition of the variable called `name` in DATASEC `datasec` (the
// `.maps` one). Fails with bad_map_definition (value = the BTF type id at fault).
[[nodiscard]] ElfError btf_map_definition(const Btf& btf, uint32_t datasec, const char* name,
                                          BtfMapDef& out, uint64_t& value);

// One `{sec_name_off, num_info, records}` block of a .BTF.ext table.
struct BtfExtBlock {
  uint32_t section = 0;  // ELF section index named by sec_name_off (0: no such section)
  const uint8_t* records = nullptr;
  uint32_t count = 0;
  uint32_t record_size = 0;
  uint64_t offset = 0;   // of the first record, within .BTF.ext (for errors)
  bool sorted = false;   // records in increasing insn_off order (as LLVM writes them)
};

struct BtfExt {
  const BtfExtBlock* func_info = nullptr;
  uint32_t func_info_blocks = 0;
  const BtfExtBlock* line_info = nullptr;
  uint32_t line_info_blocks = 0;
  const BtfExtBlock* core_relo = nullptr;
  uint32_t core_relo_blocks = 0;
};

// Checks the header and every record table; line_info strings are checked
// against `btf` here so that later lookups cannot fail.
[[nodiscard]] ElfResult parse_btf_ext(const File& file, uint32_t section, const Btf& btf,
                                      Arena& arena, BtfExt& out);

}  // namespace keel::elf
