// BTF-typed program types from the kernel's BTF (Documentation/bpf/btf.rst
// for the encoding). The rules restate Linux 6.1: which BTF name a section
// targets (kernel/bpf/verifier.c bpf_check_attach_target: the function
// itself, "btf_trace_" for tp_btf, "bpf_lsm_" for lsm, "bpf_iter_" for
// iter), what each context slot yields (kernel/bpf/btf.c btf_ctx_access),
// which loads through a typed pointer are allowed and what they yield
// (btf_struct_walk), and the return values allowed (check_return_code).
#include "keel/btf_program.h"

#include "elf/btf.h"
#include "keel/platform_linux.h"
#include "support/bytes.h"

namespace keel {

namespace {

using elf::Btf;
using elf::BtfType;

constexpr uint32_t kMaxDepth = 32;  // nested structs walked into: a malformed BTF must not loop

uint32_t u32(const uint8_t* p, size_t offset) { return bytes::load<uint32_t>(p + offset); }

bool is_struct(const BtfType& t) { return t.kind == elf::kBtfStruct || t.kind == elf::kBtfUnion; }

// btf.rst §2.1: info bit 31, which makes a struct member's offset a
// (bitfield size << 24 | bit offset) pair.
bool kind_flag(const Btf& btf, uint32_t id) {
  return (u32(btf.types + btf.offsets[id - 1], 4) >> 31) != 0;
}

// `name` equals prefix + rest.
bool named(const char* name, const char* prefix, const char* rest) {
  while (*prefix != '\0') {
    if (*name++ != *prefix++) return false;
  }
  while (*rest != '\0') {
    if (*name++ != *rest++) return false;
  }
  return *name == '\0';
}

// The first type of `kind` called prefix + rest, or 0. The kernel's BTF
// has one function per name; a linear scan costs a few milliseconds once
// per program.
uint32_t find_named(const Btf& btf, uint32_t kind, const char* prefix, const char* rest) {
  for (uint32_t id = 1; id <= btf.type_count; ++id) {
    BtfType t;
    if (!elf::btf_type(btf, id, t) || t.kind != kind) continue;
    const char* name = elf::btf_string(btf, t.name_off);
    if (name != nullptr && named(name, prefix, rest)) return id;
  }
  return 0;
}

// btf_type_is_small_int: an integer of at most 8 bytes that is no bitfield.
bool is_small_int(const BtfType& t) {
  if (t.kind != elf::kBtfInt || t.size_or_type > 8) return false;
  const uint32_t bits = u32(t.extra, 0) & 0xff;
  return bits == t.size_or_type * 8;
}

// A pointer whose pointee is tagged `__user` or `__percpu` (BTF_KIND_TYPE_TAG
// "user"/"percpu"): Linux 6.1 types it MEM_USER / MEM_PERCPU and refuses
// every load through it, so keel hands it out as a plain number.
bool tagged_away(const Btf& btf, const BtfType& pointer) {
  BtfType t;
  if (!elf::btf_type(btf, pointer.size_or_type, t) || t.kind != elf::kBtfTypeTag) return false;
  const char* tag = elf::btf_string(btf, t.name_off);
  return tag != nullptr && (named(tag, "user", "") || named(tag, "percpu", ""));
}

// ---- Loads through a typed pointer (btf_struct_walk) ---------------------------

// Resolves a member's type to (innermost element type, element size, count)
// as __btf_resolve_size does: modifiers skipped, arrays of arrays flattened.
struct Resolved {
  uint32_t id = 0;        // the element type (modifiers skipped)
  BtfType type;
  uint64_t elem_size = 0;
  uint64_t count = 1;     // elements (1 for a non-array)
  bool array = false;
};

bool resolve_member(const Btf& btf, uint32_t id, Resolved& out) {
  out = Resolved{};
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    id = elf::btf_skip_modifiers(btf, id);
    BtfType t;
    if (!elf::btf_type(btf, id, t)) return false;
    if (t.kind != elf::kBtfArray) {
      out.id = id;
      out.type = t;
      return elf::btf_type_size(btf, id, out.elem_size);
    }
    out.array = true;
    if (__builtin_mul_overflow(out.count, uint64_t{u32(t.extra, 8)}, &out.count)) return false;
    id = u32(t.extra, 0);
  }
  return false;
}

BtfReadResult walk(const Btf& btf, uint32_t id, uint32_t off, uint32_t size) {
  BtfReadResult result;
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    id = elf::btf_skip_modifiers(btf, id);
    BtfType t;
    if (!elf::btf_type(btf, id, t) || !is_struct(t)) return result;  // "Type '%s' is not a struct"
    if (depth == 0) result.size = t.size_or_type;
    // "access beyond struct": Linux relaxes this for a trailing flexible
    // array only, which keel does not (a false reject, ADR 0049).
    if (uint64_t{off} + size > t.size_or_type) {
      result.what = depth == 0 ? BtfRead::out_of_bounds : BtfRead::bad_access;
      return result;
    }
    const bool flag = kind_flag(btf, id);
    bool descended = false;
    for (uint32_t i = 0; i < t.vlen && !descended; ++i) {
      const uint8_t* member = t.extra + size_t{i} * 12;
      const uint32_t raw = u32(member, 8);
      const uint32_t bit_off = flag ? raw & 0xffffff : raw;
      const uint32_t bitfield = flag ? raw >> 24 : 0;
      uint64_t moff = bit_off / 8;
      if (uint64_t{off} + size <= moff) break;  // members come in offset order
      if (bitfield != 0) {
        // A read covering the whole bitfield's bytes is a scalar.
        const uint64_t end = (uint64_t{bit_off} + bitfield + 7) / 8;
        if (off <= moff && end <= uint64_t{off} + size) {
          result.what = BtfRead::scalar;
          return result;
        }
        continue;
      }
      if (off < moff) break;  // a hole
      Resolved m;
      if (!resolve_member(btf, u32(member, 4), m)) return result;  // "field %s doesn't have size"
      const uint64_t true_end = moff + m.elem_size * m.count;
      if (off >= true_end) continue;
      uint64_t msize = m.elem_size;
      if (m.array) {
        if (m.elem_size == 0) return result;
        moff += (off - moff) / m.elem_size * m.elem_size;  // the element holding `off`
      }
      if (is_struct(m.type)) {
        // Inside a nested struct or union: walk it at the relative offset.
        off = static_cast<uint32_t>(off - moff);
        id = m.id;
        descended = true;
        break;
      }
      if (m.type.kind == elf::kBtfPtr) {
        // "cannot access ptr member": a pointer is read whole or not at all.
        if (msize != size || off != moff) return result;
        const uint32_t target = elf::btf_skip_modifiers(btf, m.type.size_or_type);
        BtfType pointee;
        if (target != 0 && !tagged_away(btf, m.type) && elf::btf_type(btf, target, pointee) && is_struct(pointee)) {
          result.what = BtfRead::pointer;
          result.type = target;
          return result;
        }
      }
      // Any bytes of an integer (or an array of them, skb->cb[] style) up
      // to the member's true end.
      if (uint64_t{off} + size > true_end) return result;  // "access beyond the end of member"
      result.what = BtfRead::scalar;
      return result;
    }
    if (!descended) return result;  // "struct %s doesn't have field at offset %d"
  }
  return result;
}

