// Runs the Linux verifier selftest corpus (../shared/corpus/linux-verifier,
// format in its README) through keel::verify and scores the verdicts
// against Linux 6.1's. Host only; used by linux_cases_test and `keel cases`.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "keel/platform.h"
#include "keel/verify.h"
#include "linux_case.h"

namespace keel::tools {

using suite::CaseOutcome;

struct CaseResult {
  std::string id;
  std::string name;
  bool expect_accept = false;
  CaseOutcome outcome = CaseOutcome::skipped;
  std::string skip_reason;  // when skipped
  std::string decode_error; // when decode() rejected the program
  Verdict verdict;
  std::string message;      // describe(verdict)
  std::string linux_error;  // the case's errstr, for comparison
  std::string state;        // with CaseOptions::with_state, for disagreements: describe_state at verdict.pc
  suite::LinuxCheck check;  // decode + verify as suite::check_linux_case left them (not when skipped)
};

struct CaseOptions {
  /// Run privileged, scored against `expect`; unprivileged runs are scored against `expect_unpriv`.
  bool privileged = true;
  /// Only cases whose id starts with this (empty: all).
  std::string id_prefix;
  /// Arena per case.
  size_t arena_bytes = suite::kLinuxCaseArenaBytes;
  /// Fill CaseResult::state for the cases keel and Linux disagree on.
  bool with_state = false;
};

struct CaseReport {
  bool loaded = false;  // false: the file could not be read (error says why)
  std::string error;
  std::vector<CaseResult> cases;
  size_t total = 0, agree = 0, false_accepts = 0, false_rejects = 0, skipped = 0;
  std::map<std::string, size_t> skip_reasons;
  // agree / (total - skipped), in percent.
  double agreement() const {
    const size_t run = total - skipped;
    return run == 0 ? 0.0 : 100.0 * static_cast<double>(agree) / static_cast<double>(run);
  }
};

// Reads `jsonl_path` (one case a line) and `maps_path` (maps.json), runs every case.
CaseReport run_cases(const std::string& jsonl_path, const std::string& maps_path,
                     const CaseOptions& options = CaseOptions{});

using suite::outcome_name;

// A case as read from its JSON line, ready for suite::check_linux_case (or skipped).
struct PreparedCase {
  std::string id;
  std::string name;
  bool expect_accept = false;
  std::string skip_reason;  // non-empty: skipped, and nothing below is set
  std::string linux_error;
  std::string type_name;    // the name find_program_type(linux_platform()) knows the type by
  const ProgramType* type = nullptr;
  std::vector<uint8_t> bytes;  // map fixups applied
  std::vector<MapDescriptor> maps;
  bool strict_alignment = false;
  bool privileged = true;
};

struct CasePack {
  bool loaded = false;  // false: a file could not be read or parsed (error says why)
  std::string error;
  std::vector<PreparedCase> cases;
};

// Reads and prepares every case (as run_cases() does before verifying),
// for `keel suite-pack`.
CasePack prepare_cases(const std::string& jsonl_path, const std::string& maps_path,
                       const CaseOptions& options = CaseOptions{});

}  // namespace keel::tools
