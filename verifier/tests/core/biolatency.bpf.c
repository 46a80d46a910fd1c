// biolatency-like: block request latency as a log2 histogram per disk.
// The disk is rq->q->disk on current kernels and rq->rq_disk before 5.17:
// a flavored type and bpf_core_field_exists pick the one the kernel has
// (the other path's relocation is poisoned, in dead code).
#include "core_common.h"

struct request___old {
  struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

struct hist_key {
  __u32 dev;
  __u32 slot;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);
  __type(key, struct request *);
  __type(value, __u64);
} started SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, struct hist_key);
  __type(value, __u64);
} hists SEC(".maps");

static __always_inline struct gendisk *request_disk(struct request *rq) {
  if (bpf_core_field_exists(((struct request___old *)rq)->rq_disk))
    return BPF_CORE_READ((struct request___old *)rq, rq_disk);
  return BPF_CORE_READ(rq, q, disk);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(rq_issue, struct request *rq) {
  __u64 ts = bpf_ktime_get_ns();
  bpf_map_update_elem(&started, &rq, &ts, BPF_ANY);
  return 0;
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(rq_complete, struct request *rq, int error, unsigned int nr_bytes) {
  __u64 *start = bpf_map_lookup_elem(&started, &rq);
  if (!start) return 0;
  __u64 delta = bpf_ktime_get_ns() - *start;
  struct gendisk *disk = request_disk(rq);
  struct hist_key key = {};
  key.dev = disk ? (BPF_CORE_READ(disk, major) << 20) | BPF_CORE_READ(disk, first_minor) : 0;
  key.slot = log2_slot(delta / 1000);
  __u64 one = 1, *count = bpf_map_lookup_elem(&hists, &key);
  if (count)
    __sync_fetch_and_add(count, 1);
  else
    bpf_map_update_elem(&hists, &key, &one, BPF_NOEXIST);
  bpf_map_delete_elem(&started, &rq);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
