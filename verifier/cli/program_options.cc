#include "program_options.h"

#include <cctype>
#include <sstream>

#include "keel/platform_linux.h"

namespace keel::cli {

namespace {

// --map's TYPE names are those of the core's Linux map-type table
// (keel/platform_linux.h): BPF_MAP_TYPE_ARRAY is "array". Its ids are
// enum bpf_map_type's, all below 256.
constexpr uint32_t kMapTypeIdLimit = 256;
constexpr char kMapTypePrefix[] = "BPF_MAP_TYPE_";

std::string cli_map_type_name(const LinuxMapType& row) {
  std::string name(row.name + (sizeof(kMapTypePrefix) - 1));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// The row whose CLI name is `name`, or nullptr.
const LinuxMapType* find_cli_map_type(const std::string& name) {
  for (uint32_t id = 0; id < kMapTypeIdLimit; ++id) {
    const LinuxMapType* row = find_linux_map_type(id);
    if (row != nullptr && cli_map_type_name(*row) == name) return row;
  }
  return nullptr;
}

std::string map_type_names() {
  std::string types;
  for (uint32_t id = 0; id < kMapTypeIdLimit; ++id) {
    const LinuxMapType* row = find_linux_map_type(id);
    if (row == nullptr) continue;
    if (!types.empty()) types += '|';
    types += cli_map_type_name(*row);
  }
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
  // Lookups through array_of_maps and hash_of_maps are rejected: no inner
  // map template can be given here.
  const LinuxMapType* row = find_cli_map_type(fields[1]);
  if (row == nullptr) return false;
  out.map.type = row->type;
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
