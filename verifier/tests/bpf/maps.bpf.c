// Every common map kind, defined the BTF way (`.maps`), each used by a
// program. Expected verdict: accept (every lookup is null-checked, every
// access within the value).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct pair {
  __u64 packets;
  __u64 bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, struct pair);
} array_map SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u64);
  __type(value, __u32);
} hash_map SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 8);
  __type(key, __u32);
  __type(value, __u64);
} percpu_array_map SEC(".maps");

typedef const volatile struct pair pair_alias;  // sizes resolve through typedef/const/volatile
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, 64);
  __type(key, __u16);
  __type(value, pair_alias);
} percpu_hash_map SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 128);
  __uint(map_flags, BPF_F_NO_COMMON_LRU);
  __type(key, __u32);
  __type(value, char[12]);
} lru_map SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PROG_ARRAY);
  __uint(max_entries, 2);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} jump_table SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096);
} events SEC(".maps");

SEC("xdp")
int use_maps(struct xdp_md* ctx) {
  __u32 key = ctx->rx_queue_index & 3;
  struct pair* pair = bpf_map_lookup_elem(&array_map, &key);
  if (pair) pair->packets++;
  __u64 hkey = key;
  __u32 one = 1;
  bpf_map_update_elem(&hash_map, &hkey, &one, BPF_ANY);
  __u64* counter = bpf_map_lookup_elem(&percpu_array_map, &key);
  if (counter) *counter += 1;
  __u16 small = 7;
  struct pair* p2 = bpf_map_lookup_elem(&percpu_hash_map, &small);
  if (p2) p2->bytes += 2;
  char* name = bpf_map_lookup_elem(&lru_map, &key);
  if (name) name[11] = 0;
  __u32* event = bpf_ringbuf_reserve(&events, sizeof(__u32), 0);
  if (event) {
    *event = key;
    bpf_ringbuf_submit(event, 0);
  }
  return XDP_PASS;
}

// Tail call into slot 1 of jump_table; falls through when the slot is empty.
SEC("xdp")
int tail_caller(struct xdp_md* ctx) {
  bpf_tail_call(ctx, &jump_table, 1);
  return XDP_DROP;
}

SEC("xdp/tail")
int tail_callee(struct xdp_md* ctx) {
  (void)ctx;
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
