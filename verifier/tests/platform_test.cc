// The Linux platform tables against the uapi headers they restate and a few
// facts of the Linux 6.1 verifier.
#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <set>
#include <string>

#include "keel/isa.h"
#include "keel/platform.h"
#include "keel/platform_linux.h"

namespace keel {
namespace {

const ProgramType& type_named(const char* name) {
  const ProgramType* type = find_program_type(linux_platform(), name);
  EXPECT_NE(type, nullptr) << name;
  static ProgramType empty;
  return type != nullptr ? *type : empty;
}

const CtxField* field_at(const ProgramType& type, size_t offset) {
  for (uint32_t i = 0; i < type.field_count; ++i) {
    if (type.fields[i].offset == offset) return &type.fields[i];
  }
  return nullptr;
}

TEST(LinuxPlatform, ShipsTheNineProgramTypes) {
  for (const char* name : {"socket_filter", "sched_cls", "sched_act", "xdp", "cgroup_skb",
                           "kprobe", "tracepoint", "perf_event", "raw_tracepoint"}) {
    EXPECT_NE(find_program_type(linux_platform(), name), nullptr) << name;
  }
  EXPECT_EQ(find_program_type(linux_platform(), "lsm"), nullptr);
  EXPECT_EQ(find_program_type(linux_platform(), nullptr), nullptr);
}

TEST(LinuxPlatform, ContextSizesMatchUapi) {
  EXPECT_EQ(type_named("socket_filter").ctx_size, sizeof(__sk_buff));
  EXPECT_EQ(type_named("sched_cls").ctx_size, sizeof(__sk_buff));
  EXPECT_EQ(type_named("xdp").ctx_size, sizeof(xdp_md));
  EXPECT_EQ(type_named("perf_event").ctx_size, sizeof(bpf_perf_event_data));
  EXPECT_EQ(type_named("kprobe").ctx_size, sizeof(bpf_user_pt_regs_t));
}

TEST(LinuxPlatform, FieldsAreSortedAndInsideTheContext) {
  for (uint32_t t = 0; t < linux_platform().type_count; ++t) {
    const ProgramType& type = linux_platform().types[t];
    for (uint32_t i = 0; i < type.field_count; ++i) {
      const CtxField& f = type.fields[i];
      EXPECT_LE(f.offset + f.size, type.ctx_size) << type.name << " field at " << f.offset;
      if (i > 0) {
        const CtxField& previous = type.fields[i - 1];
        EXPECT_LE(previous.offset + previous.size, f.offset) << type.name << " overlap at " << f.offset;
      }
    }
  }
}

TEST(LinuxPlatform, PacketPointerFieldsSitWhereUapiPutsThem) {
  const ProgramType& tc = type_named("sched_cls");
  ASSERT_NE(field_at(tc, offsetof(__sk_buff, data)), nullptr);
  EXPECT_EQ(field_at(tc, offsetof(__sk_buff, data))->yields, CtxYield::packet);
  EXPECT_EQ(field_at(tc, offsetof(__sk_buff, data_end))->yields, CtxYield::packet_end);
  EXPECT_EQ(field_at(tc, offsetof(__sk_buff, data_meta))->yields, CtxYield::packet_meta);
  const ProgramType& xdp = type_named("xdp");
  EXPECT_EQ(field_at(xdp, offsetof(xdp_md, data))->yields, CtxYield::packet);
  EXPECT_EQ(field_at(xdp, offsetof(xdp_md, data_end))->yields, CtxYield::packet_end);
  EXPECT_EQ(field_at(xdp, offsetof(xdp_md, data_meta))->yields, CtxYield::packet_meta);
  // No direct packet access for socket filters (sk_filter_is_valid_access).
  EXPECT_EQ(field_at(type_named("socket_filter"), offsetof(__sk_buff, data)), nullptr);
  EXPECT_FALSE(type_named("socket_filter").direct_packet_access);
}

TEST(LinuxPlatform, SkMsgFieldsMatchUapi) {
  const ProgramType& msg = type_named("sk_msg");
  EXPECT_EQ(msg.ctx_size, sizeof(sk_msg_md));
  EXPECT_EQ(field_at(msg, offsetof(sk_msg_md, data))->yields, CtxYield::packet);
  EXPECT_EQ(field_at(msg, offsetof(sk_msg_md, data_end))->yields, CtxYield::packet_end);
  EXPECT_EQ(field_at(msg, offsetof(sk_msg_md, sk))->yields, CtxYield::sock);
  EXPECT_EQ(field_at(msg, offsetof(sk_msg_md, remote_ip6))->size, 16);
  EXPECT_EQ(field_at(msg, offsetof(sk_msg_md, size))->size, 4);
  EXPECT_EQ(field_at(msg, offsetof(sk_msg_md, local_port))->size, 4);
  const ProgramType& skb = type_named("sk_skb");
  EXPECT_EQ(skb.ctx_size, sizeof(__sk_buff));
  EXPECT_EQ(field_at(skb, offsetof(__sk_buff, data))->yields, CtxYield::packet);
  EXPECT_EQ(field_at(skb, offsetof(__sk_buff, mark)), nullptr);  // sk_skb_is_valid_access
  EXPECT_EQ(field_at(skb, offsetof(__sk_buff, tc_classid)), nullptr);
}

TEST(LinuxPlatform, SkbFieldOffsetsMatchUapi) {
  const ProgramType& tc = type_named("sched_cls");
  const struct {
    size_t offset;
    size_t size;
  } fields[] = {
      {offsetof(__sk_buff, len), 4},       {offsetof(__sk_buff, mark), 4},
      {offsetof(__sk_buff, cb), 20},       {offsetof(__sk_buff, tc_classid), 4},
      {offsetof(__sk_buff, napi_id), 4},   {offsetof(__sk_buff, tstamp), 8},
      {offsetof(__sk_buff, wire_len), 4},  {offsetof(__sk_buff, gso_size), 4},
      {offsetof(__sk_buff, tstamp_type), 1}, {offsetof(__sk_buff, hwtstamp), 8},
  };
  for (const auto& expected : fields) {
    const CtxField* f = field_at(tc, expected.offset);
    ASSERT_NE(f, nullptr) << expected.offset;
    EXPECT_EQ(f->size, expected.size) << expected.offset;
  }
  const ProgramType& cg = type_named("cgroup_skb");
  EXPECT_NE(field_at(cg, offsetof(__sk_buff, remote_ip6)), nullptr);
  EXPECT_EQ(field_at(cg, offsetof(__sk_buff, local_port))->size, 4);
}

TEST(LinuxPlatform, WriteRulesFollowTheKernel) {
  // Socket filters may only write cb[] (sk_filter_is_valid_access).
  const ProgramType& sf = type_named("socket_filter");
  EXPECT_EQ(field_at(sf, offsetof(__sk_buff, mark))->write_sizes, 0);
  EXPECT_NE(field_at(sf, offsetof(__sk_buff, cb))->write_sizes, 0);
  // tc may write mark but only with a full 4-byte store; reads may be narrow.
  const CtxField* mark = field_at(type_named("sched_cls"), offsetof(__sk_buff, mark));
  EXPECT_EQ(mark->write_sizes, 4);
  EXPECT_EQ(mark->read_sizes, 1 | 2 | 4);
  // xdp_md is read-only and every access is exactly 4 bytes.
  const ProgramType& xdp = type_named("xdp");
  for (uint32_t i = 0; i < xdp.field_count; ++i) {
    EXPECT_EQ(xdp.fields[i].write_sizes, 0);
    EXPECT_EQ(xdp.fields[i].read_sizes, 4);
  }
  // cgroup_skb: packet pointers only with CAP_BPF.
  EXPECT_TRUE(field_at(type_named("cgroup_skb"), offsetof(__sk_buff, data))->privileged);
  EXPECT_FALSE(field_at(type_named("cgroup_skb"), offsetof(__sk_buff, mark))->privileged);
}

TEST(LinuxPlatform, ReturnRangeOnlyWhereTheKernelChecksIt) {
  EXPECT_EQ(type_named("cgroup_skb").return_min, 0);
  EXPECT_EQ(type_named("cgroup_skb").return_max, 1);
  EXPECT_EQ(type_named("xdp").return_min, INT64_MIN);
  EXPECT_EQ(type_named("socket_filter").return_max, INT64_MAX);
}

TEST(LinuxPlatform, MapLookupPrototype) {
  const HelperSlot* slot = find_helper(type_named("socket_filter"), BPF_FUNC_map_lookup_elem);
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->gate, HelperGate::anyone);
  EXPECT_STREQ(slot->proto->name, "bpf_map_lookup_elem_proto");
  EXPECT_EQ(slot->proto->ret, RetKind::map_value_or_null);
  EXPECT_EQ(slot->proto->args[0], ArgKind::map_ptr);
  EXPECT_EQ(slot->proto->args[1], ArgKind::map_key);
  EXPECT_EQ(slot->proto->args[2], ArgKind::none);
}

// MEM_UNINIT is sound only for helpers that write every byte before they
// read any: a helper that reads its "output" first would get stack bytes the
// program never wrote (an info leak in Linux). Each prototype that lets a
// program pass uninitialized memory is listed here, reviewed against the
// helper's body in the 6.1 sources; a regenerated table that adds one fails
// until it is reviewed. bpf_{skb,xdp}_check_mtu read *mtu_len first: keel
// takes upstream's later fix (scripts/gen-linux-helpers CORRECTIONS).
TEST(LinuxPlatform, UninitArgumentsAreReviewed) {
  const std::set<std::string> reviewed = {
      // Write the whole buffer, zeroing it on failure.
      "bpf_copy_from_user_proto", "bpf_copy_from_user_task_proto", "bpf_dynptr_read_proto",
      "bpf_get_branch_snapshot_proto", "bpf_get_current_comm_proto", "bpf_get_ns_current_pid_tgid_proto",
      "bpf_get_stack_proto", "bpf_get_stack_proto_pe", "bpf_get_stack_proto_tp", "bpf_get_task_stack_proto",
      "bpf_map_peek_elem_proto", "bpf_map_pop_elem_proto", "bpf_perf_event_read_value_proto",
      "bpf_perf_prog_read_value_proto", "bpf_probe_read_compat_proto", "bpf_probe_read_compat_str_proto",
      "bpf_probe_read_kernel_proto", "bpf_probe_read_kernel_str_proto", "bpf_probe_read_user_proto",
      "bpf_probe_read_user_str_proto", "bpf_skb_get_tunnel_key_proto", "bpf_skb_get_tunnel_opt_proto",
      "bpf_skb_get_xfrm_state_proto", "bpf_skb_load_bytes_proto", "bpf_skb_load_bytes_relative_proto",
      "bpf_xdp_load_bytes_proto",
      // __bpf_getsockopt zeroes optval past what the option wrote, all of it on error.
      "bpf_sock_addr_getsockopt_proto", "bpf_sock_ops_getsockopt_proto",
      // *res = 0 before parsing (Debian's 6.1 carries the fix that added it).
      "bpf_strtol_proto", "bpf_strtoul_proto",
  };
  std::set<std::string> found;
  const Platform& platform = linux_platform();
  for (uint32_t t = 0; t < platform.type_count; ++t) {
    const ProgramType& type = platform.types[t];
    for (uint32_t h = 0; h < type.helper_count; ++h) {
      const HelperProto* proto = type.helpers[h].proto;
      // A prototype with a kind keel does not model (bpf_dynptr_from_mem's dynptr) is refused whole.
      if (proto == nullptr ||
          std::find(std::begin(proto->args), std::end(proto->args), ArgKind::unsupported) != std::end(proto->args)) {
        continue;
      }
      for (ArgKind kind : proto->args) {
        if (kind == ArgKind::mem_writable || kind == ArgKind::fixed_size_mem_writable) found.insert(proto->name);
      }
    }
  }
  for (const std::string& name : found) EXPECT_EQ(reviewed.count(name), 1u) << name << " takes uninitialized memory";
  for (const char* name : {"bpf_skb_check_mtu_proto", "bpf_xdp_check_mtu_proto"}) EXPECT_EQ(found.count(name), 0u);
  // mtu_len: 4 initialized bytes, written back. sock_ops' load_hdr_opt reads
  // the search key from the buffer it fills (MEM_WRITE without MEM_UNINIT).
  for (const char* type : {"sched_cls", "xdp"}) {
    const HelperSlot* mtu = find_helper(type_named(type), BPF_FUNC_check_mtu);
    ASSERT_NE(mtu, nullptr) << type;
    EXPECT_EQ(mtu->proto->args[2], ArgKind::fixed_size_mem_read_write) << type;
    EXPECT_EQ(mtu->proto->arg_size[2], 4u);
  }
  const HelperSlot* hdr = find_helper(type_named("sock_ops"), BPF_FUNC_load_hdr_opt);
  ASSERT_NE(hdr, nullptr);
  EXPECT_EQ(hdr->proto->args[1], ArgKind::mem_read_write);
}

TEST(LinuxPlatform, MemoryArgumentsAndSizes) {
  const HelperSlot* load = find_helper(type_named("sched_cls"), BPF_FUNC_skb_load_bytes);
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->proto->args[0], ArgKind::ctx);
  EXPECT_EQ(load->proto->args[2], ArgKind::mem_writable);
  EXPECT_EQ(load->proto->args[3], ArgKind::size);
  const HelperSlot* output = find_helper(type_named("kprobe"), BPF_FUNC_perf_event_output);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->proto->args[3], ArgKind::mem);
  EXPECT_TRUE(output->proto->read_only_mem[3]);
  EXPECT_EQ(output->proto->args[4], ArgKind::size_or_zero);
  const HelperSlot* reserve = find_helper(type_named("xdp"), BPF_FUNC_ringbuf_reserve);
  ASSERT_NE(reserve, nullptr);
  EXPECT_EQ(reserve->proto->ret, RetKind::alloc_mem_or_null);
  EXPECT_EQ(reserve->proto->args[1], ArgKind::alloc_size_or_zero);
}

