// CO-RE relocations, first half: the access string walked through the
// object's own BTF (parse_local) and through each kernel candidate of the
// same essential name (match_candidate), the compatibility and "type
// matches" rules between local and kernel types, and the kernel's name
// index. The rules and the bounds are core_reloc.cc's header comment.
#include "elf/core_spec.h"

#include "support/search.h"
#include "support/sort.h"

namespace keel::elf::core {

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

namespace {

// Functions, variables, sections and declaration tags never match a
// relocation (libbpf's compatibility checks refuse those kinds), and they
// are most of a kernel's named types (~57,000 of ~75,000 in 6.18): they
// stay out of the index.
bool may_be_candidate(const BtfType& t) {
  return t.name_off != 0 && t.kind != kBtfFunc && t.kind != kBtfFuncProto && t.kind != kBtfVar &&
         t.kind != kBtfDatasec && t.kind != kBtfDeclTag;
}

}  // namespace

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

}  // namespace keel::elf::core