const Btf& btf_of(const void* context) {
  return *static_cast<const Btf*>(static_cast<const BtfProgramType*>(context)->btf);
}

BtfReadResult read_member(const void* context, uint32_t type, uint32_t offset, uint32_t size) {
  return walk(btf_of(context), type, offset, size);
}

bool same_name(const char* a, const char* b) { return named(a, b, ""); }

// A struct by name, for helpers returning one (bpf_skc_to_tcp_sock: the
// prototype's .ret_btf_id). Remembered per program: the analysis asks at
// every visit of the call.
uint32_t find_struct(const void* context, const char* name) {
  const BtfProgramType& type = *static_cast<const BtfProgramType*>(context);
  for (uint32_t i = 0; i < type.named_count; ++i) {
    if (type.named[i].name == name || same_name(type.named[i].name, name)) return type.named[i].id;
  }
  const uint32_t id = find_named(btf_of(context), elf::kBtfStruct, name, "");
  if (type.named_count < BtfProgramType::kNamedCache) type.named[type.named_count++] = {name, id};
  return id;
}

// btf_struct_ids_match at offset 0 (kernel/bpf/btf.c, 6.1): the type is the
// struct called `name`, or btf_struct_walk(off 0, size 1) finds a nested
// struct at offset 0 that is (and so on down). The member at offset 0 is
// the first one there that is not an empty array, an array giving its
// first element; a bitfield or any non-struct member there ends the walk.
bool begins_with(const void* context, uint32_t type, const char* name) {
  const Btf& btf = btf_of(context);
  uint32_t id = type;
  for (uint32_t depth = 0; depth < kMaxDepth; ++depth) {
    id = elf::btf_skip_modifiers(btf, id);
    BtfType t;
    if (!elf::btf_type(btf, id, t) || !is_struct(t)) return false;
    const char* own = elf::btf_string(btf, t.name_off);
    if (t.kind == elf::kBtfStruct && own != nullptr && same_name(own, name)) return true;
    const bool flag = kind_flag(btf, id);
    uint32_t next = 0;
    for (uint32_t i = 0; i < t.vlen && next == 0; ++i) {
      const uint8_t* member = t.extra + size_t{i} * 12;
      const uint32_t raw = u32(member, 8);
      if ((flag ? raw & 0xffffff : raw) != 0) return false;  // nothing at offset 0
      if (flag && (raw >> 24) != 0) return false;           // a bitfield: not a struct
      Resolved m;
      if (!resolve_member(btf, u32(member, 4), m)) return false;
      if (m.array && m.elem_size * m.count == 0) continue;  // "skip empty array", as Linux does
      if (!is_struct(m.type)) return false;  // WALK_SCALAR / WALK_PTR: no nested struct
      next = m.id;
    }
    if (next == 0) return false;
    id = next;
  }
  return false;
}

