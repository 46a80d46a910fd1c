// CO-RE relocations against the kernel's BTF. The rules are libbpf's, as
// Documentation/bpf/llvm_reloc.rst and libbpf's documentation describe them
// ("BPF CO-RE" in libbpf's docs; relo_core.c is the reference behaviour):
//
//  - the candidates for a local type are the kernel's types of a compatible
//    kind whose names are equal once a `___flavor` suffix is dropped from
//    both ("task_struct___old" matches "task_struct");
//  - a field access string ("0:2:1") is walked in the local type, each named
//    member is then looked up by name in the candidate (through anonymous
//    structs and unions), array indices are checked against the bounds, and
//    the two fields must be of compatible kinds;
//  - every matching candidate must give the same answer (else libbpf fails
//    the load as ambiguous); none matching gives "does not exist" (0) for
//    the existence and type kinds and poisons the instruction otherwise.
//
// Bounds on hostile input: access strings hold at most 64 indices (libbpf's
// BPF_CORE_SPEC_MAX_LEN), type chains are followed at most 32 deep, every
// member visited or function parameter compared costs a step from a budget
// per relocation, and the kernel's types are found by binary search over a
// name index built once (O(n log n)). No recursion deeper than 64 frames.
#include "elf/core_reloc.h"

#include "support/bytes.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/text_writer.h"

