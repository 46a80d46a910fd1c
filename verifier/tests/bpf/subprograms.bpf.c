// BPF-to-BPF calls: static __noinline functions in .text called from two
// programs; `scale` calls `clamp` (linked in transitively); `unused` is
// never called and must not be linked into any program.
// Expected verdict: accept.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __noinline __u64 clamp(__u64 value, __u64 limit) {
  return value > limit ? limit : value;
}

static __noinline __u64 scale(__u64 value) {
  return clamp(value * 3, 1000);
}

static __noinline __u64 unused(__u64 value) {
  return value ^ 0x5a5a;
}

SEC("xdp")
int first(struct xdp_md* ctx) {
  return (int)(scale(ctx->data_end - ctx->data) & 1) + XDP_ABORTED;
}

SEC("tc")
int second(struct __sk_buff* skb) {
  return (int)clamp(skb->len, 1) + (int)(scale(skb->mark) & 1);
}

// Keeps `unused` in the object without calling it from a program.
__u64 (*volatile keep_unused)(__u64) = unused;

char LICENSE[] SEC("license") = "GPL";

// A callback passed by address (bpf_loop): the lddw that loads it becomes
// BPF_PSEUDO_FUNC (src 4) with imm relative to the next slot, and the
// callback is linked in like a called function.
static long add_index(__u32 index, void* context) {
  *(__u64*)context += index;
  return 0;
}

SEC("?xdp")  // `?`: not loaded by default (libbpf)
int with_callback(struct xdp_md* ctx) {
  __u64 total = ctx->rx_queue_index;
  bpf_loop(8, add_index, &total, 0);
  return total & 1 ? XDP_PASS : XDP_DROP;
}
