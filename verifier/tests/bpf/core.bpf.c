// A CO-RE field read (preserve_access_index): the offset must be fixed up
// against the running kernel's BTF, which keel does not have. The loader
// must report unsupported_core_relocation for `read_pid`, naming the
// section and the instruction's offset; `no_core` in the same object is
// unaffected. (Not a verifier case: the program never reaches it.)
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct task_like {
  int state;
  int pid;
} __attribute__((preserve_access_index));

SEC("kprobe/do_exit")
int read_pid(struct task_like* task) {
  return task->pid;
}

SEC("kprobe/do_fork")
int no_core(void* ctx) {
  (void)ctx;
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
