// Loads, stores and atomics: each access is checked against the region its
// pointer kind names (stack frame, context field, map value, packet range,
// helper memory), and stack contents are tracked byte by byte with spilled
// registers kept whole. Rules restate Linux 6.1's check_mem_access family.
#include <cstring>

#include "analysis/btf_ptr.h"
#include "analysis/engine.h"
#include "isa/ops.h"

namespace keel {
namespace {

constexpr int64_t kSaneLimit = int64_t{1} << 40;  // beyond any region: keeps int64 sums exact

// Bytes a load, store or atomic accesses (isa/ops.h).
uint32_t size_of(Op op) { return op_info(op).size; }

Detail access_detail(const RegState& ptr, int64_t off, uint32_t size, uint32_t limit) {
  Detail d;
  d.kind = static_cast<uint8_t>(ptr.kind);
  d.offset = off;
  d.size = static_cast<int32_t>(size);
  d.min = ptr.value.smin;
  d.max = ptr.value.smax;
  d.limit = limit;
  return d;
}

// (fixed + variable) is a multiple of size: the tnum's low bits are known 0.
bool aligned(const RegState& ptr, int64_t fixed, uint32_t size) {
  if (size <= 1) return true;
  const Tnum t = tnum::add(ptr.value.bits, Tnum::constant(static_cast<uint64_t>(fixed)));
  const uint64_t low = size - 1;
  return (t.mask & low) == 0 && (t.value & low) == 0;
}

struct Range {
  int64_t lo, hi;  // [lo, hi) relative to the region start
};

// The bytes a pointer may touch, or false when the variable part is too wide to matter.
bool bytes_of(const RegState& ptr, int64_t fixed, uint64_t size, Range& out) {
  if (ptr.value.smin < -kSaneLimit || ptr.value.smax > kSaneLimit || size > uint64_t(kSaneLimit)) {
    return false;
  }
  out.lo = fixed + ptr.value.smin;
  out.hi = fixed + ptr.value.smax + static_cast<int64_t>(size);
  return true;
}

void note_stack_use(Engine& e, const State& s, const RegState& ptr, int64_t lo) {
  const uint32_t f = s.frames()[ptr.frame].function;
  const int64_t depth = -lo;
  if (depth > 0 && static_cast<uint64_t>(depth) > e.stack_use[f]) e.stack_use[f] = static_cast<uint32_t>(depth);
}

// Turns the spill of `slot` into plain bytes (a scalar's value is lost).
void decay_spill(State& s, uint32_t frame, uint32_t slot) {
  Spill* spill = s.find_spill(frame, slot);
  if (spill == nullptr) return;
  note_stack_write(s.frames()[frame], slot * 8);
  uint8_t* tags = s.frames()[frame].tags + slot * 8;
  const uint8_t t = spill->reg.is_null() ? kTagZero : kTagData;
  const int bytes = spill->narrow != 0 ? spill->narrow : 8;  // a narrow spill's other bytes are their own
  for (int i = 0; i < bytes; ++i) tags[i] = t;
  s.remove_spill(spill);
}

bool spill_is_pointer(const Spill* spill) {
  return spill != nullptr && spill->reg.kind != RegKind::scalar;
}

// ---- Stack ------------------------------------------------------------------

bool stack_bounds(Engine& e, const State& s, uint32_t reg, const RegState& ptr, int64_t fixed,
                  uint64_t size, Range& r, uint32_t pc) {
  if (!bytes_of(ptr, fixed, size, r) || r.lo < -int64_t{kStackSize} || r.hi > 0) {
    Detail d = access_detail(ptr, fixed, static_cast<uint32_t>(size), kStackSize);
    return e.fail(pc, Reason::stack_out_of_bounds, static_cast<int32_t>(reg), d);
  }
  note_stack_use(e, s, ptr, r.lo);
  return true;
}

bool stack_read_range(Engine& e, const State& s, uint32_t reg, const RegState& ptr, Range r,
                      uint32_t pc) {
  // A byte fails only when uninitialized and such reads are refused, or
  // when it may hold pointer bits and the program is unprivileged: with
  // both allowed (privileged programs under Linux's rules) no byte can.
  if (e.options.allow_uninit_stack_reads && e.options.privileged) return true;
  const Frame& frame = s.frames()[ptr.frame];
  for (int64_t b = r.lo; b < r.hi; ++b) {
    const uint8_t t = frame.tags[b + kStackSize];
    if (t == kTagUninit && !e.options.allow_uninit_stack_reads) {
      Detail d = access_detail(ptr, b, 1, kStackSize);
      return e.fail(pc, Reason::uninit_stack, static_cast<int32_t>(reg), d);
    }
    if (!e.options.privileged && (t == kTagMixed ||
                                  (t == kTagSpill && spill_is_pointer(s.find_spill(ptr.frame, static_cast<uint32_t>((b + kStackSize) / 8)))))) {
      // Reading a spilled pointer as bytes leaks it (Linux allows it only with allow_ptr_leaks).
      return e.fail(pc, Reason::pointer_leak, static_cast<int32_t>(reg), access_detail(ptr, b, 1, kStackSize));
    }
  }
  return true;
}

// Marks [lo, hi) written with unknown data (zero when `zero`), spills decayed.
// `exact` false for variable-offset writes: bytes that may not have been
// written keep "uninitialized".
bool stack_write_range(Engine& e, State& s, uint32_t reg, const RegState& ptr, Range r, bool zero,
                       bool exact, uint32_t pc) {
  Frame& frame = s.frames()[ptr.frame];
  for (int64_t slot = (r.lo + kStackSize) / 8; slot * 8 < r.hi + kStackSize; ++slot) {
    Spill* spill = s.find_spill(ptr.frame, static_cast<uint32_t>(slot));
    if (spill == nullptr) continue;
    if (spill->reg.kind != RegKind::scalar && !e.options.privileged) {
      // "attempt to corrupt spilled pointer on stack"
      return e.fail(pc, Reason::pointer_leak, static_cast<int32_t>(reg),
                    access_detail(ptr, slot * 8 - kStackSize, 8, kStackSize));
    }
    decay_spill(s, ptr.frame, static_cast<uint32_t>(slot));
  }
  if (r.lo < r.hi) note_stack_write(frame, static_cast<uint32_t>(r.lo + kStackSize));
  for (int64_t b = r.lo; b < r.hi; ++b) {
    uint8_t& t = frame.tags[b + kStackSize];
    if (exact) {
      t = zero ? kTagZero : kTagData;
    } else if (t != kTagUninit) {
      t = (zero && t == kTagZero) ? kTagZero : (t == kTagMixed ? kTagMixed : kTagData);
    }
  }
  return true;
}

bool stack_load(Engine& e, State& s, const Insn& insn, const RegState& ptr, uint32_t size,
                uint32_t pc, RegState& out) {
  const int64_t fixed = int64_t{ptr.off} + insn.offset;
  Range r;
  if (!stack_bounds(e, s, insn.src, ptr, fixed, size, r, pc)) return false;
  if (!ptr.value.is_const() || !ptr.var_is_zero()) {
    // Variable offset (privileged only, see transfer.cc): every byte it may
    // touch must be initialized; the value is unknown.
    if (!stack_read_range(e, s, insn.src, ptr, r, pc)) return false;
    out = make_scalar(Scalar::of_bytes(size));
    return true;
  }
  const int64_t index = r.lo + kStackSize;
  const uint32_t slot = static_cast<uint32_t>(index / 8);
  Spill* spill = s.find_spill(ptr.frame, slot);
  const uint32_t at = static_cast<uint32_t>(index % 8);
  // A load that reaches past a narrow spill reads bytes (below).
  if (spill != nullptr && (spill->narrow == 0 || at + size <= spill->narrow)) {
    if (spill->narrow != 0 && size == spill->narrow) {
      // check_stack_read_fixed_off: a fill of a spill's own offset and size
      // gives the spilled value back (its bytes, zero-extended).
      out = spill->reg;
      return true;
    }
    if (size == 8) {
      if (spill->reg.id == 0 && links_copies(spill->reg)) start_link(e, spill->reg);
      out = spill->reg;
      return true;
    }
    if (spill->reg.kind != RegKind::scalar) {
      // "invalid size of register fill": part of a pointer is not a value.
      return e.fail(pc, Reason::invalid_dereference, insn.src, access_detail(ptr, fixed, size, kStackSize));
    }
    // (A narrower fill of a narrow spill is unknown, as in Linux 6.1:
    // spill_fill/10 and /11 expect the packet access it offsets rejected.)
    if (spill->reg.is_const() && spill->narrow == 0) {
      const uint64_t v = spill->reg.value.bits.value >> (8 * at);
      const uint64_t mask = (uint64_t{1} << (8 * size)) - 1;
      out = make_scalar(Scalar::constant(v & mask));
    } else {
      out = make_scalar(Scalar::of_bytes(size));
    }
    return true;
  }
  const uint8_t* tags = s.frames()[ptr.frame].tags + index;
  bool all_zero = true;
  bool mixed = false;
  for (uint32_t i = 0; i < size; ++i) {
    // kTagSpill here: bytes of a spill read as bytes (a load that reaches
    // past a 32-bit spill): a scalar's are data, a pointer's not a value.
    uint8_t tag = tags[i];
    if (tag == kTagSpill) {
      const Spill* owner = s.find_spill(ptr.frame, static_cast<uint32_t>((index + i) / 8));
      tag = owner == nullptr || owner->reg.kind != RegKind::scalar ? kTagMixed
            : owner->reg.is_null()                                  ? kTagZero
                                                                    : kTagData;
    }
    if (tag == kTagUninit && !e.options.allow_uninit_stack_reads) {
      return e.fail(pc, Reason::uninit_stack, insn.src, access_detail(ptr, fixed + i, size, kStackSize));
    }
    mixed = mixed || tag == kTagMixed;
    all_zero = all_zero && tag == kTagZero;  // an uninitialized byte (when allowed) is unknown
  }
  if (mixed) {
    if (size != 8) {
      return e.fail(pc, Reason::invalid_dereference, insn.src, access_detail(ptr, fixed, size, kStackSize));
    }
    out = RegState{};
    out.kind = RegKind::mixed;
    return true;
  }
  out = make_scalar(all_zero ? Scalar::constant(0) : Scalar::of_bytes(size));
  return true;
}

// The bytes of `v` below `all` (0xff, 0xffff or 0xffffffff), zero-extended:
// v itself when its low half fits, else what its tnum knows of those bits.
Scalar low_bytes(const Scalar& v, uint64_t all) {
  const Scalar z = zext32(v);
  if (all == UINT32_MAX || z.umax <= all) return z;
  return Scalar::from_tnum(Tnum{v.bits.value & all, v.bits.mask & all});
}

bool stack_store(Engine& e, State*& s, const Insn& insn, const RegState& ptr, uint32_t size,
                 const RegState* value, uint32_t pc) {
  const int64_t fixed = int64_t{ptr.off} + insn.offset;
  Range r;
  if (!stack_bounds(e, *s, insn.dst, ptr, fixed, size, r, pc)) return false;
  const bool is_pointer = value != nullptr && value->kind != RegKind::scalar;
  if (e.guards != nullptr) {
    // Spectre v4 (Linux check_stack_write_fixed_off, sanitize_stack_spill):
    // a load may speculatively bypass this store and read what it
    // replaces. Harmless only when a scalar replaces plain data.
    bool barrier = is_pointer || !ptr.value.is_const() || !ptr.var_is_zero();
    const uint8_t* tags = s->frames()[ptr.frame].tags;
    for (int64_t i = r.lo; !barrier && i < r.hi; ++i) {
      const uint8_t tag = tags[i + kStackSize];
      barrier = tag != kTagData && tag != kTagZero;
    }
    if (barrier) note_barrier(e, pc);
  }
  if (is_pointer && value->kind == RegKind::stack && ptr.frame + 1u != s->frame_count) {
    // "cannot spill pointers to stack into stack frame of the caller"
    return e.fail(pc, Reason::pointer_leak, insn.src, access_detail(ptr, fixed, size, kStackSize));
  }
  if (!ptr.value.is_const() || !ptr.var_is_zero()) {
    if (is_pointer && !e.options.privileged) {
      return e.fail(pc, Reason::pointer_leak, insn.src, access_detail(ptr, fixed, size, kStackSize));
    }
    const bool zero = value == nullptr ? insn.imm == 0 : value->is_null();
    return stack_write_range(e, *s, insn.dst, ptr, r, zero, false, pc);
  }
  const int64_t index = r.lo + kStackSize;
  const uint32_t slot = static_cast<uint32_t>(index / 8);
  if (size == 8) {
    // A whole aligned slot: the register is kept as it is (spilled).
    RegState spilled = value != nullptr ? *value
                                        : make_scalar(Scalar::constant(static_cast<uint64_t>(insn.imm)));
    Spill* spill = s->find_spill(ptr.frame, slot);
    if (spill == nullptr) {
      if (!e.pool.reserve_spill(s)) return e.oom(pc);
      spill = s->add_spill(ptr.frame, slot);
    }
    spill->narrow = 0;
    spill->reg = spilled;
    note_stack_write(s->frames()[ptr.frame], slot * 8);
    std::memset(s->frames()[ptr.frame].tags + slot * 8, kTagSpill, 8);
    return true;
  }
  if (is_pointer) {
    // "invalid size of register spill"
    return e.fail(pc, Reason::invalid_dereference, insn.src, access_detail(ptr, fixed, size, kStackSize));
  }
  const bool zero = value == nullptr ? insn.imm == 0 : value->is_null();
  if (!stack_write_range(e, *s, insn.dst, ptr, r, zero, true, pc)) return false;
  // check_stack_write_fixed_off: with CAP_BPF, a 1-, 2- or 4-byte store of
  // a bounded, non-NULL scalar register at the start of a slot is kept as a
  // spill of that size (save_register_state), which a fill of the same
  // offset and size reads back with its bounds. keel keeps what the bytes
  // hold: the register's low `size` bytes, zero-extended, which is the
  // register itself when its umax < 2^(8 * size) and the truncated value's
  // bounds otherwise (6.1 keeps the whole register, which a fill does not
  // get back when its value does not fit in the store).
  if (index % 8 != 0 || value == nullptr || zero || !e.options.privileged) return true;
  const uint64_t all = size == 4 ? uint64_t{UINT32_MAX} : (uint64_t{1} << (8 * size)) - 1;
  const Scalar low = low_bytes(value->value, all);
  if (low.umin == 0 && low.umax == all && (low.bits.mask & all) == all) return true;  // nothing known
  if (!e.pool.reserve_spill(s)) return e.oom(pc);
  Spill* spill = s->add_spill(ptr.frame, slot);  // none there: stack_write_range decayed it
  spill->narrow = static_cast<uint8_t>(size);
  spill->reg = make_scalar(low);
  note_stack_write(s->frames()[ptr.frame], slot * 8);
  std::memset(s->frames()[ptr.frame].tags + slot * 8, kTagSpill, size);
  return true;
}

// ---- Context ------------------------------------------------------------------

const CtxField* find_field(const ProgramType& type, int64_t off, uint32_t size) {
  for (uint32_t i = 0; i < type.field_count; ++i) {
    const CtxField& f = type.fields[i];
    if (off >= f.offset && off + size <= int64_t{f.offset} + f.size) return &f;
  }
  return nullptr;
}

bool ctx_access(Engine& e, uint32_t reg, const RegState& ptr, int64_t insn_off, uint32_t size,
                bool write, uint32_t pc, RegState* out) {
  const int64_t off = int64_t{ptr.off} + insn_off;
  Detail d = access_detail(ptr, off, size, e.type.ctx_size);
  if (e.type.ctx_is_plain_memory) {
    Range r;
    if (!bytes_of(ptr, off, size, r) || r.lo < 0 || r.hi > int64_t{e.type.ctx_size}) {
      return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
    }
    if (out != nullptr) *out = make_scalar(Scalar::of_bytes(size));
    return true;
  }
  if (ptr.off != 0 || !ptr.var_is_zero()) {
    // "dereference of modified ctx ptr" / "variable ctx access var_off=... disallowed"
    return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
  }
  const CtxField* f = find_field(e.type, off, size);
  const uint8_t bit = static_cast<uint8_t>(size);  // 1, 2, 4, 8 are the mask bits
  if (f == nullptr || off % size != 0 || (f->privileged && !e.options.privileged)) {
    return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
  }
  if (write) {
    if ((f->write_sizes & bit) == 0 || (f->write_privileged && !e.options.privileged)) {
      return e.fail(pc, f->write_sizes == 0 ? Reason::read_only_write : Reason::ctx_bad_access,
                    static_cast<int32_t>(reg), d);
    }
    return true;
  }
  if ((f->read_sizes & bit) == 0 || (f->narrow_at_start && size != f->size && off != f->offset)) {
    return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
  }
  if (out != nullptr) {
    switch (f->yields) {
      case CtxYield::scalar: *out = make_scalar(Scalar::of_bytes(size)); break;
      case CtxYield::packet:
        if (off != f->offset || size != f->size) return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
        *out = make_pointer(RegKind::packet);
        break;
      case CtxYield::packet_end:
        if (off != f->offset || size != f->size) return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
        *out = make_pointer(RegKind::packet_end);
        break;
      case CtxYield::packet_meta:
        if (off != f->offset || size != f->size) return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
        *out = make_pointer(RegKind::packet_meta);
        break;
      case CtxYield::sock_common_or_null:
        if (off != f->offset || size != f->size) return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
        *out = make_pointer(RegKind::sock_common_or_null);  // not acquired: nothing to release
        break;
      case CtxYield::sock:
        if (off != f->offset || size != f->size) return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
        *out = make_pointer(RegKind::sock);  // the context's own socket: not acquired
        break;
      case CtxYield::btf_ptr:
      case CtxYield::btf_ptr_or_null:
        if (off != f->offset || size != f->size) return e.fail(pc, Reason::ctx_bad_access, static_cast<int32_t>(reg), d);
        *out = make_pointer(f->yields == CtxYield::btf_ptr ? RegKind::btf_ptr : RegKind::btf_ptr_or_null, f->btf_type);
        if (f->yields == CtxYield::btf_ptr_or_null) out->id = e.fresh_id();
        break;
    }
  }
  return true;
}

// ---- Sockets --------------------------------------------------------------------
//
// struct bpf_sock and struct bpf_tcp_sock (uapi bpf.h) as Linux 6.1 lets a
// program read them through a socket pointer (check_sock_access with
// bpf_sock_is_valid_access, bpf_sock_common_is_valid_access,
// bpf_tcp_sock_is_valid_access in net/core/filter.c): aligned loads only;
// the fields Linux lists by offset narrow only at their start, the address
// fields narrow anywhere, the others exactly 4 bytes. The first field that
// contains an access decides (dst_port, a __be16 before 2 bytes of padding,
// takes 1 or 2 bytes in its own 2 bytes and 4 only as a whole).

constexpr uint8_t kB = 1, kH = 2, kW = 4, kDW = 8, kNarrow = kB | kH | kW;

constexpr CtxField sock_field(uint16_t offset, uint16_t size, uint8_t reads, bool at_start = false) {
  CtxField f{};
  f.offset = offset;
  f.size = size;
  f.read_sizes = reads;
  f.narrow_at_start = at_start;
  return f;
}

// bound_dev_if, family, type, protocol, mark, priority, src_ip4, src_ip6,
// src_port, dst_port, dst_ip4, dst_ip6, state, rx_queue_mapping.
#define KEEL_SOCK_HEAD sock_field(0, 4, kW), sock_field(4, 4, kNarrow, true)
#define KEEL_SOCK_TAIL                                                                              \
  sock_field(24, 4, kNarrow), sock_field(28, 16, kNarrow), sock_field(44, 4, kNarrow, true),        \
      sock_field(48, 2, kB | kH), sock_field(48, 4, kW), sock_field(52, 4, kNarrow),                \
      sock_field(56, 16, kNarrow), sock_field(72, 4, kNarrow, true), sock_field(76, 4, kNarrow, true)
constexpr CtxField kSockFields[] = {
    KEEL_SOCK_HEAD,       sock_field(8, 4, kNarrow, true), sock_field(12, 4, kNarrow, true),
    sock_field(16, 4, kW), sock_field(20, 4, kW),           KEEL_SOCK_TAIL,
};
// A sock_common (a request or time-wait socket, say) has no type, protocol,
// mark or priority: bytes 8-23 are off limits.
constexpr CtxField kSockCommonFields[] = {KEEL_SOCK_HEAD, KEEL_SOCK_TAIL};
#undef KEEL_SOCK_HEAD
#undef KEEL_SOCK_TAIL
// 20 __u32 counters, bytes_received and bytes_acked (__u64), 4 more __u32
// (to icsk_retransmits). A 4-byte load of half a __u64 is refused (Linux's
// check lets it through but has no rewrite for it).
constexpr CtxField kTcpSockFields[] = {sock_field(0, 80, kW), sock_field(80, 16, kDW), sock_field(96, 16, kW)};

template <size_t N>
constexpr uint32_t count_of(const CtxField (&)[N]) {
  return static_cast<uint32_t>(N);
}

bool sock_access(Engine& e, uint32_t reg, const RegState& ptr, int64_t insn_off, uint32_t size,
                 bool write, uint32_t pc) {
  const CtxField* fields = ptr.kind == RegKind::sock ? kSockFields
                           : ptr.kind == RegKind::tcp_sock ? kTcpSockFields
                                                           : kSockCommonFields;
  const uint32_t count = ptr.kind == RegKind::sock       ? count_of(kSockFields)
                         : ptr.kind == RegKind::tcp_sock ? count_of(kTcpSockFields)
                                                         : count_of(kSockCommonFields);
  const int64_t off = int64_t{ptr.off} + insn_off;
  const uint32_t end = ptr.kind == RegKind::tcp_sock ? 112 : 80;  // sizeof the uapi structure
  const Detail d = access_detail(ptr, off, size, end);
  const int32_t r = static_cast<int32_t>(reg);
  if (write) return e.fail(pc, Reason::read_only_write, r, d);  // "cannot write into sock"
  if (!ptr.var_is_zero() || off < 0 || off % size != 0) return e.fail(pc, Reason::sock_bad_access, r, d);
  for (uint32_t i = 0; i < count; ++i) {
    const CtxField& f = fields[i];
    if (off < f.offset || off + size > int64_t{f.offset} + f.size) continue;
    const bool narrow_ok = !f.narrow_at_start || size == f.size || off == f.offset;
    if ((f.read_sizes & size) != 0 && narrow_ok) return true;
    break;
  }
  return e.fail(pc, Reason::sock_bad_access, r, d);
}

// ---- Map values, packets, helper memory ------------------------------------------

bool region_access(Engine& e, State*& s, uint32_t reg, const RegState& ptr, int64_t insn_off,
                   uint64_t size, Access access, bool helper, bool packet_ok, uint32_t pc) {
  const int64_t fixed = int64_t{ptr.off} + insn_off;
  const uint32_t sz = static_cast<uint32_t>(size > 0xffffffffu ? 0xffffffffu : size);
  const int32_t r = static_cast<int32_t>(reg);
  const bool write = access == Access::write;
  Range range{};
  switch (ptr.kind) {
    case RegKind::stack: {
      if (!stack_bounds(e, *s, reg, ptr, fixed, size, range, pc)) return false;
      if (!write) return stack_read_range(e, *s, reg, ptr, range, pc);
      const bool exact = ptr.value.is_const() && ptr.var_is_zero();
      return stack_write_range(e, *s, reg, ptr, range, false, exact, pc);
    }
    case RegKind::map_value: {
      const MapDescriptor& map = e.options.maps[ptr.region];
      Detail d = access_detail(ptr, fixed, sz, map.value_size);
      if (!bytes_of(ptr, fixed, size, range) || range.lo < 0 || range.hi > int64_t{map.value_size}) {
        return e.fail(pc, Reason::map_value_out_of_bounds, r, d);
      }
      // dev_map_init_map() forces BPF_F_RDONLY_PROG: a devmap lookup points
      // straight at the device's ifindex.
      const bool devmap = map.type == MapType::devmap || map.type == MapType::devmap_hash;
      if (write && (map.read_only || devmap)) return e.fail(pc, Reason::read_only_write, r, d);
      if (!write && map.write_only) return e.fail(pc, Reason::write_only_read, r, d);
      return true;
    }
    case RegKind::mem: {
      Detail d = access_detail(ptr, fixed, sz, ptr.region);
      if (!bytes_of(ptr, fixed, size, range) || range.lo < 0 || range.hi > int64_t{ptr.region}) {
        return e.fail(pc, Reason::memory_out_of_bounds, r, d);
      }
      return true;
    }
    case RegKind::packet:
    case RegKind::packet_meta: {
      Detail d = access_detail(ptr, fixed, sz, static_cast<uint32_t>(ptr.range));
      if (!packet_ok) return e.fail(pc, Reason::packet_out_of_bounds, r, d);
      if (write && !e.type.packet_writable) return e.fail(pc, Reason::read_only_write, r, d);
      // check_packet_access: the variable part must be non-negative, the
      // fixed part inside the range proven for this pointer's base.
      if (ptr.value.smin < 0 || ptr.value.smax > kMaxPacketOff || fixed < 0 ||
          fixed + static_cast<int64_t>(size) > ptr.range) {
        return e.fail(pc, Reason::packet_out_of_bounds, r, d);
      }
      return true;
    }
    case RegKind::ctx:
      if (helper) return e.fail(pc, Reason::helper_argument, r, access_detail(ptr, fixed, sz, 0));
      return ctx_access(e, reg, ptr, insn_off, sz, write, pc, nullptr);
    case RegKind::sock_common:
    case RegKind::sock:
    case RegKind::tcp_sock:
      if (helper) return e.fail(pc, Reason::helper_argument, r, access_detail(ptr, fixed, sz, 0));
      return sock_access(e, reg, ptr, insn_off, sz, write, pc);
    case RegKind::btf_ptr:
      return btf_ptr_access(e, reg, ptr, insn_off, sz, write, helper, pc, nullptr);
    case RegKind::btf_ptr_or_null:
    case RegKind::map_value_or_null:
    case RegKind::mem_or_null:
    case RegKind::map_ptr_or_null:
    case RegKind::sock_common_or_null:
    case RegKind::sock_or_null:
    case RegKind::tcp_sock_or_null:
      return e.fail(pc, Reason::null_dereference, r, access_detail(ptr, fixed, sz, 0));
    case RegKind::scalar:
    case RegKind::mixed:
      // (A scalar's `off` is no offset: the delta of its link, reg_state.h.)
      if (ptr.ref != 0) {
        // A copy of a pointer whose reference was released (release_reference
        // turns them into unknown scalars): name the cause.
        Detail d = access_detail(ptr, insn_off, sz, pc_of_ref(ptr.ref));
        return e.fail(pc, Reason::use_after_release, r, d);
      }
      if (helper) return e.fail(pc, Reason::helper_argument, r, access_detail(ptr, insn_off, sz, 0));
      return e.fail(pc, Reason::scalar_dereference, r, access_detail(ptr, insn_off, sz, 0));
    case RegKind::uninit:
      return e.fail(pc, Reason::uninit_register, r);
    default:
      if (helper) return e.fail(pc, Reason::helper_argument, r, access_detail(ptr, fixed, sz, 0));
      return e.fail(pc, Reason::invalid_dereference, r, access_detail(ptr, fixed, sz, 0));
  }
}

// A load at a known offset of a frozen read-only map reads the constant
// there (Linux check_mem_access: "if map is read-only, track its contents
// as scalars"). region_access has checked the bytes are inside the value.
void frozen_read(const Engine& e, const RegState& ptr, int64_t insn_off, uint32_t size,
                 RegState& out) {
  const uint8_t* bytes = e.options.maps[ptr.region].frozen_value;
  if (bytes == nullptr || !ptr.value.is_const()) return;
  const int64_t at = int64_t{ptr.off} + insn_off + static_cast<int64_t>(ptr.value.bits.value);
  uint64_t v = 0;
  for (uint32_t i = 0; i < size; ++i) v |= uint64_t{bytes[at + i]} << (8 * i);  // little-endian
  out = make_scalar(Scalar::constant(v));
}

// Linux rewrites each context access for the kernel's own layout
// (convert_ctx_accesses), so one load or store may not reach the context
// on one path and other memory on another (do_check: "same insn cannot be
// used with different pointers"). keel analyses such paths apart (path
// partitions, a callee per call site), so it records per pc which kinds
// each access used.
bool note_access(Engine& e, const RegState& ptr, uint32_t reg, uint32_t pc) {
  if (e.access_kinds == nullptr || !ptr.is_pointer() || e.type.ctx_is_plain_memory) return true;
  uint8_t& seen = e.access_kinds[pc];
  seen = static_cast<uint8_t>(seen | (ptr.kind == RegKind::ctx ? 1u : 2u));
  if (seen != 3) return true;
  return e.fail(pc, Reason::ctx_mixed_access, static_cast<int32_t>(reg), Detail{.kind = static_cast<uint8_t>(ptr.kind)});
}

bool check_alignment(Engine& e, const RegState& ptr, int64_t insn_off, uint32_t size, uint32_t reg,
                     uint32_t pc, bool always = false) {
  int64_t fixed = int64_t{ptr.off} + insn_off;
  bool strict = e.options.strict_alignment || always;
  if (ptr.kind == RegKind::stack) strict = true;  // always, in Linux (check_ptr_alignment)
  if (ptr.kind == RegKind::packet || ptr.kind == RegKind::packet_meta) fixed += 2;  // NET_IP_ALIGN
  if (!strict || aligned(ptr, fixed, size)) return true;
  return e.fail(pc, Reason::misaligned_access, static_cast<int32_t>(reg),
                access_detail(ptr, int64_t{ptr.off} + insn_off, size, 0));
}

}  // namespace

void invalidate_packet_pointers(State& s) {
  auto clear = [](RegState& r) {
    if (r.kind == RegKind::packet || r.kind == RegKind::packet_end || r.kind == RegKind::packet_meta) {
      r = make_scalar(Scalar::unknown());
    }
  };
  for (uint32_t f = 0; f < s.frame_count; ++f) {
    for (RegState& r : s.frames()[f].regs) clear(r);
  }
  for (uint32_t i = 0; i < s.spill_count; ++i) clear(s.spills()[i].reg);
}

bool check_memory_arg(Engine& e, State*& s, uint32_t reg, uint64_t size_max, Access access,
                      bool packet_ok, uint32_t pc) {
  const RegState ptr = s->regs()[reg];
  if (ptr.kind == RegKind::stack && !(ptr.value.is_const()) && !e.options.privileged) {
    return e.fail(pc, Reason::variable_stack_access, static_cast<int32_t>(reg));
  }
  return region_access(e, s, reg, ptr, 0, size_max, access, true, packet_ok, pc);
}

bool check_memory_store(Engine& e, State*& s, uint32_t reg, uint64_t size_min, uint64_t size_max,
                        bool zero, bool packet_ok, uint32_t pc) {
  const RegState ptr = s->regs()[reg];
  if (ptr.kind != RegKind::stack) return check_memory_arg(e, s, reg, size_max, Access::write, packet_ok, pc);
  if (!ptr.value.is_const() && !e.options.privileged) {
    return e.fail(pc, Reason::variable_stack_access, static_cast<int32_t>(reg));
  }
  Range r;
  if (!stack_bounds(e, *s, reg, ptr, ptr.off, size_max, r, pc)) return false;
  // Bytes past size_min may stay unwritten, so they keep "uninitialized"
  // (Linux instead wants them initialized before a variable-size helper
  // write: check_mem_size_reg turns raw mode off).
  if (!stack_write_range(e, *s, reg, ptr, r, zero, false, pc)) return false;
  if (size_min == 0 || !ptr.var_is_zero()) return true;
  return stack_write_range(e, *s, reg, ptr, Range{r.lo, r.lo + static_cast<int64_t>(size_min)}, zero,
                           true, pc);
}

bool step_load(Engine& e, State*& s, const Insn& insn, uint32_t pc) {
  if (!check_init(e, *s, insn.src, pc)) return false;
  const RegState ptr = s->regs()[insn.src];
  const uint32_t size = size_of(insn.op);
  RegState out = make_scalar(Scalar::of_bytes(size));
  if (!note_access(e, ptr, insn.src, pc)) return false;
  if (ptr.is_pointer() && !check_alignment(e, ptr, insn.offset, size, insn.src, pc)) return false;
  if (ptr.kind == RegKind::stack) {
    if (!stack_load(e, *s, insn, ptr, size, pc, out)) return false;
  } else if (ptr.kind == RegKind::ctx) {
    if (!ctx_access(e, insn.src, ptr, insn.offset, size, false, pc, &out)) return false;
  } else if (ptr.kind == RegKind::btf_ptr) {
    if (!btf_ptr_access(e, insn.src, ptr, insn.offset, size, false, false, pc, &out)) return false;
  } else {
    if (!region_access(e, s, insn.src, ptr, insn.offset, size, Access::read, false,
                       e.type.direct_packet_access, pc)) {
      return false;
    }
    if (ptr.kind == RegKind::map_value) frozen_read(e, ptr, insn.offset, size, out);
  }
  if (op_info(insn.op).extend != 0) {  // ldxs*: sign-extending (RFC 9669 §5.2)
    if (out.kind != RegKind::scalar) return e.fail(pc, Reason::invalid_dereference, insn.src);
    out.value = movsx(Width::w64, size * 8, out.value);
    out.id = 0;
  }
  set_reg(*s, insn.dst, out);
  return true;
}

bool step_store(Engine& e, State*& s, const Insn& insn, uint32_t pc) {
  const bool from_reg = op_class(insn.op) == OpClass::store_reg;
  if (!check_init(e, *s, insn.dst, pc)) return false;
  if (from_reg && !check_init(e, *s, insn.src, pc)) return false;
  const RegState ptr = s->regs()[insn.dst];
  const RegState value = from_reg ? s->regs()[insn.src] : RegState{};
  const uint32_t size = size_of(insn.op);
  if (!note_access(e, ptr, insn.dst, pc)) return false;
  if (ptr.is_pointer() && !check_alignment(e, ptr, insn.offset, size, insn.dst, pc)) return false;
  const bool value_is_pointer = from_reg && value.kind != RegKind::scalar;
  if (ptr.kind == RegKind::stack) {
    if (from_reg && size == 8 && value.kind == RegKind::scalar && value.id == 0 && links_copies(value)) {
      // The spilled copy and the register are linked, as a register copy
      // is (Linux 6.8+ assigns an id on a scalar spill for this): a bound
      // proven on the register after the spill holds for what a fill reads.
      start_link(e, s->regs()[insn.src]);
      const RegState linked = s->regs()[insn.src];
      return stack_store(e, s, insn, ptr, size, &linked, pc);
    }
    return stack_store(e, s, insn, ptr, size, from_reg ? &value : nullptr, pc);
  }
  if (from_reg && value.holds_ref()) {
    // A copy outside registers and stack would escape the release that
    // invalidates every copy (privileged Linux lets the bits be stored; the
    // stored copy is then only a number). keel refuses it: design.md.
    Detail d;
    d.kind = static_cast<uint8_t>(value.kind);
    d.limit = pc_of_ref(value.ref);
    return e.fail(pc, Reason::reference_store, insn.src, d);
  }
  if (value_is_pointer && !e.options.privileged) {
    // "R%d leaks addr into map/ctx/packet/mem"
    return e.fail(pc, Reason::pointer_leak, insn.src, Detail{.kind = static_cast<uint8_t>(value.kind)});
  }
  if (ptr.kind == RegKind::ctx) {
    if (!from_reg && !e.type.ctx_is_plain_memory) {
      // "BPF_ST stores into R%d ctx is not allowed"
      return e.fail(pc, Reason::ctx_bad_access, insn.dst, access_detail(ptr, insn.offset, size, e.type.ctx_size));
    }
    return ctx_access(e, insn.dst, ptr, insn.offset, size, true, pc, nullptr);
  }
  return region_access(e, s, insn.dst, ptr, insn.offset, size, Access::write, false,
                       e.type.direct_packet_access, pc);
}

bool step_atomic(Engine& e, State*& s, const Insn& insn, uint32_t pc) {
  if (!check_init(e, *s, insn.dst, pc) || !check_init(e, *s, insn.src, pc)) return false;
  // RFC 9669 §5.3: FETCH (and XCHG) give the old value back in src, CMPXCHG in r0.
  const OpInfo& info = op_info(insn.op);
  const uint32_t size = info.size;
  const bool cmpxchg = info.atomic == AtomicKind::cmpxchg;
  const bool fetch = info.atomic != AtomicKind::plain;
  if (cmpxchg && !check_init(e, *s, 0, pc)) return false;
  const RegState ptr = s->regs()[insn.dst];
  const RegState value = s->regs()[insn.src];
  if (value.holds_ref()) {
    Detail d;
    d.kind = static_cast<uint8_t>(value.kind);
    d.limit = pc_of_ref(value.ref);
    return e.fail(pc, Reason::reference_store, insn.src, d);
  }
  if (value.kind != RegKind::scalar && !e.options.privileged) {
    return e.fail(pc, Reason::pointer_leak, insn.src, Detail{.kind = static_cast<uint8_t>(value.kind)});
  }
  if (cmpxchg && s->regs()[0].kind != RegKind::scalar && !e.options.privileged) {
    return e.fail(pc, Reason::pointer_leak, 0);
  }
  // "BPF_ATOMIC stores into R%d %s is not allowed" for ctx and packets; the
  // operand must be a value (no pointer arithmetic in memory).
  const bool plain_ctx = ptr.kind == RegKind::ctx && e.type.ctx_is_plain_memory;
  if (ptr.kind != RegKind::stack && ptr.kind != RegKind::map_value && ptr.kind != RegKind::mem &&
      !plain_ctx) {
    const Reason reason = ptr.kind == RegKind::scalar ? Reason::scalar_dereference
                          : ptr.maybe_null()          ? Reason::null_dereference
                                                      : Reason::invalid_dereference;
    return e.fail(pc, reason, insn.dst, access_detail(ptr, insn.offset, size, 0));
  }
  // Atomics are always checked strictly (check_atomic: strict_alignment_once).
  if (!check_alignment(e, ptr, insn.offset, size, insn.dst, pc, true)) return false;
  RegState fetched = make_scalar(Scalar::of_bytes(size));
  if (ptr.kind == RegKind::stack) {
    Insn load = insn;
    load.src = insn.dst;
    RegState old;
    if (!stack_load(e, *s, load, ptr, size, pc, old)) return false;
    if (old.kind != RegKind::scalar && !e.options.privileged) {
      // An atomic on a spilled pointer turns it into a number (a leak).
      return e.fail(pc, Reason::pointer_leak, insn.dst, access_detail(ptr, insn.offset, size, 0));
    }
    // The fetched value is the slot's old one, read as a load of that size
    // reads it (Linux 6.1 check_atomic: the second check_mem_access
    // "simulate[s] the register fill" into load_reg), without its copy link.
    if (old.kind == RegKind::scalar) fetched = make_scalar(old.value);
    const RegState unknown = make_scalar(Scalar::unknown());
    if (!stack_store(e, s, insn, ptr, size, &unknown, pc)) return false;
  } else {
    if (!region_access(e, s, insn.dst, ptr, insn.offset, size, Access::read, false, false, pc)) return false;
    if (!region_access(e, s, insn.dst, ptr, insn.offset, size, Access::write, false, false, pc)) return false;
  }
  if (fetch) set_reg(*s, cmpxchg ? 0 : insn.src, fetched);
  return true;
}

}  // namespace keel
