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

#include "elf/core_spec.h"
#include "support/bytes.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/text_writer.h"

namespace keel::elf {

using namespace core;  // core_spec.h: the readers and the spec shared with core_match.cc

namespace {

constexpr uint8_t kClassLd = 0x00, kClassLdx = 0x01, kClassSt = 0x02, kClassStx = 0x03,
                  kClassAlu = 0x04, kClassAlu64 = 0x07;
constexpr uint8_t kOpLddw = 0x18, kOpCall = 0x85;

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
