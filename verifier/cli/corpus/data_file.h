// The `.data` test format shared by bpf_conformance and uBPF: sections
// introduced by `-- name` lines (`-- asm`, `-- raw`, `-- mem`, `-- result`,
// `-- error`, `-- error pattern`, `-- pyelf`, informational ones), `#`
// comment lines before the first section, `-- asm @ FILE` / `-- mem @ FILE`
// taking the section's content from a file beside the .data file.
#pragma once

#include <cstdint>
#include <string>

#include "cli.h"

namespace keel::cli {

struct DataFile {
  bool has_asm = false;
  std::string asm_text;
  uint32_t asm_line = 0;  // line of the data file the assembly starts on, minus one
  bool has_raw = false;
  Bytes raw;              // -- raw: one little-endian 64-bit slot per line
  Bytes mem;              // -- mem: empty when absent
  bool has_result = false;
  uint64_t result = 0;
  bool has_error = false;
  std::string error;      // -- error: uBPF's load-failure text
  bool has_error_pattern = false;
  std::string error_pattern;  // -- error pattern: regex of uBPF's run-time error
  bool pyelf = false;     // -- pyelf: statements that edit uBPF's template ELF object (pyelf.h)
  std::string pyelf_text;
  uint32_t pyelf_line = 0;  // line of the data file the statements start on, minus one
  bool reload = false;    // -- reload: load the code twice into one uBPF VM
  bool unload = false;    // -- unload: unload and load it again before running
};

enum class DataStatus : uint8_t {
  ok,
  malformed,       // the file does not follow the format (a test failure)
  missing_include, // a `-- x @ FILE` names a file that is not there
};

struct DataLoad {
  DataStatus status = DataStatus::ok;
  std::string detail;  // for malformed / missing_include
};

// Reads and parses the data file at `path`; throws CliError only when
// `path` itself cannot be read.
DataLoad load_data_file(const std::string& path, DataFile& out);

}  // namespace keel::cli
