#include "kernel_btf.h"

#include <sys/stat.h>

namespace keel::cli {

KernelBtf read_kernel_btf(const std::string& path, bool disabled) {
  KernelBtf btf;
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

std::string core_summary(const Object& object, const KernelBtf& btf) {
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

}  // namespace keel::cli
