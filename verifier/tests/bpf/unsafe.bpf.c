// Deliberately unsafe programs, one fault each. The expected verdict of
// every program here is reject; the comment names the reason (keel's
// verify.h Reason) and the pc range the verifier should point at.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} values SEC(".maps");

// reject, packet_out_of_bounds: reads the Ethernet protocol with no
// comparison against data_end.
SEC("xdp")
int no_bounds_check(struct xdp_md* ctx) {
  struct ethhdr* eth = (void*)(long)ctx->data;
  return eth->h_proto == 8 ? XDP_DROP : XDP_PASS;
}

// reject, null_dereference: the lookup result may be NULL.
SEC("xdp")
int no_null_check(struct xdp_md* ctx) {
  __u32 key = 0;
  __u64* value = bpf_map_lookup_elem(&values, &key);
  *value += ctx->rx_queue_index;
  return XDP_PASS;
}

// reject, stack_out_of_bounds: the index reaches past the 8-byte array
// (and the frame), since `i` is only bounded by 64.
SEC("socket")
int stack_out_of_range(struct __sk_buff* skb) {
  volatile char buffer[8] = {};
  __u32 i = skb->len & 63;
  return buffer[i];
}

// reject, uninit_stack: `result` is written on one path only.
#pragma clang diagnostic ignored "-Wsometimes-uninitialized"
SEC("socket")
int uninitialized_read(struct __sk_buff* skb) {
  volatile __u32 result;
  if (skb->len > 100) result = 1;
  return result;
}

// reject, unbounded_loop: `i` stays even and `n` is odd, so `i != n`
// never fails; no trip-count bound exists (the loop does not terminate).
SEC("socket")
int unbounded_loop(struct __sk_buff* skb) {
  __u64 n = skb->len | 1;
  volatile __u32 acc = 0;
  for (__u64 i = 0; i != n; i += 2) acc += (__u32)i;
  return acc;
}

char LICENSE[] SEC("license") = "GPL";
