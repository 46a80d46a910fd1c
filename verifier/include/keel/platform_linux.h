// The Linux-compatible platform: the program types and helpers of Linux
// 6.1 (socket_filter, sched_cls, sched_act, xdp, cgroup_skb, kprobe,
// tracepoint, raw_tracepoint, perf_event, sock_ops, lwt_in/out/xmit/
// seg6local, sk_skb, sk_msg, and cgroup_sock /
// cgroup_sock_addr as one type per attach type), so that programs built for
// Linux can be checked as Linux would check them.
#pragma once

#include "keel/platform.h"

namespace keel {

const Platform& linux_platform();

// The name of Linux helper `id` as the program's source calls it
// ("bpf_spin_lock" for 93), or nullptr for an id Linux 6.1 does not define.
const char* linux_helper_name(int32_t id);

// One Linux map type (uapi linux/bpf.h, enum bpf_map_type) that keel models.
struct LinuxMapType {
  uint32_t id;        // BPF_MAP_TYPE_* value
  const char* name;   // "BPF_MAP_TYPE_ARRAY"
  MapType type;
  bool holds_fds;     // its keys and values are 4 bytes whatever the definition says
};

// The row of BPF_MAP_TYPE_* `id`, or of the one called `name`; nullptr when
// keel does not model it.
const LinuxMapType* find_linux_map_type(uint32_t id);
const LinuxMapType* find_linux_map_type(const char* name);
// keel's kind for BPF_MAP_TYPE_* `id`: MapType::other when keel does not model it.
MapType map_type_for_linux(uint32_t id);
// The BPF_MAP_TYPE_* of `type` (0, BPF_MAP_TYPE_UNSPEC, for MapType::other).
uint32_t linux_map_type_id(MapType type);

// The helpers and rules shared by every program of a BTF-typed kind
// ("tracing": fentry/fexit/fmod_ret/tp_btf/iter; "lsm"), without a
// context: keel/btf_program.h completes one per target. nullptr for other
// names. Not in linux_platform(), which offers only complete types.
const ProgramType* linux_btf_base_type(const char* kind);

}  // namespace keel
