// uBPF's error wording mapped to keel's codes, in one place: the load
// failures of `-- error` (tests/errors/*.data, "Failed to load code: ...
// at PC N") and the run-time faults of `-- error pattern` ("uBPF error:
// address overflow in store at PC 1"). The reason is matched, not the text.
#pragma once

#include <cstdint>
#include <string>

#include "keel/decode.h"
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

// False when the wording is not in the table.
bool map_load_error(const std::string& text, ExpectedLoadError& out);
bool map_run_error(const std::string& pattern, ExpectedTrap& out);

}  // namespace keel::cli
