// SEC() name -> Linux program type name. Rows follow libbpf's documented
// section names (Documentation/bpf/libbpf/program_types.rst), then the
// legacy conventions of loaders that predate it, as found in the
// ebpf-samples corpus (iproute2 `tc ... sec X`, cilium's numbered tail-call
// sections, the Linux samples' bpf_load.c prefixes). Project-specific names
// with no convention behind them (ovs `tail-3`, `downcall`; Linux samples'
// `len_hist`, `redirect_xmit`) are left to LoadOptions::section_type.
#include "elf/reader.h"
#include "keel/elf.h"

namespace keel {

namespace {

enum class Match : uint8_t {
  exact,   // the whole name
  prefix,  // the name starts with the pattern (pattern "xdp" takes "xdp_fwd", "xdp.frags", "xdp/devmap")
};

struct Row {
  const char* pattern;
  Match match;
  const char* type;
};

// First match wins, so longer patterns come before their prefixes.
constexpr Row kRows[] = {
    // libbpf
    {"socket", Match::prefix, "socket_filter"},      // also socket1, socket/0 (Linux samples)
    {"sk_reuseport", Match::prefix, "sk_reuseport"},
    {"kprobe/", Match::prefix, "kprobe"},
    {"kretprobe/", Match::prefix, "kprobe"},
    {"kprobe.multi", Match::prefix, "kprobe"},
    {"kretprobe.multi", Match::prefix, "kprobe"},
    {"ksyscall/", Match::prefix, "kprobe"},
    {"kretsyscall/", Match::prefix, "kprobe"},
    {"uprobe", Match::prefix, "kprobe"},             // uprobe/, uprobe.s/, uprobe.multi
    {"uretprobe", Match::prefix, "kprobe"},
    {"usdt", Match::prefix, "kprobe"},
    {"tcx/", Match::prefix, "sched_cls"},
    {"tc", Match::prefix, "sched_cls"},              // tc, tc/ingress; tc_mark (prototype-kernel)
    {"classifier", Match::prefix, "sched_cls"},
    {"action", Match::prefix, "sched_act"},
    {"tracepoint/", Match::prefix, "tracepoint"},
    {"tp/", Match::prefix, "tracepoint"},
    {"raw_tracepoint.w/", Match::prefix, "raw_tracepoint_writable"},
    {"raw_tp.w/", Match::prefix, "raw_tracepoint_writable"},
    {"raw_tracepoint/", Match::prefix, "raw_tracepoint"},
    {"raw_tp/", Match::prefix, "raw_tracepoint"},
    {"tp_btf/", Match::prefix, "tracing"},
    {"fentry/", Match::prefix, "tracing"},
    {"fentry.s/", Match::prefix, "tracing"},
    {"fmod_ret/", Match::prefix, "tracing"},
    {"fmod_ret.s/", Match::prefix, "tracing"},
    {"fexit/", Match::prefix, "tracing"},
    {"fexit.s/", Match::prefix, "tracing"},
    {"iter/", Match::prefix, "tracing"},
    {"iter.s/", Match::prefix, "tracing"},
    {"freplace/", Match::prefix, "ext"},
    {"lsm/", Match::prefix, "lsm"},
    {"lsm.s/", Match::prefix, "lsm"},
    {"lsm_cgroup/", Match::prefix, "lsm"},
    {"xdp", Match::prefix, "xdp"},                   // also xdp1, xdp_fwd, xdp_prog (Linux samples)
    {"perf_event", Match::prefix, "perf_event"},
    {"lwt_in", Match::prefix, "lwt_in"},
    {"lwt_out", Match::prefix, "lwt_out"},
    {"lwt_xmit", Match::prefix, "lwt_xmit"},
    {"lwt_seg6local", Match::prefix, "lwt_seg6local"},
    {"sockops", Match::prefix, "sock_ops"},
    {"sk_skb", Match::prefix, "sk_skb"},
    {"sk_msg", Match::prefix, "sk_msg"},
    {"lirc_mode2", Match::prefix, "lirc_mode2"},
    {"flow_dissector", Match::prefix, "flow_dissector"},
    {"cgroup_skb/", Match::prefix, "cgroup_skb"},
    {"cgroup/skb", Match::prefix, "cgroup_skb"},
    // cgroup_sock and cgroup_sock_addr: keel has one type per attach type
    // (their context fields, helpers and return codes differ), named as
    // libbpf's attach_type_name[] names the attach type; `cgroup_sock` is
    // the sock_create default.
    {"cgroup/sock_create", Match::exact, "cgroup_sock"},
    {"cgroup/sock_release", Match::exact, "cgroup_inet_sock_release"},
    {"cgroup/post_bind4", Match::exact, "cgroup_inet4_post_bind"},
    {"cgroup/post_bind6", Match::exact, "cgroup_inet6_post_bind"},
    {"cgroup/sock", Match::prefix, "cgroup_sock"},   // also cgroup/sock1 (Linux samples)
    {"cgroup/dev", Match::exact, "cgroup_device"},
    {"cgroup/sysctl", Match::exact, "cgroup_sysctl"},
    {"cgroup/getsockopt", Match::exact, "cgroup_sockopt"},
    {"cgroup/setsockopt", Match::exact, "cgroup_sockopt"},
    {"cgroup/bind4", Match::exact, "cgroup_inet4_bind"},
    {"cgroup/bind6", Match::exact, "cgroup_inet6_bind"},
    {"cgroup/connect4", Match::exact, "cgroup_inet4_connect"},
    {"cgroup/connect6", Match::exact, "cgroup_inet6_connect"},
    {"cgroup/sendmsg4", Match::exact, "cgroup_udp4_sendmsg"},
    {"cgroup/sendmsg6", Match::exact, "cgroup_udp6_sendmsg"},
    {"cgroup/recvmsg4", Match::exact, "cgroup_udp4_recvmsg"},
    {"cgroup/recvmsg6", Match::exact, "cgroup_udp6_recvmsg"},
    {"cgroup/getpeername4", Match::exact, "cgroup_inet4_getpeername"},
    {"cgroup/getpeername6", Match::exact, "cgroup_inet6_getpeername"},
    {"cgroup/getsockname4", Match::exact, "cgroup_inet4_getsockname"},
    {"cgroup/getsockname6", Match::exact, "cgroup_inet6_getsockname"},
    {"cgroup/bind", Match::prefix, "cgroup_sock_addr"},  // no attach type keel knows
    {"cgroup/connect", Match::prefix, "cgroup_sock_addr"},
    {"cgroup/sendmsg", Match::prefix, "cgroup_sock_addr"},
    {"cgroup/recvmsg", Match::prefix, "cgroup_sock_addr"},
    {"cgroup/getpeername", Match::prefix, "cgroup_sock_addr"},
    {"cgroup/getsockname", Match::prefix, "cgroup_sock_addr"},
    {"struct_ops", Match::prefix, "struct_ops"},
    {"syscall", Match::exact, "syscall"},
    {"sk_lookup", Match::prefix, "sk_lookup"},
    {"netfilter", Match::exact, "netfilter"},
    // Cilium before libbpf names: its tc programs were loaded by iproute2
    // from `from-*` / `to-*` sections and its tail calls from numbered
    // `<map>/<slot>` sections (`2/1`, `1/0x1010`), all sched_cls.
    {"from-", Match::prefix, "sched_cls"},
    {"to-", Match::prefix, "sched_cls"},
};

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

}  // namespace

const char* program_type_for_section(const char* name) {
  if (name == nullptr) return nullptr;
  if (*name == '?') ++name;  // libbpf: `?` marks a program not loaded by default
  for (const Row& row : kRows) {
    if (row.match == Match::exact ? elf::same(name, row.pattern) : elf::starts_with(name, row.pattern))
      return row.type;
  }
  if (is_numbered(name)) return "sched_cls";
  return nullptr;
}

}  // namespace keel