TEST(LinuxPlatform, ReferenceHelpers) {
  // is_acquire_function: the socket lookups of every program type family
  // and ringbuf_reserve; OBJ_RELEASE arguments; is_ptr_cast_function.
  const ProgramType& tc = type_named("sched_cls");
  for (int id : {BPF_FUNC_sk_lookup_tcp, BPF_FUNC_sk_lookup_udp, BPF_FUNC_skc_lookup_tcp, BPF_FUNC_ringbuf_reserve}) {
    EXPECT_TRUE(find_helper(tc, id)->proto->acquires) << id;
    EXPECT_TRUE(find_helper(type_named("xdp"), id)->proto->acquires) << id;
  }
  EXPECT_TRUE(find_helper(type_named("cgroup_inet4_connect"), BPF_FUNC_sk_lookup_tcp)->proto->acquires);
  EXPECT_EQ(find_helper(tc, BPF_FUNC_sk_lookup_tcp)->proto->ret, RetKind::sock_or_null);
  EXPECT_EQ(find_helper(tc, BPF_FUNC_skc_lookup_tcp)->proto->ret, RetKind::sock_common_or_null);
  EXPECT_FALSE(find_helper(tc, BPF_FUNC_get_listener_sock)->proto->acquires);
  EXPECT_FALSE(find_helper(tc, BPF_FUNC_get_listener_sock)->proto->ret_shares_ref);
  EXPECT_EQ(find_helper(tc, BPF_FUNC_sk_release)->proto->release_arg, 1);
  // ARG_PTR_TO_BTF_ID_SOCK_COMMON | OBJ_RELEASE: the BTF variant of the socket kind.
  EXPECT_EQ(find_helper(tc, BPF_FUNC_sk_release)->proto->args[0], ArgKind::btf_sock_common);
  EXPECT_EQ(find_helper(tc, BPF_FUNC_ringbuf_submit)->proto->release_arg, 1);
  EXPECT_EQ(find_helper(tc, BPF_FUNC_ringbuf_discard)->proto->args[0], ArgKind::alloc_mem);
  EXPECT_EQ(find_helper(tc, BPF_FUNC_ringbuf_output)->proto->release_arg, 0);
  EXPECT_TRUE(find_helper(tc, BPF_FUNC_tcp_sock)->proto->ret_shares_ref);
  EXPECT_TRUE(find_helper(tc, BPF_FUNC_sk_fullsock)->proto->ret_shares_ref);
  EXPECT_EQ(find_helper(tc, BPF_FUNC_tcp_sock)->proto->ret, RetKind::tcp_sock_or_null);
  // The socket casts return the struct their .ret_btf_id names, or NULL;
  // mptcp's takes the plain socket kind (ARG_PTR_TO_SOCK_COMMON).
  const ProgramType* tracing = linux_btf_base_type("tracing");
  ASSERT_NE(tracing, nullptr);
  const HelperProto* to_tcp = find_helper(*tracing, BPF_FUNC_skc_to_tcp_sock)->proto;
  EXPECT_EQ(to_tcp->ret, RetKind::btf_ptr_or_null);
  EXPECT_STREQ(to_tcp->ret_btf_struct, "tcp_sock");
  EXPECT_EQ(to_tcp->args[0], ArgKind::btf_sock_common);
  EXPECT_TRUE(to_tcp->ret_shares_ref);
  EXPECT_STREQ(find_helper(*tracing, BPF_FUNC_skc_to_unix_sock)->proto->ret_btf_struct, "unix_sock");
  EXPECT_EQ(find_helper(*tracing, BPF_FUNC_skc_to_mptcp_sock)->proto->args[0], ArgKind::sock_common);
  EXPECT_STREQ(find_helper(*tracing, BPF_FUNC_get_current_task_btf)->proto->ret_btf_struct, "task_struct");
  EXPECT_EQ(find_helper(*tracing, BPF_FUNC_get_current_task_btf)->proto->ret, RetKind::btf_ptr);
  // kptr_xchg's type comes from the map (BPF_PTR_POISON): not modelled.
  EXPECT_EQ(find_helper(*tracing, BPF_FUNC_kptr_xchg)->proto->ret, RetKind::unsupported);
  // __sk_buff.sk: a socket or NULL, 8 bytes, read-only.
  const CtxField* sk = field_at(tc, offsetof(__sk_buff, sk));
  ASSERT_NE(sk, nullptr);
  EXPECT_EQ(sk->yields, CtxYield::sock_common_or_null);
  EXPECT_EQ(sk->size, 8);
  EXPECT_EQ(sk->write_sizes, 0);
}

