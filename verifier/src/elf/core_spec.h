// What the two halves of the CO-RE relocator share (core_reloc.h is the
// interface): the bounds on hostile input, the BTF record readers, and the
// spec of an access string walked through one BTF (libbpf's
// bpf_core_spec). core_match.cc walks access strings and matches
// candidates; core_reloc.cc computes each relocation's values and patches
// or poisons the instruction.
#pragma once

#include <cstddef>
#include <cstdint>

#include "elf/core_reloc.h"
#include "support/bytes.h"

namespace keel::elf::core {

inline constexpr uint32_t kSpecMax = 64;            // libbpf BPF_CORE_SPEC_MAX_LEN
inline constexpr uint32_t kMaxDepth = 32;           // modifier, array and pointer chains
inline constexpr uint32_t kCompatLevels = 32;       // nested function prototypes
inline constexpr uint32_t kStepBudget = 1u << 20;   // member visits per relocation
inline constexpr uint32_t kIntSigned = 1;  // btf.rst §2.2.1 BTF_INT_SIGNED

inline uint32_t u32(const uint8_t* p, uint64_t offset) {
  return bytes::load<uint32_t>(p + static_cast<size_t>(offset));
}

inline size_t length(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

// The first `n` bytes of a and b are equal.
inline bool same_prefix(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Byte order of the first min(n, m) bytes, then the length.
inline int compare_names(const char* a, size_t n, const char* b, size_t m) {
  const size_t common = n < m ? n : m;
  for (size_t i = 0; i < common; ++i) {
    if (a[i] != b[i])
      return static_cast<int>(static_cast<unsigned char>(a[i])) - static_cast<int>(static_cast<unsigned char>(b[i]));
  }
  return n < m ? -1 : (n > m ? 1 : 0);
}

inline const char* name_or_empty(const Btf& btf, uint32_t offset) {
  const char* s = btf_string(btf, offset);
  return s != nullptr ? s : "";
}

inline bool is_composite(uint32_t kind) { return kind == kBtfStruct || kind == kBtfUnion; }
inline bool is_any_enum(uint32_t kind) { return kind == kBtfEnum || kind == kBtfEnum64; }
// libbpf btf_kind_core_compat: the same kind, or both enums of any width.
inline bool kinds_compatible(uint32_t a, uint32_t b) { return a == b || (is_any_enum(a) && is_any_enum(b)); }

// A type by id where 0 is void (kind 0, as libbpf's btf_type_by_id(0)).
inline bool type_or_void(const Btf& btf, uint32_t id, BtfType& out) {
  if (id == 0) {
    out = BtfType{};
    return true;
  }
  return btf_type(btf, id, out);
}

// libbpf skip_mods_and_typedefs, with void allowed: false on a bad id or
// too long a chain.
inline bool skip_modifiers(const Btf& btf, uint32_t& id, BtfType& out) {
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
inline uint32_t member_bit_offset(const BtfType& t, uint32_t i) {
  const uint32_t offset = u32(t.extra, uint64_t{i} * 12 + 8);
  return t.kind_flag ? (offset & 0xffffff) : offset;
}
inline uint32_t member_bitfield_size(const BtfType& t, uint32_t i) {
  return t.kind_flag ? u32(t.extra, uint64_t{i} * 12 + 8) >> 24 : 0;
}
inline uint32_t member_type(const BtfType& t, uint32_t i) { return u32(t.extra, uint64_t{i} * 12 + 4); }
inline uint32_t member_name(const BtfType& t, uint32_t i) { return u32(t.extra, uint64_t{i} * 12); }
// btf.rst §2.2.1: the INT's encoding (bits 24..27) and bit offset (16..23).
inline uint32_t int_encoding(const BtfType& t) { return (u32(t.extra, 0) >> 24) & 0x0f; }
inline uint32_t int_offset(const BtfType& t) { return (u32(t.extra, 0) >> 16) & 0xff; }

inline uint32_t enumerator_name(const BtfType& t, uint32_t i) {
  return u32(t.extra, uint64_t{i} * (t.kind == kBtfEnum ? 8 : 12));
}
// Enum values are read as libbpf reads them: a 32-bit value sign-extends
// (it is an __s32), a 64-bit one is lo32 | hi32 << 32.
inline uint64_t enumerator_value(const BtfType& t, uint32_t i) {
  if (t.kind == kBtfEnum)
    return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(u32(t.extra, uint64_t{i} * 8 + 4))));
  return u32(t.extra, uint64_t{i} * 12 + 4) | (uint64_t{u32(t.extra, uint64_t{i} * 12 + 8)} << 32);
}

inline bool is_field_kind(uint32_t kind) { return kind <= kCoreFieldRshiftU64; }
inline bool is_type_kind(uint32_t kind) {
  return kind == kCoreTypeIdLocal || kind == kCoreTypeIdTarget || kind == kCoreTypeExists ||
         kind == kCoreTypeSize || kind == kCoreTypeMatches;
}
inline bool is_enumval_kind(uint32_t kind) { return kind == kCoreEnumvalExists || kind == kCoreEnumvalValue; }

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


// libbpf bpf_core_parse_spec over the object's own BTF: the access string
// `access` walked from `type_id`.
[[nodiscard]] bool parse_local(const Btf& btf, uint32_t type_id, const char* access, uint32_t kind, Spec& spec);
// libbpf bpf_core_spec_match: the local spec walked in candidate `id`.
[[nodiscard]] Match match_candidate(const Spec& local, uint32_t kind, const Btf& target, uint32_t id, Spec& spec,
                                    Budget& budget);
// Kernel types sorted by essential name, built on first use.
[[nodiscard]] ElfError prepare_target(CoreTarget& target, Arena& arena);
// The first index in target.by_name whose essential name is `name[0, n)`.
uint32_t first_candidate(const CoreTarget& target, const char* name, size_t n);

}  // namespace keel::elf::core
