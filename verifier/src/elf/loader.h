// The passes of load_object() (elf/load.cc), in the order it runs them, and
// the tables each hands to the next. Every pass reads the checked ELF file
// (elf/reader.h) and the outputs of the passes before it, takes its memory
// from the caller's Arena, and reports a malformed object as an ElfResult:
//
//   1. index_sections        (elf/index.cc)      section kinds, symbols by section
//   2. parse_debug_info      (elf/index.cc)      .BTF and .BTF.ext
//   3. index_code_relocations (elf/index.cc)     relocations of code, by offset
//   4. collect_functions     (elf/functions.cc)  functions per code section
//   5. collect_maps          (elf/maps.cc)       legacy `maps`, BTF `.maps`, global data
//   6. per program: link_program (elf/link.cc)   place subprograms, apply relocations;
//      then attach_line_info (elf/line_info.cc) and apply_core_relocations
//      (elf/core_reloc.h: CO-RE against LoadOptions::kernel_btf, on the
//      linked instructions)
// Internal to the loader.
#pragma once

#include <cstddef>
#include <cstdint>

#include "elf/btf.h"
#include "elf/reader.h"
#include "keel/arena.h"
#include "keel/elf.h"

namespace keel::elf {

// Limits that keep every count in 32 bits and every product in 64.
inline constexpr uint32_t kMaxSlots = 1u << 30;
inline constexpr uint32_t kMaxMaps = 1u << 20;

// ---- 1. Sections and symbols -------------------------------------------

enum class SectionKind : uint8_t { other, code, legacy_maps, btf_maps, data };

struct SectionIndex {
  SectionKind* kinds = nullptr;  // per section
  // Symbols grouped by their section: symbols[symbol_first[s] .. symbol_first[s + 1])
  // (SHN_UNDEF/ABS/COMMON symbols belong to none).
  uint32_t* symbols = nullptr;
  uint32_t* symbol_first = nullptr;  // section_count + 1 entries
};

[[nodiscard]] ElfResult index_sections(const File& file, Arena& arena, SectionIndex& out);

// ---- 2. BTF and .BTF.ext -----------------------------------------------

struct DebugInfo {
  Btf btf;
  bool has_btf = false;
  BtfExt ext;  // refers to btf's strings
  bool has_ext = false;
};

[[nodiscard]] ElfResult parse_debug_info(const File& file, const SectionIndex& index, Arena& arena,
                                         DebugInfo& out);

// ---- 3. Relocations of code --------------------------------------------

// Where one relocation entry is: its table and index, and the offset it patches.
struct RelocationRef {
  uint64_t offset;
  uint32_t table;
  uint32_t entry;
};

// Grouped by the code section they patch and sorted by offset there:
// refs[first[s] .. first[s + 1]).
struct CodeRelocations {
  RelocationRef* refs = nullptr;
  uint64_t* first = nullptr;  // section_count + 1 entries
};

struct Relocation {
  uint64_t offset;
  uint32_t symbol;
  uint32_t type;
  int64_t addend;
  bool rela;
};

// Entry `entry` of SHT_REL/SHT_RELA section `table` (checked by pass 3).
Relocation read_relocation(const File& file, uint32_t table, uint64_t entry);

// Checks every relocation table that patches code whole (entry size, symbol
// index, offset inside the patched section), whether or not a program ends
// up using the function it patches.
[[nodiscard]] ElfResult index_code_relocations(const File& file, const SectionIndex& index, Arena& arena,
                                               CodeRelocations& out);

// ---- 4. Functions ------------------------------------------------------

// A function of a code section: an STT_FUNC symbol, or the whole section
// when it has none (objects from before LLVM emitted function symbols).
struct Function {
  const char* name;
  uint32_t section;
  uint32_t start;  // slot in the section
  uint32_t slots;
  bool global;
};

// Sorted by start within each code section:
// functions[first[s] .. first[s] + count_in[s]).
struct FunctionTable {
  Function* functions = nullptr;
  uint32_t count = 0;
  uint32_t* first = nullptr;     // per section
  uint32_t* count_in = nullptr;  // per section
};

[[nodiscard]] ElfResult collect_functions(const File& file, const SectionIndex& index, TextPrograms text,
                                          Arena& arena, FunctionTable& out);

// The function holding (section, slot), or nullptr.
const Function* function_at(const File& file, const SectionIndex& index, const FunctionTable& table,
                            uint32_t section, uint64_t slot);

// ---- 5. Maps -----------------------------------------------------------

struct MapTable {
  MapDescriptor* maps = nullptr;  // Object::maps
  ElfMap* info = nullptr;         // Object::map_info
  uint32_t count = 0;
  int32_t* data_map = nullptr;    // per section: its global-data map, or -1
  // Per maps section: its maps are [first[s], first[s] + span[s]), by offset.
  uint32_t* first = nullptr;
  uint32_t* span = nullptr;
};

[[nodiscard]] ElfResult collect_maps(const File& file, const SectionIndex& index, const DebugInfo& debug,
                                     Arena& arena, MapTable& out);

// The map that `symbol` + `offset` defines (a relocation's target), or
// bad_relocation_target at (reloc_section, reloc_offset).
[[nodiscard]] ElfResult find_map(const File& file, const MapTable& maps, const Symbol& symbol, uint64_t offset,
                                 uint32_t reloc_section, uint64_t reloc_offset, uint32_t& index);

// ---- 6. Programs -------------------------------------------------------

// What linking reads: the outputs of passes 1 to 5.
struct LinkInputs {
  const File& file;
  const LoadOptions& options;
  const SectionIndex& index;
  const CodeRelocations& relocations;
  const FunctionTable& functions;
  const MapTable& maps;
};

// Scratch that linking reuses from one program to the next (sized by the
// object's functions and relocations; the patches grow).
struct LinkScratch {
  struct Placed {
    uint32_t function;
    uint32_t pc;
  };
  // One write the linked code needs, found while walking a placed function
  // and applied once the program's size is known.
  struct Patch {
    enum Kind : uint8_t {
      imm_only,     // a call: imm
      helper_call,  // a call resolved to a helper: byte 1 (src 0), imm
      lddw,         // a function address or global data: byte 1, imm, the next slot's imm
      map,          // a map: byte 1; the map index is looked up (find_map) when written
    };
    uint64_t offset;  // map: symbol value + addend
    uint64_t at;      // map: the relocation entry, for errors
    uint32_t pc;
    int32_t imm;
    int32_t imm2;
    uint32_t symbol;  // map: the relocation's symbol
    uint32_t table;   // map: the relocation section
    Kind kind;
    uint8_t byte1;
  };
  Placed* placed = nullptr;
  uint32_t placed_count = 0;
  int32_t* placed_of = nullptr;  // per function: index into placed, -1
  uint32_t* relocated = nullptr;  // of the function being walked
  Patch* patches = nullptr;      // of the program being linked, in walk order
  // At most one patch per slot of the program: below 2 * kMaxSlots + 16
  // even after growing, a size_t on 32-bit targets too.
  size_t patch_count = 0;
  size_t patch_capacity = 0;
};

[[nodiscard]] ElfResult make_link_scratch(const LinkInputs& in, Arena& arena, LinkScratch& out);

// Links the program whose own function is `entry`: fills program.insns,
// slots, own_slots, functions, function_count and instruction_count. An
// error that spoils only this program (an extern symbol, an unrelocated map
// reference) goes to program.status; the result is fatal to the load.
[[nodiscard]] ElfResult link_program(const LinkInputs& in, const Function& entry, LinkScratch& scratch,
                                     Arena& arena, ElfProgram& program);

// program.lines: the line info of every function of a linked program, moved
// to its pc and sorted by pc.
[[nodiscard]] ElfResult attach_line_info(const File& file, const DebugInfo& debug, Arena& arena,
                                         ElfProgram& program);

// Keeps the first error of a program.
inline void note_program_error(ElfProgram& program, const ElfResult& result) {
  if (program.status.ok()) program.status = result;
}

}  // namespace keel::elf