TEST(LinuxPlatform, ReturnBoundedBySizeOnlyWhereLinuxRefinesIt) {
  // do_refine_retval_range (verifier.c, 6.1): get_stack, get_task_stack,
  // probe_read_{kernel,user}_str; not ordinary integer helpers.
  EXPECT_TRUE(find_helper(type_named("tracepoint"), BPF_FUNC_get_stack)->proto->ret_bounded_by_size);
  EXPECT_TRUE(find_helper(type_named("kprobe"), BPF_FUNC_probe_read_kernel_str)->proto->ret_bounded_by_size);
  EXPECT_TRUE(find_helper(type_named("kprobe"), BPF_FUNC_probe_read_user_str)->proto->ret_bounded_by_size);
  EXPECT_FALSE(find_helper(type_named("kprobe"), BPF_FUNC_probe_read_kernel)->proto->ret_bounded_by_size);
  EXPECT_FALSE(find_helper(type_named("sched_cls"), BPF_FUNC_skb_load_bytes)->proto->ret_bounded_by_size);
  EXPECT_FALSE(find_helper(type_named("socket_filter"), BPF_FUNC_ktime_get_ns)->proto->ret_bounded_by_size);
}

// Size arguments whose BPF_CALL_N parameter is u32/int (ADR 0014), from
// scripts/gen-linux-helpers; a u64 or size_t one stays 64-bit.
TEST(LinuxPlatform, SizeReadAs32BitsWhereTheImplementationSaysSo) {
  const HelperProto* probe_read = find_helper(type_named("kprobe"), BPF_FUNC_probe_read)->proto;
  EXPECT_TRUE(probe_read->size_u32[1]);   // bpf_probe_read_compat(void *, u32 size, ...)
  EXPECT_FALSE(probe_read->size_u32[0]);  // the pointer
  EXPECT_TRUE(find_helper(type_named("kprobe"), BPF_FUNC_probe_read_kernel_str)->proto->size_u32[1]);
  EXPECT_TRUE(find_helper(type_named("tracepoint"), BPF_FUNC_get_stack)->proto->size_u32[2]);
  EXPECT_TRUE(find_helper(type_named("sched_cls"), BPF_FUNC_skb_load_bytes)->proto->size_u32[3]);
  // bpf_perf_event_output(..., void *data, u64 size), bpf_ringbuf_output(map, data, u64 size, flags)
  EXPECT_FALSE(find_helper(type_named("kprobe"), BPF_FUNC_perf_event_output)->proto->size_u32[4]);
  EXPECT_FALSE(find_helper(type_named("kprobe"), BPF_FUNC_ringbuf_output)->proto->size_u32[2]);
}

