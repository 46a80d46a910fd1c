#include "bpf/program_types.h"

#include <cstddef>

#include "programs/keel_helpers.h"

namespace keel::bpf {
namespace {

// The BPF side reads the contexts through keel_helpers.h's structures; the
// field tables below must describe exactly those layouts.
static_assert(sizeof(keel_tick_ctx) == 24 && offsetof(keel_tick_ctx, tick) == 0 &&
              offsetof(keel_tick_ctx, now_ns) == 8 && offsetof(keel_tick_ctx, period_ns) == 16);
static_assert(sizeof(keel_test_ctx) == 16 && offsetof(keel_test_ctx, now_ns) == 0 &&
              offsetof(keel_test_ctx, seed) == 8);

constexpr uint8_t kSize8 = 8;  // CtxField::read_sizes bit for 8-byte loads

// Read-only 8-byte fields: a load of 1, 2 or 4 bytes is refused so that no
// program depends on the byte order of a partial read.
constexpr CtxField field8(uint16_t offset) {
  CtxField f;
  f.offset = offset;
  f.size = 8;
  f.read_sizes = kSize8;
  return f;
}

constexpr CtxField tick_fields[] = {field8(0), field8(8), field8(16)};
constexpr CtxField test_fields[] = {field8(0), field8(8)};

constexpr HelperProto proto(const char* name, RetKind ret, ArgKind a1 = ArgKind::none,
                            ArgKind a2 = ArgKind::none, ArgKind a3 = ArgKind::none,
                            ArgKind a4 = ArgKind::none) {
  HelperProto p;
  p.name = name;
  p.ret = ret;
  p.args[0] = a1;
  p.args[1] = a2;
  p.args[2] = a3;
  p.args[3] = a4;
  return p;
}

// The Linux prototypes of the same helpers (bpf_map_lookup_elem_proto ...),
// restated in keel's kinds.
constexpr HelperProto map_lookup_elem =
    proto("map_lookup_elem", RetKind::map_value_or_null, ArgKind::map_ptr, ArgKind::map_key);
constexpr HelperProto map_update_elem =
    proto("map_update_elem", RetKind::integer, ArgKind::map_ptr, ArgKind::map_key,
          ArgKind::map_value, ArgKind::anything);
constexpr HelperProto ktime_get_ns = proto("ktime_get_ns", RetKind::integer);
// keel_trace(tag, len, value): the tag is only read (a string literal in
// .rodata is fine), len > 0 bytes of it.
constexpr HelperProto make_trace() {
  HelperProto p = proto("keel_trace", RetKind::integer, ArgKind::mem, ArgKind::size,
                        ArgKind::anything);
  p.read_only_mem[0] = true;
  return p;
}
constexpr HelperProto trace = make_trace();

constexpr HelperSlot slot(int32_t id, const HelperProto* p) {
  HelperSlot s;
  s.id = id;
  s.proto = p;
  return s;
}

// Sorted by id (find_helper() searches them). Both types get every helper.
constexpr HelperSlot helpers[] = {
    slot(KEEL_HELPER_MAP_LOOKUP_ELEM, &map_lookup_elem),
    slot(KEEL_HELPER_MAP_UPDATE_ELEM, &map_update_elem),
    slot(KEEL_HELPER_KTIME_GET_NS, &ktime_get_ns),
    slot(KEEL_HELPER_TRACE, &trace),
};

constexpr ProgramType make_type(const char* name, uint32_t ctx_size, const CtxField* fields,
                                uint32_t field_count, int64_t return_min, int64_t return_max) {
  ProgramType t;
  t.name = name;
  t.ctx_size = ctx_size;
  t.fields = fields;
  t.field_count = field_count;
  t.helpers = helpers;
  t.helper_count = sizeof helpers / sizeof helpers[0];
  t.return_min = return_min;
  t.return_max = return_max;
  return t;
}

constexpr ProgramType types[] = {
    // A tick program's result is not used: it must return 0, so that a
    // later meaning for other values breaks no program.
    make_type("keel_tick", sizeof(keel_tick_ctx), tick_fields, 3, 0, 0),
    // A run-once program's r0 is reported (and checked against the
    // manifest's expectation): any value. (A 32-bit range would reject
    // loops that accumulate into r0: the analysis bounds the trip count,
    // not the accumulator, so a widened sum fails the range check.)
    make_type("keel_test", sizeof(keel_test_ctx), test_fields, 2, INT64_MIN, INT64_MAX),
};

constexpr Platform kKernelPlatform{types, 2};

bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

const char* section_type(const void*, const char* section) {
  if (same(section, KEEL_SEC_TICK)) return "keel_tick";
  if (same(section, KEEL_SEC_TEST)) return "keel_test";
  return nullptr;
}

bool helper_exists(const void* context, int32_t id) {
  return find_helper(*static_cast<const ProgramType*>(context), id) != nullptr;
}

}  // namespace

const ProgramType tick_type = types[0];
const ProgramType test_type = types[1];

const Platform& platform() { return kKernelPlatform; }

Hook hook_of(const ProgramType& type) { return same(type.name, "keel_tick") ? Hook::tick : Hook::once; }

const char* hook_name(Hook hook) { return hook == Hook::tick ? "tick" : "once"; }

LoadOptions load_options() {
  LoadOptions options;
  options.section_type = &section_type;
  options.text_programs = TextPrograms::never;
  options.partial = true;
  return options;
}

DecodeOptions decode_options(const ProgramType& type) {
  DecodeOptions options;
  options.allow_legacy_packet_loads = false;
  options.helper_exists = &helper_exists;
  options.helper_context = &type;
  return options;
}

VerifyOptions verify_options(const MapDescriptor* maps, uint32_t map_count) {
  VerifyOptions options;
  options.privileged = false;
  options.maps = maps;
  options.map_count = map_count;
  return options;
}

}  // namespace keel::bpf
