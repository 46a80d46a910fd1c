// Helper calls (each argument against its ArgKind, r0 from the RetKind,
// r1-r5 clobbered) and the legacy packet loads, which behave like a call.
// Map/helper pairings restate Linux 6.1's check_map_func_compatibility.
#include "analysis/engine.h"

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

constexpr int32_t kMapLookupElem = 1, kSkbUnderCgroup = 33, kCurrentTaskUnderCgroup = 37,
                  kRedirectMap = 51, kMapLookupPercpuElem = 195;

// Helpers whose map must be of a kind keel does not model (sockmap,
// sockhash, cgroup storage, reuseport array, queue/stack/bloom filter,
// sk/inode/task storage, user ringbuf): no modelled map may be passed.
bool needs_unmodelled_map(int32_t id) {
  switch (id) {
    case 52: case 53: case 60: case 70: case 71: case 72:  // sk/msg redirect, sock map/hash update
    case 81: case 82:                                      // get_local_storage, sk_select_reuseport
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
bool map_compatible(MapType type, int32_t id) {
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
    default: break;
  }
  if (id == kTailCall || is_perf_helper(id) || is_ringbuf_helper(id) || id == kGetStackid ||
      id == kSkbUnderCgroup || id == kCurrentTaskUnderCgroup || id == kRedirectMap ||
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
  return kind == ArgKind::unsupported || kind == ArgKind::const_str || kind == ArgKind::func ||
         kind == ArgKind::alloc_mem;
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
  // FIXME: ringbuf reserve/submit need reference tracking (a reservation
  // must be released exactly once); until then alloc_mem is unsupported.
  if (proto.ret == RetKind::unsupported || proto.ret == RetKind::alloc_mem_or_null) {
    return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
  }
  for (ArgKind kind : proto.args) {
    if (arg_unsupported(kind)) return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
  }
  int64_t map = -1;
  // check_func_arg: packet pointers only where may_access_direct_pkt_data(meta) allows.
  const bool packet_ok = proto.packet_access && e.type.packet_helper_args;
  uint64_t size_max = UINT64_MAX;  // the first size argument's proven maximum
  for (uint32_t i = 0; i < 5; ++i) {
    const ArgKind kind = proto.args[i];
    const uint32_t reg = i + 1;
    if (kind == ArgKind::none) continue;
    if (!check_init(e, *s, reg, pc)) return false;
    const RegState r = s->regs()[reg];
    Detail d;
    d.kind = static_cast<uint8_t>(r.kind);
    d.limit = static_cast<uint32_t>(kind);
    const int32_t ri = static_cast<int32_t>(reg);
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
        if (!map_compatible(e.options.maps[map].type, id)) return e.fail(pc, Reason::helper_argument, ri, d);
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
        const uint32_t size = kind == ArgKind::map_key ? m.key_size : m.value_size;
        if (r.kind == RegKind::scalar || r.kind == RegKind::mixed || r.kind == RegKind::ctx) {
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        if (!check_memory_arg(e, s, reg, size, Access::read, packet_ok, pc)) return false;
        break;
      }
      case ArgKind::mem:
      case ArgKind::mem_or_null:
      case ArgKind::mem_writable: {
        const ArgKind next = i + 1 < 5 ? proto.args[i + 1] : ArgKind::none;
        if (next != ArgKind::size && next != ArgKind::size_or_zero) {
          return e.fail(pc, Reason::unsupported_helper, ri, id_detail);
        }
        if (!check_init(e, *s, reg + 1, pc)) return false;
        const RegState size = s->regs()[reg + 1];
        if (size_max == UINT64_MAX && size.kind == RegKind::scalar) size_max = size.value.umax;
        Detail sd;
        sd.kind = static_cast<uint8_t>(size.kind);
        sd.min = size.value.smin;
        sd.max = size.value.smax;
        if (size.kind != RegKind::scalar || size.value.smin < 0 ||
            size.value.umax >= kMaxVarSize ||
            (next == ArgKind::size && size.value.umin == 0)) {
          return e.fail(pc, Reason::helper_argument, ri + 1, sd);
        }
        if (kind == ArgKind::mem_or_null && r.is_null()) {
          if (size.value.umax != 0) return e.fail(pc, Reason::helper_argument, ri + 1, sd);
          ++i;
          break;
        }
        if (r.kind == RegKind::scalar || r.kind == RegKind::mixed || r.kind == RegKind::ctx) {
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        const Access access = kind == ArgKind::mem_writable ? Access::write : Access::read;
        if (!check_memory_arg(e, s, reg, size.value.umax, access, packet_ok, pc)) return false;
        ++i;  // the size argument is checked
        break;
      }
      case ArgKind::fixed_size_mem:
      case ArgKind::fixed_size_mem_writable: {
        if (r.kind == RegKind::scalar || r.kind == RegKind::mixed || r.kind == RegKind::ctx) {
          return e.fail(pc, Reason::helper_argument, ri, d);
        }
        const Access access = kind == ArgKind::fixed_size_mem_writable ? Access::write : Access::read;
        if (!check_memory_arg(e, s, reg, proto.arg_size[i], access, packet_ok, pc)) return false;
        break;
      }
      case ArgKind::size:
      case ArgKind::size_or_zero:
      case ArgKind::alloc_size_or_zero:
        if (r.kind != RegKind::scalar) return e.fail(pc, Reason::helper_argument, ri, d);
        if (size_max == UINT64_MAX) size_max = r.value.umax;
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
  if (changes_packet(id)) invalidate_packet_pointers(*s);
  RegState* regs = s->regs();
  for (uint32_t reg = 1; reg <= 5; ++reg) regs[reg] = make_uninit();
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
      regs[0] = make_pointer(proto.ret == RetKind::map_value ? RegKind::map_value
                                                             : RegKind::map_value_or_null,
                             static_cast<uint32_t>(map));
      regs[0].id = e.fresh_id();
      break;
    }
    default:
      return e.fail(pc, Reason::unsupported_helper, -1, id_detail);
  }
  return true;
}

bool step_legacy_load(Engine& e, State& s, const Insn& insn, uint32_t pc) {
  if (!e.type.legacy_packet_loads) return e.fail(pc, Reason::legacy_packet_load);
  if (!check_init(e, s, 6, pc)) return false;
  if (s.regs()[6].kind != RegKind::ctx) return e.fail(pc, Reason::legacy_packet_load, 6);
  const bool indirect = insn.op == Op::ld_ind_b || insn.op == Op::ld_ind_h || insn.op == Op::ld_ind_w;
  if (indirect) {
    if (!check_init(e, s, insn.src, pc)) return false;
    if (s.regs()[insn.src].kind != RegKind::scalar && !e.options.privileged) {
      return e.fail(pc, Reason::pointer_leak, insn.src);
    }
  }
  uint64_t max = 0xffffffffu;
  if (insn.op == Op::ld_abs_b || insn.op == Op::ld_ind_b) max = 0xff;
  if (insn.op == Op::ld_abs_h || insn.op == Op::ld_ind_h) max = 0xffff;
  RegState* regs = s.regs();
  for (uint32_t reg = 1; reg <= 5; ++reg) regs[reg] = make_uninit();
  regs[0] = make_scalar(Scalar::from_urange(0, max));
  return true;
}

}  // namespace keel
