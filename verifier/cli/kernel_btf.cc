#include "kernel_btf.h"

#include <sys/stat.h>

namespace keel::cli {

KernelBtfBytes read_kernel_btf(const std::string& path, bool disabled) {
  KernelBtfBytes btf;
  if (disabled) return btf;
  struct stat info {};
  if (path.empty() && ::stat(kRunningKernelBtf, &info) != 0) return btf;  // no BTF on this host
  btf.path = path.empty() ? kRunningKernelBtf : path;
  btf.bytes = read_file(btf.path);
  // Documentation/bpf/btf.rst §2: struct btf_header starts with magic 0xeb9f.
  if (btf.bytes.size() < 24 || btf.bytes[0] != 0x9f || btf.bytes[1] != 0xeb)
    throw CliError(btf.path + ": not BTF (no 0xeb9f magic; --btf wants raw BTF such as /sys/kernel/btf/vmlinux)");
  return btf;
}

std::string core_summary(const Object& object, const KernelBtfBytes& btf) {
  uint64_t applied = 0, poisoned = 0;
  bool unresolved = false;
  for (uint32_t i = 0; i < object.program_count; ++i) {
    const ElfProgram& program = object.programs[i];
    applied += program.core_relocations;
    poisoned += program.core_failure_count;
    unresolved |= program.status.error == ElfError::unsupported_core_relocation && !btf.given();
  }
  if (unresolved)
    return "CO-RE: no kernel BTF given (--btf FILE; the default, " + std::string(kRunningKernelBtf) +
           ", is used when it exists)";
  if (applied + poisoned == 0) return "";
  std::string line = "CO-RE: " + std::to_string(applied + poisoned) + " relocation" +
                     (applied + poisoned == 1 ? "" : "s") + " against " + btf.path;
  if (poisoned != 0) line += ", " + std::to_string(poisoned) + " poisoned (bpf_core_poison)";
  return line;
}

std::string core_failure_at(const ElfProgram& program, uint32_t pc) {
  const CoreFailure* failure = find_core_failure(program, pc);
  if (failure == nullptr) return "";
  char text[512];
  describe(*failure, text, sizeof text);
  return text;
}

KernelBtfFile::KernelBtfFile(const KernelBtfBytes& source) : source_(source) {
  // The type index: one uint32_t per type, and every type takes 12 bytes
  // at least, so a third of the file (plus the index's own header) suffices.
  const size_t size = source_.bytes.size() / 3 + 4096;
  memory_ = std::make_unique<uint8_t[]>(size);
  Arena arena(memory_.get(), size);
  const BtfProgramError error = parse_kernel_btf(source_.bytes.data(), source_.bytes.size(), arena, btf_);
  if (error != BtfProgramError::ok) {
    throw CliError(source_.path + ": not usable as the kernel's BTF (" + btf_program_error_name(error) + ")");
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
