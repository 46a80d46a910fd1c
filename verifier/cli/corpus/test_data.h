// `keel test-data`'s verdict on one `.data` file, and the same file packed
// for the bare-metal runner (`keel suite-pack`, suite/blob.h): a plain
// -- result program for the runner to decode, verify and run itself, or
// the verdict the host reached before any program ran.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"

namespace keel::cli {

enum class Outcome : uint8_t { pass, fail, not_applicable };
// The verifier's check of a -- result program.
enum class Verified : uint8_t { not_checked, accepted, rejected };

struct DataVerdict {
  DataVerdict() = default;
  DataVerdict(Outcome o, std::string w) : outcome(o), why(std::move(w)) {}
  Outcome outcome = Outcome::fail;
  std::string why;
  Verified verified = Verified::not_checked;
  std::string verify_why;  // the rejection, when rejected
};

struct PackedDataFile {
  bool runs = false;        // a plain -- result file: program, mem, expected_r0
  Bytes program;
  Bytes mem;
  uint64_t expected_r0 = 0;
  DataVerdict verdict;          // !runs: the file's verdict, decided on the host
};

// The `.data` files under `argument` (a file, or a directory searched
// recursively, sorted), appended to `files`, as `keel test-data` runs them.
// Throws CliError when `argument` is neither.
void collect_data_files(const std::string& argument, std::vector<std::string>& files);

// `file` packed for the runner.
PackedDataFile pack_data_file(const std::string& file);

}  // namespace keel::cli
