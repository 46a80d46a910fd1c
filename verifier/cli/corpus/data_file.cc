#include "data_file.h"

#include <filesystem>
#include <sstream>
#include <vector>

namespace keel::cli {

namespace {

struct Section {
  std::string name;     // "asm", "error pattern", ...
  std::string include;  // FILE of "-- asm @ FILE"
  uint32_t first_line;  // 1-based line of the header
  std::string body;
};

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::string strip_comments(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) out += line.substr(0, line.find('#')) + "\n";
  return out;
}

// Splits the file into sections; false (with `problem`) on text outside any
// section that is not a comment.
bool split_sections(const std::string& text, std::vector<Section>& sections, std::string& problem) {
  std::istringstream in(text);
  std::string line;
  uint32_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("-- ", 0) == 0) {
      Section section{trim(line.substr(3)), "", number, ""};
      const size_t at = section.name.find(" @ ");
      if (at != std::string::npos) {
        section.include = trim(section.name.substr(at + 3));
        section.name = trim(section.name.substr(0, at));
      }
      sections.push_back(section);
    } else if (!sections.empty()) {
      sections.back().body += line + "\n";
    } else if (!trim(line).empty() && trim(line)[0] != '#') {
      problem = "line " + std::to_string(number) + ": text before the first section";
      return false;
    }
  }
  if (sections.empty()) {
    problem = "no sections";
    return false;
  }
  return true;
}

bool parse_raw(const std::string& body, Bytes& out, std::string& problem) {
  std::istringstream in(strip_comments(body));
  std::string word;
  while (in >> word) {
    uint64_t slot;
    if (!parse_u64(word, slot)) {
      problem = "-- raw: bad 64-bit word '" + word + "'";
      return false;
    }
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(slot >> (8 * i)));
  }
  return true;
}

bool parse_result(const std::string& body, uint64_t& out, std::string& problem) {
  std::string text = trim(strip_comments(body));
  // uBPF writes "0x..."; accept a bare hex number too.
  if (text.rfind("0x", 0) != 0 && text.rfind("0X", 0) != 0) text = "0x" + text;
  if (!parse_u64(text, out)) {
    problem = "-- result: bad value '" + trim(body) + "'";
    return false;
  }
  return true;
}

}  // namespace

DataLoad load_data_file(const std::string& path, DataFile& out) {
  out = DataFile{};
  const std::string text = read_text_file(path);
  std::vector<Section> sections;
  std::string problem;
  if (!split_sections(text, sections, problem)) return {DataStatus::malformed, problem};

  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  for (Section& section : sections) {
    if (!section.include.empty()) {
      if (section.name != "asm" && section.name != "mem")
        return {DataStatus::malformed, "'-- " + section.name + " @' is not supported"};
      const std::filesystem::path included = directory / section.include;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(included, ec))
        return {DataStatus::missing_include, "'-- " + section.name + " @ " + section.include + "': " +
                                                 section.include + " is not beside the .data file"};
      section.body = read_text_file(included.string());
      section.first_line = 0;
    }
    const std::string& name = section.name;
    if (name == "asm") {
      out.has_asm = true;
      out.asm_text = section.body;
      out.asm_line = section.first_line;
    } else if (name == "raw") {
      out.has_raw = true;
      if (!parse_raw(section.body, out.raw, problem)) return {DataStatus::malformed, problem};
    } else if (name == "mem") {
      if (!parse_hex_bytes(strip_comments(section.body), out.mem))
        return {DataStatus::malformed, "-- mem: not whitespace-separated hex bytes"};
    } else if (name == "result") {
      out.has_result = true;
      if (!parse_result(section.body, out.result, problem)) return {DataStatus::malformed, problem};
    } else if (name == "error") {
      out.has_error = true;
      out.error = trim(section.body);
    } else if (name == "error pattern") {
      out.has_error_pattern = true;
      out.error_pattern = trim(section.body);
    } else if (name == "pyelf") {
      out.pyelf = true;
      out.pyelf_text = section.body;
      out.pyelf_line = section.first_line;
    } else if (name == "reload") {
      out.reload = true;
    } else if (name == "unload") {
      out.unload = true;
    } else if (name == "c" || name == "no jit" || name == "no register offset" || name == "description") {
      // Informational: the C source, why a JIT / a harness mode skips the
      // test, what the test is about.
    } else {
      return {DataStatus::malformed, "unknown section '-- " + name + "'"};
    }
  }
  return {};
}

}  // namespace keel::cli
