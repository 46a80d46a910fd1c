// filelife-like: files unlinked, with the dentry's name and the inode's
// size (vfs_unlink's dentry is its third argument since 6.3's mnt_idmap,
// and was since 5.12's user_namespace).
#include "core_common.h"

struct unlink_event {
  __s64 size;
  __u32 pid;
  char name[NAME_LEN];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} unlinks SEC(".maps");

SEC("kprobe/vfs_unlink")
int BPF_KPROBE(on_unlink, void *idmap, struct inode *dir, struct dentry *dentry) {
  struct unlink_event e = {};
  e.pid = bpf_get_current_pid_tgid() >> 32;
  e.size = BPF_CORE_READ(dentry, d_inode, i_size);
  const unsigned char *name = BPF_CORE_READ(dentry, d_name.name);
  bpf_probe_read_kernel_str(e.name, sizeof(e.name), name);
  bpf_perf_event_output(ctx, &unlinks, BPF_F_CURRENT_CPU, &e, sizeof(e));
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
