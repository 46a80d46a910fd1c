// The kernel's BTF for `keel verify` and `keel compare`: `--btf FILE` /
// `--no-btf`, read once. Its bytes are what CO-RE relocations are applied
// against (keel::LoadOptions::kernel_btf), and, indexed, what types the
// context of BTF-typed programs (fentry, fexit, fmod_ret, tp_btf, lsm, iter;
// keel/btf_program.h). Without --btf, the running kernel's own
// (/sys/kernel/btf/vmlinux) when it exists.
#pragma once

#include <memory>
#include <string>

#include "cli.h"
#include "keel/btf_program.h"
#include "keel/elf.h"

namespace keel::cli {

inline constexpr const char* kRunningKernelBtf = "/sys/kernel/btf/vmlinux";

struct KernelBtfBytes {
  std::string path;  // empty: none
  Bytes bytes;
  bool given() const { return !path.empty(); }
};

// `path` from --btf (empty: the running kernel's when it exists), or none
// with `disabled` (--no-btf). Throws CliError when the file cannot be read
// or is not BTF (no 0xeb9f magic).
KernelBtfBytes read_kernel_btf(const std::string& path, bool disabled);

// One line for text output, when some program of `object` had CO-RE
// relocations: "CO-RE: 12 relocations against /sys/kernel/btf/vmlinux, 1
// poisoned"; empty otherwise.
std::string core_summary(const Object& object, const KernelBtfBytes& btf);

// The poisoned CO-RE relocation at `pc` of `program`, rendered, or "".
std::string core_failure_at(const ElfProgram& program, uint32_t pc);

// The type index of a kernel BTF, for typing BTF-typed programs' contexts.
// It refers to `source`'s bytes, which must outlive it.
class KernelBtfFile {
 public:
  // Indexes `source`; throws CliError when it is not usable BTF.
  explicit KernelBtfFile(const KernelBtfBytes& source);
  KernelBtfFile(const KernelBtfFile&) = delete;
  KernelBtfFile& operator=(const KernelBtfFile&) = delete;

  const KernelBtf& btf() const { return btf_; }
  const std::string& path() const { return source_.path; }

 private:
  const KernelBtfBytes& source_;
  std::unique_ptr<uint8_t[]> memory_;
  KernelBtf btf_;
};

// The program type of a BTF-typed program: built from `kernel`, or, when
// it cannot be (no kernel BTF given, no such target, a target keel does
// not model), nullptr with `why` saying so.
std::unique_ptr<BtfProgramType> btf_program_type(const KernelBtfFile* kernel, const ElfProgram& program,
                                                 std::string& why);

}  // namespace keel::cli
