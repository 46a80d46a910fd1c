// Transfer functions of the ALU class and lddw: scalars go through the
// domain (domain/scalar.h); pointer arithmetic follows Linux 6.1's rules
// (kernel/bpf/verifier.c adjust_ptr_min_max_vals and check_alu_op), which
// say which kinds may move by how much.
#include <cstring>

#include "analysis/constants.h"
#include "analysis/engine.h"

namespace keel {

bool Engine::fail(uint32_t pc, Reason reason, int32_t reg, Detail detail) {
  if (verdict.reason == Reason::ok) {
    verdict.reason = reason;
    verdict.pc = pc;
    verdict.detail = detail;
    if (reg >= 0) verdict.detail.reg = reg;
  }
  return false;
}

bool check_init(Engine& e, const State& s, uint32_t reg, uint32_t pc) {
  const RegState& r = s.top().regs[reg];
  if (r.kind != RegKind::uninit) return true;
  if (r.ref != 0) {
    // Unprivileged Linux un-initializes the copies of a released pointer
    // (release_reference); say why the register is unusable.
    Detail d;
    d.limit = pc_of_ref(r.ref);
    return e.fail(pc, Reason::use_after_release, static_cast<int32_t>(reg), d);
  }
  return e.fail(pc, Reason::uninit_register, static_cast<int32_t>(reg));
}

namespace {

// What a linked scalar's value says about B + `delta` of its class (Link,
// reg_state.h): either all 64 bits (`wide`) or only the low half, as a
// zero-extended value. Every step is one of the domain's sound operations,
// so a delta that makes the sum wrap costs precision, never soundness.
struct ClassValue {
  Scalar value;
  bool wide;
};

ClassValue class_value(const RegState& r, int32_t delta) {
  const Scalar shift = Scalar::constant(static_cast<uint64_t>(int64_t{delta} - r.off));
  switch (r.link) {
    case Link::same:
      return {alu(AluOp::add, Width::w64, r.value, shift), true};
    case Link::zext32:
      return {alu(AluOp::add, Width::w32, r.value, shift), false};
    case Link::shl32:
      return {alu(AluOp::add, Width::w32, alu(AluOp::rsh, Width::w64, r.value, Scalar::constant(32)), shift),
              false};
  }
  return {Scalar::unknown(), true};
}

// Narrows `value` to the values equal to one of `to` (in all 64 bits, or in
// the low halves): the domain's own refinement of `==` (refine_equal is
// that refinement in 64 bits, faster where `to` lies within `value`).
bool meet(Scalar& value, const Scalar& to, Width w) {
  if (w == Width::w64) return refine_equal(value, to);
  Scalar other = to;
  return refine(JmpOp::jeq, w, true, value, other);
}

// Narrows linked scalar `r` given B + r.off of its class.
bool narrow_linked(RegState& r, const ClassValue& x) {
  switch (r.link) {
    case Link::same:
      return meet(r.value, x.value, x.wide ? Width::w64 : Width::w32);
    case Link::zext32:
      return meet(r.value, x.wide ? zext32(x.value) : x.value, Width::w64);
    case Link::shl32:
      return meet(r.value, alu(AluOp::lsh, Width::w64, zext32(x.value), Scalar::constant(32)), Width::w64);
  }
  return true;
}

}  // namespace

// Linux find_equal_scalars (6.1: plain copies; later kernels' sync_linked_regs
// add `+= c`): a copy learns what a branch proved of the register it copies.
bool propagate_scalar(State& s, const RegState& reg) {
  if (reg.kind != RegKind::scalar || reg.id == 0) return true;
  const RegState from = reg;  // `reg` may be one of the registers narrowed below
  ClassValue cached_class{Scalar::unknown(), true};
  int32_t class_off = 0;
  bool have_class = false;
  auto narrow = [&](RegState& r) {
    if (r.kind != RegKind::scalar || r.id != from.id) return true;
    // A copy that already holds the proven value (the refined register
    // itself, always) is left as it is: meet is idempotent, as join is
    // (lattice.cc, join_same), where refine_equal would reduce it again.
    if (r.link == from.link && r.off == from.off) return r.value == from.value || meet(r.value, from.value, Width::w64);
    // class_value is a function of `from` and the offset alone: copies at
    // the same offset (a register and its spill) share one.
    if (!have_class || class_off != r.off) {
      cached_class = class_value(from, r.off);
      class_off = r.off;
      have_class = true;
    }
    return narrow_linked(r, cached_class);
  };
  for (uint32_t f = 0; f < s.frame_count; ++f) {
    for (RegState& r : s.frames()[f].regs) {
      if (!narrow(r)) return false;
    }
  }
  for (uint32_t i = 0; i < s.spill_count; ++i) {
    if (!narrow(s.spills()[i].reg)) return false;
  }
  return true;
}

namespace {

// Whether `dst OP= src` (src a constant) leaves dst's value a known function
// of its class's B (Link), and which: then dst keeps its id, else the
// result shares nothing. The delta is an int32 (Linux keeps its delta in
// the s32 reg->off too); a sum that does not fit ends the link.
bool follow_link_const(Alu op, bool is64, const RegState& dst, uint64_t c, Link& link, int32_t& delta) {
  if (dst.id == 0 || dst.kind != RegKind::scalar) return false;
  switch (op) {
    case Alu::add:
    case Alu::sub:
      if (is64) {
        // f(B + d) + c is f(B + d + c) only for f = identity.
        if (dst.link != Link::same) return false;
        const auto cc = static_cast<int64_t>(c);
        if (cc < INT32_MIN || cc > INT32_MAX) return false;
        const int64_t next = op == Alu::add ? int64_t{dst.off} + cc : int64_t{dst.off} - cc;
        if (next < INT32_MIN || next > INT32_MAX) return false;
        link = Link::same;
        delta = static_cast<int32_t>(next);
        return true;
      }
      // ALU32: the low half of dst is that of B + d (same, zext32), so the
      // zero-extended 32-bit sum is zext32(B + d + c); deltas of zext32
      // links count modulo 2^32.
      if (dst.link == Link::shl32) return false;
      link = Link::zext32;
      delta = static_cast<int32_t>(op == Alu::add ? static_cast<uint32_t>(dst.off) + static_cast<uint32_t>(c)
                                                  : static_cast<uint32_t>(dst.off) - static_cast<uint32_t>(c));
      return true;
    case Alu::lsh:
      // (B + d) << 32 for same, and for zext32 (the upper half is shifted out).
      if (!is64 || (c & 63) != 32 || dst.link == Link::shl32) return false;
      link = Link::shl32;
      delta = dst.off;
      return true;
    case Alu::rsh:
      // ((B + d) << 32) >> 32 is the zero-extended low half of B + d.
      if (!is64 || (c & 63) != 32 || dst.link != Link::shl32) return false;
      link = Link::zext32;
      delta = dst.off;
      return true;
    default:
      return false;
  }
}

bool follow_link(Alu op, bool is64, const RegState& dst, const RegState& src, Link& link, int32_t& delta) {
  return src.is_const() && follow_link_const(op, is64, dst, src.value.bits.value, link, delta);
}

RegState unknown_scalar() { return make_scalar(Scalar::unknown()); }

Detail with_bounds(const Scalar& v) {
  Detail d;
  d.min = v.smin;
  d.max = v.smax;
  return d;
}

// Unprivileged pointer arithmetic must leave a stack or map value pointer
// inside its object (Linux's Spectre v1 sanitizer, retrieve_ptr_limit: "%s
// pointer arithmetic goes out of range, prohibited for !root"): the stack
// pointer strictly below r10, the map value pointer below value_size.
bool unprivileged_limit_ok(const Engine& e, const RegState& r) {
  const int64_t lo = int64_t{r.off} + r.value.smin;
  const int64_t hi = int64_t{r.off} + static_cast<int64_t>(r.value.umax > uint64_t(kMaxVarOff) ? uint64_t(kMaxVarOff) : r.value.umax);
  if (r.kind == RegKind::stack) return lo >= -int64_t{kStackSize} && hi < 0;
  if (r.kind == RegKind::map_value && e.options.maps != nullptr && r.region < e.options.map_count) {
    return lo >= 0 && hi < int64_t{e.options.maps[r.region].value_size};
  }
  return true;
}

// Unprivileged pointer +/- a register (Linux sanitize_ptr_alu; only an
// immediate needs no mask): the pointer must be a stack or map value pointer
// (retrieve_ptr_limit), a variable scalar's signed bounds must not straddle
// zero ("unknown scalar with mixed signed bounds"), and run() masks the
// register to what the analysis proved, a constant included (Linux rewrites
// that one to an immediate): ADR 0015.
bool harden_pointer_arith(Engine& e, uint32_t pc, Alu op, bool dst_is_ptr, const RegState& ptr,
                          const RegState& off, const Detail& kind_detail) {
  const int32_t operand = dst_is_ptr ? -1 : 0;
  // The object's bytes relative to the pointer's base: a map value's
  // [0, size), the frame's [-512, 0).
  int64_t first = 0, last = 0;
  if (ptr.kind == RegKind::map_value && e.options.maps != nullptr && ptr.region < e.options.map_count) {
    last = int64_t{e.options.maps[ptr.region].value_size} - 1;
  } else if (ptr.kind == RegKind::stack) {
    first = -int64_t{kStackSize};
    last = -1;
  } else {
    return e.fail(pc, Reason::pointer_arithmetic, operand, kind_detail);  // REASON_TYPE
  }
  if (!off.value.is_const() && (off.value.smin < 0) != (off.value.smax < 0)) {
    Detail d = with_bounds(off.value);
    d.kind = kind_detail.kind;
    return e.fail(pc, Reason::pointer_arithmetic, operand, d);
  }
  if (e.guards == nullptr) return true;
  // Where the pointer may be, and the operands that keep it inside.
  const int64_t at_min = int64_t{ptr.off} + ptr.value.smin, at_max = int64_t{ptr.off} + ptr.value.smax;
  const bool adds = op == Alu::add;
  return note_pointer_operand(e, pc, off.value, !dst_is_ptr, adds ? first - at_min : at_max - last,
                              adds ? last - at_max : at_min - first);
}

bool pointer_arith(Engine& e, State& s, const Insn& insn, uint32_t pc, Alu op, bool is64, bool is_reg,
                   const RegState& dst, const RegState& src) {
  RegState* regs = s.regs();
  const int32_t d = insn.dst;
  const bool privileged = e.options.privileged;
  const bool harden = !privileged && is_reg;
  if (dst.kind == RegKind::mixed || src.kind == RegKind::mixed) {
    return e.fail(pc, Reason::pointer_arithmetic, d, Detail{.kind = static_cast<uint8_t>(RegKind::mixed)});
  }
  const bool both = dst.is_pointer() && src.is_pointer();
  if (both || !is64) {
    // ptr - ptr, and 32-bit arithmetic on a pointer, give meaningless
    // scalars: allowed only where pointer leaks are (allow_ptr_leaks).
    if (op == Alu::sub && privileged) {
      set_reg(s, insn.dst, unknown_scalar());
      if (!is64) regs[insn.dst].value = zext32(Scalar::unknown());
      return true;
    }
    return e.fail(pc, both ? Reason::pointer_arithmetic : Reason::pointer_arithmetic, d,
                  Detail{.kind = static_cast<uint8_t>(dst.is_pointer() ? dst.kind : src.kind)});
  }
  const bool dst_is_ptr = dst.is_pointer();
  const RegState& ptr = dst_is_ptr ? dst : src;
  const RegState& off = dst_is_ptr ? src : dst;
  Detail kind_detail;
  kind_detail.kind = static_cast<uint8_t>(ptr.kind);
  if (op != Alu::add && op != Alu::sub) return e.fail(pc, Reason::pointer_arithmetic, d, kind_detail);
  if (op == Alu::sub && !dst_is_ptr) return e.fail(pc, Reason::pointer_arithmetic, d, kind_detail);
  switch (ptr.kind) {
    case RegKind::map_value_or_null:
    case RegKind::mem_or_null:
    case RegKind::map_ptr_or_null:
    case RegKind::sock_common_or_null:
    case RegKind::sock_or_null:
    case RegKind::tcp_sock_or_null:
    case RegKind::btf_ptr_or_null:
      return e.fail(pc, Reason::null_dereference, d, kind_detail);
    case RegKind::map_ptr:
      // Only `+ 0`, and only privileged (unprivileged Linux: "pointer with
      // unsupported alu operation").
      if (op == Alu::add && off.is_null() && privileged) {
        set_reg(s, insn.dst, ptr);
        return true;
      }
      return e.fail(pc, Reason::pointer_arithmetic, d, kind_detail);
    case RegKind::packet_end:
    case RegKind::func:
    case RegKind::sock_common:  // "pointer arithmetic on sock prohibited"
    case RegKind::sock:
    case RegKind::tcp_sock:
      return e.fail(pc, Reason::pointer_arithmetic, d, kind_detail);
    case RegKind::stack:
      // "We don't allow subtraction from FP" (verifier.c, adjust_ptr_min_max_vals).
      if (op == Alu::sub) return e.fail(pc, Reason::pointer_arithmetic, d, kind_detail);
      break;
    default:
      break;
  }
  RegState r = ptr;
  if (off.is_const()) {
    const int64_t c = static_cast<int64_t>(off.value.bits.value);
    // The constant's range first: `-c` and `off + c` overflow (undefined)
    // for constants near INT64_MIN / INT64_MAX (found by fuzz_structured).
    const bool c_in_range = c < kMaxVarOff && c > -kMaxVarOff;
    const int64_t next = c_in_range ? int64_t{ptr.off} + (op == Alu::add ? c : -c) : 0;
    if (!c_in_range || next >= kMaxVarOff || next <= -kMaxVarOff) {
      Detail dd = kind_detail;
      dd.offset = c;
      return e.fail(pc, Reason::pointer_arithmetic, d, dd);
    }
    r.off = static_cast<int32_t>(next);
    if (!privileged && !unprivileged_limit_ok(e, r)) {
      Detail dd = kind_detail;
      dd.offset = next;
      return e.fail(pc, Reason::pointer_arithmetic, d, dd);
    }
    if (harden && !harden_pointer_arith(e, pc, op, dst_is_ptr, ptr, off, kind_detail)) return false;
    set_reg(s, insn.dst, r);
    return true;
  }
  // A variable offset (check_reg_sane_offset): the scalar's minimum must be
  // bounded, and the sum must stay inside Linux's pointer-offset window.
  if (off.value.smin == INT64_MIN || off.value.smin <= -kMaxVarOff) {
    Detail dd = with_bounds(off.value);
    dd.kind = static_cast<uint8_t>(ptr.kind);
    return e.fail(pc, Reason::pointer_arithmetic, d, dd);
  }
  if (ptr.kind == RegKind::stack && !privileged) {
    return e.fail(pc, Reason::variable_stack_access, d, with_bounds(off.value));
  }
  r.value = alu(op == Alu::add ? AluOp::add : AluOp::sub, Width::w64, ptr.value, off.value);
  if (r.value.smin <= -kMaxVarOff) {
    Detail dd = with_bounds(r.value);
    dd.kind = static_cast<uint8_t>(ptr.kind);
    return e.fail(pc, Reason::pointer_arithmetic, d, dd);
  }
  if (ptr.kind == RegKind::packet || ptr.kind == RegKind::packet_meta) {
    r.id = e.fresh_id();
    r.range = 0;
  }
  if (!privileged && !unprivileged_limit_ok(e, r)) {
    return e.fail(pc, Reason::pointer_arithmetic, d, with_bounds(r.value));
  }
  if (harden && !harden_pointer_arith(e, pc, op, dst_is_ptr, ptr, off, kind_detail)) return false;
  set_reg(s, insn.dst, r);
  return true;
}

}  // namespace

bool note_pointer_operand(Engine& e, uint32_t pc, const Scalar& off, bool operand_is_dst, int64_t window_min,
                          int64_t window_max) {
  GuardState& g = e.guards[pc];
  const uint8_t flag = operand_is_dst ? kGuardMaskDst : kGuardMaskSrc;
  const uint8_t masks = kGuardMaskSrc | kGuardMaskDst;
  Detail d;
  d.min = off.smin;
  d.max = off.smax;
  // Linux: "tried to add from different maps, paths or scalars" (REASON_PATHS).
  if (g.scalar_visit || (g.flags & masks & ~flag) != 0) {
    return e.fail(pc, Reason::pointer_arithmetic, operand_is_dst ? 0 : 1, d);
  }
  if ((g.flags & flag) == 0) {
    g = GuardState{off.smin, off.smax, off.smin, off.smax, window_min, window_max,
                   static_cast<uint8_t>(g.flags | flag), false};
  } else {
    g.mask_min = g.mask_min < off.smin ? g.mask_min : off.smin;
    g.mask_max = g.mask_max > off.smax ? g.mask_max : off.smax;
    g.common_min = g.common_min > off.smin ? g.common_min : off.smin;
    g.common_max = g.common_max < off.smax ? g.common_max : off.smax;
    g.window_min = g.window_min > window_min ? g.window_min : window_min;
    g.window_max = g.window_max < window_max ? g.window_max : window_max;
  }
  // Every architectural operand is in the mask, a masked one becomes
  // common_min (a value every visit proved safe), and any operand the mask
  // lets through keeps every visit's pointer inside its object.
  if (g.common_min > g.common_max || g.mask_min < g.window_min || g.mask_max > g.window_max) {
    d.min = g.mask_min;
    d.max = g.mask_max;
    return e.fail(pc, Reason::pointer_arithmetic, operand_is_dst ? 0 : 1, d);
  }
  return true;
}

// step_alu's scalar case for a scalar dst and an immediate src, without
// building src: the link the constant keeps, the fold of two constants,
// else `general`'s value (alu64_imm or shift_imm: alu() with that src).
// (Inlined into each of its two callers, which keeps their hot paths
// apart; one shared branch made every add cost more.)
template <typename General>
[[gnu::always_inline]] inline void scalar_with_imm(Alu op, bool is64, RegState& out, uint64_t c, General general) {
  Link link = Link::same;
  int32_t delta = 0;
  if (!follow_link_const(op, is64, out, c, link, delta)) out.id = 0;
  out.link = link;
  out.off = delta;
  uint64_t folded = 0;
  if (out.value.is_const() && fold_constant(op, is64, out.value.bits.value, c, folded)) {
    out.value = const_scalar(folded);
  } else {
    out.value = general(out.value, c);
  }
}

bool step_alu(Engine& e, State& s, const Insn& insn, uint32_t pc) {
  RegState* regs = s.regs();
  const OpInfo& info = op_info(insn.op);
  const int32_t d = insn.dst;
  if (!is_binary_alu(insn.op)) {
    // Unary: neg, movsx, byte swaps.
    const bool is_movsx = info.alu == Alu::movsx;
    const uint32_t source = is_movsx ? insn.src : insn.dst;
    if (!check_init(e, s, source, pc)) return false;
    const RegState& v = regs[source];
    if (v.kind != RegKind::scalar) {
      if (!e.options.privileged) {
        return e.fail(pc, Reason::pointer_leak, static_cast<int32_t>(source),
                      Detail{.kind = static_cast<uint8_t>(v.kind)});
      }
      set_reg(s, insn.dst, unknown_scalar());
      return true;
    }
    set_reg(s, insn.dst, make_scalar(alu(insn.op, v.value, v.value)));
    return true;
  }
  const Alu op = info.alu;
  const bool is64 = info.width == Width::w64;
  const bool is_reg = info.reads_src;
  if (!is_reg && e.options.linux_rules &&
      (op == Alu::lsh || op == Alu::rsh || op == Alu::arsh)) {
    // check_alu_op: "invalid shift %d" for an immediate >= the width.
    if (insn.imm < 0 || insn.imm >= (is64 ? 64 : 32)) {
      Detail dd;
      dd.offset = insn.imm;
      return e.fail(pc, Reason::unsupported_instruction, d, dd);
    }
  }
  if (!is_reg && e.options.linux_rules && insn.imm == 0 &&
      (op == Alu::div || op == Alu::mod || op == Alu::sdiv || op == Alu::smod)) {
    return e.fail(pc, Reason::division_by_zero);  // check_alu_op: "div by zero"
  }
  if (!is_reg && is64 && (op == Alu::add || op == Alu::sub) && regs[d].kind == RegKind::scalar) {
    // The scalar case at the end for an immediate src (the checks between
    // concern shifts, division, registers and pointers; check_init passes
    // an initialized dst), from the sign-extended imm.
    const AluOp add = op == Alu::add ? AluOp::add : AluOp::sub;
    scalar_with_imm(op, true, regs[d], static_cast<uint64_t>(insn.imm),
                    [add](const Scalar& v, uint64_t c) { return alu64_imm(add, v, c); });
    return true;
  }
  if (!is_reg && (op == Alu::lsh || op == Alu::rsh || op == Alu::arsh) && regs[d].kind == RegKind::scalar) {
    // The same for a shift by an immediate (the checks between concern
    // division, registers and pointers).
    const AluOp shift = op == Alu::lsh ? AluOp::lsh : op == Alu::rsh ? AluOp::rsh : AluOp::arsh;
    const Width width = info.width;
    scalar_with_imm(op, is64, regs[d], static_cast<uint64_t>(insn.imm),
                    [shift, width](const Scalar& v, uint64_t c) { return shift_imm(shift, width, v, c); });
    return true;
  }
  RegState src;
  if (is_reg) {
    if (!check_init(e, s, insn.src, pc)) return false;
    src = regs[insn.src];
  } else {
    src = make_scalar(const_scalar(static_cast<uint64_t>(insn.imm)));
  }
  if (op == Alu::mov) {
    if (is64) {
      if (is_reg && src.id == 0 && links_copies(src)) {
        start_link(e, regs[insn.src]);
        src = regs[insn.src];
      }
      set_reg(s, insn.dst, src);
      return true;
    }
    if (src.kind != RegKind::scalar) {
      if (!e.options.privileged) {
        return e.fail(pc, Reason::pointer_leak, insn.src, Detail{.kind = static_cast<uint8_t>(src.kind)});
      }
      set_reg(s, insn.dst, make_scalar(zext32(Scalar::unknown())));
      return true;
    }
    if (src.value.is_const()) {
      set_reg(s, insn.dst, make_scalar(const_scalar(static_cast<uint32_t>(src.value.bits.value))));
      return true;
    }
    // `w1 = w2` is zext32 of w2's class value: linked whatever w2's upper
    // half holds (newer Linux links it only when that half is zero, where
    // the value is unchanged). The low half of a shl32 value is zero,
    // a function of nothing: no link.
    if (is_reg && src.id == 0) start_link(e, regs[insn.src]);
    RegState out = make_scalar(zext32(src.value));
    if (is_reg && regs[insn.src].link != Link::shl32) {
      out.id = regs[insn.src].id;
      out.link = Link::zext32;
      out.off = regs[insn.src].off;
    }
    set_reg(s, insn.dst, out);
    return true;
  }
  if (!check_init(e, s, insn.dst, pc)) return false;
  const RegState dst = regs[insn.dst];
  if (dst.kind != RegKind::scalar || src.kind != RegKind::scalar) {
    return pointer_arith(e, s, insn, pc, op, is64, is_reg, dst, src);
  }
  if (e.guards != nullptr && is64 && is_reg && (op == Alu::add || op == Alu::sub)) {
    // Two scalars here: a mask for a pointer visit would change this sum.
    GuardState& g = e.guards[pc];
    if ((g.flags & (kGuardMaskSrc | kGuardMaskDst)) != 0) return e.fail(pc, Reason::pointer_arithmetic, d);
    g.scalar_visit = true;
  }
  const bool division = op == Alu::div || op == Alu::sdiv || op == Alu::mod || op == Alu::smod;
  if (division) {
    const Scalar divisor = is64 ? src.value : zext32(src.value);
    if (divisor.contains(0)) {
      // Linux rejects a constant zero divisor ("div by zero"); keel does when
      // asked to follow Linux, or to reject any possible zero.
      if (e.options.reject_division_by_zero || (!is_reg && e.options.linux_rules)) {
        return e.fail(pc, Reason::division_by_zero, is_reg ? insn.src : -1);
      }
    }
  }
  Link link = Link::same;
  int32_t delta = 0;
  const bool linked = follow_link(op, is64, dst, src, link, delta);
  RegState& out = regs[insn.dst];
  out.kind = RegKind::scalar;
  out.id = linked ? dst.id : 0;
  out.link = link;
  out.off = delta;
  uint64_t folded = 0;
  if (dst.value.is_const() && src.value.is_const() &&
      fold_constant(op, is64, dst.value.bits.value, src.value.bits.value, folded)) {
    out.value = const_scalar(folded);
  } else {
    out.value = alu(insn.op, dst.value, src.value);
  }
  return true;
}

bool lddw_value(Engine& e, const Insn& insn, uint32_t pc, RegState& out) {
  const int64_t next_imm = pc + 1 < e.insn_count ? e.insns[pc + 1].imm : 0;
  const uint32_t index = static_cast<uint32_t>(insn.imm);
  switch (insn.op) {
    case Op::lddw_imm64:
      out = make_scalar(Scalar::constant(static_cast<uint64_t>(insn.imm)));
      return true;
    case Op::lddw_map_fd:
    case Op::lddw_map_idx:
      // An inner map template is no map of its own: nothing to patch in.
      if (e.options.maps == nullptr || index >= e.options.map_count || e.options.maps[index].template_only) {
        return e.fail(pc, Reason::unresolved_map, insn.dst, Detail{.limit = index});
      }
      out = make_pointer(RegKind::map_ptr, index);
      return true;
    case Op::lddw_map_value:
    case Op::lddw_map_idx_value: {
      if (e.options.maps == nullptr || index >= e.options.map_count || e.options.maps[index].template_only) {
        return e.fail(pc, Reason::unresolved_map, insn.dst, Detail{.limit = index});
      }
      const MapDescriptor& map = e.options.maps[index];
      // Direct value access exists for array maps only (map_direct_value_addr).
      if (map.type != MapType::array) {
        return e.fail(pc, Reason::unresolved_map, insn.dst, Detail{.limit = index});
      }
      if (next_imm < 0 || next_imm >= map.value_size) {
        Detail dd;
        dd.offset = next_imm;
        dd.limit = map.value_size;
        dd.size = 0;
        return e.fail(pc, Reason::map_value_out_of_bounds, insn.dst, dd);
      }
      out = make_pointer(RegKind::map_value, index, static_cast<int32_t>(next_imm));
      return true;
    }
    case Op::lddw_code_addr:
      // PTR_TO_FUNC (check_ld_imm), for a callback helper only. Like a
      // local call, for CAP_BPF only (check_subprogs: "loading/calling
      // other bpf or kernel functions are allowed for CAP_BPF").
      if (!e.options.privileged) return e.fail(pc, Reason::unprivileged_call, insn.dst);
      out = make_pointer(RegKind::func, static_cast<uint32_t>(int64_t{pc} + 1 + insn.imm));
      return true;
    default:
      // var_addr (BTF variables) is not modelled.
      return e.fail(pc, Reason::unresolved_map, insn.dst);
  }
}

bool step_lddw(Engine& e, State& s, const Insn& insn, uint32_t pc) {
  RegState value;
  if (!lddw_value(e, insn, pc, value)) return false;
  set_reg(s, insn.dst, value);
  return true;
}

bool check_map_references(Engine& e) {
  // The lddw kinds that name a map (RFC 9669 §5.4), as bits over their
  // distance from lddw_imm64: one subtraction and one bit test a slot, as
  // this walks every slot of every program that has an lddw.
  constexpr auto bit = [](Op op) {
    return uint32_t{1} << (static_cast<uint32_t>(op) - static_cast<uint32_t>(Op::lddw_imm64));
  };
  constexpr uint32_t kNamesMap = bit(Op::lddw_map_fd) | bit(Op::lddw_map_value) | bit(Op::lddw_map_idx) |
                                 bit(Op::lddw_map_idx_value);
  static_assert(static_cast<uint32_t>(Op::lddw_map_idx_value) - static_cast<uint32_t>(Op::lddw_imm64) < 32);
  for (uint32_t pc = 0; pc < e.insn_count; ++pc) {
    const uint32_t kind = static_cast<uint32_t>(e.insns[pc].op) - static_cast<uint32_t>(Op::lddw_imm64);
    if (kind >= 32 || ((kNamesMap >> kind) & 1u) == 0) continue;
    RegState ignored;
    if (!lddw_value(e, e.insns[pc], pc, ignored)) return false;
  }
  return true;
}

}  // namespace keel
