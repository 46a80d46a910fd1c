// ELF objects for `verify` and `disasm`: keel::load_object with an arena
// that grows while the loader runs out of it, and the choice of programs
// by --section / --function.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "keel/elf.h"

namespace keel::cli {

// True when `bytes` start with the ELF magic (\x7fELF).
bool is_elf(const Bytes& bytes);

class LoadedObject {
 public:
  // Loads `bytes` (kept inside) with LoadOptions::partial, so that one bad
  // program does not hide the others. `program_type` forces every
  // program's type when not empty; `default_type` (when not empty) is the
  // type of programs whose section name keel does not know.
  // `kernel_btf` (when not null, kept alive by the caller for as long as
  // this object) is what CO-RE relocations are applied against.
  LoadedObject(Bytes bytes, const std::string& program_type, const std::string& default_type = "",
               const Bytes* kernel_btf = nullptr);
  LoadedObject(const LoadedObject&) = delete;
  LoadedObject& operator=(const LoadedObject&) = delete;

  const ElfResult& result() const { return result_; }
  const Object& object() const { return object_; }

  // The programs named by `section` and `function` (either may be empty:
  // any); with both empty, the autoloaded ones. Throws CliError naming the
  // available programs when a selection matches nothing.
  // `command` prefixes the message ("verify").
  std::vector<const ElfProgram*> select(const char* command, const std::string& section,
                                        const std::string& function) const;

 private:
  Bytes bytes_;
  std::string program_type_;
  std::string default_type_;
  std::unique_ptr<uint8_t[]> memory_;
  Object object_;
  ElfResult result_;
};

// "section/function".
std::string program_label(const ElfProgram& program);

// What a load error means for the exit-code contract (cli.h): "unsupported"
// when the object is well formed but uses what keel does not provide (a
// CO-RE relocation needing kernel BTF, an extern, a relocation type, a
// limit), else "error" (corrupt, truncated, not an eBPF object). Either way
// the program was not checked: exit status 2, never a rejection.
const char* load_error_verdict(ElfError error);

// describe(ElfResult) as a string.
std::string elf_message(const ElfResult& result);

}  // namespace keel::cli
