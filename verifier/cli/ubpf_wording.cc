#include "ubpf_wording.h"

#include <regex>

namespace keel::cli {

namespace {

// uBPF's load failures (vm/ubpf_vm.c validate(), ubpf_load()), every one that
// tests/errors/*.data uses. Order matters: a longer phrase before its prefix.
struct LoadWording {
  const char* phrase;
  DecodeError error;
};
constexpr LoadWording kLoadWordings[] = {
    {"invalid source register for LDDW", DecodeError::bad_lddw_src},
    {"invalid destination register", DecodeError::bad_register},
    {"invalid source register", DecodeError::bad_register},
    {"jump out of bounds", DecodeError::jump_out_of_range},
    {"jump to middle of lddw", DecodeError::jump_into_lddw},
    {"incomplete lddw", DecodeError::incomplete_lddw},
    {"invalid lddw second half", DecodeError::bad_lddw_second_slot},
    {"unknown opcode", DecodeError::unknown_opcode},
    {"infinite loop", DecodeError::infinite_loop},
    {"call to nonexistent function", DecodeError::unknown_helper},
    {"invalid endian immediate", DecodeError::bad_endian_size},
    {"too many instructions", DecodeError::too_many_instructions},
    {"sub-program does not end with EXIT or unconditional jump", DecodeError::fall_through_end},
};

// uBPF's bounds-check faults (ubpf_vm.c bounds_check()), found by guarded mode.
// "address overflow/underflow": base + offset wrapped, keel's address_overflow.
// "integer overflow": uBPF's own `addr + size` check wrapped — the access runs
// past the top of the address space; an interpreter may see that as the
// address wrapping or as an access outside every region, both correct.
// "out of bounds memory": outside every region (the stack included).
struct RunWording {
  const char* phrase;
  RunStatus statuses[2];
  int count;
};
constexpr RunWording kRunWordings[] = {
    {"address overflow", {RunStatus::address_overflow, RunStatus::ok}, 1},
    {"address underflow", {RunStatus::address_overflow, RunStatus::ok}, 1},
    {"integer overflow", {RunStatus::address_overflow, RunStatus::out_of_bounds}, 2},
    {"out of bounds memory", {RunStatus::out_of_bounds, RunStatus::ok}, 1},
};

bool find_pc(const std::string& text, uint32_t& pc) {
  static const std::regex at_pc("at PC ([0-9]+)");
  std::smatch match;
  if (!std::regex_search(text, match, at_pc)) return false;
  pc = static_cast<uint32_t>(std::stoul(match[1].str()));
  return true;
}

}  // namespace

bool map_load_error(const std::string& text, ExpectedLoadError& out) {
  for (const LoadWording& wording : kLoadWordings) {
    if (text.find(wording.phrase) == std::string::npos) continue;
    out.error = wording.error;
    out.has_pc = find_pc(text, out.pc);
    return true;
  }
  return false;
}

bool map_run_error(const std::string& pattern, ExpectedTrap& out) {
  for (const RunWording& wording : kRunWordings) {
    if (pattern.find(wording.phrase) == std::string::npos) continue;
    out.statuses[0] = wording.statuses[0];
    out.statuses[1] = wording.statuses[1];
    out.count = wording.count;
    out.has_pc = find_pc(pattern, out.pc);
    return true;
  }
  return false;
}

bool ExpectedTrap::accepts(RunStatus status) const {
  for (int i = 0; i < count; ++i)
    if (statuses[i] == status) return true;
  return false;
}

std::string ExpectedTrap::describe() const {
  std::string text;
  for (int i = 0; i < count; ++i) text += (i ? " or " : "") + std::string(run_status_name(statuses[i]));
  return text;
}

}  // namespace keel::cli
