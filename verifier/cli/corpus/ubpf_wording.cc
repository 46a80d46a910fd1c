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

// uBPF's ELF loader failures (vm/ubpf_loader.c ubpf_load_elf_by_name()),
// every one that tests/elf/*.data uses, as keel's loader words the reason.
// Header fields by file offset (gABI "ELF Header"): e_ident[EI_CLASS] 4,
// EI_DATA 5, EI_VERSION 6, EI_OSABI 7; e_shoff 40, e_shentsize 58, e_shnum 60.
struct ElfWording {
  const char* phrase;
  ElfError errors[2];
  int count;
  uint64_t fields[2];
  int field_count;
  const char* section_prefix;
};
constexpr ElfWording kElfWordings[] = {
    {"not enough data for ELF header", {ElfError::truncated}, 1, {}, 0, nullptr},
    {"wrong magic", {ElfError::bad_header}, 1, {0}, 1, nullptr},
    {"wrong class", {ElfError::bad_header}, 1, {4}, 1, nullptr},
    {"wrong byte order", {ElfError::bad_header}, 1, {5}, 1, nullptr},
    {"wrong version", {ElfError::bad_header}, 1, {6}, 1, nullptr},
    {"wrong OS ABI", {ElfError::bad_header}, 1, {7}, 1, nullptr},
    {"wrong type, expected relocatable", {ElfError::not_relocatable}, 1, {}, 0, nullptr},
    {"wrong machine", {ElfError::wrong_machine}, 1, {}, 0, nullptr},
    // uBPF's own cap is 32 sections (MAX_SECTIONS); keel's is 2^20, so the
    // files' 1024 is refused because that many headers do not fit the file:
    // e_shnum is refused either way.
    {"too many sections", {ElfError::bad_section_table, ElfError::too_large}, 2, {60}, 1, nullptr},
    {"bad section header offset or size", {ElfError::bad_section_table}, 1, {40, 58}, 2, nullptr},
    {"bad section offset or size", {ElfError::bad_section}, 1, {}, 0, nullptr},
    {"text section not found", {ElfError::no_program}, 1, {}, 0, nullptr},
    {"bad symbol table section index", {ElfError::bad_link}, 1, {}, 0, ".rel"},
    {"bad string table section index", {ElfError::bad_link}, 1, {}, 0, ".symtab"},
    {"bad relocation type", {ElfError::unsupported_relocation}, 1, {}, 0, ".rel"},
    {"bad symbol index", {ElfError::symbol_out_of_range}, 1, {}, 0, ".rel"},
    {"bad symbol name", {ElfError::bad_string}, 1, {}, 0, ".symtab"},
    {"bad relocation offset", {ElfError::bad_relocation}, 1, {}, 0, ".rel"},
    {"not found", {ElfError::missing_symbol}, 1, {}, 0, ".rel"},  // function 'NAME' not found
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

bool map_elf_error(const std::string& text, ExpectedElfError& out) {
  static const std::regex number_after("(?:got|type) ([0-9]+)");
  static const std::regex function_name("function '([^']*)' not found");
  for (const ElfWording& wording : kElfWordings) {
    if (text.find(wording.phrase) == std::string::npos) continue;
    out = ExpectedElfError{};
    out.count = wording.count;
    for (int i = 0; i < wording.count; ++i) out.errors[i] = wording.errors[i];
    out.header_field_count = wording.field_count;
    for (int i = 0; i < wording.field_count; ++i) out.header_fields[i] = wording.fields[i];
    out.section_prefix = wording.section_prefix;
    std::smatch match;
    if (std::regex_search(text, match, number_after)) {
      out.has_value = true;
      out.value = std::stoull(match[1].str());
    }
    if (std::regex_search(text, match, function_name)) out.symbol = match[1].str();
    return true;
  }
  return false;
}

bool ExpectedElfError::accepts(const ElfResult& result) const {
  bool error = false;
  for (int i = 0; i < count; ++i) error = error || result.error == errors[i];
  if (!error) return false;
  if (header_field_count > 0) {
    bool field = false;
    for (int i = 0; i < header_field_count; ++i) field = field || result.offset == header_fields[i];
    if (result.section != 0 || !field) return false;
  }
  if (section_prefix != nullptr &&
      (result.section_name == nullptr || std::string(result.section_name).rfind(section_prefix, 0) != 0))
    return false;
  if (has_value && result.value != value) return false;
  if (!symbol.empty() && (result.symbol == nullptr || symbol != result.symbol)) return false;
  return true;
}

std::string ExpectedElfError::describe() const {
  std::string text;
  for (int i = 0; i < count; ++i) text += (i ? " or " : "") + std::string(elf_error_name(errors[i]));
  for (int i = 0; i < header_field_count; ++i)
    text += (i ? " or " : " at header offset ") + std::to_string(header_fields[i]);
  if (section_prefix != nullptr) text += " in a section named " + std::string(section_prefix) + "*";
  if (has_value) text += " (value " + std::to_string(value) + ")";
  if (!symbol.empty()) text += " (symbol '" + symbol + "')";
  return text;
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
