#include "verify_args.h"

#include <sstream>
#include <vector>

#include "keel/platform_linux.h"

namespace keel::cli {

namespace {

struct MapTypeName {
  const char* name;
  MapType type;
};
constexpr MapTypeName kMapTypes[] = {
    {"array", MapType::array},
    {"hash", MapType::hash},
    {"percpu_array", MapType::percpu_array},
    {"percpu_hash", MapType::percpu_hash},
    {"lru_hash", MapType::lru_hash},
    {"lru_percpu_hash", MapType::lru_percpu_hash},
    {"prog_array", MapType::prog_array},
    {"perf_event_array", MapType::perf_event_array},
    {"ringbuf", MapType::ringbuf},
    {"stack_trace", MapType::stack_trace},
    {"lpm_trie", MapType::lpm_trie},
    {"cgroup_array", MapType::cgroup_array},
    {"devmap", MapType::devmap},
    {"devmap_hash", MapType::devmap_hash},
    {"cpumap", MapType::cpumap},
    {"xskmap", MapType::xskmap},
    // No inner map template can be given here: lookups through these are rejected.
    {"array_of_maps", MapType::array_of_maps},
    {"hash_of_maps", MapType::hash_of_maps},
};

}  // namespace

std::string program_type_names() {
  const Platform& platform = linux_platform();
  std::string names;
  for (uint32_t i = 0; i < platform.type_count; ++i)
    names += (i == 0 ? "" : ", ") + std::string(platform.types[i].name);
  return names;
}

const ProgramType& program_type(Args& args, const std::string& name) {
  const ProgramType* type = find_program_type(linux_platform(), name.c_str());
  if (type == nullptr) args.fail("unknown program type '" + name + "' (one of: " + program_type_names() + ")");
  return *type;
}

NamedMap parse_map(Args& args, const std::string& text) {
  std::vector<std::string> fields;
  std::stringstream stream(text);
  for (std::string field; std::getline(stream, field, ':');) fields.push_back(field);
  std::string types;
  for (const MapTypeName& entry : kMapTypes) types += std::string(types.empty() ? "" : "|") + entry.name;
  const std::string want = "--map wants KIND:TYPE:KEY:VALUE:ENTRIES with TYPE one of " + types + ", got '" + text + "'";
  if (fields.size() != 5 || fields[0].empty()) args.fail(want);
  NamedMap named;
  named.kind = fields[0];
  bool known = false;
  for (const MapTypeName& entry : kMapTypes) {
    if (fields[1] == entry.name) {
      named.map.type = entry.type;
      known = true;
    }
  }
  if (!known) args.fail(want);
  uint32_t* sizes[] = {&named.map.key_size, &named.map.value_size, &named.map.max_entries};
  for (int i = 0; i < 3; ++i) {
    uint64_t value = 0;
    if (!parse_u64(fields[static_cast<size_t>(i) + 2], value) || value > UINT32_MAX) args.fail(want);
    *sizes[i] = static_cast<uint32_t>(value);
  }
  return named;
}

}  // namespace keel::cli