// ---- Targets ----------------------------------------------------------------

enum class Kind : uint8_t { fentry, fexit, fmod_ret, tp_btf, lsm, lsm_cgroup, iter };

struct SectionRow {
  const char* prefix;  // up to and including the `/`
  Kind kind;
};

// libbpf's section_defs rows for these types, sleepable forms included.
constexpr SectionRow kSections[] = {
    {"fentry/", Kind::fentry},     {"fentry.s/", Kind::fentry},
    {"fexit/", Kind::fexit},       {"fexit.s/", Kind::fexit},
    {"fmod_ret/", Kind::fmod_ret}, {"fmod_ret.s/", Kind::fmod_ret},
    {"tp_btf/", Kind::tp_btf},     {"lsm/", Kind::lsm},
    {"lsm.s/", Kind::lsm},         {"lsm_cgroup/", Kind::lsm_cgroup},
    {"iter/", Kind::iter},         {"iter.s/", Kind::iter},
};

const SectionRow* find_section(const char* section, const char*& target) {
  if (section == nullptr) return nullptr;
  if (*section == '?') ++section;
  for (const SectionRow& row : kSections) {
    const char* p = row.prefix;
    const char* s = section;
    while (*p != '\0' && *p == *s) ++p, ++s;
    if (*p == '\0' && *s != '\0') {
      target = s;
      return &row;
    }
  }
  return nullptr;
}

CtxField slot(uint32_t index) {
  CtxField f{};
  f.offset = static_cast<uint16_t>(index * 8);
  f.size = 8;
  return f;
}

// btf_ctx_access for one slot of type `id` (0: void); false when the slot
// may not be read at all (it then has no field).
enum class SlotKind : uint8_t { none, scalar, pointer, unsupported };

SlotKind classify(const Btf& btf, uint32_t id, uint32_t& pointee) {
  id = elf::btf_skip_modifiers(btf, id);
  BtfType t;
  if (id == 0 || !elf::btf_type(btf, id, t)) return SlotKind::none;
  if (is_small_int(t) || t.kind == elf::kBtfEnum || t.kind == elf::kBtfEnum64) return SlotKind::scalar;
  // A struct passed by value takes one or two slots (get_ctx_arg_idx): not modelled.
  if (is_struct(t)) return SlotKind::unsupported;
  if (t.kind != elf::kBtfPtr) return SlotKind::none;  // "Only pointer access is allowed"
  if (t.size_or_type == 0) return SlotKind::scalar;   // void *: a number to the verifier
  if (tagged_away(btf, t)) return SlotKind::scalar;
  const uint32_t target = elf::btf_skip_modifiers(btf, t.size_or_type);
  BtfType p;
  if (!elf::btf_type(btf, target, p)) return SlotKind::none;
  if (p.kind == elf::kBtfInt) return SlotKind::scalar;  // is_int_ptr
  if (!is_struct(p)) return SlotKind::none;             // "arg%d type %s is not a struct"
  pointee = target;
  return SlotKind::pointer;
}

}  // namespace