TEST(LinuxPlatform, CapabilityGates) {
  // bpf_base_func_proto: trace_printk needs CAP_PERFMON, spin_lock CAP_BPF,
  // ktime_get_ns nothing.
  const ProgramType& sf = type_named("socket_filter");
  EXPECT_EQ(find_helper(sf, BPF_FUNC_trace_printk)->gate, HelperGate::privileged);
  EXPECT_EQ(find_helper(sf, BPF_FUNC_spin_lock)->gate, HelperGate::privileged);
  EXPECT_EQ(find_helper(sf, BPF_FUNC_ktime_get_ns)->gate, HelperGate::anyone);
  // Tracing types reach probe_read_kernel without a gate of their own.
  EXPECT_EQ(find_helper(type_named("kprobe"), BPF_FUNC_probe_read_kernel)->gate, HelperGate::anyone);
}

TEST(LinuxPlatform, AvailabilityPerType) {
  // skb helpers are not for XDP, xdp_adjust_head not for tc, tail calls for all.
  EXPECT_EQ(find_helper(type_named("xdp"), BPF_FUNC_skb_load_bytes), nullptr);
  EXPECT_NE(find_helper(type_named("xdp"), BPF_FUNC_xdp_adjust_head), nullptr);
  EXPECT_EQ(find_helper(type_named("sched_cls"), BPF_FUNC_xdp_adjust_head), nullptr);
  for (uint32_t t = 0; t < linux_platform().type_count; ++t) {
    const HelperSlot* tail = find_helper(linux_platform().types[t], BPF_FUNC_tail_call);
    ASSERT_NE(tail, nullptr) << linux_platform().types[t].name;
    EXPECT_TRUE(tail->proto->tail_call);
  }
  EXPECT_EQ(find_helper(type_named("socket_filter"), 0), nullptr);
  EXPECT_EQ(find_helper(type_named("socket_filter"), 100000), nullptr);
  EXPECT_EQ(find_helper(type_named("socket_filter"), -1), nullptr);
}

