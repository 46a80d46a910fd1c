// The kernel's BTF for `keel verify --btf FILE`.
#include "kernel_btf.h"

namespace keel::cli {

KernelBtfFile::KernelBtfFile(const std::string& path) : path_(path), bytes_(read_file(path)) {
  // The type index: one uint32_t per type, and every type takes 12 bytes
  // at least, so a third of the file (plus the index's own header) suffices.
  const size_t size = bytes_.size() / 3 + 4096;
  memory_ = std::make_unique<uint8_t[]>(size);
  Arena arena(memory_.get(), size);
  const BtfProgramError error = parse_kernel_btf(bytes_.data(), bytes_.size(), arena, btf_);
  if (error != BtfProgramError::ok) {
    throw CliError(path + ": not usable as the kernel's BTF (" + btf_program_error_name(error) + ")");
  }
}

std::unique_ptr<BtfProgramType> btf_program_type(const KernelBtfFile* kernel, const ElfProgram& program,
                                                 std::string& why) {
  const std::string type = program.type_name != nullptr ? program.type_name : "?";
  if (kernel == nullptr) {
    why = "program type '" + type + "' takes its context from the kernel's BTF: give it with --btf FILE "
          "(e.g. /sys/kernel/btf/vmlinux)";
    return nullptr;
  }
  auto built = std::make_unique<BtfProgramType>();
  const BtfProgramError error = make_btf_program_type(kernel->btf(), program.section, *built);
  if (error == BtfProgramError::ok) return built;
  const std::string target = built->target != nullptr ? built->target : program.section;
  if (error == BtfProgramError::no_target) {
    why = "the kernel's BTF (" + kernel->path() + ") has no target '" + target + "' for section " + program.section;
  } else {
    why = "section " + std::string(program.section) + ": " + btf_program_error_name(error) +
          " (keel does not model this target's context)";
  }
  return nullptr;
}

}  // namespace keel::cli
