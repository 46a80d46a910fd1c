// Programs for the diagnostics of `keel verify` and `keel disasm`
// (verifier/cli/tests/diag_test.sh): each rejected program is rejected for
// one reason whose message must name what the source names. The comment
// gives the expected reason (verify.h Reason).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct locked {
  struct bpf_spin_lock lock;
  __u64 count;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct locked);
} counters SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u32);
} small SEC(".maps");

__u32 hits = 0;  // .bss: a global variable

// reject, unsupported_helper: bpf_spin_lock (93) takes a lock keel does not model.
SEC("tc")
int spin(struct __sk_buff* skb) {
  __u32 key = 0;
  struct locked* value = bpf_map_lookup_elem(&counters, &key);
  if (!value) return 0;
  bpf_spin_lock(&value->lock);
  value->count += skb->len;
  bpf_spin_unlock(&value->lock);
  return 0;
}

// reject, bad_return_value: cgroup_skb programs return 0 or 1.
SEC("cgroup_skb/ingress")
int verdict_range(struct __sk_buff* skb) { return skb->len & 7; }

// reject, unreleased_reference: the early return keeps the socket.
SEC("tc")
int leak(struct __sk_buff* skb) {
  struct bpf_sock_tuple tuple = {};
  struct bpf_sock* sk = bpf_sk_lookup_tcp(skb, &tuple, sizeof(tuple.ipv4), -1, 0);
  if (!sk) return 0;
  if (skb->len > 100)
    return 1;
  bpf_sk_release(sk);
  return 2;
}

// reject, map_value_out_of_bounds: the index is bounded by 7, the value
// holds 4 bytes (the state shows the registers involved).
SEC("tc")
int overrun(struct __sk_buff* skb) {
  __u32 key = 0;
  __u8* value = bpf_map_lookup_elem(&small, &key);
  if (!value) return 0;
  hits++;
  return value[skb->len & 7];
}

static __attribute__((noinline)) int twice(int x) { return x * 2; }

// accept: a subprogram, a loop and a global variable for the disassembler.
SEC("xdp")
int calls(struct xdp_md* ctx) {
  int total = 0;
  for (int i = 0; i < 4; i++) total += twice(i);
  hits += total;
  return total > 100 ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