TEST(LinuxPlatform, HelpersSortedById) {
  for (uint32_t t = 0; t < linux_platform().type_count; ++t) {
    const ProgramType& type = linux_platform().types[t];
    EXPECT_GT(type.helper_count, 50u) << type.name;
    for (uint32_t i = 1; i < type.helper_count; ++i) {
      EXPECT_LT(type.helpers[i - 1].id, type.helpers[i].id) << type.name;
    }
  }
}

// find_helper's search against a scan of the table, for every type and
// every id from below the first to past the last, and for tables of every
// length up to 40 cut from one type (the search's halving depends on the
// length; a wrong step shows as a missed or a wrong slot).
const HelperSlot* scan_for(const HelperSlot* helpers, uint32_t count, int32_t id) {
  for (uint32_t i = 0; i < count; ++i) {
    if (helpers[i].id == id) return &helpers[i];
  }
  return nullptr;
}

TEST(LinuxPlatform, HelperSearchFindsWhatAScanFinds) {
  const Platform& platform = linux_platform();
  for (uint32_t t = 0; t < platform.type_count; ++t) {
    const ProgramType& type = platform.types[t];
    for (int32_t id = -3; id <= type.helpers[type.helper_count - 1].id + 3; ++id) {
      if (is_builtin(static_cast<uint64_t>(id))) continue;
      EXPECT_EQ(find_helper(type, id), scan_for(type.helpers, type.helper_count, id)) << type.name << " " << id;
    }
    EXPECT_EQ(find_helper(type, INT32_MIN), nullptr);
    EXPECT_EQ(find_helper(type, INT32_MAX), nullptr);
  }
  const ProgramType& kprobe = type_named("kprobe");
  for (uint32_t first = 0; first < 5; ++first) {
    for (uint32_t count = 0; count <= 40 && first + count <= kprobe.helper_count; ++count) {
      ProgramType cut = kprobe;
      cut.helpers = kprobe.helpers + first;
      cut.helper_count = count;
      for (int32_t id = -1; id <= kprobe.helpers[first + 40].id + 1; ++id) {
        EXPECT_EQ(find_helper(cut, id), scan_for(cut.helpers, count, id)) << first << " " << count << " " << id;
      }
    }
  }
}

