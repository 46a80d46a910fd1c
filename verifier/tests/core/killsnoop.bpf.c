// killsnoop-like: kill(2) with its target, signal and result.
#include "core_common.h"

struct kill_args {
  __u32 target;
  int sig;
};

struct kill_event {
  __u32 pid, target;
  int sig, ret;
  char comm[TASK_COMM_LEN];
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);
  __type(key, __u32);
  __type(value, struct kill_args);
} pending SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} kills SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_kill")
int kill_enter(struct trace_event_raw_sys_enter *ctx) {
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  struct kill_args args = {.target = (__u32)ctx->args[0], .sig = (int)ctx->args[1]};
  bpf_map_update_elem(&pending, &tid, &args, BPF_ANY);
  return 0;
}

SEC("tracepoint/syscalls/sys_exit_kill")
int kill_exit(struct trace_event_raw_sys_exit *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  __u32 tid = (__u32)id;
  struct kill_args *args = bpf_map_lookup_elem(&pending, &tid);
  if (!args) return 0;
  struct kill_event e = {};
  e.pid = id >> 32;
  e.target = args->target;
  e.sig = args->sig;
  e.ret = (int)ctx->ret;
  bpf_get_current_comm(&e.comm, sizeof(e.comm));
  bpf_perf_event_output(ctx, &kills, BPF_F_CURRENT_CPU, &e, sizeof(e));
  bpf_map_delete_elem(&pending, &tid);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
