// The Linux platform tables against the uapi headers they restate and a few
// facts of the Linux 6.1 verifier.
#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>

#include <cstddef>
#include <cstring>

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

}  // namespace
}  // namespace keel
