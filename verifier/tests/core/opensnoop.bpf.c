// opensnoop-like: openat(2) calls with their flags and result, the name
// copied from user memory at exit, events through a ring buffer.
#include "core_common.h"

struct open_args {
  const char *name;
  int flags;
};

struct open_event {
  __u64 ts;
  __u32 pid, uid;
  int ret, flags;
  char comm[TASK_COMM_LEN];
  char name[NAME_LEN];
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);
  __type(key, __u32);
  __type(value, struct open_args);
} pending SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 256 * 1024);
} opens SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_openat")
int openat_enter(struct trace_event_raw_sys_enter *ctx) {
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  struct open_args args = {};
  args.name = (const char *)ctx->args[1];
  args.flags = (int)ctx->args[2];
  bpf_map_update_elem(&pending, &tid, &args, BPF_ANY);
  return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat")
int openat_exit(struct trace_event_raw_sys_exit *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  __u32 tid = (__u32)id;
  struct open_args *args = bpf_map_lookup_elem(&pending, &tid);
  if (!args) return 0;
  struct open_event *e = bpf_ringbuf_reserve(&opens, sizeof(*e), 0);
  if (e) {
    e->ts = now_ns();
    e->pid = id >> 32;
    e->uid = (__u32)bpf_get_current_uid_gid();
    e->ret = (int)ctx->ret;
    e->flags = args->flags;
    bpf_get_current_comm(&e->comm, sizeof(e->comm));
    bpf_probe_read_user_str(e->name, sizeof(e->name), args->name);
    bpf_ringbuf_submit(e, 0);
  }
  bpf_map_delete_elem(&pending, &tid);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
