// tcpconnect-like: IPv4 connect(2) attempts, the socket kept from the
// kprobe to the kretprobe, addresses read from sk->__sk_common.
#include "core_common.h"

struct connect_event {
  __u32 pid, saddr, daddr;
  __u16 dport;
  int ret;
  char comm[TASK_COMM_LEN];
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);
  __type(key, __u32);
  __type(value, struct sock *);
} sockets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u16);
  __type(value, __u64);
} per_port SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} connects SEC(".maps");

SEC("kprobe/tcp_v4_connect")
int BPF_KPROBE(connect_entry, struct sock *sk) {
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  bpf_map_update_elem(&sockets, &tid, &sk, BPF_ANY);
  return 0;
}

SEC("kretprobe/tcp_v4_connect")
int BPF_KRETPROBE(connect_return, int ret) {
  __u64 id = bpf_get_current_pid_tgid();
  __u32 tid = (__u32)id;
  struct sock **skp = bpf_map_lookup_elem(&sockets, &tid);
  if (!skp) return 0;
  struct sock *sk = *skp;
  struct connect_event e = {};
  e.pid = id >> 32;
  e.ret = ret;
  e.saddr = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
  e.daddr = BPF_CORE_READ(sk, __sk_common.skc_daddr);
  e.dport = __builtin_bswap16(BPF_CORE_READ(sk, __sk_common.skc_dport));
  bpf_get_current_comm(&e.comm, sizeof(e.comm));
  bpf_perf_event_output(ctx, &connects, BPF_F_CURRENT_CPU, &e, sizeof(e));
  __u64 one = 1, *count = bpf_map_lookup_elem(&per_port, &e.dport);
  if (count)
    __sync_fetch_and_add(count, 1);
  else
    bpf_map_update_elem(&per_port, &e.dport, &one, BPF_NOEXIST);
  bpf_map_delete_elem(&sockets, &tid);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
