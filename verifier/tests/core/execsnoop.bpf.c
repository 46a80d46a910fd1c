// execsnoop-like: one event per execve(2), with the parent's pid read
// through task->real_parent->tgid and the file name from the syscall's
// first argument (trace_event_raw_sys_enter.args[0], a relocated ctx load).
#include "core_common.h"

struct exec_event {
  __u32 pid, ppid, uid;
  int retval;
  char comm[TASK_COMM_LEN];
  char file[NAME_LEN];
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);
  __type(key, __u32);
  __type(value, struct exec_event);
} execs SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} events SEC(".maps");

static const struct exec_event empty_event;

SEC("tracepoint/syscalls/sys_enter_execve")
int exec_enter(struct trace_event_raw_sys_enter *ctx) {
  __u32 pid = bpf_get_current_pid_tgid() >> 32;
  if (bpf_map_update_elem(&execs, &pid, &empty_event, BPF_NOEXIST)) return 0;
  struct exec_event *e = bpf_map_lookup_elem(&execs, &pid);
  if (!e) return 0;
  struct task_struct *task = (struct task_struct *)bpf_get_current_task();
  e->pid = pid;
  e->ppid = BPF_CORE_READ(task, real_parent, tgid);
  e->uid = (__u32)bpf_get_current_uid_gid();
  bpf_probe_read_user_str(e->file, sizeof(e->file), (const char *)ctx->args[0]);
  return 0;
}

SEC("tracepoint/syscalls/sys_exit_execve")
int exec_exit(struct trace_event_raw_sys_exit *ctx) {
  __u32 pid = bpf_get_current_pid_tgid() >> 32;
  struct exec_event *e = bpf_map_lookup_elem(&execs, &pid);
  if (!e) return 0;
  e->retval = (int)ctx->ret;
  bpf_get_current_comm(&e->comm, sizeof(e->comm));
  bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, e, sizeof(*e));
  bpf_map_delete_elem(&execs, &pid);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
