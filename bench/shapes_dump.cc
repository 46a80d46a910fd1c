// keel-shapes-dump FILE: writes the verifier benchmarks' shapes
// (shapes.h) to FILE for keel-arena-probe (runner/cortex-m/arena_probe.cc),
// which verifies them on a Cortex-M target, where the generators (host code,
// std::vector) cannot run. The format, every integer 32-bit little-endian:
//
//   "KSHP" count
//   per shape: name_len name type_len type map_count
//              map_count × (map type, key_size, value_size, max_entries,
//                           flags: 1 read_only, 2 write_only)
//              byte_len bytes
//
// Exit status 0, or 1 with a message when FILE cannot be written.
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "shapes.h"

namespace {

void put32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void put_text(std::string& out, const std::string& text) {
  put32(out, static_cast<uint32_t>(text.size()));
  out += text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: keel-shapes-dump FILE\n");
    return 1;
  }
  using namespace keel::shapes;
  // The reference shapes, then the scaling and realistic shapes at the
  // sizes the benchmarks run that a microcontroller's arena may hold.
  const std::vector<std::pair<std::string, Shape>> shapes = {
      {"small/minimal", minimal()},
      {"small/arithmetic", arithmetic()},
      {"control_flow/linear", linear()},
      {"control_flow/single_branch", single_branch()},
      {"control_flow/multi_branch", multi_branch()},
      {"scaling/instructions/1000", straight_line(1000)},
      {"scaling/instructions/4096", straight_line(4096)},
      {"scaling/diamonds/10", diamonds(10)},
      {"scaling/diamonds/100", diamonds(100)},
      {"scaling/nested_diamonds/4", nested_diamonds(4)},
      {"scaling/nested_diamonds/8", nested_diamonds(8)},
      {"scaling/bounded_loop/1000", bounded_loop(1000)},
      {"scaling/nested_loops/2", nested_loops(2)},
      {"scaling/nested_loops/3", nested_loops(3)},
      {"realistic/map_lookup", map_lookup()},
      {"realistic/packet_parse", packet_parse()},
      {"realistic/packet_parse_vlan", packet_parse_vlan()},
      {"realistic/stack_spills", stack_spills()},
  };
  std::string out = "KSHP";
  put32(out, static_cast<uint32_t>(shapes.size()));
  for (const auto& [name, shape] : shapes) {
    put_text(out, name);
    put_text(out, shape.type);
    put32(out, static_cast<uint32_t>(shape.maps.size()));
    for (const keel::MapDescriptor& map : shape.maps) {
      if (map.frozen_value != nullptr || map.has_inner_map || map.template_only) {
        std::fprintf(stderr, "keel-shapes-dump: %s: a map this format cannot carry\n", name.c_str());
        return 1;
      }
      put32(out, static_cast<uint32_t>(map.type));
      put32(out, map.key_size);
      put32(out, map.value_size);
      put32(out, map.max_entries);
      put32(out, (map.read_only ? 1u : 0u) | (map.write_only ? 2u : 0u));
    }
    put32(out, static_cast<uint32_t>(shape.bytes.size()));
    out.append(reinterpret_cast<const char*>(shape.bytes.data()), shape.bytes.size());
  }
  FILE* file = std::fopen(argv[1], "wb");
  if (file == nullptr || std::fwrite(out.data(), 1, out.size(), file) != out.size() || std::fclose(file) != 0) {
    std::fprintf(stderr, "keel-shapes-dump: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
