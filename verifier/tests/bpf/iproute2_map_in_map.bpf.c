// A map of maps defined iproute2's way (lib/bpf_legacy.c's 36-byte struct
// bpf_elf_map, as cilium's older objects do): `inner_id` names the inner
// map template by the template's `id`. Expected verdict: accept.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_elf_map {
  unsigned int type;
  unsigned int size_key;
  unsigned int size_value;
  unsigned int max_elem;
  unsigned int flags;
  unsigned int id;
  unsigned int pinning;
  unsigned int inner_id;
  unsigned int inner_idx;
};

struct bpf_elf_map counts SEC("maps") = {
    .type = BPF_MAP_TYPE_ARRAY, .size_key = 4, .size_value = 4, .max_elem = 1,
};
struct bpf_elf_map ports SEC("maps") = {
    .type = BPF_MAP_TYPE_HASH, .size_key = 4, .size_value = 8, .max_elem = 16, .id = 7, .inner_idx = ~0u,
};
struct bpf_elf_map port_sets SEC("maps") = {
    .type = BPF_MAP_TYPE_HASH_OF_MAPS, .size_key = 4, .size_value = 4, .max_elem = 4, .id = 8, .inner_id = 7,
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
