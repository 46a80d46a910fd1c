#include "bpf/maps.h"

namespace keel::bpf {
namespace {

void zero(uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) bytes[i] = 0;
}

}  // namespace

const char* map_error_name(MapError error) {
  switch (error) {
    case MapError::ok: return "ok";
    case MapError::unsupported_type: return "unsupported_map_type";
    case MapError::too_many_maps: return "too_many_maps";
    case MapError::pool_exhausted: return "map_pool_exhausted";
    case MapError::too_large: return "map_too_large";
  }
  return "unknown";
}

MapError create_maps(const Object& object, MapStore& store, uint32_t& first) {
  first = store.map_count;
  if (object.map_count > store.map_capacity - store.map_count) return MapError::too_many_maps;
  for (uint32_t i = 0; i < object.map_count; ++i) {
    const MapDescriptor& d = object.maps[i];
    if (d.type != MapType::array || d.key_size != 4 || d.value_size == 0 || d.max_entries == 0) {
      return MapError::unsupported_type;
    }
    // At most 2^32 bytes per map (a 32-bit key times a stride below 2^32).
    const uint64_t stride = (uint64_t{d.value_size} + 7) / 8 * 8;
    const uint64_t bytes = stride * d.max_entries;
    if (stride > UINT32_MAX || bytes > UINT32_MAX) return MapError::too_large;
    if (bytes > store.pool_size - store.pool_used) return MapError::pool_exhausted;
    ArrayMap& map = store.maps[store.map_count + i];
    map.name = object.map_info[i].name;
    map.descriptor = d;
    map.values = store.pool + store.pool_used;
    map.stride = static_cast<uint32_t>(stride);
    // At most the pool's free bytes (checked above): a size_t on 32-bit targets too.
    const size_t size = static_cast<size_t>(bytes);
    store.pool_used += size;
    zero(map.values, size);
    const uint8_t* initial = object.map_info[i].initial;
    if (initial != nullptr) {
      for (uint32_t b = 0; b < d.value_size; ++b) map.values[b] = initial[b];
    }
  }
  store.map_count += object.map_count;
  return MapError::ok;
}

uint8_t* map_value(const ArrayMap& map, uint32_t key) {
  if (key >= map.descriptor.max_entries) return nullptr;
  return map.values + uint64_t{key} * map.stride;
}

bool link(const Program& program, const ArrayMap* maps, uint32_t map_count, Insn* out) {
  for (uint32_t pc = 0; pc < program.count; ++pc) out[pc] = program.insns[pc];
  for (uint32_t pc = 0; pc < program.count; ++pc) {
    Insn& insn = out[pc];
    if (insn.op != Op::lddw_map_fd && insn.op != Op::lddw_map_value) continue;
    // decode() guarantees the lddw_tail at pc + 1.
    if (insn.imm < 0 || insn.imm >= int64_t{map_count}) return false;
    const ArrayMap& map = maps[insn.imm];
    uint64_t address = reinterpret_cast<uintptr_t>(&map);
    if (insn.op == Op::lddw_map_value) {
      const int64_t offset = out[pc + 1].imm;
      if (offset < 0 || offset > int64_t{map.descriptor.value_size}) return false;
      address = reinterpret_cast<uintptr_t>(map.values) + static_cast<uint64_t>(offset);
    }
    insn.op = Op::lddw_imm64;
    insn.src = 0;
    insn.imm = static_cast<int64_t>(address);
    out[pc + 1].imm = 0;
  }
  return true;
}

}  // namespace keel::bpf
