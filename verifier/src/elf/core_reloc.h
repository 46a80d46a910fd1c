// CO-RE ("compile once, run everywhere") relocations, applied as libbpf
// applies them when it loads an object (Documentation/bpf/llvm_reloc.rst
// "CO-RE Relocations", libbpf's relo_core.c): each .BTF.ext `core_relo`
// record names an instruction, a type of the object's own BTF, an access
// string ("0:1:2") and a kind; the loader finds the same type by name in
// the kernel's BTF and patches the instruction with the kernel's offset,
// size, existence or value. Internal to the loader.
#pragma once

#include <cstddef>
#include <cstdint>

#include "elf/btf.h"
#include "elf/reader.h"
#include "keel/arena.h"
#include "keel/elf.h"

namespace keel::elf {

// enum bpf_core_relo_kind (uapi linux/bpf.h).
enum CoreKind : uint32_t {
  kCoreFieldByteOffset = 0, kCoreFieldByteSize = 1, kCoreFieldExists = 2, kCoreFieldSigned = 3,
  kCoreFieldLshiftU64 = 4, kCoreFieldRshiftU64 = 5, kCoreTypeIdLocal = 6, kCoreTypeIdTarget = 7,
  kCoreTypeExists = 8, kCoreTypeSize = 9, kCoreEnumvalExists = 10, kCoreEnumvalValue = 11,
  kCoreTypeMatches = 12,
};

// The kernel's BTF, parsed and indexed by name the first time a relocation
// needs it, then shared by every program of the object.
struct CoreTarget {
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  bool prepared = false;
  ElfError error = ElfError::ok;  // of the preparation (bad_btf, out_of_memory)
  BtfFault fault;
  Btf btf;
  uint32_t* by_name = nullptr;  // ids of named types that may match, by flavor-stripped name then id
  uint32_t named = 0;
};

// Applies the CO-RE relocations that land in the functions of `program`
// (linked already: `program.insns` is written, `program.functions` placed)
// against `target`. Unsatisfiable ones poison their instruction and are
// listed in program.core_failures. Records that libbpf would refuse (a
// malformed access string, an instruction of the wrong form or value, an
// ambiguous match) set `status` (bad_btf_ext, or unsupported_core_relocation
// for an anonymous local type, as in libbpf, or when there is no kernel BTF
// at all), as
// does a kernel BTF that cannot be parsed (bad_btf, section name "kernel
// BTF"). The result is an error only for out_of_memory.
[[nodiscard]] ElfResult apply_core_relocations(const File& file, const Btf& local, const BtfExt& ext,
                                               CoreTarget& target, Arena& arena, ElfProgram& program,
                                               ElfResult& status);

// libbpf's "essential name": `name` up to its last `___flavor` suffix
// (bpf_core_essential_name_len): "task_struct___v1" -> 11.
size_t core_essential_length(const char* name);

}  // namespace keel::elf
