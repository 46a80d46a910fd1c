// A map of maps defined the Linux samples' legacy way (bpf_load.c's 28-byte
// struct bpf_load_map_def): inner_map_idx names the inner map template by
// its position among the `maps` definitions. Expected verdict: accept.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_load_map_def {
  unsigned int type;
  unsigned int key_size;
  unsigned int value_size;
  unsigned int max_entries;
  unsigned int map_flags;
  unsigned int inner_map_idx;
  unsigned int numa_node;
};

struct bpf_load_map_def ports SEC("maps") = {
    .type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = 8, .max_entries = 16,
};
struct bpf_load_map_def counts SEC("maps") = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 1,
};
struct bpf_load_map_def port_sets SEC("maps") = {
    .type = BPF_MAP_TYPE_HASH_OF_MAPS, .key_size = 4, .value_size = 4, .max_entries = 4,
    .inner_map_idx = 0,  // ports
};

SEC("socket1")
int lookup_port(struct __sk_buff* skb) {
  __u32 key = skb->protocol;
  void* set = bpf_map_lookup_elem(&port_sets, &key);
  if (!set) return 0;
  __u64* hits = bpf_map_lookup_elem(set, &key);
  if (hits) *hits += 1;
  __u32 zero = 0;
  __u32* count = bpf_map_lookup_elem(&counts, &zero);
  if (count) *count += 1;
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
