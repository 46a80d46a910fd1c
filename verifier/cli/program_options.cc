#include "program_options.h"

#include <sstream>

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
    {"sockmap", MapType::sockmap},
    {"sockhash", MapType::sockhash},
    // No inner map template can be given here: lookups through these are rejected.
    {"array_of_maps", MapType::array_of_maps},
    {"hash_of_maps", MapType::hash_of_maps},
};

std::string map_type_names() {
  std::string types;
  for (const MapTypeName& entry : kMapTypes) types += std::string(types.empty() ? "" : "|") + entry.name;
  return types;
}

}  // namespace

std::string program_type_names() {
  const Platform& platform = linux_platform();
  std::string names;
  for (uint32_t i = 0; i < platform.type_count; ++i)
    names += (i == 0 ? "" : ", ") + std::string(platform.types[i].name);
  return names;
}

const ProgramType* keel_program_type(const std::string& name) {
  return find_program_type(linux_platform(), name.c_str());
}

CLI::Option* add_type(CLI::App& app, const char* name, std::string& into, const char* help,
                      bool (*also_known)(const std::string&)) {
  const CLI::Validator known(
      [also_known](const std::string& text) {
        if (keel_program_type(text) != nullptr || (also_known != nullptr && also_known(text))) return std::string();
        return "unknown program type '" + text + "' (one of: " + program_type_names() + ")";
      },
      "", "program type");
  return app.add_option(name, into, help)->check(known)->type_name("T");
}

CLI::Option* add_maps(CLI::App& app, std::vector<std::string>& into) {
  const CLI::Validator well_formed(
      [](const std::string& text) {
        NamedMap map;
        std::string error;
        return parse_map(text, map, error) ? std::string() : error;
      },
      "", "map");
  return app
      .add_option("--map", into,
                  "a raw program's next map index (lddw map 0, 1, ...); TYPE one of " + map_type_names() +
                      " (no inner map for the *_of_maps: lookups through them are rejected)")
      ->check(well_formed)
      ->type_name("KIND:TYPE:KEY:VALUE:ENTRIES")
      ->take_all();
}

std::vector<NamedMap> named_maps(const std::vector<std::string>& texts) {
  std::vector<NamedMap> maps;
  for (const std::string& text : texts) {
    NamedMap map;
    std::string error;
    if (!parse_map(text, map, error)) throw CliError(error);
    maps.push_back(map);
  }
  return maps;
}

bool parse_map(const std::string& text, NamedMap& out, std::string& error) {
  std::vector<std::string> fields;
  std::stringstream stream(text);
  for (std::string field; std::getline(stream, field, ':');) fields.push_back(field);
  error = "--map wants KIND:TYPE:KEY:VALUE:ENTRIES with TYPE one of " + map_type_names() + ", got '" + text + "'";
  if (fields.size() != 5 || fields[0].empty()) return false;
  out.kind = fields[0];
  out.type_name = fields[1];
  bool known = false;
  for (const MapTypeName& entry : kMapTypes) {
    if (fields[1] == entry.name) {
      out.map.type = entry.type;
      known = true;
    }
  }
  if (!known) return false;
  uint32_t* sizes[] = {&out.map.key_size, &out.map.value_size, &out.map.max_entries};
  for (int i = 0; i < 3; ++i) {
    uint64_t value = 0;
    if (!parse_u64(fields[static_cast<size_t>(i) + 2], value) || value > UINT32_MAX) return false;
    *sizes[i] = static_cast<uint32_t>(value);
  }
  error.clear();
  return true;
}

}  // namespace keel::cli
