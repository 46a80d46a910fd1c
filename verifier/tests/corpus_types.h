// What elf_test and bench_verifier share about the ebpf-samples corpus:
// program types for objects whose section names do not say it (the rules
// of data/ebpf-samples-types.txt, which scripts/corpus-report reads too, as
// a LoadOptions::section_type hook) and a reader for programs.jsonl lines.
// Tests and benchmarks only.
#pragma once

#include <fnmatch.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "keel/elf.h"

namespace keel::corpus {

struct TypeRule {
  std::string glob;           // object path relative to ebpf-samples/
  bool whole_object = false;  // --type (every section) rather than --default-type
  std::string type;
};

inline std::vector<TypeRule> read_type_rules(const std::string& path) {
  std::vector<TypeRule> rules;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line.substr(0, line.find('#')));
    TypeRule rule;
    std::string option;
    if (words >> rule.glob >> option >> rule.type) {
      rule.whole_object = option == "--type";
      rules.push_back(rule);
    }
  }
  return rules;
}

// The first rule whose glob matches `object`, or nullptr.
inline const TypeRule* rule_for(const std::vector<TypeRule>& rules, const std::string& object) {
  for (const TypeRule& rule : rules) {
    if (fnmatch(rule.glob.c_str(), object.c_str(), 0) == 0) return &rule;
  }
  return nullptr;
}

// LoadOptions::section_type with section_type_context = rule_for(...) (may
// be nullptr: the built-in SEC() table alone).
inline const char* section_type(const void* context, const char* section) {
  const auto* rule = static_cast<const TypeRule*>(context);
  if (rule == nullptr) return nullptr;
  if (rule->whole_object) return rule->type.c_str();
  const char* known = program_type_for_section(section);
  return known != nullptr ? known : rule->type.c_str();
}

// The value of `key` in one programs.jsonl line (flat objects, as the file
// writes them: `"key": value`); "" when absent.
inline std::string json_field(const std::string& line, const std::string& key) {
  const std::string pattern = "\"" + key + "\": ";
  size_t at = line.find(pattern);
  if (at == std::string::npos) return "";
  at += pattern.size();
  if (line[at] != '"') return line.substr(at, line.find_first_of(",}", at) - at);
  std::string value;
  for (++at; at < line.size() && line[at] != '"'; ++at) {
    if (line[at] == '\\') ++at;
    value += line[at];
  }
  return value;
}

}  // namespace keel::corpus
