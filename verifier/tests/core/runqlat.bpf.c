// runqlat-like: scheduler run-queue latency, wakeup to switch-in, as a
// log2 histogram; a preempted task is queued again (its state read with
// the __state/state flavor of core_common.h).
#include "core_common.h"

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);
  __type(key, __u32);
  __type(value, __u64);
} queued SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, MAX_SLOTS);
  __type(key, __u32);
  __type(value, __u64);
} slots SEC(".maps");

static __always_inline void enqueue(struct task_struct *p) {
  __u32 pid = BPF_CORE_READ(p, pid);
  if (pid == 0) return;
  __u64 ts = bpf_ktime_get_ns();
  bpf_map_update_elem(&queued, &pid, &ts, BPF_ANY);
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p) {
  enqueue(p);
  return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p) {
  enqueue(p);
  return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next) {
  if (task_state(prev) == 0) enqueue(prev);  // TASK_RUNNING: still wants the CPU
  __u32 pid = BPF_CORE_READ(next, pid);
  __u64 *ts = bpf_map_lookup_elem(&queued, &pid);
  if (!ts) return 0;
  __u32 slot = log2_slot((bpf_ktime_get_ns() - *ts) / 1000);
  __u64 *count = bpf_map_lookup_elem(&slots, &slot);
  if (count) __sync_fetch_and_add(count, 1);
  bpf_map_delete_elem(&queued, &pid);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