// The socket types added for real-world objects: their contexts restate
// struct bpf_sock_ops, bpf_sock and bpf_sock_addr (uapi), one keel type per
// attach type where Linux's rules differ by it.
TEST(LinuxPlatform, SocketContextsMatchUapi) {
  EXPECT_EQ(type_named("sock_ops").ctx_size, sizeof(bpf_sock_ops));
  for (const char* name : {"cgroup_sock", "cgroup_inet_sock_release", "cgroup_inet4_post_bind",
                           "cgroup_inet6_post_bind"}) {
    EXPECT_EQ(type_named(name).ctx_size, sizeof(bpf_sock)) << name;
  }
  for (const char* name : {"cgroup_inet4_bind", "cgroup_inet6_bind", "cgroup_inet4_connect",
                           "cgroup_inet6_connect", "cgroup_udp4_sendmsg", "cgroup_udp6_sendmsg",
                           "cgroup_udp4_recvmsg", "cgroup_udp6_recvmsg", "cgroup_inet4_getpeername",
                           "cgroup_inet6_getpeername", "cgroup_inet4_getsockname",
                           "cgroup_inet6_getsockname"}) {
    EXPECT_EQ(type_named(name).ctx_size, sizeof(bpf_sock_addr)) << name;
  }
  const ProgramType& ops = type_named("sock_ops");
  ASSERT_NE(field_at(ops, offsetof(bpf_sock_ops, reply)), nullptr);
  EXPECT_EQ(field_at(ops, offsetof(bpf_sock_ops, reply))->write_sizes, 4);
  EXPECT_EQ(field_at(ops, offsetof(bpf_sock_ops, sk_txhash))->write_sizes, 4);
  EXPECT_EQ(field_at(ops, offsetof(bpf_sock_ops, bytes_received))->read_sizes, 8);
  EXPECT_EQ(field_at(ops, offsetof(bpf_sock_ops, skb_data))->yields, CtxYield::packet);
  EXPECT_EQ(field_at(ops, offsetof(bpf_sock_ops, skb_data_end))->yields, CtxYield::packet_end);
  EXPECT_TRUE(field_at(ops, offsetof(bpf_sock_ops, skb_tcp_flags))->narrow_at_start);
  EXPECT_EQ(field_at(ops, offsetof(bpf_sock_ops, sk)), nullptr);  // a socket pointer: not modelled
  EXPECT_TRUE(ops.direct_packet_access);
  EXPECT_FALSE(ops.packet_writable);
  EXPECT_FALSE(ops.packet_helper_args);

  const ProgramType& create = type_named("cgroup_sock");
  EXPECT_EQ(field_at(create, offsetof(bpf_sock, mark))->write_sizes, 4);
  EXPECT_EQ(field_at(create, offsetof(bpf_sock, src_ip4)), nullptr);
  EXPECT_TRUE(field_at(create, offsetof(bpf_sock, family))->narrow_at_start);
  EXPECT_FALSE(field_at(create, offsetof(bpf_sock, dst_ip4))->narrow_at_start);
  EXPECT_NE(field_at(create, offsetof(bpf_sock, rx_queue_mapping)), nullptr);
  const ProgramType& bind4 = type_named("cgroup_inet4_post_bind");
  EXPECT_EQ(field_at(bind4, offsetof(bpf_sock, mark)), nullptr);
  EXPECT_NE(field_at(bind4, offsetof(bpf_sock, src_ip4)), nullptr);
  EXPECT_NE(field_at(bind4, offsetof(bpf_sock, src_port)), nullptr);
  EXPECT_EQ(field_at(bind4, offsetof(bpf_sock, src_ip6)), nullptr);
  EXPECT_EQ(field_at(type_named("cgroup_inet6_post_bind"), offsetof(bpf_sock, src_ip6))->size, 16);

  const ProgramType& send6 = type_named("cgroup_udp6_sendmsg");
  EXPECT_EQ(field_at(send6, offsetof(bpf_sock_addr, user_ip6))->size, 16);
  EXPECT_EQ(field_at(send6, offsetof(bpf_sock_addr, msg_src_ip6))->size, 16);
  EXPECT_EQ(field_at(send6, offsetof(bpf_sock_addr, user_ip4)), nullptr);
  EXPECT_EQ(field_at(send6, offsetof(bpf_sock_addr, family))->write_sizes, 0);
  EXPECT_EQ(field_at(send6, offsetof(bpf_sock_addr, user_port))->write_sizes, 4);
  EXPECT_EQ(field_at(send6, offsetof(bpf_sock_addr, sk)), nullptr);
  EXPECT_EQ(field_at(type_named("cgroup_inet4_connect"), offsetof(bpf_sock_addr, msg_src_ip4)), nullptr);
}

