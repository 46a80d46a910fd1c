// tcpstates-like: TCP state changes from the inet_sock_set_state
// tracepoint, the socket's protocol read as libbpf reads a bitfield
// (BPF_CORE_READ_BITFIELD_PROBED: byte size, lshift and rshift
// relocations; sk_protocol was a bitfield before 5.6) and the time each
// socket spent in its previous state.
#include "core_common.h"

struct state_event {
  __u64 skaddr, delta_us;
  __u16 sport, dport, family, protocol;
  int oldstate, newstate;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);
  __type(key, __u64);
  __type(value, __u64);
} since SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} states SEC(".maps");

SEC("tracepoint/sock/inet_sock_set_state")
int set_state(struct trace_event_raw_inet_sock_set_state *ctx) {
  if (ctx->protocol != IPPROTO_TCP) return 0;
  struct sock *sk = (struct sock *)ctx->skaddr;
  __u64 key = (__u64)sk, now = bpf_ktime_get_ns();
  struct state_event e = {};
  e.skaddr = key;
  e.sport = ctx->sport;
  e.dport = ctx->dport;
  e.family = ctx->family;
  e.protocol = BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol);
  e.oldstate = ctx->oldstate;
  e.newstate = ctx->newstate;
  __u64 *then = bpf_map_lookup_elem(&since, &key);
  e.delta_us = then ? (now - *then) / 1000 : 0;
  if (ctx->newstate == 7 /* TCP_CLOSE */)
    bpf_map_delete_elem(&since, &key);
  else
    bpf_map_update_elem(&since, &key, &now, BPF_ANY);
  bpf_perf_event_output(ctx, &states, BPF_F_CURRENT_CPU, &e, sizeof(e));
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
