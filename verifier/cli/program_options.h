// The options `verify` and `compare` share, declared on a CLI11 command:
// --type T (a keel Linux program type by name) and --map
// KIND:TYPE:KEY:VALUE:ENTRIES (the next map index a lddw of a raw program
// may name). Both are checked while parsing (command_line.h).
#pragma once

#include <string>
#include <vector>

#include "command_line.h"
#include "keel/platform.h"

namespace keel::cli {

// A --map: the map and the name (KIND) the user gave it.
struct NamedMap {
  std::string kind;
  std::string type_name;  // as given: libbpf's name of the map type
  MapDescriptor map;
};

// "socket_filter, sched_cls, ...": the types of keel::linux_platform().
std::string program_type_names();

// The keel type called `name` (checked by add_type), or nullptr.
const ProgramType* keel_program_type(const std::string& name);

// --type / --default-type: a keel type, or one `also_known` accepts (for
// `keel compare`: a type only the running kernel's loader knows).
CLI::Option* add_type(CLI::App& app, const char* name, std::string& into, const char* help,
                      bool (*also_known)(const std::string&) = nullptr);

// --map, repeatable, each checked as KIND:TYPE:KEY:VALUE:ENTRIES.
CLI::Option* add_maps(CLI::App& app, std::vector<std::string>& into);

// The parsed --map values (already checked by add_maps).
std::vector<NamedMap> named_maps(const std::vector<std::string>& texts);

// KIND:TYPE:KEY:VALUE:ENTRIES, e.g. "counters:array:4:8:16"; false with
// `error` set when it is not one.
bool parse_map(const std::string& text, NamedMap& out, std::string& error);

}  // namespace keel::cli