namespace keel::elf {

namespace {

constexpr uint32_t kSpecMax = 64;            // libbpf BPF_CORE_SPEC_MAX_LEN
constexpr uint32_t kMaxDepth = 32;           // modifier, array and pointer chains
constexpr uint32_t kCompatLevels = 32;       // nested function prototypes
constexpr uint32_t kStepBudget = 1u << 20;   // member visits per relocation

constexpr uint8_t kClassLd = 0x00, kClassLdx = 0x01, kClassSt = 0x02, kClassStx = 0x03,
                  kClassAlu = 0x04, kClassAlu64 = 0x07;
constexpr uint8_t kOpLddw = 0x18, kOpCall = 0x85;
constexpr uint32_t kIntSigned = 1;  // btf.rst §2.2.1 BTF_INT_SIGNED

uint32_t u32(const uint8_t* p, uint64_t offset) {
  return bytes::load<uint32_t>(p + static_cast<size_t>(offset));
}

size_t length(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

// The first `n` bytes of a and b are equal.
bool same_prefix(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Byte order of the first min(n, m) bytes, then the length.
int compare_names(const char* a, size_t n, const char* b, size_t m) {
  const size_t common = n < m ? n : m;
  for (size_t i = 0; i < common; ++i) {
    if (a[i] != b[i])
      return static_cast<int>(static_cast<unsigned char>(a[i])) - static_cast<int>(static_cast<unsigned char>(b[i]));
  }
  return n < m ? -1 : (n > m ? 1 : 0);
}

const char* name_or_empty(const Btf& btf, uint32_t offset) {
  const char* s = btf_string(btf, offset);
  return s != nullptr ? s : "";
}

bool is_composite(uint32_t kind) { return kind == kBtfStruct || kind == kBtfUnion; }
bool is_any_enum(uint32_t kind) { return kind == kBtfEnum || kind == kBtfEnum64; }
// libbpf btf_kind_core_compat: the same kind, or both enums of any width.
bool kinds_compatible(uint32_t a, uint32_t b) { return a == b || (is_any_enum(a) && is_any_enum(b)); }

// A type by id where 0 is void (kind 0, as libbpf's btf_type_by_id(0)).
bool type_or_void(const Btf& btf, uint32_t id, BtfType& out) {
  if (id == 0) {
    out = BtfType{};
    return true;
  }
  return btf_type(btf, id, out);
}

// libbpf skip_mods_and_typedefs, with void allowed: false on a bad id or
// too long a chain.
bool skip_modifiers(const Btf& btf, uint32_t& id, BtfType& out) {
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    if (!type_or_void(btf, id, out)) return false;
    if (out.kind != kBtfTypedef && out.kind != kBtfVolatile && out.kind != kBtfConst &&
        out.kind != kBtfRestrict && out.kind != kBtfTypeTag)
      return true;
    id = out.size_or_type;
  }
  return false;
}

// btf.rst §2.2.4: with kind_flag the member offset holds the bitfield size
// in its top 8 bits and the bit offset in the low 24.
uint32_t member_bit_offset(const BtfType& t, uint32_t i) {
  const uint32_t offset = u32(t.extra, uint64_t{i} * 12 + 8);
  return t.kind_flag ? (offset & 0xffffff) : offset;
}
uint32_t member_bitfield_size(const BtfType& t, uint32_t i) {
  return t.kind_flag ? u32(t.extra, uint64_t{i} * 12 + 8) >> 24 : 0;
}
uint32_t member_type(const BtfType& t, uint32_t i) { return u32(t.extra, uint64_t{i} * 12 + 4); }
uint32_t member_name(const BtfType& t, uint32_t i) { return u32(t.extra, uint64_t{i} * 12); }
// btf.rst §2.2.1: the INT's encoding (bits 24..27) and bit offset (16..23).
uint32_t int_encoding(const BtfType& t) { return (u32(t.extra, 0) >> 24) & 0x0f; }
uint32_t int_offset(const BtfType& t) { return (u32(t.extra, 0) >> 16) & 0xff; }

uint32_t enumerator_name(const BtfType& t, uint32_t i) {
  return u32(t.extra, uint64_t{i} * (t.kind == kBtfEnum ? 8 : 12));
}
// Enum values are read as libbpf reads them: a 32-bit value sign-extends
// (it is an __s32), a 64-bit one is lo32 | hi32 << 32.
uint64_t enumerator_value(const BtfType& t, uint32_t i) {
  if (t.kind == kBtfEnum)
    return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(u32(t.extra, uint64_t{i} * 8 + 4))));
  return u32(t.extra, uint64_t{i} * 12 + 4) | (uint64_t{u32(t.extra, uint64_t{i} * 12 + 8)} << 32);
}

bool is_field_kind(uint32_t kind) { return kind <= kCoreFieldRshiftU64; }
bool is_type_kind(uint32_t kind) {
  return kind == kCoreTypeIdLocal || kind == kCoreTypeIdTarget || kind == kCoreTypeExists ||
         kind == kCoreTypeSize || kind == kCoreTypeMatches;
}
bool is_enumval_kind(uint32_t kind) { return kind == kCoreEnumvalExists || kind == kCoreEnumvalValue; }

// One step of an access string that names something: a member (name set)
// or an array element (name nullptr). type_id is the containing type.
struct Accessor {
  uint32_t type_id = 0;
  uint32_t index = 0;
  const char* name = nullptr;
};

// The walk of an access string through one BTF (libbpf's bpf_core_spec):
// `accessors` keeps the named members and array indices, `raw` every index.
struct Spec {
  const Btf* btf = nullptr;
  uint32_t root = 0;
  Accessor accessors[kSpecMax];
  uint32_t length = 0;
  uint32_t raw[kSpecMax];
  uint32_t raw_length = 0;
  uint64_t bit_offset = 0;
};

// Tri-state of matching (libbpf returns 1, 0 or a negative error).
enum class Match : uint8_t { yes, no, error };

struct Budget {
  uint32_t left = kStepBudget;
  bool take() {
    if (left == 0) return false;
    --left;
    return true;
  }
};

bool add_bits(Spec& spec, uint64_t index, uint64_t size) {
  uint64_t bits = 0;
  return !mul_overflows(index, size, bits) && !mul_overflows(bits, 8, bits) &&
         !add_overflows(spec.bit_offset, bits, spec.bit_offset);
}

// A zero-length array that is the last member of its struct (libbpf's
// is_flex_arr): its index is not checked against a bound.
bool is_flexible(const Btf& btf, const Accessor& parent, uint32_t elements) {
  if (parent.name == nullptr || elements > 0) return false;
  BtfType t;
  return btf_type(btf, parent.type_id, t) && parent.index + 1 == t.vlen;
}

// Parses "0:1:2" into spec.raw: decimal indices separated by single colons.
bool parse_access(const char* text, Spec& spec) {
  if (*text == '\0' || *text == ':') return false;
  while (*text != '\0') {
    if (*text == ':') ++text;
    if (*text < '0' || *text > '9') return false;
    uint64_t value = 0;
    while (*text >= '0' && *text <= '9') {
      value = value * 10 + static_cast<uint64_t>(*text - '0');
      if (value > 0x7fffffff) return false;  // libbpf reads an int
      ++text;
    }
    if (spec.raw_length == kSpecMax) return false;
    spec.raw[spec.raw_length++] = static_cast<uint32_t>(value);
  }
  return spec.raw_length != 0;
}

// libbpf bpf_core_parse_spec over the object's own BTF.
bool parse_local(const Btf& btf, uint32_t type_id, const char* access, uint32_t kind, Spec& spec) {
  spec.btf = &btf;
  spec.root = type_id;
  if (is_type_kind(kind)) return access[0] == '0' && access[1] == '\0';
  if (!parse_access(access, spec)) return false;
  uint32_t id = type_id;
  BtfType t;
  if (!skip_modifiers(btf, id, t) || id == 0) return false;
  spec.accessors[0] = {id, spec.raw[0], nullptr};
  spec.length = 1;
  if (is_enumval_kind(kind)) {
    if (!is_any_enum(t.kind) || spec.raw_length > 1 || spec.raw[0] >= t.vlen) return false;
    spec.accessors[0].name = btf_string(btf, enumerator_name(t, spec.raw[0]));
    return spec.accessors[0].name != nullptr;
  }
  if (!is_field_kind(kind)) return false;
  uint64_t size = 0;
  if (!btf_type_size(btf, id, size) || !add_bits(spec, spec.raw[0], size)) return false;
  for (uint32_t i = 1; i < spec.raw_length; ++i) {
    if (!skip_modifiers(btf, id, t)) return false;
    const uint32_t index = spec.raw[i];
    if (is_composite(t.kind)) {
      if (index >= t.vlen || add_overflows(spec.bit_offset, member_bit_offset(t, index), spec.bit_offset))
        return false;
      if (member_name(t, index) != 0) {
        const char* name = btf_string(btf, member_name(t, index));
        if (name == nullptr || *name == '\0') return false;
        spec.accessors[spec.length++] = {id, index, name};
      }
      id = member_type(t, index);
    } else if (t.kind == kBtfArray) {
      const uint32_t elements = u32(t.extra, 8);
      id = u32(t.extra, 0);
      BtfType element;
      if (!skip_modifiers(btf, id, element)) return false;
      if (!is_flexible(btf, spec.accessors[spec.length - 1], elements) && index >= elements) return false;
      spec.accessors[spec.length++] = {id, index, nullptr};
      if (!btf_type_size(btf, id, size) || !add_bits(spec, index, size)) return false;
    } else {
      return false;
    }
  }
  return true;
}

// libbpf bpf_core_fields_are_compat.
Match fields_compatible(const Btf& local, uint32_t local_id, const Btf& target, uint32_t target_id) {
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    BtfType l, t;
    if (!skip_modifiers(local, local_id, l) || !skip_modifiers(target, target_id, t)) return Match::error;
    if (is_composite(l.kind) && is_composite(t.kind)) return Match::yes;
    if (!kinds_compatible(l.kind, t.kind)) return Match::no;
    switch (l.kind) {
      case kBtfPtr: case kBtfFloat:
        return Match::yes;
      case kBtfFwd: case kBtfEnum: case kBtfEnum64: {
        const char* ln = name_or_empty(local, l.name_off);
        const char* tn = name_or_empty(target, t.name_off);
        const size_t ll = core_essential_length(ln), tl = core_essential_length(tn);
        return ll == 0 || tl == 0 || (ll == tl && same_prefix(ln, tn, ll)) ? Match::yes : Match::no;
      }
      case kBtfInt:
        return int_offset(l) == 0 && int_offset(t) == 0 ? Match::yes : Match::no;
      case kBtfArray:
        local_id = u32(l.extra, 0);
        target_id = u32(t.extra, 0);
        break;
      default:
        return Match::no;
    }
  }
  return Match::error;
}

