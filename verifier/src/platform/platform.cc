#include "keel/platform.h"

namespace keel {

namespace {

bool same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

}  // namespace

const ProgramType* find_program_type(const Platform& platform, const char* name) {
  if (name == nullptr) return nullptr;
  for (uint32_t i = 0; i < platform.type_count; ++i) {
    if (same_name(platform.types[i].name, name)) return &platform.types[i];
  }
  return nullptr;
}

const HelperSlot* find_helper(const ProgramType& type, int32_t id) {
  // Sorted by id: binary search, since verification looks this up per call.
  uint32_t low = 0;
  uint32_t high = type.helper_count;
  while (low < high) {
    const uint32_t middle = low + (high - low) / 2;
    if (type.helpers[middle].id < id) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  if (low < type.helper_count && type.helpers[low].id == id) return &type.helpers[low];
  return nullptr;
}

ProgramType make_conformance_type(uint32_t mem_size, const HelperSlot* helpers, uint32_t count,
                                  CtxField& field_storage) {
  field_storage = CtxField{};
  field_storage.offset = 0;
  field_storage.size = static_cast<uint16_t>(mem_size > 0xffff ? 0xffff : mem_size);
  field_storage.read_sizes = 1 | 2 | 4 | 8;
  field_storage.write_sizes = 1 | 2 | 4 | 8;
  ProgramType type;
  type.name = "conformance";
  type.ctx_size = field_storage.size;
  type.fields = &field_storage;
  type.field_count = 1;
  type.helpers = helpers;
  type.helper_count = count;
  type.r2_is_ctx_size = true;
  type.ctx_is_plain_memory = true;
  return type;
}

}  // namespace keel
