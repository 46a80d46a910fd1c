// The options `verify` and `compare` share: --type T (a keel Linux program
// type by name) and --map KIND:TYPE:KEY:VALUE:ENTRIES (the next map index a
// lddw of a raw program may name). Every mistake is a CliError via Args.
#pragma once

#include <string>

#include "args.h"
#include "keel/platform.h"

namespace keel::cli {

// A --map: the map and the name (KIND) the user gave it.
struct NamedMap {
  std::string kind;
  MapDescriptor map;
};

// "socket_filter, sched_cls, ...": the types of keel::linux_platform().
std::string program_type_names();

// The type called `name`; fails `args` naming the known ones.
const ProgramType& program_type(Args& args, const std::string& name);

// KIND:TYPE:KEY:VALUE:ENTRIES, e.g. "counters:array:4:8:16".
NamedMap parse_map(Args& args, const std::string& text);

}  // namespace keel::cli