// libbpf __bpf_core_types_are_compat.
Match types_compatible(const Btf& local, uint32_t local_id, const Btf& target, uint32_t target_id,
                       uint32_t level, Budget& budget) {
  BtfType l, t;
  if (!type_or_void(local, local_id, l) || !type_or_void(target, target_id, t)) return Match::error;
  if (!kinds_compatible(l.kind, t.kind)) return Match::no;
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    if (!budget.take()) return Match::error;
    if (!skip_modifiers(local, local_id, l) || !skip_modifiers(target, target_id, t)) return Match::error;
    if (!kinds_compatible(l.kind, t.kind)) return Match::no;
    switch (l.kind) {
      case 0: case kBtfStruct: case kBtfUnion: case kBtfEnum: case kBtfFwd: case kBtfEnum64:
        return Match::yes;
      case kBtfInt:
        return int_offset(l) == 0 && int_offset(t) == 0 ? Match::yes : Match::no;
      case kBtfPtr:
        local_id = l.size_or_type;
        target_id = t.size_or_type;
        break;
      case kBtfArray:
        local_id = u32(l.extra, 0);
        target_id = u32(t.extra, 0);
        break;
      case kBtfFuncProto: {
        if (l.vlen != t.vlen) return Match::no;
        for (uint32_t i = 0; i < l.vlen; ++i) {
          if (level == 0) return Match::error;
          uint32_t lp = u32(l.extra, uint64_t{i} * 8 + 4), tp = u32(t.extra, uint64_t{i} * 8 + 4);
          BtfType ignored;
          if (!skip_modifiers(local, lp, ignored) || !skip_modifiers(target, tp, ignored)) return Match::error;
          const Match m = types_compatible(local, lp, target, tp, level - 1, budget);
          if (m != Match::yes) return m;
        }
        local_id = l.size_or_type;  // then the return types
        target_id = t.size_or_type;
        break;
      }
      default:
        return Match::no;
    }
  }
  return Match::error;
}

// libbpf bpf_core_names_match: an anonymous target matches only an
// anonymous local; otherwise the flavor-stripped names are equal.
bool names_match(const Btf& local, uint32_t local_off, const Btf& target, uint32_t target_off) {
  const char* ln = name_or_empty(local, local_off);
  const char* tn = name_or_empty(target, target_off);
  if (*tn == '\0') return *ln == '\0';
  const size_t ll = core_essential_length(ln), tl = core_essential_length(tn);
  return ll == tl && same_prefix(ln, tn, ll);
}

// libbpf __bpf_core_types_match (the "type matches" kind, stricter than
// compatibility): same kinds (a struct or union behind a pointer may match
// a forward declaration), integers of the same size and signedness, arrays
// of the same length, every local member or enumerator present by name in
// the target, function prototypes argument by argument.
Match types_match(const Btf& local, uint32_t local_id, const Btf& target, uint32_t target_id, bool behind_ptr,
                  uint32_t level, Budget& budget) {
  if (level == 0) return Match::error;
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    if (!budget.take()) return Match::error;
    BtfType l, t;
    if (!skip_modifiers(local, local_id, l) || !skip_modifiers(target, target_id, t)) return Match::error;
    if (!names_match(local, l.name_off, target, t.name_off)) return Match::no;
    switch (l.kind) {
      case 0:
        return t.kind == 0 ? Match::yes : Match::no;
      case kBtfFwd:
        if (behind_ptr && t.kind != kBtfFwd)  // kind_flag: a union's forward declaration
          return (t.kind == kBtfStruct && !l.kind_flag) || (t.kind == kBtfUnion && l.kind_flag) ? Match::yes
                                                                                              : Match::no;
        return t.kind == kBtfFwd && l.kind_flag == t.kind_flag ? Match::yes : Match::no;
      case kBtfEnum: case kBtfEnum64: {
        if (!is_any_enum(t.kind) || l.size_or_type != t.size_or_type || l.vlen > t.vlen) return Match::no;
        for (uint32_t i = 0; i < l.vlen; ++i) {
          bool found = false;
          for (uint32_t j = 0; j < t.vlen && !found; ++j) {
            if (!budget.take()) return Match::error;
            found = names_match(local, enumerator_name(l, i), target, enumerator_name(t, j));
          }
          if (!found) return Match::no;
        }
        return Match::yes;
      }
      case kBtfStruct: case kBtfUnion: {
        if (behind_ptr) {
          if (l.kind == t.kind) return Match::yes;
          return t.kind == kBtfFwd && (l.kind == kBtfUnion) == t.kind_flag ? Match::yes : Match::no;
        }
        if (l.kind != t.kind || l.vlen > t.vlen) return Match::no;
        for (uint32_t i = 0; i < l.vlen; ++i) {
          bool found = false;
          for (uint32_t j = 0; j < t.vlen && !found; ++j) {
            if (!budget.take()) return Match::error;
            if (!names_match(local, member_name(l, i), target, member_name(t, j))) continue;
            const Match m = types_match(local, member_type(l, i), target, member_type(t, j), behind_ptr, level - 1, budget);
            if (m == Match::error) return m;
            found = m == Match::yes;
          }
          if (!found) return Match::no;
        }
        return Match::yes;
      }
      case kBtfInt:
        return t.kind == kBtfInt && l.size_or_type == t.size_or_type &&
                       (int_encoding(l) & kIntSigned) == (int_encoding(t) & kIntSigned)
                   ? Match::yes
                   : Match::no;
      case kBtfPtr:
        if (t.kind != kBtfPtr) return Match::no;
        behind_ptr = true;
        local_id = l.size_or_type;
        target_id = t.size_or_type;
        break;
      case kBtfArray:
        if (t.kind != kBtfArray || u32(l.extra, 8) != u32(t.extra, 8)) return Match::no;
        local_id = u32(l.extra, 0);
        target_id = u32(t.extra, 0);
        break;
      case kBtfFuncProto:
        if (t.kind != kBtfFuncProto || l.vlen != t.vlen) return Match::no;
        for (uint32_t i = 0; i < l.vlen; ++i) {
          const Match m = types_match(local, u32(l.extra, uint64_t{i} * 8 + 4), target,
                                      u32(t.extra, uint64_t{i} * 8 + 4), behind_ptr, level - 1, budget);
          if (m != Match::yes) return m;
        }
        local_id = l.size_or_type;
        target_id = t.size_or_type;
        break;
      default:
        return Match::no;
    }
  }
  return Match::error;
}

