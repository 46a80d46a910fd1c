// load_object(): ELF sections -> programs (with subprograms linked in, as
// libbpf links them), maps (legacy `maps`, BTF `.maps`, global data) and
// line info. This file runs the passes of elf/loader.h in order and decides
// which functions are programs; each pass is in a file of its own.
#include "elf/core_reloc.h"
#include "elf/loader.h"
#include "support/result.h"

namespace keel {

namespace {

using namespace elf;

// The tables passes 1 to 5 build, shared by every program of the object.
struct Indexed {
  SectionIndex index;
  DebugInfo debug;
  CodeRelocations relocations;
  FunctionTable functions;
  MapTable maps;
};

ElfResult index_object(const File& file, const LoadOptions& options, Arena& arena, Indexed& out) {
  KEEL_TRY(index_sections(file, arena, out.index));
  KEEL_TRY(parse_debug_info(file, out.index, arena, out.debug));
  KEEL_TRY(index_code_relocations(file, out.index, arena, out.relocations));
  KEEL_TRY(collect_functions(file, out.index, options.text_programs, arena, out.functions));
  KEEL_TRY(collect_maps(file, out.index, out.debug, arena, out.maps));
  return {};
}

// Which functions are programs: outside .text every function is one
// (libbpf accepts static ones too: cilium's tail calls are); in .text the
// global ones, as LoadOptions::text_programs says. Marks them in
// `is_program` and counts them.
ElfResult choose_programs(const File& file, const LoadOptions& options, const Indexed& object, bool* is_program,
                          uint32_t& program_count) {
  const SectionIndex& index = object.index;
  const FunctionTable& functions = object.functions;
  bool other_code = false;
  for (uint32_t sec = 1; sec < file.section_count; ++sec) {
    if (index.kinds[sec] == SectionKind::code && functions.count_in[sec] != 0 &&
        !same(file.sections[sec].name, ".text"))
      other_code = true;
  }
  program_count = 0;
  const bool whole_text = options.text_programs == TextPrograms::whole_section;
  for (uint32_t sec = 1; sec < file.section_count; ++sec) {
    if (index.kinds[sec] != SectionKind::code) continue;
    const uint32_t first = functions.first[sec], n = functions.count_in[sec];
    const bool text = same(file.sections[sec].name, ".text");
    if (whole_text) {
      // The first executable .text only, as ubpf_load_elf() takes it.
      if (!text || program_count != 0) continue;
    } else if (text && (options.text_programs == TextPrograms::never ||
                        (options.text_programs == TextPrograms::when_no_sections && other_code))) {
      continue;
    }
    for (uint32_t i = first; i < first + n; ++i) {
      is_program[i] = !text || functions.functions[i].global;
      program_count += is_program[i];
    }
  }
  if (whole_text && program_count == 0) {
    // Name the `.text` that is not executable code (or empty), when there is one.
    uint32_t text = 0;
    for (uint32_t sec = 1; sec < file.section_count && text == 0; ++sec)
      if (same(file.sections[sec].name, ".text")) text = sec;
    return error_at(file, ElfError::no_program, text, 0);
  }
  return {};
}

// One program: linked, its line info attached, its CO-RE relocations
// applied, its program type found. Errors that spoil only this program go to
// program.status.
ElfResult load_program(const File& file, const LoadOptions& options, const Indexed& object, const Function& entry,
                       LinkScratch& scratch, CoreTarget& core_target, Arena& arena, ElfProgram& program) {
  const Section& home = file.sections[entry.section];
  program.name = entry.name;
  program.section = home.name[0] == '?' ? home.name + 1 : home.name;
  program.section_index = entry.section;
  program.autoload = home.name[0] != '?';
  program.status = ElfResult{};

  const LinkInputs in{file, options, object.index, object.relocations, object.functions, object.maps};
  KEEL_TRY(link_program(in, entry, scratch, arena, program));
  KEEL_TRY(attach_line_info(file, object.debug, arena, program));
  if (object.debug.has_ext) {
    // CO-RE relocations against the kernel's BTF, on the linked code.
    core_target.bytes = options.kernel_btf;
    core_target.size = options.kernel_btf_size;
    KEEL_TRY(apply_core_relocations(file, object.debug.btf, object.debug.ext, core_target, arena, program,
                                    program.status));
  }

  // Program type: forced, then the caller's table, then libbpf's.
  const char* type = options.program_type;
  if (type == nullptr && options.section_type != nullptr)
    type = options.section_type(options.section_type_context, program.section);
  if (type == nullptr) type = program_type_for_section(program.section);
  program.type_name = type;
  if (type == nullptr)
    note_program_error(program,
                       error_at(file, ElfError::unknown_program_type, entry.section, uint64_t{entry.start} * 8));
  return {};
}

// The `license` section, when it is a NUL-terminated string.
const char* license_of(const File& file) {
  for (uint32_t sec = 1; sec < file.section_count; ++sec) {
    const Section& s = file.sections[sec];
    if (!same(s.name, "license") || s.data == nullptr) continue;
    for (uint64_t i = 0; i < s.size; ++i) {
      if (s.data[i] == 0) return reinterpret_cast<const char*>(s.data);
    }
  }
  return nullptr;
}

}  // namespace

ElfResult load_object(const uint8_t* bytes, size_t size, const LoadOptions& options, Arena& arena,
                      Object& out) {
  out = Object{};
  File file;
  KEEL_TRY(read_file(bytes, size, arena, file));
  Indexed object;
  KEEL_TRY(index_object(file, options, arena, object));

  const uint32_t function_count = object.functions.count;
  bool* is_program = arena.allocate<bool>(function_count);
  if (is_program == nullptr && function_count != 0) return error_at(file, ElfError::out_of_memory, 0, 0);
  uint32_t program_count = 0;
  KEEL_TRY(choose_programs(file, options, object, is_program, program_count));
  ElfProgram* programs = arena.allocate<ElfProgram>(program_count);
  if (programs == nullptr && function_count != 0) return error_at(file, ElfError::out_of_memory, 0, 0);
  LinkScratch scratch;
  const LinkInputs link_inputs{file, options, object.index, object.relocations, object.functions, object.maps};
  KEEL_TRY(make_link_scratch(link_inputs, arena, scratch));
  CoreTarget core_target;  // the kernel's BTF, prepared once for every program
  uint32_t k = 0;
  for (uint32_t i = 0; i < function_count; ++i) {
    if (!is_program[i]) continue;
    KEEL_TRY(load_program(file, options, object, object.functions.functions[i], scratch, core_target, arena,
                          programs[k]));
    if (!programs[k].status.ok() && !options.partial) return programs[k].status;
    ++k;
  }

  out.programs = programs;
  out.program_count = program_count;
  out.maps = object.maps.maps;
  out.map_info = object.maps.info;
  out.map_count = object.maps.count;
  out.has_btf = object.debug.has_btf;
  out.has_btf_ext = object.debug.has_ext;
  out.license = license_of(file);
  return {};
}

}  // namespace keel