const char* btf_program_error_name(BtfProgramError error) {
  switch (error) {
    case BtfProgramError::ok: return "ok";
    case BtfProgramError::not_btf_typed: return "not_btf_typed";
    case BtfProgramError::bad_btf: return "bad_btf";
    case BtfProgramError::out_of_memory: return "out_of_memory";
    case BtfProgramError::no_target: return "no_target";
    case BtfProgramError::unsupported_target: return "unsupported_target";
  }
  return "?";
}

BtfProgramError parse_kernel_btf(const uint8_t* bytes, size_t size, Arena& arena, KernelBtf& out) {
  out = KernelBtf{};
  // The loader's parser works on a section of an ELF file: the raw BTF is
  // presented as the one section of a file.
  elf::Section* sections = arena.allocate<elf::Section>(1);
  Btf* btf = arena.allocate<Btf>(1);
  if (sections == nullptr || btf == nullptr) return BtfProgramError::out_of_memory;
  sections[0] = elf::Section{};
  sections[0].name = ".BTF";
  sections[0].size = size;
  sections[0].data = bytes;
  elf::File file;
  file.bytes = bytes;
  file.size = size;
  file.sections = sections;
  file.section_count = 1;
  *btf = Btf{};
  const ElfResult r = elf::parse_btf(file, 0, arena, *btf);
  if (!r.ok()) return r.error == ElfError::out_of_memory ? BtfProgramError::out_of_memory : BtfProgramError::bad_btf;
  out.index = btf;
  return BtfProgramError::ok;
}

bool is_btf_typed_section(const char* section) {
  const char* target = nullptr;
  return find_section(section, target) != nullptr;
}