// libbpf bpf_core_match_member: finds the local member `accessor` names in
// target type `target_id`, through anonymous members, extending `spec`.
Match match_member(const Spec& local, const Accessor& accessor, const Btf& target, uint32_t target_id,
                   Spec& spec, uint32_t& next_id, Budget& budget) {
  BtfType t;
  if (!skip_modifiers(target, target_id, t)) return Match::error;
  if (!is_composite(t.kind)) return Match::no;
  BtfType local_type;
  if (!btf_type(*local.btf, accessor.type_id, local_type)) return Match::error;
  const uint32_t local_member_type = member_type(local_type, accessor.index);
  for (uint32_t i = 0; i < t.vlen; ++i) {
    if (!budget.take() || spec.raw_length == kSpecMax) return Match::error;
    const uint32_t bits = member_bit_offset(t, i);
    spec.bit_offset += bits;  // an offset in a struct: below 2^32 each, 64 deep at most
    spec.raw[spec.raw_length++] = i;
    const char* name = name_or_empty(target, member_name(t, i));
    if (*name == '\0') {
      const Match found = match_member(local, accessor, target, member_type(t, i), spec, next_id, budget);
      if (found != Match::no) return found;
    } else if (same(accessor.name, name)) {
      if (spec.length == kSpecMax) return Match::error;
      spec.accessors[spec.length++] = {target_id, i, name};
      next_id = member_type(t, i);
      const Match found = fields_compatible(*local.btf, local_member_type, target, member_type(t, i));
      if (found == Match::no) --spec.length;
      return found;
    }
    spec.bit_offset -= bits;
    --spec.raw_length;
  }
  return Match::no;
}

// libbpf bpf_core_spec_match: the local spec walked in candidate `id`.
Match match_candidate(const Spec& local, uint32_t kind, const Btf& target, uint32_t id, Spec& spec,
                      Budget& budget) {
  spec = Spec{};
  spec.btf = &target;
  spec.root = id;
  if (kind == kCoreTypeMatches) return types_match(*local.btf, local.root, target, id, false, kCompatLevels, budget);
  if (is_type_kind(kind)) return types_compatible(*local.btf, local.root, target, id, kCompatLevels, budget);
  BtfType t;
  if (is_enumval_kind(kind)) {
    if (!skip_modifiers(target, id, t) || !is_any_enum(t.kind)) return Match::no;
    const char* wanted = local.accessors[0].name;
    const size_t wanted_length = core_essential_length(wanted);
    for (uint32_t i = 0; i < t.vlen; ++i) {
      if (!budget.take()) return Match::error;
      const char* name = name_or_empty(target, enumerator_name(t, i));
      if (core_essential_length(name) != wanted_length || !same_prefix(wanted, name, wanted_length)) continue;
      spec.accessors[0] = {id, i, name};
      spec.length = 1;
      spec.raw[0] = i;
      spec.raw_length = 1;
      return Match::yes;
    }
    return Match::no;
  }
  for (uint32_t i = 0; i < local.length; ++i) {
    if (!skip_modifiers(target, id, t)) return Match::error;
    const Accessor& accessor = local.accessors[i];
    if (accessor.name != nullptr) {
      const Match found = match_member(local, accessor, target, id, spec, id, budget);
      if (found != Match::yes) return found;
      continue;
    }
    if (i > 0) {
      if (t.kind != kBtfArray) return Match::no;
      const uint32_t elements = u32(t.extra, 8);
      if (!is_flexible(target, spec.accessors[spec.length - 1], elements) && accessor.index >= elements)
        return Match::no;
      id = u32(t.extra, 0);
      if (!skip_modifiers(target, id, t)) return Match::error;
    }
    if (spec.raw_length == kSpecMax) return Match::error;
    spec.accessors[spec.length++] = {id, accessor.index, nullptr};
    spec.raw[spec.raw_length++] = accessor.index;
    uint64_t size = 0;
    if (!btf_type_size(target, id, size) || !add_bits(spec, accessor.index, size)) return Match::error;
  }
  return Match::yes;
}

// What one side of a relocation computes (libbpf's bpf_core_relo_res).
struct Value {
  uint64_t value = 0;
  uint32_t field_size = 0;  // loads/stores: the size the instruction should access
  uint32_t type_id = 0;     // ... and the field's type
  bool validate = true;     // the instruction must hold the local value
};

enum class Calc : uint8_t { ok, poison, bad };

