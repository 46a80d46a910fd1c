// Legacy map definitions (`SEC("maps")`, struct bpf_map_def as the Linux
// samples and iproute2 wrote them, here with two extra fields so that the
// entry is 28 bytes, not 20) and old-style section names.
// Expected verdict: accept.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct legacy_map_def {
  unsigned int type;
  unsigned int key_size;
  unsigned int value_size;
  unsigned int max_entries;
  unsigned int map_flags;
  unsigned int inner_map_idx;
  unsigned int numa_node;
};

struct legacy_map_def counters SEC("maps") = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 256,
};
struct legacy_map_def flows SEC("maps") = {
    .type = BPF_MAP_TYPE_HASH, .key_size = 16, .value_size = 32, .max_entries = 1000,
    .map_flags = BPF_F_NO_PREALLOC,
};

SEC("socket1")
int count_protocol(struct __sk_buff* skb) {
  __u32 key = skb->protocol & 0xff;
  __u64* value = bpf_map_lookup_elem(&counters, &key);
  if (value) __sync_fetch_and_add(value, skb->len);
  char flow[16] = {};
  char* entry = bpf_map_lookup_elem(&flows, flow);
  if (entry) entry[31] = 1;
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
