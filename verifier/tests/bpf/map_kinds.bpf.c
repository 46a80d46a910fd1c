// Map kinds beyond the plain lookup maps: an LPM trie, maps of maps (whose
// BTF `values` member declares the inner map template), and the device,
// CPU and AF_XDP socket maps that XDP programs redirect through.
// Expected verdict: accept.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct inner_array {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __uint(max_entries, 2);
  __type(key, __u32);
  __array(values, struct inner_array);
} outer_array SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
  __uint(max_entries, 8);
  __type(key, __u16);
  __array(values, struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 16);
    __type(key, __u32);
    __type(value, char[24]);
  });
} outer_hash SEC(".maps");

struct lpm_key {
  __u32 prefixlen;
  __u32 addr;
};

struct {
  __uint(type, BPF_MAP_TYPE_LPM_TRIE);
  __uint(max_entries, 64);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, struct lpm_key);
  __type(value, __u32);
} routes SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u32);
} tx_ports SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_CPUMAP);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u32);
} cpus SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u32);
} sockets SEC(".maps");

SEC("xdp")
int route(struct xdp_md* ctx) {
  struct lpm_key key = {32, ctx->rx_queue_index};
  __u32* port = bpf_map_lookup_elem(&routes, &key);
  if (!port) return XDP_PASS;
  __u32 slot = 1;
  void* counters = bpf_map_lookup_elem(&outer_array, &slot);
  if (counters) {
    __u64* counter = bpf_map_lookup_elem(counters, &slot);
    if (counter) *counter += 1;
  }
  __u16 bucket = 3;
  void* names = bpf_map_lookup_elem(&outer_hash, &bucket);
  if (names) {
    char* name = bpf_map_lookup_elem(names, port);
    if (name) name[23] = 0;
  }
  __u32* ifindex = bpf_map_lookup_elem(&tx_ports, port);
  if (ifindex && *ifindex == 0) return XDP_DROP;
  return bpf_redirect_map(&tx_ports, *port, XDP_PASS);
}

SEC("xdp")
int to_cpu(struct xdp_md* ctx) {
  return bpf_redirect_map(&cpus, ctx->rx_queue_index & 3, XDP_PASS);
}

SEC("xdp")
int to_socket(struct xdp_md* ctx) {
  return bpf_redirect_map(&sockets, ctx->rx_queue_index, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
