// A bounded loop: 16 iterations over a stack array (LLVM keeps it a loop
// with `#pragma nounroll`). Expected verdict: accept, with a worst-case
// instruction count proportional to 16 iterations.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("socket")
int sum_loop(struct __sk_buff* skb) {
  __u32 values[16];
  __u32 sum = 0;
  __builtin_memset(values, 0, sizeof(values));
  values[skb->len & 15] = skb->mark;
#pragma nounroll
  for (int i = 0; i < 16; i++) sum += values[i] * (__u32)i;
  return (int)(sum & 1);
}

char LICENSE[] SEC("license") = "GPL";
