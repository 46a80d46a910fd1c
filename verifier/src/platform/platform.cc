#include "keel/platform.h"

#include "keel/isa.h"

namespace keel {

namespace {

bool same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// The compiler builtins (keel/isa.h, ADR 0011), offered by every type. The
// analysis checks their arguments itself (step_builtin in analysis/calls.cc)
// rather than from `args`: the size is the third argument, not the one after
// the pointer, and a copy reads its source before writing its destination.
constexpr HelperProto builtin_proto(const char* name, RetKind ret) {
  HelperProto p;
  p.name = name;
  p.ret = ret;
  return p;
}
constexpr HelperProto kBuiltinProtos[] = {
    builtin_proto("memset", RetKind::none), builtin_proto("memcpy", RetKind::none),
    builtin_proto("memmove", RetKind::none), builtin_proto("memcmp", RetKind::integer)};
constexpr HelperSlot builtin_slot(int32_t id) {
  HelperSlot slot;
  slot.id = id;
  slot.proto = &kBuiltinProtos[id - kBuiltinMemset];
  return slot;
}
constexpr HelperSlot kBuiltinSlots[] = {builtin_slot(kBuiltinMemset), builtin_slot(kBuiltinMemcpy),
                                        builtin_slot(kBuiltinMemmove), builtin_slot(kBuiltinMemcmp)};

}  // namespace

const ProgramType* find_program_type(const Platform& platform, const char* name) {
  if (name == nullptr) return nullptr;
  for (uint32_t i = 0; i < platform.type_count; ++i) {
    if (same_name(platform.types[i].name, name)) return &platform.types[i];
  }
  return nullptr;
}

const HelperSlot* find_helper(const ProgramType& type, int32_t id) {
  if (is_builtin(static_cast<uint64_t>(id))) return &kBuiltinSlots[id - kBuiltinMemset];
  // Sorted by id: a binary search, since verification looks this up per
  // call (and decoding once more). Without a branch on the comparison: the
  // halving's direction is data-dependent, so a branch on it mispredicts
  // about every other step on a cold verify, while the select costs no
  // more than the compare.
  const HelperSlot* base = type.helpers;
  uint32_t count = type.helper_count;
  if (count == 0) return nullptr;
  while (count > 1) {
    const uint32_t half = count / 2;
    base = base[half].id <= id ? base + half : base;  // keeps the last slot at or below id in [base, base + count)
    count -= half;
  }
  return base->id == id ? base : nullptr;
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
