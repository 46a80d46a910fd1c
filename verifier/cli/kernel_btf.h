// `--btf FILE` / `--no-btf` for `keel verify` and `keel compare`: the
// kernel BTF that CO-RE relocations are applied against (keel::LoadOptions
// ::kernel_btf). Without --btf, the running kernel's own
// (/sys/kernel/btf/vmlinux) when it exists.
#pragma once

#include <string>

#include "cli.h"
#include "keel/elf.h"

namespace keel::cli {

inline constexpr const char* kRunningKernelBtf = "/sys/kernel/btf/vmlinux";

struct KernelBtf {
  std::string path;  // empty: none
  Bytes bytes;
  bool given() const { return !path.empty(); }
};

// `path` from --btf (empty: the running kernel's when it exists), or none
// with `disabled` (--no-btf). Throws CliError when the file cannot be read
// or is not BTF (no 0xeb9f magic).
KernelBtf read_kernel_btf(const std::string& path, bool disabled);

// One line for text output, when some program of `object` had CO-RE
// relocations: "CO-RE: 12 relocations against /sys/kernel/btf/vmlinux, 1
// poisoned"; empty otherwise.
std::string core_summary(const Object& object, const KernelBtf& btf);

// The poisoned CO-RE relocation at `pc` of `program`, rendered, or "".
std::string core_failure_at(const ElfProgram& program, uint32_t pc);

}  // namespace keel::cli
