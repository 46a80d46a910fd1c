// The Linux map types keel models, as one table that the object loader,
// the test-case readers and the Linux loader all consult. Ids are those of
// enum bpf_map_type (uapi linux/bpf.h); `holds_fds` marks the maps whose
// values are file descriptors (or ids), whose key and value sizes Linux
// fixes at 4 bytes and libbpf fills in when a BTF definition leaves them out.
#include "keel/platform_linux.h"
#include "support/search.h"
#include "support/strings.h"

namespace keel {
namespace {

// Sorted by id.
constexpr LinuxMapType kMapTypes[] = {
    {1, "BPF_MAP_TYPE_HASH", MapType::hash, false},
    {2, "BPF_MAP_TYPE_ARRAY", MapType::array, false},
    {3, "BPF_MAP_TYPE_PROG_ARRAY", MapType::prog_array, true},
    {4, "BPF_MAP_TYPE_PERF_EVENT_ARRAY", MapType::perf_event_array, true},
    {5, "BPF_MAP_TYPE_PERCPU_HASH", MapType::percpu_hash, false},
    {6, "BPF_MAP_TYPE_PERCPU_ARRAY", MapType::percpu_array, false},
    {7, "BPF_MAP_TYPE_STACK_TRACE", MapType::stack_trace, false},
    {8, "BPF_MAP_TYPE_CGROUP_ARRAY", MapType::cgroup_array, true},
    {9, "BPF_MAP_TYPE_LRU_HASH", MapType::lru_hash, false},
    {10, "BPF_MAP_TYPE_LRU_PERCPU_HASH", MapType::lru_percpu_hash, false},
    {11, "BPF_MAP_TYPE_LPM_TRIE", MapType::lpm_trie, false},
    {12, "BPF_MAP_TYPE_ARRAY_OF_MAPS", MapType::array_of_maps, true},
    {13, "BPF_MAP_TYPE_HASH_OF_MAPS", MapType::hash_of_maps, true},
    {14, "BPF_MAP_TYPE_DEVMAP", MapType::devmap, true},
    {15, "BPF_MAP_TYPE_SOCKMAP", MapType::sockmap, false},
    {16, "BPF_MAP_TYPE_CPUMAP", MapType::cpumap, true},
    {17, "BPF_MAP_TYPE_XSKMAP", MapType::xskmap, true},
    {18, "BPF_MAP_TYPE_SOCKHASH", MapType::sockhash, false},
    {25, "BPF_MAP_TYPE_DEVMAP_HASH", MapType::devmap_hash, true},
    {27, "BPF_MAP_TYPE_RINGBUF", MapType::ringbuf, false},
};
constexpr uint32_t kMapTypeCount = sizeof(kMapTypes) / sizeof(kMapTypes[0]);

constexpr bool sorted_by_id() {
  for (uint32_t i = 1; i < kMapTypeCount; ++i) {
    if (kMapTypes[i - 1].id >= kMapTypes[i].id) return false;
  }
  return true;
}
static_assert(sorted_by_id(), "kMapTypes must be sorted by id, each id once");

}  // namespace

const LinuxMapType* find_linux_map_type(uint32_t id) {
  const uint32_t i = lower_bound_index(kMapTypeCount, id, [](uint32_t k) { return kMapTypes[k].id; });
  return i < kMapTypeCount && kMapTypes[i].id == id ? &kMapTypes[i] : nullptr;
}

const LinuxMapType* find_linux_map_type(const char* name) {
  if (name == nullptr) return nullptr;
  for (const LinuxMapType& row : kMapTypes) {
    if (same(row.name, name)) return &row;
  }
  return nullptr;
}

MapType map_type_for_linux(uint32_t id) {
  const LinuxMapType* row = find_linux_map_type(id);
  return row != nullptr ? row->type : MapType::other;
}

uint32_t linux_map_type_id(MapType type) {
  for (const LinuxMapType& row : kMapTypes) {
    if (row.type == type) return row.id;
  }
  return 0;
}

}  // namespace keel
