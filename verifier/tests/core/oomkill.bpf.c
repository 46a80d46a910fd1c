// oomkill-like: the OOM killer's victim, its pages and the trigger.
#include "core_common.h"

struct oom_event {
  __u64 pages;
  __u32 killer_pid, victim_pid;
  char killer[TASK_COMM_LEN];
  char victim[TASK_COMM_LEN];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} kills SEC(".maps");

SEC("kprobe/oom_kill_process")
int BPF_KPROBE(on_oom_kill, struct oom_control *oc, const char *message) {
  struct oom_event e = {};
  struct task_struct *victim = BPF_CORE_READ(oc, chosen);
  e.killer_pid = bpf_get_current_pid_tgid() >> 32;
  e.victim_pid = BPF_CORE_READ(victim, tgid);
  e.pages = BPF_CORE_READ(oc, totalpages);
  bpf_get_current_comm(&e.killer, sizeof(e.killer));
  bpf_probe_read_kernel_str(e.victim, sizeof(e.victim), &victim->comm);
  bpf_perf_event_output(ctx, &kills, BPF_F_CURRENT_CPU, &e, sizeof(e));
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
