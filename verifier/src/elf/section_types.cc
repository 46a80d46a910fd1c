// SEC() name -> Linux program type name and attach type. libbpf's table
// first (Documentation/bpf/libbpf/program_types.rst; libbpf v1.x
// section_defs), matched as libbpf matches it, then the legacy conventions
// of loaders that predate it, as found in the ebpf-samples corpus (iproute2
// `tc ... sec X`, cilium's numbered tail-call sections, the Linux samples'
// bpf_load.c prefixes). Project-specific names with no convention behind
// them (ovs `tail-3`, `downcall`; Linux samples' `len_hist`,
// `redirect_xmit`) are left to LoadOptions::section_type.
#include "elf/reader.h"
#include "keel/elf.h"

namespace keel {

namespace {

enum class Match : uint8_t {
  exact,     // libbpf `name`: the whole name
  bare,      // libbpf `name+`: the name itself, or `name/` and anything after
  slash,     // libbpf `name/`: `name/` and anything after
  prefix,    // legacy loaders: any name that starts with the pattern ("xdp_fwd", "socket1")
};

struct Row {
  const char* pattern;
  Match match;
  const char* type;    // keel's program type name (Linux's, one per attach type for cgroup sock/sock_addr)
  const char* attach;  // libbpf's attach_type_name[] of its expected attach type; nullptr for none
};

// First match wins, so longer patterns come before their prefixes. libbpf's
// rows are in its order; `.s` marks sleepable programs, which keel checks
// as the plain type.
constexpr Row kRows[] = {
    {"socket", Match::exact, "socket_filter", nullptr},
    {"sk_reuseport/migrate", Match::exact, "sk_reuseport", "sk_reuseport_select_or_migrate"},
    {"sk_reuseport", Match::exact, "sk_reuseport", "sk_reuseport_select"},
    {"kprobe", Match::bare, "kprobe", nullptr},
    {"uprobe", Match::bare, "kprobe", nullptr},
    {"uprobe.s", Match::bare, "kprobe", nullptr},
    {"kretprobe", Match::bare, "kprobe", nullptr},
    {"uretprobe", Match::bare, "kprobe", nullptr},
    {"uretprobe.s", Match::bare, "kprobe", nullptr},
    {"kprobe.multi", Match::bare, "kprobe", "trace_kprobe_multi"},
    {"kretprobe.multi", Match::bare, "kprobe", "trace_kprobe_multi"},
    {"uprobe.multi", Match::bare, "kprobe", "trace_uprobe_multi"},
    {"uretprobe.multi", Match::bare, "kprobe", "trace_uprobe_multi"},
    {"uprobe.multi.s", Match::bare, "kprobe", "trace_uprobe_multi"},
    {"uretprobe.multi.s", Match::bare, "kprobe", "trace_uprobe_multi"},
    {"ksyscall", Match::bare, "kprobe", nullptr},
    {"kretsyscall", Match::bare, "kprobe", nullptr},
    {"usdt", Match::bare, "kprobe", nullptr},
    {"usdt.s", Match::bare, "kprobe", nullptr},
    {"tc/ingress", Match::exact, "sched_cls", "tcx_ingress"},  // libbpf: aliases of tcx
    {"tc/egress", Match::exact, "sched_cls", "tcx_egress"},
    {"tcx/ingress", Match::exact, "sched_cls", "tcx_ingress"},
    {"tcx/egress", Match::exact, "sched_cls", "tcx_egress"},
    {"netkit/primary", Match::exact, "sched_cls", "netkit_primary"},
    {"netkit/peer", Match::exact, "sched_cls", "netkit_peer"},
    {"tc", Match::exact, "sched_cls", nullptr},
    {"classifier", Match::exact, "sched_cls", nullptr},
    {"action", Match::exact, "sched_act", nullptr},
    {"tracepoint", Match::bare, "tracepoint", nullptr},
    {"tp", Match::bare, "tracepoint", nullptr},
    {"raw_tracepoint", Match::bare, "raw_tracepoint", nullptr},
    {"raw_tp", Match::bare, "raw_tracepoint", nullptr},
    {"raw_tracepoint.w", Match::bare, "raw_tracepoint_writable", nullptr},
    {"raw_tp.w", Match::bare, "raw_tracepoint_writable", nullptr},
    {"tp_btf", Match::bare, "tracing", "trace_raw_tp"},
    {"fentry", Match::bare, "tracing", "trace_fentry"},
    {"fmod_ret", Match::bare, "tracing", "modify_return"},
    {"fexit", Match::bare, "tracing", "trace_fexit"},
    {"fentry.s", Match::bare, "tracing", "trace_fentry"},
    {"fmod_ret.s", Match::bare, "tracing", "modify_return"},
    {"fexit.s", Match::bare, "tracing", "trace_fexit"},
    {"freplace", Match::bare, "ext", nullptr},
    {"lsm", Match::bare, "lsm", "lsm_mac"},
    {"lsm.s", Match::bare, "lsm", "lsm_mac"},
    {"lsm_cgroup", Match::bare, "lsm", "lsm_cgroup"},
    {"iter", Match::bare, "tracing", "trace_iter"},
    {"iter.s", Match::bare, "tracing", "trace_iter"},
    {"syscall", Match::exact, "syscall", nullptr},
    {"xdp.frags/devmap", Match::exact, "xdp", "xdp_devmap"},
    {"xdp/devmap", Match::exact, "xdp", "xdp_devmap"},
    {"xdp.frags/cpumap", Match::exact, "xdp", "xdp_cpumap"},
    {"xdp/cpumap", Match::exact, "xdp", "xdp_cpumap"},
    {"xdp.frags", Match::exact, "xdp", "xdp"},
    {"xdp", Match::exact, "xdp", "xdp"},
    {"perf_event", Match::exact, "perf_event", nullptr},
    {"lwt_in", Match::exact, "lwt_in", nullptr},
    {"lwt_out", Match::exact, "lwt_out", nullptr},
    {"lwt_xmit", Match::exact, "lwt_xmit", nullptr},
    {"lwt_seg6local", Match::exact, "lwt_seg6local", nullptr},
    {"sockops", Match::exact, "sock_ops", "cgroup_sock_ops"},
    {"sk_skb/stream_parser", Match::exact, "sk_skb", "sk_skb_stream_parser"},
    {"sk_skb/stream_verdict", Match::exact, "sk_skb", "sk_skb_stream_verdict"},
    {"sk_skb/verdict", Match::exact, "sk_skb", "sk_skb_verdict"},
    {"sk_skb", Match::exact, "sk_skb", nullptr},
    {"sk_msg", Match::exact, "sk_msg", "sk_msg_verdict"},
    {"lirc_mode2", Match::exact, "lirc_mode2", "lirc_mode2"},
    {"flow_dissector", Match::exact, "flow_dissector", "flow_dissector"},
    {"cgroup_skb/ingress", Match::exact, "cgroup_skb", "cgroup_inet_ingress"},
    {"cgroup_skb/egress", Match::exact, "cgroup_skb", "cgroup_inet_egress"},
    {"cgroup/skb", Match::exact, "cgroup_skb", nullptr},
    // cgroup_sock and cgroup_sock_addr: keel has one type per attach type
    // (their context fields, helpers and return codes differ), named as
    // the attach type is; `cgroup_sock` is the sock_create default. The
    // AF_UNIX attach types are not keel types: the generic name.
    {"cgroup/sock_create", Match::exact, "cgroup_sock", "cgroup_inet_sock_create"},
    {"cgroup/sock_release", Match::exact, "cgroup_inet_sock_release", "cgroup_inet_sock_release"},
    {"cgroup/sock", Match::exact, "cgroup_sock", "cgroup_inet_sock_create"},
    {"cgroup/post_bind4", Match::exact, "cgroup_inet4_post_bind", "cgroup_inet4_post_bind"},
    {"cgroup/post_bind6", Match::exact, "cgroup_inet6_post_bind", "cgroup_inet6_post_bind"},
    {"cgroup/bind4", Match::exact, "cgroup_inet4_bind", "cgroup_inet4_bind"},
    {"cgroup/bind6", Match::exact, "cgroup_inet6_bind", "cgroup_inet6_bind"},
    {"cgroup/connect4", Match::exact, "cgroup_inet4_connect", "cgroup_inet4_connect"},
    {"cgroup/connect6", Match::exact, "cgroup_inet6_connect", "cgroup_inet6_connect"},
    {"cgroup/connect_unix", Match::exact, "cgroup_sock_addr", "cgroup_unix_connect"},
    {"cgroup/sendmsg4", Match::exact, "cgroup_udp4_sendmsg", "cgroup_udp4_sendmsg"},
    {"cgroup/sendmsg6", Match::exact, "cgroup_udp6_sendmsg", "cgroup_udp6_sendmsg"},
    {"cgroup/sendmsg_unix", Match::exact, "cgroup_sock_addr", "cgroup_unix_sendmsg"},
    {"cgroup/recvmsg4", Match::exact, "cgroup_udp4_recvmsg", "cgroup_udp4_recvmsg"},
    {"cgroup/recvmsg6", Match::exact, "cgroup_udp6_recvmsg", "cgroup_udp6_recvmsg"},
    {"cgroup/recvmsg_unix", Match::exact, "cgroup_sock_addr", "cgroup_unix_recvmsg"},
    {"cgroup/getpeername4", Match::exact, "cgroup_inet4_getpeername", "cgroup_inet4_getpeername"},
    {"cgroup/getpeername6", Match::exact, "cgroup_inet6_getpeername", "cgroup_inet6_getpeername"},
    {"cgroup/getpeername_unix", Match::exact, "cgroup_sock_addr", "cgroup_unix_getpeername"},
    {"cgroup/getsockname4", Match::exact, "cgroup_inet4_getsockname", "cgroup_inet4_getsockname"},
    {"cgroup/getsockname6", Match::exact, "cgroup_inet6_getsockname", "cgroup_inet6_getsockname"},
    {"cgroup/getsockname_unix", Match::exact, "cgroup_sock_addr", "cgroup_unix_getsockname"},
    {"cgroup/sysctl", Match::exact, "cgroup_sysctl", "cgroup_sysctl"},
    {"cgroup/getsockopt", Match::exact, "cgroup_sockopt", "cgroup_getsockopt"},
    {"cgroup/setsockopt", Match::exact, "cgroup_sockopt", "cgroup_setsockopt"},
    {"cgroup/dev", Match::exact, "cgroup_device", "cgroup_device"},
    {"struct_ops", Match::bare, "struct_ops", nullptr},
    {"struct_ops.s", Match::bare, "struct_ops", nullptr},
    {"sk_lookup", Match::exact, "sk_lookup", "sk_lookup"},
    {"netfilter", Match::exact, "netfilter", "netfilter"},

    // Legacy loaders, before libbpf 1.0 made names strict: any name that
    // starts with a type's name (socket1, socket/0, xdp_fwd, xdp_prog,
    // cgroup/sock1 in the Linux samples; tc_mark in prototype-kernel).
    {"socket", Match::prefix, "socket_filter", nullptr},
    {"sk_reuseport", Match::prefix, "sk_reuseport", nullptr},
    {"kprobe.multi", Match::prefix, "kprobe", nullptr},
    {"kretprobe.multi", Match::prefix, "kprobe", nullptr},
    {"uprobe", Match::prefix, "kprobe", nullptr},
    {"uretprobe", Match::prefix, "kprobe", nullptr},
    {"usdt", Match::prefix, "kprobe", nullptr},
    {"tc", Match::prefix, "sched_cls", nullptr},  // also tcx/<anything>
    {"classifier", Match::prefix, "sched_cls", nullptr},
    {"action", Match::prefix, "sched_act", nullptr},
    {"xdp", Match::prefix, "xdp", nullptr},
    {"perf_event", Match::prefix, "perf_event", nullptr},
    {"lwt_in", Match::prefix, "lwt_in", nullptr},
    {"lwt_out", Match::prefix, "lwt_out", nullptr},
    {"lwt_xmit", Match::prefix, "lwt_xmit", nullptr},
    {"lwt_seg6local", Match::prefix, "lwt_seg6local", nullptr},
    {"sockops", Match::prefix, "sock_ops", nullptr},
    {"sk_skb", Match::prefix, "sk_skb", nullptr},
    {"sk_msg", Match::prefix, "sk_msg", nullptr},
    {"lirc_mode2", Match::prefix, "lirc_mode2", nullptr},
    {"flow_dissector", Match::prefix, "flow_dissector", nullptr},
    {"cgroup_skb/", Match::slash, "cgroup_skb", nullptr},
    {"cgroup/skb", Match::prefix, "cgroup_skb", nullptr},
    {"cgroup/sock", Match::prefix, "cgroup_sock", nullptr},
    {"cgroup/bind", Match::prefix, "cgroup_sock_addr", nullptr},  // no attach type keel knows
    {"cgroup/connect", Match::prefix, "cgroup_sock_addr", nullptr},
    {"cgroup/sendmsg", Match::prefix, "cgroup_sock_addr", nullptr},
    {"cgroup/recvmsg", Match::prefix, "cgroup_sock_addr", nullptr},
    {"cgroup/getpeername", Match::prefix, "cgroup_sock_addr", nullptr},
    {"cgroup/getsockname", Match::prefix, "cgroup_sock_addr", nullptr},
    {"struct_ops", Match::prefix, "struct_ops", nullptr},
    {"sk_lookup", Match::prefix, "sk_lookup", nullptr},
    // Cilium before libbpf names: its tc programs were loaded by iproute2
    // from `from-*` / `to-*` sections and its tail calls from numbered
    // `<map>/<slot>` sections (`2/1`, `1/0x1010`), all sched_cls.
    {"from-", Match::prefix, "sched_cls", nullptr},
    {"to-", Match::prefix, "sched_cls", nullptr},
};

bool matches(const Row& row, const char* name) {
  switch (row.match) {
    case Match::exact: return elf::same(name, row.pattern);
    case Match::prefix:
    case Match::slash: return elf::starts_with(name, row.pattern);
    case Match::bare: {
      const char* p = row.pattern;
      while (*p != '\0' && *p == *name) ++p, ++name;
      return *p == '\0' && (*name == '\0' || *name == '/');
    }
  }
  return false;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// `<decimal>/<decimal or 0xhex>` (cilium tail-call slots).
bool is_numbered(const char* name) {
  if (!is_digit(*name)) return false;
  while (is_digit(*name)) ++name;
  if (*name++ != '/') return false;
  if (name[0] == '0' && name[1] == 'x' && is_hex(name[2])) {
    name += 2;
    while (is_hex(*name)) ++name;
    return *name == '\0';
  }
  if (!is_digit(*name)) return false;
  while (is_digit(*name)) ++name;
  return *name == '\0';
}

const Row* find_row(const char* name) {
  if (name == nullptr) return nullptr;
  if (*name == '?') ++name;  // libbpf: `?` marks a program not loaded by default
  for (const Row& row : kRows) {
    if (matches(row, name)) return &row;
  }
  return nullptr;
}

}  // namespace

const char* program_type_for_section(const char* name) {
  if (const Row* row = find_row(name)) return row->type;
  if (name != nullptr && is_numbered(*name == '?' ? name + 1 : name)) return "sched_cls";
  return nullptr;
}

const char* attach_type_for_section(const char* name) {
  const Row* row = find_row(name);
  return row != nullptr ? row->attach : nullptr;
}

}  // namespace keel
