#include "object_file.h"

#include <cstring>

namespace keel::cli {

bool is_elf(const Bytes& bytes) { return bytes.size() >= 4 && std::memcmp(bytes.data(), "\x7f" "ELF", 4) == 0; }

namespace {

// The SEC() table first; the caller's default for the names it lacks.
const char* type_or_default(const void* context, const char* section) {
  const char* known = program_type_for_section(section);
  return known != nullptr ? known : static_cast<const std::string*>(context)->c_str();
}

}  // namespace

LoadedObject::LoadedObject(Bytes bytes, const std::string& program_type, const std::string& default_type,
                           const Bytes* kernel_btf)
    : bytes_(std::move(bytes)), program_type_(program_type), default_type_(default_type) {
  LoadOptions options;
  options.partial = true;
  if (kernel_btf != nullptr && !kernel_btf->empty()) {
    options.kernel_btf = kernel_btf->data();
    options.kernel_btf_size = kernel_btf->size();
  }
  if (!program_type_.empty()) options.program_type = program_type_.c_str();
  if (!default_type_.empty()) {
    options.section_type = &type_or_default;
    options.section_type_context = &default_type_;
  }
  // elf.h: every corpus object peaks below 1.7x its size; linking shared
  // subprograms into many programs has no linear bound, hence the retry.
  // The kernel's BTF is indexed in the arena too: two words a type.
  size_t size = bytes_.size() * 4 + (size_t{1} << 20) + (kernel_btf != nullptr ? kernel_btf->size() : 0);
  for (;;) {
    memory_ = std::make_unique_for_overwrite<uint8_t[]>(size);
    Arena arena(memory_.get(), size);
    object_ = Object{};
    result_ = load_object(bytes_.data(), bytes_.size(), options, arena, object_);
    if (result_.error != ElfError::out_of_memory || size >= (size_t{1} << 32)) return;
    size *= 4;
  }
}

std::vector<const ElfProgram*> LoadedObject::select(const char* command, const std::string& section,
                                                    const std::string& function) const {
  std::vector<const ElfProgram*> chosen;
  const bool all = section.empty() && function.empty();
  for (uint32_t i = 0; i < object_.program_count; ++i) {
    const ElfProgram& program = object_.programs[i];
    if (all ? program.autoload
            : (section.empty() || section == program.section) && (function.empty() || function == program.name))
      chosen.push_back(&program);
  }
  if (chosen.empty() && !all) {
    std::string names;
    for (uint32_t i = 0; i < object_.program_count; ++i)
      names += (i == 0 ? "" : ", ") + program_label(object_.programs[i]);
    throw CliError(std::string(command) + ": no program matches" +
                   (section.empty() ? "" : " --section '" + section + "'") +
                   (function.empty() ? "" : " --function '" + function + "'") + " (the object holds: " +
                   (names.empty() ? "no programs" : names) + ")");
  }
  return chosen;
}

std::string program_label(const ElfProgram& program) {
  const std::string section = program.section != nullptr ? program.section : "?";
  const std::string name = program.name != nullptr ? program.name : "?";
  // Old objects have no function symbols: the name is the section's.
  return name == section ? section : section + "/" + name;
}

const char* load_error_verdict(ElfError error) {
  switch (error) {
    case ElfError::unsupported_relocation:
    case ElfError::missing_symbol:
    case ElfError::unsupported_core_relocation:
    case ElfError::unknown_program_type:
    case ElfError::too_large:
      return "unsupported";
    default:
      return "error";
  }
}

std::string elf_message(const ElfResult& result) {
  char text[512];
  describe(result, text, sizeof text);
  return text;
}

}  // namespace keel::cli
