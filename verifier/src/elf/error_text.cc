// Error names and the one-line rendering of an ElfResult (the text of a load error).
#include "keel/elf.h"
#include "support/text_writer.h"

namespace keel {

namespace {

using Writer = TextWriter;

// What `value` means for each error, or nullptr when it means nothing.
const char* value_label(ElfError error) {
  switch (error) {
    case ElfError::unsupported_relocation: return "relocation type";
    case ElfError::symbol_out_of_range: return "symbol";
    case ElfError::missing_symbol: return "undefined symbol";
    case ElfError::unsupported_core_relocation: return "CO-RE kind";
    case ElfError::bad_map_definition: return "BTF type";
    case ElfError::wrong_machine: return "e_machine";
    case ElfError::bad_symbol: return "symbol or section index";
    case ElfError::unrelocated_map_reference: return "lddw source";
    case ElfError::bad_link: return "sh_link";
    default: return nullptr;
  }
}

const char* explanation(ElfError error) {
  switch (error) {
    case ElfError::ok: return "ok";
    case ElfError::out_of_memory: return "the arena is too small for this object";
    case ElfError::truncated: return "file shorter than an ELF header";
    case ElfError::bad_header: return "not an ELF64 little-endian object, or unknown version or OS ABI";
    case ElfError::not_relocatable: return "not a relocatable object (ET_REL)";
    case ElfError::wrong_machine: return "not a BPF object";
    case ElfError::bad_section_table: return "section header table malformed";
    case ElfError::bad_section: return "section data outside the file or overlapping";
    case ElfError::bad_link: return "sh_link names no section or one of the wrong kind";
    case ElfError::bad_string: return "string offset outside its table or unterminated";
    case ElfError::bad_symbol_table: return "symbol table malformed";
    case ElfError::bad_symbol: return "symbol outside its section";
    case ElfError::symbol_out_of_range: return "relocation names a symbol past the table";
    case ElfError::bad_relocation: return "relocation table malformed or offset outside its section";
    case ElfError::unsupported_relocation: return "relocation type not supported in code";
    case ElfError::missing_symbol: return "relocation against an undefined (extern) symbol";
    case ElfError::bad_relocation_target: return "relocation does not fit the instruction or symbol it names";
    case ElfError::unrelocated_map_reference:
      return "lddw refers to a map, but no relocation says which: it names no map (libbpf passes it on as "
             "a map fd, which Linux refuses)";
    case ElfError::bad_program: return "code size not a multiple of 8 or lddw split by a function end";
    case ElfError::bad_call: return "call target is not inside a function";
    case ElfError::bad_map_section: return "legacy maps section malformed";
    case ElfError::bad_map_definition: return "BTF map definition malformed";
    case ElfError::bad_btf: return ".BTF malformed";
    case ElfError::bad_btf_ext: return ".BTF.ext malformed";
    case ElfError::unsupported_core_relocation: return "CO-RE relocation and no kernel BTF given, or on an anonymous type";
    case ElfError::unknown_program_type: return "unknown program type for section";
    case ElfError::no_program: return "no executable .text section to run";
    case ElfError::too_large: return "beyond keel's size limits";
  }
  return "?";
}

}  // namespace

const char* elf_error_name(ElfError error) {
  switch (error) {
#define KEEL_ELF_NAME(name) \
  case ElfError::name: return #name;
    KEEL_ELF_NAME(ok)
    KEEL_ELF_NAME(out_of_memory)
    KEEL_ELF_NAME(truncated)
    KEEL_ELF_NAME(bad_header)
    KEEL_ELF_NAME(not_relocatable)
    KEEL_ELF_NAME(wrong_machine)
    KEEL_ELF_NAME(bad_section_table)
    KEEL_ELF_NAME(bad_section)
    KEEL_ELF_NAME(bad_link)
    KEEL_ELF_NAME(bad_string)
    KEEL_ELF_NAME(bad_symbol_table)
    KEEL_ELF_NAME(bad_symbol)
    KEEL_ELF_NAME(symbol_out_of_range)
    KEEL_ELF_NAME(bad_relocation)
    KEEL_ELF_NAME(unsupported_relocation)
    KEEL_ELF_NAME(missing_symbol)
    KEEL_ELF_NAME(bad_relocation_target)
    KEEL_ELF_NAME(unrelocated_map_reference)
    KEEL_ELF_NAME(bad_program)
    KEEL_ELF_NAME(bad_call)
    KEEL_ELF_NAME(bad_map_section)
    KEEL_ELF_NAME(bad_map_definition)
    KEEL_ELF_NAME(bad_btf)
    KEEL_ELF_NAME(bad_btf_ext)
    KEEL_ELF_NAME(unsupported_core_relocation)
    KEEL_ELF_NAME(unknown_program_type)
    KEEL_ELF_NAME(no_program)
    KEEL_ELF_NAME(too_large)
#undef KEEL_ELF_NAME
  }
  return "unknown_elf_error";
}

// "unknown_program_type: section 3 'xdp_lb' offset 0x0: unknown program type for section"
size_t describe(const ElfResult& result, char* buffer, size_t size) {
  Writer w(buffer, size);
  w.put(elf_error_name(result.error));
  if (result.error != ElfError::ok) {
    w.put(": ");
    if (result.section != 0) {
      w.put("section ");
      w.decimal(result.section);
      if (result.section_name != nullptr) {
        w.put(" '");
        w.put(result.section_name);
        w.put("'");
      }
      w.put(" ");
    } else {
      w.put("file ");
    }
    w.put("offset ");
    w.hex(result.offset);
    w.put(": ");
    w.put(explanation(result.error));
    if (const char* label = value_label(result.error)) {
      w.put(" (");
      w.put(label);
      w.put(" ");
      w.decimal(result.value);
      w.put(")");
    }
    if (result.symbol != nullptr && result.symbol[0] != '\0') {
      w.put(" symbol '");
      w.put(result.symbol);
      w.put("'");
    }
  }
  return w.finish();
}

}  // namespace keel
