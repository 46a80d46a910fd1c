// Helper calls (each argument against its ArgKind, r0 from the RetKind,
// r1-r5 clobbered) and the legacy packet loads, which behave like a call.
// Map/helper pairings restate Linux 6.1's check_map_func_compatibility;
// references (acquire, release, the checks before the program may end)
// restate its reference tracking (kernel/bpf/verifier.c: acquire_reference_state,
// release_reference, check_reference_leak). design.md, "References".
#include "analysis/engine.h"
#include "isa/ops.h"

namespace keel {
namespace {

// Linux helper ids (uapi bpf.h, __BPF_FUNC_MAPPER order).
constexpr int32_t kTailCall = 12, kPerfEventRead = 22, kPerfEventOutput = 25, kGetStackid = 27,
                  kPerfEventReadValue = 55, kSkbOutput = 111, kXdpOutput = 121,
                  kRingbufOutput = 130, kRingbufQuery = 134;  // output, reserve, submit, discard, query

bool is_perf_helper(int32_t id) {
  return id == kPerfEventRead || id == kPerfEventOutput || id == kPerfEventReadValue ||
         id == kSkbOutput || id == kXdpOutput;
}
bool is_ringbuf_helper(int32_t id) {
  return (id >= kRingbufOutput && id <= kRingbufQuery) || id == 198;  // ringbuf_reserve_dynptr
}

// bpf_helper_changes_pkt_data (net/core/filter.c): after these, every
// packet pointer is stale.
bool changes_packet(int32_t id) {
  switch (id) {
    case 9: case 10: case 11: case 13: case 18: case 19: case 31: case 38: case 39: case 43:
    case 44: case 50: case 54: case 63: case 65: case 73: case 74: case 75: case 76: case 90:
    case 91: case 142: case 156: case 157:
      return true;
    default:
      return false;
  }
}

constexpr int32_t kMapLookupElem = 1, kMapUpdateElem = 2, kMapDeleteElem = 3, kSkbUnderCgroup = 33,
                  kCurrentTaskUnderCgroup = 37, kRedirectMap = 51, kMapLookupPercpuElem = 195;
// The socket map helpers (uapi bpf.h ids).
constexpr int32_t kSkRedirectMap = 52, kSockMapUpdate = 53, kMsgRedirectMap = 60,
                  kSockHashUpdate = 70, kMsgRedirectHash = 71, kSkRedirectHash = 72,
                  kSkSelectReuseport = 82;

bool is_sockmap_helper(int32_t id) {
  return id == kSkRedirectMap || id == kSockMapUpdate || id == kMsgRedirectMap;
}
bool is_sockhash_helper(int32_t id) {
  return id == kSkRedirectHash || id == kSockHashUpdate || id == kMsgRedirectHash;
}

// may_update_sockmap: the generic update/delete only where the program
// type can reach no locked socket (ProgramType::sockmap_writes).
bool may_write_sockmap(const ProgramType& type, int32_t id) {
  if (id == kMapDeleteElem) return type.sockmap_writes != SockmapWrites::none;
  if (id == kMapUpdateElem) return type.sockmap_writes == SockmapWrites::update_and_delete;
  return false;
}

bool is_socket_map(MapType type) { return type == MapType::sockmap || type == MapType::sockhash; }

// Helpers whose map must be of a kind keel does not model (cgroup storage,
// queue/stack/bloom filter, sk/inode/task storage, user ringbuf): no
// modelled map may be passed.
bool needs_unmodelled_map(int32_t id) {
  switch (id) {
    case 81:                                               // get_local_storage
    case 87: case 88: case 89:                             // map push/pop/peek
    case 107: case 108: case 145: case 146: case 156: case 157:  // sk/inode/task storage
    case 209:                                              // user_ringbuf_drain
      return true;
    default:
      return false;
  }
}

// check_map_func_compatibility: first what the map may be passed to, then
// which maps the helper takes.
bool map_compatible(const ProgramType& prog, MapType type, int32_t id) {
  switch (type) {
    case MapType::prog_array: return id == kTailCall;
    case MapType::perf_event_array: return is_perf_helper(id);
    case MapType::ringbuf: return is_ringbuf_helper(id);
    case MapType::stack_trace: return id == kGetStackid;
    case MapType::cgroup_array: return id == kSkbUnderCgroup || id == kCurrentTaskUnderCgroup;
    case MapType::devmap:
    case MapType::devmap_hash:
    case MapType::xskmap: return id == kRedirectMap || id == kMapLookupElem;
    case MapType::cpumap: return id == kRedirectMap;  // "open when use-cases appear"
    case MapType::array_of_maps:
    case MapType::hash_of_maps: return id == kMapLookupElem;
    // sk_select_reuseport also takes a reuseport array, which keel does not model.
    case MapType::sockmap:
      return is_sockmap_helper(id) || id == kSkSelectReuseport || id == kMapLookupElem ||
             may_write_sockmap(prog, id);
    case MapType::sockhash:
      return is_sockhash_helper(id) || id == kSkSelectReuseport || id == kMapLookupElem ||
             may_write_sockmap(prog, id);
    default: break;
  }
  if (id == kTailCall || is_perf_helper(id) || is_ringbuf_helper(id) || id == kGetStackid ||
      id == kSkbUnderCgroup || id == kCurrentTaskUnderCgroup || id == kRedirectMap ||
      is_sockmap_helper(id) || is_sockhash_helper(id) || id == kSkSelectReuseport ||
      needs_unmodelled_map(id)) {
    return false;  // each wants one of the kinds handled above
  }
  if (id == kMapLookupPercpuElem) {
    return type == MapType::percpu_array || type == MapType::percpu_hash ||
           type == MapType::lru_percpu_hash;
  }
  return true;
}

// The helpers that change a map's contents (BPF_FUNC_map_update_elem,
// map_delete_elem, map_push_elem, map_pop_elem): refused on a map the
// program may only read, whose contents may be frozen constants.
bool writes_map(int32_t id) { return id == 2 || id == 3 || id == 87 || id == 88; }

bool arg_unsupported(ArgKind kind) {
  return kind == ArgKind::unsupported || kind == ArgKind::const_str || kind == ArgKind::func;
}

// A kernel object of BTF type `type` is a struct sock_common, or begins
// with one (a sock, a tcp_sock).
bool btf_sock_common(const Engine& e, uint32_t type) {
  const KernelTypes* types = e.type.kernel_types;
  return types != nullptr && types->begins_with != nullptr && types->begins_with(types->context, type, "sock_common");
}

bool expects_pointer(ArgKind kind) {
  return kind != ArgKind::none && kind != ArgKind::anything && kind != ArgKind::size &&
         kind != ArgKind::size_or_zero && kind != ArgKind::alloc_size_or_zero;
}

Detail ref_detail(uint32_t ref) {
  Detail d;
  d.limit = pc_of_ref(ref);
  return d;
}

// A size argument as the helper reads it. One whose implementation takes
// it as 32 bits (HelperProto::size_u32; Linux's BPF_CALL_N converts each
// u64 register to the declared parameter type, include/linux/filter.h
// __BPF_CAST) sees only the low half, so the 32-bit bounds are exact for it
// and the upper half is irrelevant. Linux 6.1's check_mem_size_reg checks
// the 64-bit bounds regardless (a deliberate divergence, ADR 0014). A
// negative 32-bit `int` is excluded by the caller's max < kMaxVarSize.
struct SizeBounds {
  uint64_t min, max;
  bool negative;
};
SizeBounds size_bounds(const HelperProto& proto, uint32_t arg, const Scalar& v) {
  if (proto.size_u32[arg]) return {v.u32_min, v.u32_max, false};
  return {v.umin, v.umax, v.smin < 0};
}

// The program may end here without running its remaining code (a tail call
// that succeeds; an out-of-bounds legacy packet load): no reference may be
// held (Linux: "tail_call would lead to reference leak", "BPF_LD_[ABS|IND]
// cannot be mixed with socket references").
bool check_no_references(Engine& e, const State& s, uint32_t pc) {
  if (s.ref_count == 0 && s.refs_lost == 0) return true;
  return e.fail(pc, Reason::reference_held, -1, s.ref_count != 0 ? ref_detail(s.refs[0]) : Detail{});
}

// release_reference: the reference is given back, and every copy of every
// pointer that depends on it (in any frame, registers and spills) is
// unusable: an unknown scalar when pointer leaks are allowed, else
// uninitialized, as in Linux; `ref` stays on them to name the cause.
void release_reference(Engine& e, State& s, uint32_t ref) {
  s.drop_ref(ref);
  auto kill = [&](RegState& r) {
    if (!r.holds_ref() || r.ref != ref) return;
    r = e.options.privileged ? make_scalar(Scalar::unknown()) : make_uninit();
    r.ref = ref;
  };
  for (uint32_t f = 0; f < s.frame_count; ++f) {
    for (RegState& r : s.frames()[f].regs) kill(r);
  }
  for (uint32_t i = 0; i < s.spill_count; ++i) kill(s.spills()[i].reg);
}

// keel's compiler builtins (ADR 0011): the arguments as for a helper's
// mem/size pairs (check_helper_mem_access, check_mem_size_reg), but the size
// is r3, and a copy's source is checked before its destination is marked
// written since the two may overlap.
bool step_builtin(Engine& e, State*& s, int32_t id, uint32_t pc) {
  for (uint32_t reg = 1; reg <= 3; ++reg) {
    if (!check_init(e, *s, reg, pc)) return false;
  }
  const RegState second = s->regs()[2];
  const RegState n = s->regs()[3];
  if (n.kind != RegKind::scalar || n.value.smin < 0 || n.value.umax >= kMaxVarSize) {
    Detail d;
    d.kind = static_cast<uint8_t>(n.kind);
    d.min = n.value.smin;
    d.max = n.value.smax;
    return e.fail(pc, Reason::helper_argument, 3, d);
  }
  const bool packet_ok = e.type.direct_packet_access;  // may_access_direct_pkt_data
  if (id == kBuiltinMemset) {
    // Storing a pointer's low byte would leak it.
    if (second.kind != RegKind::scalar && !e.options.privileged) {
      return e.fail(pc, Reason::pointer_leak, 2, Detail{.kind = static_cast<uint8_t>(second.kind)});
    }
  } else if (!check_memory_arg(e, s, 2, n.value.umax, Access::read, packet_ok, pc)) {
    return false;
  }
  if (id == kBuiltinMemcmp) {
    if (!check_memory_arg(e, s, 1, n.value.umax, Access::read, packet_ok, pc)) return false;
  } else {
    const bool zero = id == kBuiltinMemset && second.is_const() && (second.value.bits.value & 0xff) == 0;
    if (!check_memory_store(e, s, 1, n.value.umin, n.value.umax, zero, packet_ok, pc)) return false;
  }
  RegState* regs = s->regs();
  for (uint32_t reg = 1; reg <= 5; ++reg) regs[reg] = make_uninit();
  regs[0] = id == kBuiltinMemcmp ? make_scalar(Scalar::from_srange(-1, 1)) : make_uninit();
  return true;
}

}  // namespace

bool step_helper(Engine& e, State*& s, const Insn& insn, uint32_t pc) {
  const int32_t id = static_cast<int32_t>(insn.imm);
  if (is_builtin(static_cast<uint64_t>(insn.imm))) return step_builtin(e, s, id, pc);
  const HelperSlot* slot = find_helper(e.type, id);
  Detail id_detail;
  id_detail.limit = static_cast<uint32_t>(id);
  if (slot == nullptr || slot->proto == nullptr ||
      (slot->gate == HelperGate::privileged && !e.options.privileged)) {
    return e.fail(pc, Reason::unknown_helper, -1, id_detail);
  }
  const HelperProto& proto = *slot->proto;
  if (proto.ret == RetKind::unsupported) return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
  // A BTF pointer result is typed from the kernel's BTF: without it (a
  // program type that has none, or a BTF lacking the struct) the result
  // cannot be typed, so the helper is not modelled.
  uint32_t ret_btf_type = 0;
  if (proto.ret == RetKind::btf_ptr || proto.ret == RetKind::btf_ptr_or_null) {
    const KernelTypes* types = e.type.kernel_types;
    if (types != nullptr && types->find_struct != nullptr && proto.ret_btf_struct != nullptr) {
      ret_btf_type = types->find_struct(types->context, proto.ret_btf_struct);
    }
    if (ret_btf_type == 0) return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
  }
  for (ArgKind kind : proto.args) {
    if (arg_unsupported(kind)) return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
  }
  // A tail call in a callback would replace it with a program whose r0 no
  // callback check saw (and run up to BPF_MAX_LOOPS chains): not modelled.
  if (proto.tail_call && e.callback_entry != nullptr) return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
  if (proto.tail_call && !check_no_references(e, *s, pc)) return false;
  int64_t map = -1;
  uint64_t alloc_size = 0;  // alloc_size_or_zero: the constant
  uint32_t ref_arg = 0;     // the register of the one pointer argument holding a reference
  // check_func_arg: packet pointers only where may_access_direct_pkt_data(meta) allows.
  const bool packet_ok = proto.packet_access && e.type.packet_helper_args;
  uint64_t size_max = UINT64_MAX;  // the first size argument's proven maximum
  for (uint32_t i = 0; i < 5; ++i) {
    const ArgKind kind = proto.args[i];
    const uint32_t reg = i + 1;
    if (kind == ArgKind::none) continue;
    if (proto.release_arg == reg && s->regs()[reg].kind == RegKind::uninit && s->regs()[reg].ref != 0) {
      // Released already (unprivileged: its copies are uninitialized).
      return e.fail(pc, Reason::double_release, static_cast<int32_t>(reg), ref_detail(s->regs()[reg].ref));
    }
    if (!check_init(e, *s, reg, pc)) return false;
    const RegState r = s->regs()[reg];
    Detail d;
    d.kind = static_cast<uint8_t>(r.kind);
    d.limit = static_cast<uint32_t>(kind);
    const int32_t ri = static_cast<int32_t>(reg);
    if (expects_pointer(kind)) {
      if (!r.is_pointer() && r.ref != 0) {
        const bool again = proto.release_arg == reg;
        return e.fail(pc, again ? Reason::double_release : Reason::use_after_release, ri, ref_detail(r.ref));
      }
      if (r.holds_ref()) {
        // check_func_arg: "more than one arg with ref_obj_id".
        if (ref_arg != 0) return e.fail(pc, Reason::helper_argument, ri, d);
        ref_arg = reg;
      }
    }
    switch (kind) {
      case ArgKind::anything:
        if (r.kind != RegKind::scalar && !e.options.privileged) return e.fail(pc, Reason::pointer_leak, ri, d);
        break;
      case ArgKind::map_ptr:
        if (r.kind != RegKind::map_ptr) return e.fail(pc, Reason::helper_argument, ri, d);
        map = r.region;
        if (e.options.maps[map].type == MapType::other) {
          return e.fail(pc, Reason::unsupported_helper, ri, id_detail);
        }
        if (!map_compatible(e.type, e.options.maps[map].type, id)) return e.fail(pc, Reason::helper_argument, ri, d);
        if (e.options.maps[map].read_only && writes_map(id)) {
          return e.fail(pc, Reason::read_only_write, ri, d);  // record_func_map: "write into map forbidden"
        }
        break;
      case ArgKind::map_key:
      case ArgKind::map_value:
      case ArgKind::map_value_or_null: {
        if (map < 0) return e.fail(pc, Reason::helper_argument, ri, d);
        if (kind == ArgKind::map_value_or_null && r.is_null()) break;
        const MapDescriptor& m = e.options.maps[map];
        if (kind != ArgKind::map_key && is_socket_map(m.type)) {
          // resolve_map_arg_type: a socket map's value is the socket itself
          // (ARG_PTR_TO_BTF_ID_SOCK_COMMON); only ARG_PTR_TO_MAP_VALUE has it.
          if (kind != ArgKind::map_value) return e.fail(pc, Reason::helper_argument, ri, d);
          if (r.maybe_null()) return e.fail(pc, Reason::null_dereference, ri, d);
          if (!is_socket_kind(r.kind)) return e.fail(pc, Reason::helper_argument, ri, d);
          break;
        }
        const uint32_t size = kind == ArgKind::map_key ? m.key_size : m.value_size;
        if (r.kind == RegKind::scalar || r.kind == RegKind::mixed || r.kind == RegKind::ctx) {
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        if (!check_memory_arg(e, s, reg, size, Access::read, packet_ok, pc)) return false;
        break;
      }
      case ArgKind::mem:
      case ArgKind::mem_or_null:
      case ArgKind::mem_writable:
      case ArgKind::mem_read_write: {
        const ArgKind next = i + 1 < 5 ? proto.args[i + 1] : ArgKind::none;
        if (next != ArgKind::size && next != ArgKind::size_or_zero) {
          return e.fail(pc, Reason::unsupported_helper, ri, id_detail);
        }
        if (!check_init(e, *s, reg + 1, pc)) return false;
        const RegState size = s->regs()[reg + 1];
        const SizeBounds n = size_bounds(proto, i + 1, size.value);
        if (size_max == UINT64_MAX && size.kind == RegKind::scalar) size_max = n.max;
        Detail sd;
        sd.kind = static_cast<uint8_t>(size.kind);
        sd.min = proto.size_u32[i + 1] ? int64_t{size.value.u32_min} : size.value.smin;
        sd.max = proto.size_u32[i + 1] ? int64_t{size.value.u32_max} : size.value.smax;
        if (size.kind != RegKind::scalar || n.negative || n.max >= kMaxVarSize ||
            (next == ArgKind::size && n.min == 0)) {
          return e.fail(pc, Reason::helper_argument, ri + 1, sd);
        }
        if (kind == ArgKind::mem_or_null && r.is_null()) {
          if (n.max != 0) return e.fail(pc, Reason::helper_argument, ri + 1, sd);
          ++i;
          break;
        }
        if (r.kind == RegKind::scalar || r.kind == RegKind::mixed || r.kind == RegKind::ctx) {
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        if (kind != ArgKind::mem_writable && !check_memory_arg(e, s, reg, n.max, Access::read, packet_ok, pc)) {
          return false;
        }
        // A write of a variable size initialises only the bytes every size
        // covers, [0, n.min): a fill past them may read what the program
        // never wrote (check_memory_store). mem / mem_or_null are only read.
        const bool writes = kind == ArgKind::mem_writable || kind == ArgKind::mem_read_write;
        if (writes && !check_memory_store(e, s, reg, n.min, n.max, false, packet_ok, pc)) return false;
        ++i;  // the size argument is checked
        break;
      }
      case ArgKind::fixed_size_mem:
      case ArgKind::fixed_size_mem_writable:
      case ArgKind::fixed_size_mem_read_write: {
        if (r.kind == RegKind::scalar || r.kind == RegKind::mixed || r.kind == RegKind::ctx) {
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        const uint64_t size = proto.arg_size[i];
        if (kind != ArgKind::fixed_size_mem_writable && !check_memory_arg(e, s, reg, size, Access::read, packet_ok, pc)) {
          return false;
        }
        if (kind != ArgKind::fixed_size_mem && !check_memory_arg(e, s, reg, size, Access::write, packet_ok, pc)) {
          return false;
        }
        break;
      }
      case ArgKind::size:
      case ArgKind::size_or_zero:
        if (r.kind != RegKind::scalar) return e.fail(pc, Reason::helper_argument, ri, d);
        if (size_max == UINT64_MAX) size_max = size_bounds(proto, i, r.value).max;
        break;
      case ArgKind::alloc_size_or_zero:
        // ARG_CONST_ALLOC_SIZE_OR_ZERO: "R%d is not a known constant".
        if (!r.is_const() || r.value.bits.value >= kMaxVarSize) {
          d.min = r.value.smin;
          d.max = r.value.smax;
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        alloc_size = r.value.bits.value;
        break;
      case ArgKind::alloc_mem:
        // PTR_TO_MEM | MEM_ALLOC, unmodified (check_func_arg_reg_off).
        if (r.maybe_null()) return e.fail(pc, Reason::null_dereference, ri, d);
        if (r.kind != RegKind::mem || r.ref == 0) return e.fail(pc, Reason::helper_argument, ri, d);
        if (r.off != 0 || !r.var_is_zero()) {
          d.offset = r.off;
          d.min = r.value.smin;
          d.max = r.value.smax;
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        break;
      case ArgKind::sock_common:
        if (r.maybe_null()) return e.fail(pc, Reason::null_dereference, ri, d);
        if (!is_socket_kind(r.kind)) return e.fail(pc, Reason::helper_argument, ri, d);
        break;
      case ArgKind::btf_sock_common:
        // compatible_reg_types (btf_id_sock_common_types): a socket of any
        // kind, or a PTR_TO_BTF_ID that btf_struct_ids_match finds to be a
        // struct sock_common. A btf_ptr_or_null must be NULL-checked first.
        if (r.maybe_null()) return e.fail(pc, Reason::null_dereference, ri, d);
        if (r.kind == RegKind::btf_ptr) {
          // Linux walks a fixed offset into the object to a nested
          // sock_common; keel takes only the object's start (a false reject).
          if (r.off != 0 || !r.var_is_zero() || !btf_sock_common(e, r.region)) {
            d.offset = r.off;
            return e.fail(pc, Reason::helper_argument, ri, d);
          }
          break;
        }
        if (!is_socket_kind(r.kind)) return e.fail(pc, Reason::helper_argument, ri, d);
        break;
      case ArgKind::ctx:
      case ArgKind::ctx_or_null:
        if (kind == ArgKind::ctx_or_null && r.is_null()) break;
        if (r.kind != RegKind::ctx || r.off != 0 || !r.var_is_zero()) {
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        break;
      case ArgKind::stack:
      case ArgKind::stack_or_null:
        if (kind == ArgKind::stack_or_null && r.is_null()) break;
        if (r.kind != RegKind::stack) return e.fail(pc, Reason::helper_argument, ri, d);
        break;
      default:
        return e.fail(pc, Reason::unsupported_helper, ri, id_detail);
    }
  }
  const uint32_t shared_ref = ref_arg != 0 ? s->regs()[ref_arg].ref : 0;
  if (proto.release_arg != 0) {
    const RegState r = s->regs()[proto.release_arg];
    // "R%d must be referenced when passed to release function"; a reference
    // not listed can only be one a join lost track of (refs_lost).
    if (!r.holds_ref() || (!s->holds(r.ref) && s->refs_lost == 0)) {
      Detail d;
      d.kind = static_cast<uint8_t>(r.kind);
      return e.fail(pc, Reason::release_unreferenced, proto.release_arg, d);
    }
    // In a callback, a reference of its caller's: the callback may run
    // again and release it twice (Linux 6.1 release_reference_state:
    // "Cannot release caller references in callbacks").
    if (e.callback_entry != nullptr && e.callback_entry->holds(r.ref)) {
      return e.fail(pc, Reason::double_release, proto.release_arg, ref_detail(r.ref));
    }
    release_reference(e, *s, r.ref);
  }
  if (changes_packet(id)) invalidate_packet_pointers(*s);
  RegState* regs = s->regs();
  for (uint32_t reg = 1; reg <= 5; ++reg) regs[reg] = make_uninit();
  bool acquires = proto.acquires;
  switch (proto.ret) {
    case RetKind::integer:
      if (proto.ret_bounded_by_size && size_max <= uint64_t{INT64_MAX}) {
        // Bytes written (at most the size) or -errno (at least -MAX_ERRNO).
        regs[0] = make_scalar(Scalar::from_srange(-4095, static_cast<int64_t>(size_max)));
      } else {
        regs[0] = make_scalar(Scalar::unknown());
      }
      break;
    case RetKind::none: regs[0] = make_uninit(); break;
    case RetKind::map_value_or_null:
    case RetKind::map_value: {
      if (map < 0) return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
      const MapDescriptor& m = e.options.maps[map];
      if (m.type == MapType::array_of_maps || m.type == MapType::hash_of_maps) {
        // mark_ptr_not_null_reg: a non-NULL result is CONST_PTR_TO_MAP of
        // the inner map template (inner_map_meta), which holds no maps
        // itself (bpf_map_meta_alloc: one level only).
        const MapType inner = m.has_inner_map && m.inner_map < e.options.map_count
                                  ? e.options.maps[m.inner_map].type
                                  : MapType::other;
        if (inner == MapType::other || inner == MapType::array_of_maps ||
            inner == MapType::hash_of_maps) {
          return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
        }
        regs[0] = make_pointer(RegKind::map_ptr_or_null, m.inner_map);
        regs[0].id = e.fresh_id();
        break;
      }
      // An xskmap lookup gives PTR_TO_XDP_SOCK, which keel does not model.
      if (m.type == MapType::xskmap) return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
      if (is_socket_map(m.type)) {
        // mark_ptr_not_null_reg: a non-NULL result is PTR_TO_SOCKET, and
        // is_acquire_function counts a socket map lookup: the program must
        // give the socket back (bpf_sk_release).
        regs[0] = make_pointer(RegKind::sock_or_null);
        acquires = true;
        break;
      }
      regs[0] = make_pointer(proto.ret == RetKind::map_value ? RegKind::map_value
                                                             : RegKind::map_value_or_null,
                             static_cast<uint32_t>(map));
      regs[0].id = e.fresh_id();
      break;
    }
    case RetKind::alloc_mem_or_null:
      regs[0] = make_pointer(RegKind::mem_or_null, static_cast<uint32_t>(alloc_size));
      regs[0].id = e.fresh_id();
      break;
    case RetKind::btf_ptr:
    case RetKind::btf_ptr_or_null:
      // check_helper_call: PTR_TO_BTF_ID (| PTR_MAYBE_NULL) of .ret_btf_id.
      regs[0] = make_pointer(proto.ret == RetKind::btf_ptr ? RegKind::btf_ptr : RegKind::btf_ptr_or_null, ret_btf_type);
      if (proto.ret == RetKind::btf_ptr_or_null) regs[0].id = e.fresh_id();
      break;
    case RetKind::sock_or_null:
    case RetKind::sock_common_or_null:
    case RetKind::tcp_sock_or_null:
      regs[0] = make_pointer(proto.ret == RetKind::sock_or_null          ? RegKind::sock_or_null
                             : proto.ret == RetKind::sock_common_or_null ? RegKind::sock_common_or_null
                                                                         : RegKind::tcp_sock_or_null);
      regs[0].id = e.fresh_id();
      break;
    default:
      return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
  }
  if (proto.ret_shares_ref) {
    // is_ptr_cast_function: the same object, so the same reference (its
    // NULL says nothing about the reference: the id stays its own).
    regs[0].ref = shared_ref;
  } else if (acquires) {
    const uint32_t ref = ref_of_pc(pc);
    Detail d;
    d.limit = pc;
    if (s->holds(ref)) return e.fail(pc, Reason::reference_reacquired, 0, d);
    if (s->ref_count >= kMaxReferences) {
      d.limit = kMaxReferences;
      return e.fail(pc, Reason::too_many_references, 0, d);
    }
    s->refs[s->ref_count++] = ref;
    regs[0].id = ref;  // the helper's result itself: NULL means nothing acquired
    regs[0].ref = ref;
  }
  return true;
}

bool check_reference_leak(Engine& e, const State& s, uint32_t pc) {
  if (s.ref_count == 0 && s.refs_lost == 0) return true;
  return e.fail(pc, Reason::unreleased_reference, -1, s.ref_count != 0 ? ref_detail(s.refs[0]) : Detail{});
}

bool step_legacy_load(Engine& e, State& s, const Insn& insn, uint32_t pc) {
  if (!e.type.legacy_packet_loads) return e.fail(pc, Reason::legacy_packet_load);
  if (!check_no_references(e, s, pc)) return false;
  if (!check_init(e, s, 6, pc)) return false;
  if (s.regs()[6].kind != RegKind::ctx) return e.fail(pc, Reason::legacy_packet_load, 6);
  const bool indirect = op_info(insn.op).reads_src;  // ld_ind: packet[src + imm]
  if (indirect) {
    if (!check_init(e, s, insn.src, pc)) return false;
    if (s.regs()[insn.src].kind != RegKind::scalar && !e.options.privileged) {
      return e.fail(pc, Reason::pointer_leak, insn.src);
    }
  }
  const uint32_t size = op_info(insn.op).size;
  const uint64_t max = size == 4 ? 0xffffffffu : (uint64_t{1} << (8 * size)) - 1;
  RegState* regs = s.regs();
  for (uint32_t reg = 1; reg <= 5; ++reg) regs[reg] = make_uninit();  // kArgumentRegs, as after a call
  regs[0] = make_scalar(Scalar::from_urange(0, max));
  return true;
}

}  // namespace keel