// libbpf bpf_core_calc_field_relo; `spec` nullptr: no candidate matched.
Calc field_value(uint32_t kind, const Spec* spec, Value& out) {
  out = Value{};
  if (kind == kCoreFieldExists) {
    out.value = spec != nullptr ? 1 : 0;
    return Calc::ok;
  }
  if (spec == nullptr) return Calc::poison;
  const Btf& btf = *spec->btf;
  const Accessor& last = spec->accessors[spec->length - 1];
  uint64_t size = 0;
  if (last.name == nullptr) {  // an array element
    if (kind != kCoreFieldByteOffset && kind != kCoreFieldByteSize) return Calc::bad;
    if (!btf_type_size(btf, last.type_id, size) || size > UINT32_MAX) return Calc::bad;
    if (kind == kCoreFieldByteOffset) {
      out.value = spec->bit_offset / 8;
      out.field_size = static_cast<uint32_t>(size);
      out.type_id = last.type_id;
    } else {
      out.value = size;
    }
    return Calc::ok;
  }
  BtfType t, field;
  if (!btf_type(btf, last.type_id, t)) return Calc::bad;
  uint32_t field_id = member_type(t, last.index);
  if (!skip_modifiers(btf, field_id, field)) return Calc::bad;
  const uint64_t bit_off = spec->bit_offset;
  uint64_t bit_size = member_bitfield_size(t, last.index);
  const bool bitfield = bit_size > 0;
  uint64_t byte_size = 0, byte_off = 0;
  if (bitfield) {
    // The smallest power-of-two load, aligned to itself, that holds the bits.
    byte_size = field.size_or_type;
    if (byte_size == 0 || byte_size > 8) return Calc::bad;
    byte_off = bit_off / 8 / byte_size * byte_size;
    while (bit_off + bit_size - byte_off * 8 > byte_size * 8) {
      if (byte_size >= 8) return Calc::bad;  // libbpf: cannot be read with a 64-bit load
      byte_size *= 2;
      byte_off = bit_off / 8 / byte_size * byte_size;
    }
  } else {
    if (!btf_type_size(btf, field_id, byte_size) || byte_size > UINT32_MAX) return Calc::bad;
    byte_off = bit_off / 8;
    bit_size = byte_size * 8;
  }
  out.validate = !bitfield;  // the compiler's guess for bitfields may differ
  switch (kind) {
    case kCoreFieldByteOffset:
      out.value = byte_off;
      if (!bitfield) {
        out.field_size = static_cast<uint32_t>(byte_size);
        out.type_id = field_id;
      }
      break;
    case kCoreFieldByteSize:
      out.value = byte_size;
      break;
    case kCoreFieldSigned:
      out.value = (is_any_enum(field.kind) && field.kind_flag) ||
                  (field.kind == kBtfInt && (int_encoding(field) & kIntSigned) != 0);
      out.validate = true;
      break;
    case kCoreFieldLshiftU64:  // little-endian: the field's top bit to bit 63
      out.value = 64 - (bit_off + bit_size - byte_off * 8);
      break;
    case kCoreFieldRshiftU64:
      out.value = 64 - bit_size;
      out.validate = true;
      break;
    default:
      return Calc::bad;
  }
  return Calc::ok;
}

// libbpf bpf_core_calc_type_relo: not found is 0 for every type kind.
Calc type_value(uint32_t kind, const Spec* spec, Value& out) {
  out = Value{};
  if (spec == nullptr) return Calc::ok;
  switch (kind) {
    case kCoreTypeIdTarget: out.value = spec->root; out.validate = false; return Calc::ok;
    case kCoreTypeExists: case kCoreTypeMatches: out.value = 1; return Calc::ok;
    case kCoreTypeSize: {
      uint64_t size = 0;
      if (!btf_type_size(*spec->btf, spec->root, size)) return Calc::bad;
      out.value = size;
      return Calc::ok;
    }
    default: return Calc::bad;
  }
}

// libbpf bpf_core_calc_enumval_relo.
Calc enum_value(uint32_t kind, const Spec* spec, Value& out) {
  out = Value{};
  if (kind == kCoreEnumvalExists) {
    out.value = spec != nullptr ? 1 : 0;
    return Calc::ok;
  }
  if (spec == nullptr) return Calc::poison;
  BtfType t;
  if (!btf_type(*spec->btf, spec->accessors[0].type_id, t)) return Calc::bad;
  out.value = enumerator_value(t, spec->accessors[0].index);
  return Calc::ok;
}

// Both sides of one relocation (libbpf bpf_core_calc_relo).
struct Result {
  Value local, target;
  bool poison = false;
  bool resize_fails = false;  // a load/store whose size changes and cannot
  uint64_t bit_offset = 0;
};

Calc calculate(uint32_t kind, const Spec& local, const Spec* target, Result& out) {
  out = Result{};
  Calc c = Calc::bad;
  if (is_field_kind(kind)) {
    c = field_value(kind, &local, out.local);
    if (c == Calc::ok) c = field_value(kind, target, out.target);
    if (c == Calc::ok && out.local.field_size != out.target.field_size) {
      // Resizing a load is safe for pointers (a 32-bit kernel's) and for
      // unsigned integers: zero extension keeps the value.
      BtfType l, t;
      const bool known = target != nullptr && btf_type(*local.btf, out.local.type_id, l) &&
                         btf_type(*target->btf, out.target.type_id, t);
      const bool pointers = known && l.kind == kBtfPtr && t.kind == kBtfPtr;
      const bool unsigned_ints = known && l.kind == kBtfInt && t.kind == kBtfInt &&
                                 int_encoding(l) != kIntSigned && int_encoding(t) != kIntSigned;
      out.resize_fails = !pointers && !unsigned_ints;
    }
  } else if (is_type_kind(kind)) {
    c = type_value(kind, &local, out.local);
    if (c == Calc::ok) c = type_value(kind, target, out.target);
  } else if (is_enumval_kind(kind)) {
    c = enum_value(kind, &local, out.local);
    if (c == Calc::ok) c = enum_value(kind, target, out.target);
  }
  if (c == Calc::poison) {
    out.poison = true;
    return Calc::ok;
  }
  if (target != nullptr) out.bit_offset = target->bit_offset;
  return c;
}

