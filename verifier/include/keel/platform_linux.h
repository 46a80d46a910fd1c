// The Linux-compatible platform: the program types and helpers of Linux
// 6.1 (socket_filter, sched_cls, sched_act, xdp, cgroup_skb, kprobe,
// tracepoint, raw_tracepoint, perf_event, sock_ops, lwt_in/out/xmit/
// seg6local, and cgroup_sock /
// cgroup_sock_addr as one type per attach type), so that programs built for
// Linux can be checked as Linux would check them.
#pragma once

#include "keel/platform.h"

namespace keel {

const Platform& linux_platform();

}  // namespace keel
