// Programs the kernel loads only with the object's BTF: a bpf_loop
// callback (func_info: "missing btf func_info" without it) and a spin lock
// in a map value (the map's BTF describes the lock). `keel compare` must
// load them through libbpf; without BTF the kernel refuses both.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct counter {
  struct bpf_spin_lock lock;
  __u64 value;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct counter);
} counters SEC(".maps");

static long add_one(__u32 index, void* context) {
  __u64* sum = context;
  *sum += index;
  return 0;
}

SEC("xdp")
int loop_callback(struct xdp_md* ctx) {
  __u64 sum = 0;
  bpf_loop(8, add_one, &sum, 0);
  return sum == 28 ? XDP_PASS : XDP_DROP;
}

SEC("tc")
int locked_count(struct __sk_buff* skb) {
  __u32 key = 0;
  struct counter* counter = bpf_map_lookup_elem(&counters, &key);
  if (counter == 0) return 0;
  bpf_spin_lock(&counter->lock);
  counter->value += skb->len;
  bpf_spin_unlock(&counter->lock);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
