// The kernel's maps: every map an embedded object declares (BTF `.maps`,
// and its global data sections) becomes an array map whose values live in
// a caller-supplied static pool; no other map type is offered. link()
// then rewrites the program's map references (lddw map / map value) into
// the addresses the interpreter and the helpers use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/elf.h"
#include "keel/isa.h"
#include "keel/platform.h"

namespace keel::bpf {

/// An array map: `max_entries` values of `value_size` bytes, each at an
/// 8-byte aligned stride (as Linux's array map rounds value_size up to 8).
struct ArrayMap {
  const char* name = nullptr;  ///< as the object names it (points into the object)
  MapDescriptor descriptor;    ///< what the verifier was told
  uint8_t* values = nullptr;
  uint32_t stride = 0;
};

/// Storage for every map of every object: the ArrayMap records and the
/// value bytes, both fixed at build time.
struct MapStore {
  ArrayMap* maps;
  uint32_t map_capacity;
  uint32_t map_count;
  uint8_t* pool;
  size_t pool_size;
  size_t pool_used;
};

enum class MapError : uint8_t { ok, unsupported_type, too_many_maps, pool_exhausted, too_large };
const char* map_error_name(MapError error);  ///< "pool_exhausted"

/// Creates the maps of `object` in `store`, in the object's map order
/// (*first = index of its first map in store.maps), values zeroed, or
/// copied from the object for initialized global data.
[[nodiscard]] MapError create_maps(const Object& object, MapStore& store, uint32_t& first);

/// Value `key` of `map`, or nullptr when key >= max_entries.
uint8_t* map_value(const ArrayMap& map, uint32_t key);

/// Copies `program` into `out` (program.count Insns), resolving every lddw
/// of a map (imm = index among the object's maps, here `maps`) to the
/// ArrayMap's address, and of a map value to the value's address + the
/// lddw's offset; false when one names no map or an offset past the value.
[[nodiscard]] bool link(const Program& program, const ArrayMap* maps, uint32_t map_count, Insn* out);

}  // namespace keel::bpf
