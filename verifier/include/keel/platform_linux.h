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

// The helpers and rules shared by every program of a BTF-typed kind
// ("tracing": fentry/fexit/fmod_ret/tp_btf/iter; "lsm"), without a
// context: keel/btf_program.h completes one per target. nullptr for other
// names. Not in linux_platform(), which offers only complete types.
const ProgramType* linux_btf_base_type(const char* kind);

}  // namespace keel