// Functions, variables, sections and declaration tags never match a
// relocation (libbpf's compatibility checks refuse those kinds), and they
// are most of a kernel's named types (~57,000 of ~75,000 in 6.18): they
// stay out of the index.
bool may_be_candidate(const BtfType& t) {
  return t.name_off != 0 && t.kind != kBtfFunc && t.kind != kBtfFuncProto && t.kind != kBtfVar &&
         t.kind != kBtfDatasec && t.kind != kBtfDeclTag;
}

// Kernel types sorted by essential name, built on first use.
ElfError prepare_target(CoreTarget& target, Arena& arena) {
  if (target.prepared) return target.error;
  target.prepared = true;
  target.error = parse_btf_bytes(target.bytes, target.size, arena, target.btf, target.fault);
  if (target.error != ElfError::ok) return target.error;
  const Btf& btf = target.btf;
  uint32_t named = 0;
  for (uint32_t id = 1; id <= btf.type_count; ++id) {
    BtfType t;
    btf_type(btf, id, t);
    if (may_be_candidate(t)) ++named;
  }
  target.by_name = arena.allocate<uint32_t>(named);
  if (target.by_name == nullptr && named != 0) return target.error = ElfError::out_of_memory;
  named = 0;
  for (uint32_t id = 1; id <= btf.type_count; ++id) {
    BtfType t;
    btf_type(btf, id, t);
    if (may_be_candidate(t)) target.by_name[named++] = id;
  }
  target.named = named;
  heap_sort(target.by_name, named, [&btf](uint32_t a, uint32_t b) {
    BtfType ta, tb;
    btf_type(btf, a, ta);
    btf_type(btf, b, tb);
    const char* na = name_or_empty(btf, ta.name_off);
    const char* nb = name_or_empty(btf, tb.name_off);
    const int c = compare_names(na, core_essential_length(na), nb, core_essential_length(nb));
    return c != 0 ? c < 0 : a < b;
  });
  return ElfError::ok;
}

// The first index in target.by_name whose essential name is `name[0, n)`.
uint32_t first_candidate(const CoreTarget& target, const char* name, size_t n) {
  return partition_index(uint32_t{0}, target.named, [&](uint32_t i) {
    BtfType t;
    btf_type(target.btf, target.by_name[i], t);
    const char* other = name_or_empty(target.btf, t.name_off);
    return compare_names(other, core_essential_length(other), name, n) < 0;
  });
}

// Writes libbpf's poison over the instruction (both slots of a lddw).
void poison(uint8_t* insn, bool wide) {
  for (int slot = 0; slot < (wide ? 2 : 1); ++slot) {
    uint8_t* p = insn + slot * 8;
    p[0] = kOpCall;
    p[1] = 0;
    bytes::store<int16_t>(p + 2, 0);
    bytes::store<int32_t>(p + 4, kCorePoisonHelper);
  }
}

uint32_t access_bytes(uint8_t code) {
  switch (code & 0x18) {  // RFC 9669 §5.1 size modifier
    case 0x00: return 4;
    case 0x08: return 2;
    case 0x10: return 1;
    default: return 8;
  }
}
bool size_code(uint32_t bytes_wanted, uint8_t& out) {
  switch (bytes_wanted) {
    case 4: out = 0x00; return true;
    case 2: out = 0x08; return true;
    case 1: out = 0x10; return true;
    case 8: out = 0x18; return true;
    default: return false;
  }
}

enum class Patch : uint8_t { done, poisoned, resize_poisoned, bad };

// libbpf bpf_core_patch_insn: the instruction at `insn` (with `slots_left`
// slots from it to the end of the program) takes the target value.
Patch patch(uint8_t* insn, uint32_t slots_left, const Result& r) {
  const uint8_t code = insn[0];
  switch (code & 0x07) {
    case kClassAlu: case kClassAlu64: {
      if ((code & 0x08) != 0) return Patch::bad;  // register source: nothing to patch
      if (r.poison) {
        poison(insn, false);
        return Patch::poisoned;
      }
      const int32_t imm = bytes::load<int32_t>(insn + 4);
      if (r.local.validate && static_cast<uint64_t>(int64_t{imm}) != r.local.value) return Patch::bad;
      bytes::store<int32_t>(insn + 4, static_cast<int32_t>(static_cast<uint32_t>(r.target.value)));
      return Patch::done;
    }
    case kClassLdx: case kClassSt: case kClassStx: {
      if (r.poison) {
        poison(insn, false);
        return Patch::poisoned;
      }
      const int16_t off = bytes::load<int16_t>(insn + 2);
      if (r.local.validate && static_cast<uint64_t>(int64_t{off}) != r.local.value) return Patch::bad;
      if (r.target.value > 0x7fff) return Patch::bad;
      if (r.resize_fails) {
        poison(insn, false);
        return Patch::resize_poisoned;
      }
      bytes::store<int16_t>(insn + 2, static_cast<int16_t>(r.target.value));
      if (r.target.field_size != r.local.field_size) {
        uint8_t size = 0;
        if (access_bytes(code) != r.local.field_size || !size_code(r.target.field_size, size)) return Patch::bad;
        insn[0] = static_cast<uint8_t>((code & 0xe7) | size);
      }
      return Patch::done;
    }
    case kClassLd: {
      if (code != kOpLddw || slots_left < 2 || (insn[1] >> 4) != 0 || bytes::load<int16_t>(insn + 2) != 0 ||
          insn[8] != 0 || insn[9] != 0 || bytes::load<int16_t>(insn + 10) != 0)
        return Patch::bad;
      if (r.poison) {
        poison(insn, true);
        return Patch::poisoned;
      }
      const uint64_t imm = u32(insn, 4) | (uint64_t{u32(insn, 12)} << 32);
      if (r.local.validate && imm != r.local.value) return Patch::bad;
      bytes::store<uint32_t>(insn + 4, static_cast<uint32_t>(r.target.value));
      bytes::store<uint32_t>(insn + 12, static_cast<uint32_t>(r.target.value >> 32));
      return Patch::done;
    }
    default:
      return Patch::bad;
  }
}