TEST(LinuxPlatform, SocketTypeReturnRangesAndHelpers) {
  // check_return_code(), 6.1.
  EXPECT_EQ(type_named("sock_ops").return_max, 1);
  EXPECT_EQ(type_named("cgroup_sock").return_max, 1);
  EXPECT_EQ(type_named("cgroup_inet4_bind").return_max, 3);
  EXPECT_EQ(type_named("cgroup_udp4_recvmsg").return_min, 1);
  EXPECT_EQ(type_named("cgroup_inet6_getsockname").return_min, 1);
  EXPECT_EQ(type_named("cgroup_inet4_connect").return_min, 0);
  // sock_addr_func_proto: bind at connect only; setsockopt everywhere.
  EXPECT_NE(find_helper(type_named("cgroup_inet4_connect"), BPF_FUNC_bind), nullptr);
  EXPECT_EQ(find_helper(type_named("cgroup_udp4_sendmsg"), BPF_FUNC_bind), nullptr);
  EXPECT_STREQ(find_helper(type_named("cgroup_udp6_recvmsg"), BPF_FUNC_setsockopt)->proto->name,
               "bpf_sock_addr_setsockopt_proto");
  EXPECT_STREQ(find_helper(type_named("sock_ops"), BPF_FUNC_setsockopt)->proto->name,
               "bpf_sock_ops_setsockopt_proto");
  // cgroup_common_func_proto comes first: get_local_storage for every cgroup
  // type, get_retval not where the hook fixes the return value.
  EXPECT_NE(find_helper(type_named("cgroup_skb"), BPF_FUNC_get_local_storage), nullptr);
  EXPECT_EQ(find_helper(type_named("cgroup_skb"), BPF_FUNC_get_retval), nullptr);
  EXPECT_EQ(find_helper(type_named("sock_ops"), BPF_FUNC_get_retval), nullptr);
  EXPECT_NE(find_helper(type_named("cgroup_sock"), BPF_FUNC_get_retval), nullptr);
  EXPECT_EQ(find_helper(type_named("cgroup_inet4_getpeername"), BPF_FUNC_set_retval), nullptr);
  EXPECT_EQ(find_helper(type_named("cgroup_inet4_getpeername"), BPF_FUNC_get_current_pid_tgid)->gate,
            HelperGate::anyone);  // cgroup_current_func_proto
  EXPECT_EQ(find_helper(type_named("sock_ops"), BPF_FUNC_get_current_pid_tgid), nullptr);
  EXPECT_EQ(find_helper(type_named("cgroup_skb"), BPF_FUNC_get_local_storage)->proto->ret, RetKind::map_value);
}

