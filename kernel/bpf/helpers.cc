#include "bpf/helpers.h"

#include "programs/keel_helpers.h"

namespace keel::bpf {
namespace {

// Linux's update flags (uapi bpf.h): BPF_ANY, BPF_NOEXIST, BPF_EXIST.
constexpr uint64_t kFlagAny = 0, kFlagExist = 2;

HelperContext& context_of(HelperCall& call) { return *static_cast<HelperContext*>(call.user); }

uint64_t negative(uint64_t error) { return 0 - error; }

// The verifier proved r1 is a map reference; it was linked to an ArrayMap
// of this table. Checked anyway: a helper must not trust a stray pointer.
const ArrayMap* map_of(const HelperContext& context, uint64_t address) {
  for (uint32_t i = 0; i < context.map_count; ++i) {
    if (reinterpret_cast<uintptr_t>(&context.maps[i]) == address) return &context.maps[i];
  }
  return nullptr;
}

uint32_t read_key(uint64_t address) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(address));
  return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
         uint32_t{bytes[3]} << 24;  // little-endian, as the ISA (RFC 9669 §2.2 on x86/Arm)
}

uint64_t map_lookup_elem(HelperCall& call) {
  const ArrayMap* map = map_of(context_of(call), call.args[0]);
  if (map == nullptr) return 0;
  uint8_t* value = map_value(*map, read_key(call.args[1]));
  if (value == nullptr) return 0;
  // Guarded mode: the program may now use the value.
  if (!call.grant(call, Region{reinterpret_cast<uintptr_t>(value), map->descriptor.value_size,
                               !map->descriptor.read_only})) {
    return 0;
  }
  return reinterpret_cast<uintptr_t>(value);
}

// Array semantics (Linux array_map_update_elem): every key below
// max_entries exists, so BPF_NOEXIST always fails.
uint64_t map_update_elem(HelperCall& call) {
  const ArrayMap* map = map_of(context_of(call), call.args[0]);
  if (map == nullptr) return negative(kEinval);
  const uint64_t flags = call.args[3];
  if (flags > kFlagExist) return negative(kEinval);
  uint8_t* value = map_value(*map, read_key(call.args[1]));
  if (value == nullptr) return negative(kE2big);
  if (flags != kFlagAny && flags != kFlagExist) return negative(kEexist);
  const auto* from = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(call.args[2]));
  for (uint32_t i = 0; i < map->descriptor.value_size; ++i) value[i] = from[i];
  return 0;
}

uint64_t ktime_get_ns(HelperCall& call) {
  const HelperContext& context = context_of(call);
  return context.now_ns != nullptr ? context.now_ns(context.user) : 0;
}

uint64_t trace(HelperCall& call) {
  const HelperContext& context = context_of(call);
  if (context.trace != nullptr) {
    context.trace(context.user, context.program,
                  reinterpret_cast<const char*>(static_cast<uintptr_t>(call.args[0])),
                  static_cast<size_t>(call.args[1]), call.args[2]);
  }
  return 0;
}

constexpr uint32_t kTableSize = KEEL_HELPER_TRACE + 1;

constexpr HelperFn make_fns_entry(uint32_t id) {
  switch (id) {
    case KEEL_HELPER_MAP_LOOKUP_ELEM: return &map_lookup_elem;
    case KEEL_HELPER_MAP_UPDATE_ELEM: return &map_update_elem;
    case KEEL_HELPER_KTIME_GET_NS: return &ktime_get_ns;
    case KEEL_HELPER_TRACE: return &trace;
    default: return nullptr;
  }
}

struct Fns {
  HelperFn fns[kTableSize];
};

constexpr Fns make_fns() {
  Fns f{};
  for (uint32_t id = 0; id < kTableSize; ++id) f.fns[id] = make_fns_entry(id);
  return f;
}

constexpr Fns fns = make_fns();

}  // namespace

HelperTable helper_table(HelperContext& context) {
  HelperTable table;
  table.fns = fns.fns;
  table.count = kTableSize;
  table.user = &context;
  return table;
}

}  // namespace keel::bpf