// The last named field (or enumerator) of a local spec, for messages.
const char* last_name(const Spec& spec) {
  for (uint32_t i = spec.length; i > 0; --i)
    if (spec.accessors[i - 1].name != nullptr) return spec.accessors[i - 1].name;
  return nullptr;
}

// The records of `block` that land in placed function `f`, as slots.
struct Span {
  uint32_t first = 0, end = 0;
};
// The first record of a sorted block whose insn_off is at least `offset`.
uint32_t first_at(const BtfExtBlock& block, uint64_t offset) {
  return lower_bound_index(block.count, offset,
                           [&](uint32_t i) { return u32(block.records, uint64_t{i} * block.record_size); });
}

Span records_in(const BtfExtBlock& block, const ElfFunction& f) {
  if (!block.sorted) return Span{0, block.count};
  return Span{first_at(block, uint64_t{f.section_slot} * 8), first_at(block, (uint64_t{f.section_slot} + f.slots) * 8)};
}

struct Work {
  const Btf& local;
  CoreTarget& target;
  ElfProgram& program;
  Spec* specs;  // [0] local, [1] candidate, [2] the first match
};

// One relocation. Returns bad_btf_ext / unsupported_core_relocation when
// libbpf would refuse the object, else ok (applied or poisoned).
ElfError relocate(Work& w, const uint8_t* record, uint32_t index, uint32_t pc, CoreFailure* failures) {
  const uint32_t type_id = u32(record, 4), kind = u32(record, 12);
  const char* access = btf_string(w.local, u32(record, 8));
  BtfType local_type;
  if (access == nullptr || !btf_type(w.local, type_id, local_type)) return ElfError::bad_btf_ext;
  Spec& local = w.specs[0];
  local = Spec{};
  if (!parse_local(w.local, type_id, access, kind, local)) return ElfError::bad_btf_ext;

  Result result;
  uint32_t matched = 0, candidates = 0;
  if (kind == kCoreTypeIdLocal) {
    // The object's own type id: no kernel type is involved.
    result.local.value = result.target.value = type_id;
    result.local.validate = false;
    matched = 1;
  } else {
    const char* name = name_or_empty(w.local, local_type.name_off);
    const size_t n = core_essential_length(name);
    if (n == 0) return ElfError::unsupported_core_relocation;  // libbpf: anonymous types have no candidates
    Budget budget;
    for (uint32_t i = first_candidate(w.target, name, n); i < w.target.named; ++i) {
      const uint32_t id = w.target.by_name[i];
      BtfType t;
      btf_type(w.target.btf, id, t);
      const char* other = name_or_empty(w.target.btf, t.name_off);
      if (compare_names(other, core_essential_length(other), name, n) != 0) break;
      if (!kinds_compatible(t.kind, local_type.kind)) continue;
      ++candidates;
      Spec& candidate = w.specs[1];
      const Match m = match_candidate(local, kind, w.target.btf, id, candidate, budget);
      if (m == Match::error) return ElfError::bad_btf_ext;
      if (m == Match::no) continue;
      Result r;
      if (calculate(kind, local, &candidate, r) != Calc::ok) return ElfError::bad_btf_ext;
      if (matched == 0) {
        result = r;
        w.specs[2] = candidate;
      } else if (r.bit_offset != result.bit_offset || r.poison != result.poison ||
                 r.target.value != result.target.value) {
        return ElfError::bad_btf_ext;  // libbpf: ambiguous candidates refuse the load
      }
      ++matched;
    }
    if (matched == 0 && calculate(kind, local, nullptr, result) != Calc::ok) return ElfError::bad_btf_ext;
  }

  uint8_t* insn = const_cast<uint8_t*>(w.program.insns) + uint64_t{pc} * 8;
  const bool was_lddw = insn[0] == kOpLddw;
  const Patch p = patch(insn, w.program.slots - pc, result);
  if (p == Patch::bad) return ElfError::bad_btf_ext;
  if (p == Patch::done) {
    ++w.program.core_relocations;
    return ElfError::ok;
  }
  if (was_lddw) ++w.program.instruction_count;  // two calls where one lddw was
  CoreFailure& f = failures[w.program.core_failure_count++];
  f.pc = pc;
  f.kind = kind;
  f.record = index;
  f.type_name = name_or_empty(w.local, local_type.name_off);
  f.field = last_name(local);
  f.access = access;
  f.cause = p == Patch::resize_poisoned ? CoreFailureCause::size_mismatch
            : candidates == 0           ? CoreFailureCause::no_type
            : is_enumval_kind(kind)     ? CoreFailureCause::no_enumerator
                                        : CoreFailureCause::no_field;
  return ElfError::ok;
}

}  // namespace

size_t core_essential_length(const char* name) {
  // A flavor separator is "___" between two characters that are not '_'
  // (libbpf bpf_core_is_flavor_sep); the last one wins.
  const size_t n = length(name);
  for (size_t i = n >= 5 ? n - 4 : 0; i-- > 0;) {
    if (name[i] != '_' && name[i + 1] == '_' && name[i + 2] == '_' && name[i + 3] == '_' && name[i + 4] != '_')
      return i + 1;
  }
  return n;
}

