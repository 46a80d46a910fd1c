// The kernel's BTF for `keel verify --btf FILE`: read and indexed once,
// then a program type built from it for each BTF-typed program (fentry,
// fexit, fmod_ret, tp_btf, lsm, iter; keel/btf_program.h).
#pragma once

#include <memory>
#include <string>

#include "cli.h"
#include "keel/btf_program.h"
#include "keel/elf.h"

namespace keel::cli {

class KernelBtfFile {
 public:
  // Reads and indexes `path`; throws CliError when it is unreadable or no BTF.
  explicit KernelBtfFile(const std::string& path);
  KernelBtfFile(const KernelBtfFile&) = delete;
  KernelBtfFile& operator=(const KernelBtfFile&) = delete;

  const KernelBtf& btf() const { return btf_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  Bytes bytes_;
  std::unique_ptr<uint8_t[]> memory_;
  KernelBtf btf_;
};

// The program type of a BTF-typed program: built from `kernel`, or, when
// it cannot be (no kernel BTF given, no such target, a target keel does
// not model), nullptr with `why` saying so.
std::unique_ptr<BtfProgramType> btf_program_type(const KernelBtfFile* kernel, const ElfProgram& program,
                                                 std::string& why);

}  // namespace keel::cli
