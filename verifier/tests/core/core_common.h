// Shared by keel's CO-RE test programs (libbpf-tools style, written for
// keel): the kernel's types come from a vmlinux.h that the build generates
// from /sys/kernel/btf/vmlinux with `bpftool btf dump ... format c`, so
// every field access below is a CO-RE relocation.
#pragma once

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define TASK_COMM_LEN 16
#define NAME_LEN 64
#define MAX_SLOTS 27

// log2 of a 64-bit value, bounded (a histogram slot).
static __always_inline __u32 log2_slot(__u64 v) {
  __u32 slot = 0;
  for (int i = 0; i < 32 && v > 1; i++) {
    v >>= 1;
    slot++;
  }
  return slot < MAX_SLOTS ? slot : MAX_SLOTS - 1;
}

// Older kernels named task_struct's state field `state`; 5.14 renamed it
// `__state`. The flavor lets one object read either (libbpf-tools'
// core_fixes.bpf.h does the same).
struct task_struct___o {
  volatile long int state;
} __attribute__((preserve_access_index));

static __always_inline __s64 task_state(void *task) {
  if (bpf_core_field_exists(((struct task_struct___o *)task)->state))
    return BPF_CORE_READ((struct task_struct___o *)task, state);
  return BPF_CORE_READ((struct task_struct *)task, __state);
}

// A boot-time clock where the kernel has the helper (5.8+).
static __always_inline __u64 now_ns(void) {
  if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_ktime_get_boot_ns))
    return bpf_ktime_get_boot_ns();
  return bpf_ktime_get_ns();
}