namespace {

// Calls visit(function, record, index in its block, pc) for every CO-RE
// record that lands in a function of `program`, function by function, in
// record order; stops at the first visit that returns false.
template <class Visit>
void for_each_record(const BtfExt& ext, const ElfProgram& program, Visit visit) {
  for (uint32_t i = 0; i < program.function_count; ++i) {
    const ElfFunction& f = program.functions[i];
    for (uint32_t b = 0; b < ext.core_relo_blocks; ++b) {
      const BtfExtBlock& block = ext.core_relo[b];
      if (block.section != f.section) continue;
      const Span span = records_in(block, f);
      for (uint32_t r = span.first; r < span.end; ++r) {
        const uint8_t* record = block.records + uint64_t{r} * block.record_size;
        const uint64_t slot = u32(record, 0) / 8;
        if (slot < f.section_slot || slot >= uint64_t{f.section_slot} + f.slots) continue;
        if (!visit(f, record, r, static_cast<uint32_t>(f.pc + (slot - f.section_slot)))) return;
      }
    }
  }
}

}  // namespace

ElfResult apply_core_relocations(const File& file, const Btf& local, const BtfExt& ext, CoreTarget& target,
                                 Arena& arena, ElfProgram& program, ElfResult& status) {
  // Pass 1: how many records land in the program (and the first one).
  uint64_t count = 0;
  const uint8_t* first = nullptr;
  uint32_t first_section = 0;
  for_each_record(ext, program, [&](const ElfFunction& f, const uint8_t* record, uint32_t, uint32_t) {
    if (first == nullptr) {
      first = record;
      first_section = f.section;
    }
    ++count;
    return true;
  });
  if (count == 0 || !status.ok()) return {};
  if (target.bytes == nullptr) {
    status = error_at(file, ElfError::unsupported_core_relocation, first_section, u32(first, 0), u32(first, 12));
    return {};
  }
  const ElfError prepared = prepare_target(target, arena);
  if (prepared == ElfError::out_of_memory) return error_at(file, ElfError::out_of_memory, 0, 0);
  if (prepared != ElfError::ok) {
    status = ElfResult{prepared, {0, "kernel BTF", target.fault.offset, target.fault.value, nullptr}};
    return {};
  }
  // Every record is 16 bytes of the object in memory: the count fits a size_t.
  CoreFailure* failures = arena.allocate<CoreFailure>(static_cast<size_t>(count));
  Spec* specs = arena.allocate<Spec>(3);
  if (failures == nullptr || specs == nullptr) return error_at(file, ElfError::out_of_memory, 0, 0);
  program.core_failures = failures;
  Work w{local, target, program, specs};

  // Pass 2: apply them; the first one libbpf would refuse sets `status`.
  for_each_record(ext, program, [&](const ElfFunction& f, const uint8_t* record, uint32_t index, uint32_t pc) {
    const ElfError e = relocate(w, record, index, pc, failures);
    if (e == ElfError::ok) return true;
    status = error_at(file, e, f.section, u32(record, 0), u32(record, 12));
    BtfType t;
    if (btf_type(local, u32(record, 4), t)) status.symbol = btf_string(local, t.name_off);
    return false;
  });
  if (!status.ok()) return {};
  heap_sort(failures, program.core_failure_count,
            [](const CoreFailure& a, const CoreFailure& b) { return a.pc < b.pc; });
  return {};
}

}  // namespace keel::elf

namespace keel {

const char* core_kind_name(uint32_t kind) {
  switch (kind) {
    case elf::kCoreFieldByteOffset: return "field byte offset";
    case elf::kCoreFieldByteSize: return "field byte size";
    case elf::kCoreFieldExists: return "field exists";
    case elf::kCoreFieldSigned: return "field signed";
    case elf::kCoreFieldLshiftU64: return "field lshift_u64";
    case elf::kCoreFieldRshiftU64: return "field rshift_u64";
    case elf::kCoreTypeIdLocal: return "local type id";
    case elf::kCoreTypeIdTarget: return "target type id";
    case elf::kCoreTypeExists: return "type exists";
    case elf::kCoreTypeSize: return "type size";
    case elf::kCoreEnumvalExists: return "enum value exists";
    case elf::kCoreEnumvalValue: return "enum value";
    case elf::kCoreTypeMatches: return "type matches";
    default: return "unknown kind";
  }
}

size_t describe(const CoreFailure& failure, char* buffer, size_t size) {
  TextWriter w(buffer, size);
  w.put("bpf_core_poison: CO-RE relocation #").decimal(failure.record).put(" (").put(core_kind_name(failure.kind));
  w.put(") of '").put(failure.type_name != nullptr ? failure.type_name : "?").put("'");
  if (failure.field != nullptr) w.put(" field '").put(failure.field).put("'");
  if (failure.access != nullptr) w.put(" (access ").put(failure.access).put(")");
  w.put(" cannot be satisfied: ");
  switch (failure.cause) {
    case CoreFailureCause::no_type: w.put("the kernel's BTF has no type of that name and kind"); break;
    case CoreFailureCause::no_field: w.put("the kernel's type has no such field"); break;
    case CoreFailureCause::no_enumerator: w.put("the kernel's enum has no such enumerator"); break;
    case CoreFailureCause::size_mismatch:
      w.put("the field's size differs and it is neither a pointer nor an unsigned integer on both sides");
      break;
  }
  return w.finish();
}

const CoreFailure* find_core_failure(const ElfProgram& program, uint32_t pc) {
  const uint32_t low =
      lower_bound_index(program.core_failure_count, pc, [&](uint32_t i) { return program.core_failures[i].pc; });
  if (low < program.core_failure_count && program.core_failures[low].pc == pc) return &program.core_failures[low];
  return nullptr;
}

}  // namespace keel
