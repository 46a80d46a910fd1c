// exitsnoop-like: process exits with their exit code, age and parent;
// also records the kernel's task_struct size and BTF id (type relocations).
#include "core_common.h"

struct exit_event {
  __u64 age_ns;
  __u32 pid, ppid;
  int exit_code;
  __u32 task_size, task_btf_id;
  char comm[TASK_COMM_LEN];
};

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 256 * 1024);
} exits SEC(".maps");

SEC("tracepoint/sched/sched_process_exit")
int process_exit(void *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  if ((__u32)id != (__u32)(id >> 32)) return 0;  // a thread, not the process
  struct task_struct *task = (struct task_struct *)bpf_get_current_task();
  struct exit_event *e = bpf_ringbuf_reserve(&exits, sizeof(*e), 0);
  if (!e) return 0;
  e->pid = id >> 32;
  e->ppid = BPF_CORE_READ(task, real_parent, tgid);
  e->exit_code = BPF_CORE_READ(task, exit_code) >> 8;
  e->age_ns = bpf_ktime_get_ns() - BPF_CORE_READ(task, start_time);
  e->task_size = bpf_core_type_size(struct task_struct);
  e->task_btf_id = bpf_core_type_id_kernel(struct task_struct);
  bpf_get_current_comm(&e->comm, sizeof(e->comm));
  bpf_ringbuf_submit(e, 0);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
