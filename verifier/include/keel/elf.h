// Loader for eBPF object files as `clang -O2 -g -target bpf -c` writes them
// (ELF64 little-endian ET_REL, EM_BPF) with libbpf's conventions: programs
// by SEC() name, BPF-to-BPF subprograms linked in, legacy `maps`, BTF
// `.maps` and global data turned into MapDescriptors, BTF line info kept so
// that diagnostics can name `file:line`. Parses a caller-supplied byte span;
// every table comes from the Arena and every malformed input is an ElfResult.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/platform.h"
#include "keel/result.h"

namespace keel {

enum class ElfError : uint8_t {
  ok,
  out_of_memory,            // the arena cannot hold the loaded object
  truncated,                // file shorter than the ELF header
  bad_header,               // not ELF, not ELF64, not little-endian, bad version, OS ABI or header size
  not_relocatable,          // e_type is not ET_REL
  wrong_machine,            // e_machine is neither EM_BPF nor EM_NONE (old LLVM)
  bad_section_table,        // section header table outside the file, bad entry size or string table index
  bad_section,              // data outside the file, overlapping another section or the headers
  bad_link,                 // sh_link names no section, or one of the wrong kind (value = sh_link)
  bad_string,               // name offset outside its string table, or not NUL-terminated
  bad_symbol_table,         // bad entry size, size not a multiple of it, more than one
  bad_symbol,               // section index out of range, or value/size outside its section
  symbol_out_of_range,      // a relocation names a symbol index past the table
  bad_relocation,           // relocation table malformed, or offset outside the section it patches
  unsupported_relocation,   // relocation type keel does not apply there (value = the type)
  missing_symbol,           // relocation against an undefined (extern, ksym, kconfig, kfunc) symbol
  bad_relocation_target,    // e.g. R_BPF_64_64 not on a lddw, or against a section that is no map
  unrelocated_map_reference,  // a lddw map fd / map value / map index (value = src) no relocation patches
  bad_program,              // code not a multiple of 8 bytes, function outside its section, split lddw
  bad_call,                 // BPF-to-BPF call to no function, or outside every code section
  bad_map_section,          // legacy `maps` section: no symbols, entries too small or misplaced
  bad_map_definition,       // BTF `.maps` entry: missing or malformed type/key/value/max_entries
  bad_btf,                  // .BTF header, type or string table malformed
  bad_btf_ext,              // .BTF.ext header or a func/line/CO-RE record table malformed
  unsupported_core_relocation,  // CO-RE relocation and no kernel BTF given (LoadOptions::kernel_btf), or on an anonymous type
  unknown_program_type,     // section name maps to no program type and the caller forced none
  no_program,               // TextPrograms::whole_section and no executable `.text`
  too_large,                // a count or size past keel's limits (2^31 instructions, 2^20 maps ...)
};

// Stable snake_case name ("bad_symbol").
const char* elf_error_name(ElfError error);

// What went wrong and where. `section` is the ELF section index (0 when
// none), `section_name` its name when readable, `offset` a byte offset in
// that section (or in the file for header errors), `value` one more integer
// whose meaning the error gives (relocation type, symbol index, ...).
// Names point into the object's bytes.
struct ElfErrorDetail {
  uint32_t section = 0;
  const char* section_name = nullptr;
  uint64_t offset = 0;
  uint64_t value = 0;
  const char* symbol = nullptr;  // the symbol involved (missing_symbol, bad_call ...), when known
};
using ElfResult = Result<ElfError, ElfErrorDetail>;

// Renders `result` as one line ("missing_symbol: section 8 '.relxdp' offset
// 0x60: relocation against an undefined (extern) symbol (undefined symbol
// 12) symbol 'memset'") into `buffer`, always NUL-terminated; returns the
// length it would need (like snprintf).
size_t describe(const ElfResult& result, char* buffer, size_t size);

// One BTF line_info record after linking: pc is the slot in the program.
struct SourceLine {
  uint32_t pc = 0;
  const char* file = nullptr;  // as the compiler recorded it
  const char* text = nullptr;  // the source line itself ("" when not recorded)
  uint32_t line = 0;
  uint32_t column = 0;
};

// A function placed in a program: the program's own first, then every
// subprogram appended by the linker, in pc order.
struct ElfFunction {
  const char* name = nullptr;  // symbol name, or the section name when the section has none
  uint32_t section = 0;        // ELF section index it came from
  const char* section_name = nullptr;
  uint32_t section_slot = 0;   // its first slot within that section
  uint32_t pc = 0;             // its first slot within the program
  uint32_t slots = 0;
};

// libbpf's bpf_core_poison: an instruction whose CO-RE relocation cannot be
// satisfied against the kernel's BTF becomes `call 0xbad2310` (both slots
// of a lddw), so that Linux rejects the program only if it is reachable
// ("invalid func unknown#195896080") and dead, guarded code loads.
constexpr int32_t kCorePoisonHelper = 0xbad2310;

// Why a CO-RE relocation was poisoned.
enum class CoreFailureCause : uint8_t {
  no_type,        // the kernel's BTF has no type of that (flavor-stripped) name and kind
  no_field,       // types of that name, none with the field path of the access string
  no_enumerator,  // enums of that name, none with the enumerator
  size_mismatch,  // the field's size differs and the load/store cannot be resized (not a
                  // pointer or unsigned integer on both sides)
};

// A poisoned relocation: the pc of the poisoned instruction in the program.
struct CoreFailure {
  uint32_t pc = 0;
  uint32_t kind = 0;               // bpf_core_relo_kind (0 field byte offset ... 12 type matches)
  uint32_t record = 0;             // index of the record in its .BTF.ext block (libbpf's relo #)
  const char* type_name = nullptr;  // the local type as compiled ("task_struct___old")
  const char* field = nullptr;     // the last named field or enumerator, nullptr for none
  const char* access = nullptr;    // the access string ("0:1:2")
  CoreFailureCause cause = CoreFailureCause::no_type;
};

// "field byte offset", "enum value" ... (libbpf's core_relo_kind_str).
const char* core_kind_name(uint32_t kind);
// Renders `failure` as one line ("bpf_core_poison: CO-RE relocation #3
// (field byte offset) of 'task_struct' field 'pid' (access 0:12) cannot be
// satisfied: the kernel's BTF has no such field"); always NUL-terminated,
// returns the length it would need.
size_t describe(const CoreFailure& failure, char* buffer, size_t size);

struct ElfProgram {
  const char* name = nullptr;       // the function symbol, or the section name (old objects)
  const char* section = nullptr;    // ELF section name, without the `?` prefix
  uint32_t section_index = 0;
  const char* type_name = nullptr;  // Linux program type name ("xdp"), nullptr when unknown
  bool autoload = true;             // false for `SEC("?...")`
  const uint8_t* insns = nullptr;   // slots * 8 little-endian bytes, relocated (ready for keel::decode)
  uint32_t slots = 0;               // the program's own function plus linked subprograms
  uint32_t own_slots = 0;           // the program's own function
  uint32_t instruction_count = 0;   // instructions in `slots` with lddw counted once
  const ElfFunction* functions = nullptr;
  uint32_t function_count = 0;
  const SourceLine* lines = nullptr;  // sorted by pc; empty without .BTF.ext
  uint32_t line_count = 0;
  ElfResult status;  // not ok: the program could not be prepared (LoadOptions::partial)
  // CO-RE relocations applied against LoadOptions::kernel_btf, and those
  // that could not be satisfied (their instructions are poisoned), by pc.
  uint32_t core_relocations = 0;
  const CoreFailure* core_failures = nullptr;
  uint32_t core_failure_count = 0;
};

// The poisoned relocation at `pc`, or nullptr.
const CoreFailure* find_core_failure(const ElfProgram& program, uint32_t pc);

// Where a map comes from.
enum class ElfMapKind : uint8_t { legacy, btf, global_data };

struct ElfMap {
  const char* name = nullptr;     // symbol name, or the section name for global data
  ElfMapKind kind = ElfMapKind::legacy;
  uint32_t linux_type = 0;        // BPF_MAP_TYPE_* as written (2 = array for global data)
  uint32_t map_flags = 0;
  uint32_t section_index = 0;
  uint32_t offset = 0;            // of the definition within its section
  const uint8_t* initial = nullptr;  // global data: the section's bytes (nullptr for .bss)
};

struct Object {
  ElfProgram* programs = nullptr;
  uint32_t program_count = 0;
  MapDescriptor* maps = nullptr;  // VerifyOptions::maps: lddw map imm = index into this array;
                                  // the inner map templates of BTF maps of maps come last
                                  // (template_only; their ElfMap names the outer map)
  ElfMap* map_info = nullptr;     // same index
  uint32_t map_count = 0;
  const char* license = nullptr;  // the `license` section, when NUL-terminated
  bool has_btf = false;
  bool has_btf_ext = false;
};

// Which `.text` functions are programs. libbpf: none, they are only
// subprograms; objects compiled without SEC() keep their programs there.
enum class TextPrograms : uint8_t {
  never,
  when_no_sections,  // global .text functions, when no other section holds code
  always,            // every global .text function is also a program
  whole_section,     // uBPF's ubpf_load_elf(): the executable `.text` section, whole and
                     // whatever its symbols, is the one program; no_program without it
};

struct LoadOptions {
  /// When set, every program gets this type name, whatever its section.
  const char* program_type = nullptr;
  /// When set, consulted before the built-in SEC() table; nullptr means "not mine".
  const char* (*section_type)(const void* context, const char* section) = nullptr;
  /// Passed to section_type.
  const void* section_type_context = nullptr;
  /// Which .text functions are programs as well as subprograms.
  TextPrograms text_programs = TextPrograms::when_no_sections;
  /// When set, a call relocated (R_BPF_64_32) to an undefined symbol asks it
  /// for a helper id by the symbol's name (uBPF links its registered
  /// functions so); a negative id means "not mine" and the call goes on as
  /// any extern call (keel's mem* builtins, else missing_symbol).
  int32_t (*extern_helper)(const void* context, const char* name) = nullptr;
  /// Passed to extern_helper.
  const void* extern_helper_context = nullptr;
  /// A program that cannot be prepared (unknown type, CO-RE, extern symbol)
  /// gets ElfProgram::status and the load goes on; when false it fails the load.
  bool partial = false;
  /// The running kernel's BTF (raw bytes as /sys/kernel/btf/vmlinux holds
  /// them; must outlive the Object): CO-RE relocations are applied against
  /// it as libbpf does. Without it a program with CO-RE relocations is
  /// unsupported_core_relocation.
  const uint8_t* kernel_btf = nullptr;
  size_t kernel_btf_size = 0;
};

// Loads the object in `bytes` (which must outlive `out`: names point into
// it). All memory comes from `arena`; out_of_memory means "retry with a
// larger one" (every ebpf-samples object peaks below 1.7 x its file size,
// but linking the same subprograms into many programs has no linear bound).
// Without LoadOptions::partial the first program status is the result.
[[nodiscard]] ElfResult load_object(const uint8_t* bytes, size_t size, const LoadOptions& options,
                                    Arena& arena, Object& out);

// The Linux program type that libbpf (or the legacy loaders of the corpus
// projects) give section `name` ("xdp", "sched_cls", ...), or nullptr.
const char* program_type_for_section(const char* name);
// libbpf's expected attach type for section `name`, by its attach_type_name
// ("trace_fentry", "cgroup_inet4_connect", "xdp_devmap"), or nullptr when
// libbpf's table gives none or the name is only a legacy loader's.
const char* attach_type_for_section(const char* name);

// The line record covering `pc` (the last one at or before it, within the
// same function), or nullptr.
const SourceLine* find_source_line(const ElfProgram& program, uint32_t pc);

// The function containing `pc`, or nullptr.
const ElfFunction* find_function(const ElfProgram& program, uint32_t pc);

}  // namespace keel
