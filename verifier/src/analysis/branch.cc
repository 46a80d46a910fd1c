// Refinement of the two successors of a conditional jump: scalar bounds
// through the domain's refine(), NULL checks of maybe-NULL pointers (every
// copy with the same id), and packet ranges from comparisons with
// packet_end (Linux 6.1 try_match_pkt_pointers / find_good_pkt_pointers).
#include "analysis/engine.h"

namespace keel {
namespace {

template <class F>
void for_each_reg(State& s, F f) {
  for (uint32_t fr = 0; fr < s.frame_count; ++fr) {
    for (RegState& r : s.frames()[fr].regs) f(r);
  }
  for (uint32_t i = 0; i < s.spill_count; ++i) f(s.spills()[i].reg);
}

// The NULL (or non-NULL) side of a check of `reg`: every copy follows.
void mark_null(State& s, uint32_t reg, bool is_null) {
  const RegState target = s.regs()[reg];
  auto apply = [&](RegState& r) {
    if (is_null) {
      r = make_scalar(Scalar::constant(0));
    } else {
      r.kind = not_null_kind(r.kind);
    }
  };
  if (target.id == 0) {
    apply(s.regs()[reg]);
    return;
  }
  for_each_reg(s, [&](RegState& r) {
    if (r.maybe_null() && r.id == target.id) apply(r);
  });
  if (is_null && target.owns_ref()) {
    // The acquiring helper returned NULL: nothing was acquired, so nothing
    // is to be released (mark_ptr_or_null_regs: release_reference_state on
    // the NULL branch), and any pointer tied to the reference is NULL too.
    s.drop_ref(target.ref);
    for_each_reg(s, [&](RegState& r) {
      if (r.holds_ref() && r.ref == target.ref) r = make_scalar(Scalar::constant(0));
    });
  }
}

// `p` (packet or packet_meta) is below (strict) or at most at the end of
// the packet on this branch: every pointer with p's base gains range.
void good_packet_range(State& s, const RegState& p, bool strict) {
  if (p.off < 0 || (p.off == 0 && strict)) return;
  if (p.value.umax > kMaxPacketOff || p.value.umax + p.off > kMaxPacketOff) return;
  const int32_t range = strict ? p.off + 1 : p.off;
  const bool base_zero = p.var_is_zero();
  for_each_reg(s, [&](RegState& r) {
    if (r.kind != p.kind) return;
    const bool same = base_zero ? r.var_is_zero() : (p.id != 0 && r.id == p.id);
    if (same && r.range < range) r.range = range;
  });
}

bool is_init_packet(const RegState& r) {
  return r.kind == RegKind::packet && r.off == 0 && r.var_is_zero();
}

// Packet comparisons: returns true when the pair is one Linux recognises.
bool packet_compare(State& s, JmpOp op, bool taken, const RegState& dst, const RegState& src) {
  const bool dst_low = (dst.kind == RegKind::packet && src.kind == RegKind::packet_end) ||
                       (dst.kind == RegKind::packet_meta && is_init_packet(src));
  const bool src_low = (src.kind == RegKind::packet && dst.kind == RegKind::packet_end) ||
                       (src.kind == RegKind::packet_meta && is_init_packet(dst));
  if (!dst_low && !src_low) return false;
  // Normalise to "low OP end" by mirroring the operator when low is src.
  JmpOp o = op;
  if (src_low) {
    switch (op) {
      case JmpOp::jgt: o = JmpOp::jlt; break;
      case JmpOp::jge: o = JmpOp::jle; break;
      case JmpOp::jlt: o = JmpOp::jgt; break;
      case JmpOp::jle: o = JmpOp::jge; break;
      default: return false;
    }
  }
  const RegState& low = dst_low ? dst : src;
  // What this branch proves about low vs end: < (strict) or <=.
  switch (o) {
    case JmpOp::jgt: if (!taken) good_packet_range(s, low, false); break;  // low <= end
    case JmpOp::jge: if (!taken) good_packet_range(s, low, true); break;   // low < end
    case JmpOp::jlt: if (taken) good_packet_range(s, low, true); break;
    case JmpOp::jle: if (taken) good_packet_range(s, low, false); break;
    default: return false;
  }
  return true;
}

// reg_type_not_null: a comparison of these with 0 has a known outcome.
bool never_null(RegKind kind) {
  return kind == RegKind::map_value || kind == RegKind::sock_common || kind == RegKind::sock ||
         kind == RegKind::tcp_sock;
}

// A pointer that cannot be NULL: any pointer kind but the maybe-NULL ones
// (Linux: __is_pointer_value and !type_may_be_null; keel has no PTR_TO_BTF_ID,
// which Linux leaves out because it may be NULL unmarked).
bool known_non_null_pointer(const RegState& r) {
  return r.kind != RegKind::uninit && r.kind != RegKind::scalar && r.kind != RegKind::mixed && !r.maybe_null() &&
         r.kind != RegKind::btf_ptr;
}

}  // namespace

bool refine_branch(Engine& e, State& s, const Insn& insn, uint32_t pc, bool taken,
                   bool& feasible) {
  feasible = true;
  JmpOp op;
  Width w;
  if (!jmp_of(insn.op, op, w)) return true;
  const bool is_reg = jump_uses_src(insn.op);
  if (!is_reg && s.regs()[insn.dst].kind == RegKind::scalar) {
    // The scalar case below with src the immediate (check_init passes an
    // initialized dst; b is not needed after refine, as only a register
    // src learns from it): refine_imm is refine with that constant.
    RegState& r = s.regs()[insn.dst];
    Scalar a = r.value;
    if (!refine_imm(op, w, taken, a, static_cast<uint64_t>(insn.imm))) {
      feasible = false;
      return true;
    }
    r.value = a;
    if (!propagate_scalar(s, r)) feasible = false;
    return true;
  }
  if (!check_init(e, s, insn.dst, pc)) return false;
  if (is_reg && !check_init(e, s, insn.src, pc)) return false;
  RegState* regs = s.regs();
  const RegState dst = regs[insn.dst];
  const RegState src = is_reg ? regs[insn.src] : make_scalar(Scalar::constant(static_cast<uint64_t>(insn.imm)));
  if (dst.kind == RegKind::scalar && src.kind == RegKind::scalar) {
    Scalar a = dst.value;
    Scalar b = src.value;
    if (!refine(op, w, taken, a, b)) {
      feasible = false;
      return true;
    }
    regs[insn.dst].value = a;
    // A register linked to dst may be src itself (`r2 = r1 + 4; if r1 > r2`):
    // src then keeps what dst's link taught it as well as b.
    if (!propagate_scalar(s, regs[insn.dst])) {
      feasible = false;
      return true;
    }
    if (is_reg && insn.src != insn.dst) {
      // src's value meets b (refine(jeq) with b unused after it).
      if (!refine_equal(regs[insn.src].value, b) || !propagate_scalar(s, regs[insn.src])) {
        feasible = false;
        return true;
      }
    }
    return true;
  }
  const bool privileged = e.options.privileged;
  if (is_reg && src.kind != RegKind::scalar && !privileged) {
    return e.fail(pc, Reason::pointer_leak, insn.src, Detail{.kind = static_cast<uint8_t>(src.kind)});
  }
  const bool zero_test = w == Width::w64 && (op == JmpOp::jeq || op == JmpOp::jne) && src.is_null();
  if (zero_test && !is_reg && dst.maybe_null()) {
    const bool is_null = (op == JmpOp::jeq) == taken;
    mark_null(s, insn.dst, is_null);
    return true;
  }
  if (zero_test && never_null(dst.kind)) {
    // A map value pointer is never NULL (is_branch_taken in Linux).
    const bool is_null = (op == JmpOp::jeq) == taken;
    feasible = !is_null;
    return true;
  }
  if (w == Width::w64 && is_reg && (op == JmpOp::jeq || op == JmpOp::jne)) {
    // check_cond_jmp_op (Linux 6.1, "propagate nullness information for reg
    // to reg comparisons"): a maybe-NULL pointer equal to a pointer that is
    // not NULL is not NULL either, on the branch where they are equal (the
    // taken one of jeq, the fall-through of jne). The other branch, and a
    // comparison of two maybe-NULL pointers, prove nothing.
    const bool equal = (op == JmpOp::jeq) == taken;
    if (dst.maybe_null() && known_non_null_pointer(src)) {
      if (equal) mark_null(s, insn.dst, false);
      return true;
    }
    if (src.maybe_null() && known_non_null_pointer(dst)) {
      if (equal) mark_null(s, insn.src, false);
      return true;
    }
  }
  if (w == Width::w64 && is_reg && packet_compare(s, op, taken, dst, src)) return true;
  if (!privileged) {
    return e.fail(pc, Reason::pointer_leak, insn.dst, Detail{.kind = static_cast<uint8_t>(dst.kind)});
  }
  return true;  // pointers compared in other ways teach nothing
}

}  // namespace keel