BtfProgramError make_btf_program_type(const KernelBtf& kernel, const char* section, BtfProgramType& out) {
  const char* target = nullptr;
  const SectionRow* row = find_section(section, target);
  if (row == nullptr) return BtfProgramError::not_btf_typed;
  if (kernel.index == nullptr) return BtfProgramError::bad_btf;
  const Btf& btf = *static_cast<const Btf*>(kernel.index);
  out.target = target;
  // lsm_cgroup programs return through bpf_set_retval with their own range
  // and helpers (cgroup_common_func_proto): not modelled.
  if (row->kind == Kind::lsm_cgroup) return BtfProgramError::unsupported_target;

  // The function prototype whose parameters are the context.
  uint32_t proto_id = 0;
  bool skip_first = false;
  if (row->kind == Kind::tp_btf) {
    // `typedef void (*btf_trace_<name>)(void *__data, args...)`.
    const uint32_t typedef_id = find_named(btf, elf::kBtfTypedef, "btf_trace_", target);
    BtfType t;
    if (typedef_id == 0 || !elf::btf_type(btf, typedef_id, t)) return BtfProgramError::no_target;
    BtfType ptr;
    if (!elf::btf_type(btf, t.size_or_type, ptr) || ptr.kind != elf::kBtfPtr) return BtfProgramError::no_target;
    proto_id = ptr.size_or_type;
    skip_first = true;
  } else {
    const char* prefix = row->kind == Kind::lsm ? "bpf_lsm_" : row->kind == Kind::iter ? "bpf_iter_" : "";
    const uint32_t func_id = find_named(btf, elf::kBtfFunc, prefix, target);
    BtfType f;
    if (func_id == 0 || !elf::btf_type(btf, func_id, f)) return BtfProgramError::no_target;
    proto_id = f.size_or_type;
  }
  BtfType proto;
  if (!elf::btf_type(btf, proto_id, proto) || proto.kind != elf::kBtfFuncProto) return BtfProgramError::no_target;
  uint32_t first = skip_first ? 1 : 0;
  if (proto.vlen < first) return BtfProgramError::no_target;
  const uint32_t args = proto.vlen - first;
  if (args > kMaxBtfArgs) return BtfProgramError::unsupported_target;  // btf_distill_func_proto
  // A variadic function ends in a parameter of type 0.
  if (proto.vlen > 0 && u32(proto.extra, size_t{proto.vlen - 1} * 8 + 4) == 0) {
    return BtfProgramError::unsupported_target;
  }

  const ProgramType* base = linux_btf_base_type(row->kind == Kind::lsm ? "lsm" : "tracing");
  if (base == nullptr) return BtfProgramError::unsupported_target;
  out.type = *base;
  uint32_t count = 0;
  for (uint32_t i = 0; i < args; ++i) {
    uint32_t pointee = 0;
    const uint32_t type = u32(proto.extra, size_t{first + i} * 8 + 4);
    const SlotKind k = classify(btf, type, pointee);
    if (k == SlotKind::unsupported) return BtfProgramError::unsupported_target;
    if (k == SlotKind::none) continue;
    CtxField f = slot(i);
    if (k == SlotKind::scalar) {
      // tracing_prog_is_valid_access + btf_ctx_access: aligned, at the slot's start.
      f.read_sizes = 1 | 2 | 4 | 8;
      f.narrow_at_start = true;
    } else {
      f.read_sizes = 8;
      // Iterators hand out their objects as PTR_TO_BTF_ID_OR_NULL (each
      // iterator's ctx_arg_info) after the meta argument.
      f.yields = row->kind == Kind::iter && i > 0 ? CtxYield::btf_ptr_or_null : CtxYield::btf_ptr;
      f.btf_type = pointee;
    }
    out.fields[count++] = f;
  }
  if (row->kind == Kind::iter) {
    // Iterators whose arguments are buffers (a map element's key and value:
    // `void *` typed PTR_TO_BUF by their ctx_arg_info) are not modelled;
    // integers (task_file's fd) and object pointers are.
    for (uint32_t i = 1; i < args; ++i) {
      const uint32_t type = u32(proto.extra, size_t{i} * 8 + 4);
      uint32_t pointee = 0;
      BtfType t;
      if (elf::btf_type(btf, elf::btf_skip_modifiers(btf, type), t) && t.kind == elf::kBtfPtr &&
          classify(btf, type, pointee) != SlotKind::pointer) {
        return BtfProgramError::unsupported_target;
      }
    }
  }
  uint32_t slots = args;
  // The return value, one slot past the arguments: fexit and lsm read it as
  // typed; fmod_ret only when it is an integer.
  const uint32_t ret = proto.size_or_type;
  if (row->kind == Kind::fexit || row->kind == Kind::lsm || row->kind == Kind::fmod_ret) {
    uint32_t pointee = 0;
    const SlotKind k = classify(btf, ret, pointee);
    BtfType rt;
    const bool int_ret = elf::btf_type(btf, elf::btf_skip_modifiers(btf, ret), rt) && is_small_int(rt);
    if (k == SlotKind::scalar && (row->kind != Kind::fmod_ret || int_ret)) {
      CtxField f = slot(args);
      f.read_sizes = 1 | 2 | 4 | 8;
      f.narrow_at_start = true;
      out.fields[count++] = f;
      slots = args + 1;
    } else if (k == SlotKind::pointer && row->kind != Kind::fmod_ret) {
      CtxField f = slot(args);
      f.read_sizes = 8;
      f.yields = CtxYield::btf_ptr;
      f.btf_type = pointee;
      out.fields[count++] = f;
      slots = args + 1;
    }
  }
  out.type.fields = out.fields;
  out.type.field_count = count;
  out.type.ctx_size = slots * 8;
  out.btf = &btf;
  out.named_count = 0;
  out.types.context = &out;
  out.types.read = read_member;
  out.types.find_struct = find_struct;
  out.types.begins_with = begins_with;
  out.type.kernel_types = &out.types;
  // check_return_code: fentry/fexit 0; iter 0 or 1; fmod_ret, tp_btf (raw
  // tracepoint) and lsm (not lsm_cgroup) any value.
  if (row->kind == Kind::fentry || row->kind == Kind::fexit) {
    out.type.return_min = 0;
    out.type.return_max = 0;
  } else if (row->kind == Kind::iter) {
    out.type.return_min = 0;
    out.type.return_max = 1;
  }
  return BtfProgramError::ok;
}

}  // namespace keel
