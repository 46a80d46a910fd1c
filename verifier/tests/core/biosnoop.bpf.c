// biosnoop-like, on kprobes: per-request sector, length and op from the
// request's fields (cmd_flags' op bits, __sector, __data_len), queued at
// blk_mq_start_request and reported at blk_mq_end_request; the op's name
// decided through enum req_op values relocated against the kernel.
#include "core_common.h"

struct rq_event {
  __u64 sector, delta_ns;
  __u32 len, pid;
  __u8 write;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);
  __type(key, __u64);
  __type(value, __u64);
} issued SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 256 * 1024);
} ios SEC(".maps");

SEC("kprobe/blk_mq_start_request")
int BPF_KPROBE(start_request, struct request *rq) {
  __u64 key = (__u64)rq, ts = bpf_ktime_get_ns();
  bpf_map_update_elem(&issued, &key, &ts, BPF_ANY);
  return 0;
}

SEC("kprobe/blk_mq_end_request")
int BPF_KPROBE(end_request, struct request *rq) {
  __u64 key = (__u64)rq;
  __u64 *ts = bpf_map_lookup_elem(&issued, &key);
  if (!ts) return 0;
  struct rq_event *e = bpf_ringbuf_reserve(&ios, sizeof(*e), 0);
  if (e) {
    e->delta_ns = bpf_ktime_get_ns() - *ts;
    e->sector = BPF_CORE_READ(rq, __sector);
    e->len = BPF_CORE_READ(rq, __data_len);
    e->pid = bpf_get_current_pid_tgid() >> 32;
    __u32 op = BPF_CORE_READ(rq, cmd_flags) & 0xff;  // REQ_OP_MASK
    e->write = op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE);
    bpf_ringbuf_submit(e, 0);
  }
  bpf_map_delete_elem(&issued, &key);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
