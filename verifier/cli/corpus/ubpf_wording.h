// uBPF's error wording mapped to keel's codes, in one place: the load
// failures of `-- error` (tests/errors/*.data, "Failed to load code: ...
// at PC N"; tests/elf/*.data, "Failed to load code: wrong class") and the
// run-time faults of `-- error pattern` ("uBPF error: address overflow in
// store at PC 1"). The reason is matched, not the text.
#pragma once

#include <cstdint>
#include <string>

#include "keel/decode.h"
#include "keel/elf.h"
#include "keel/interp.h"

namespace keel::cli {

struct ExpectedLoadError {
  DecodeError error = DecodeError::ok;
  bool has_pc = false;  // uBPF names no PC for some errors (too many instructions)
  uint32_t pc = 0;
};

struct ExpectedTrap {
  RunStatus statuses[2] = {};  // either is the same fault
  int count = 0;
  bool has_pc = false;
  uint32_t pc = 0;
  bool accepts(RunStatus status) const;
  std::string describe() const;  // "address_overflow" or "address_overflow or out_of_bounds"
};

// An ELF load failure: the error, and where the wording pins the reason
// down further, the header field, the kind of section, the value or the
// symbol that keel's ElfResult must name too.
struct ExpectedElfError {
  ElfError errors[2] = {};  // either is the same reason
  int count = 0;
  uint64_t header_fields[2] = {};  // file offset of the ELF header field at fault
  int header_field_count = 0;
  const char* section_prefix = nullptr;  // the section named starts so (".rel", ".symtab")
  bool has_value = false;                // from the wording: "got 1", "type 3"
  uint64_t value = 0;
  std::string symbol;                    // "function 'qrti' not found"
  bool accepts(const ElfResult& result) const;
  std::string describe() const;
};

// False when the wording is not in the table.
bool map_load_error(const std::string& text, ExpectedLoadError& out);
bool map_elf_error(const std::string& text, ExpectedElfError& out);
bool map_run_error(const std::string& pattern, ExpectedTrap& out);

}  // namespace keel::cli