// keel's compiler builtins (keel/isa.h, ADR 0011): every type offers them,
// a type without helpers too, and no id next to them.
TEST(Platform, BuiltinsInEveryType) {
  CtxField field;
  const ProgramType bare = make_conformance_type(16, nullptr, 0, field);
  for (const ProgramType* type : {&bare, &type_named("xdp"), &type_named("kprobe")}) {
    for (int32_t id = kBuiltinMemset; id <= kBuiltinMemcmp; ++id) {
      const HelperSlot* slot = find_helper(*type, id);
      ASSERT_NE(slot, nullptr) << type->name << " " << id;
      EXPECT_EQ(slot->id, id);
      EXPECT_STREQ(slot->proto->name, builtin_name(static_cast<uint64_t>(id)));
      EXPECT_EQ(slot->gate, HelperGate::anyone);
    }
    EXPECT_EQ(find_helper(*type, kBuiltinMemset - 1), nullptr);
    EXPECT_EQ(find_helper(*type, kBuiltinMemcmp + 1), nullptr);
  }
  EXPECT_EQ(find_helper(bare, kBuiltinMemcmp)->proto->ret, RetKind::integer);
  EXPECT_EQ(find_helper(bare, kBuiltinMemset)->proto->ret, RetKind::none);
  EXPECT_EQ(builtin_id("memmove", SIZE_MAX), kBuiltinMemmove);
  EXPECT_EQ(builtin_id("memcpyx", 6), kBuiltinMemcpy);
  EXPECT_EQ(builtin_id("memcpyx", SIZE_MAX), 0);
  EXPECT_EQ(builtin_id("bcmp", SIZE_MAX), 0);
}

}  // namespace
}  // namespace keel
