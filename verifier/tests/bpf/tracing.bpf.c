// kprobe (first argument through PT_REGS_PARM1, x86-64 pt_regs) and
// tracepoint (fields of the tracepoint's record) context reads.
// Expected verdict: accept.
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 64);
  __type(key, __u64);
  __type(value, __u64);
} calls SEC(".maps");

SEC("kprobe/do_unlinkat")
int trace_unlink(struct pt_regs* ctx) {
  __u64 dfd = (__u64)PT_REGS_PARM1(ctx);
  __u64 one = 1;
  bpf_map_update_elem(&calls, &dfd, &one, BPF_ANY);
  return 0;
}

// The record of tracepoint syscalls/sys_enter_openat (see its `format` file).
struct sys_enter_openat {
  __u64 common;
  __s32 syscall_nr;
  __u32 pad;
  __u64 dfd;
  __u64 filename;
  __u64 flags;
  __u64 mode;
};

SEC("tracepoint/syscalls/sys_enter_openat")
int trace_openat(struct sys_enter_openat* ctx) {
  __u64 key = ctx->flags;
  __u64 mode = ctx->mode;
  bpf_map_update_elem(&calls, &key, &mode, BPF_ANY);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
