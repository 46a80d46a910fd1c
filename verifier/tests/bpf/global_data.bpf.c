// Global data: a `.rodata` constant table, `.data` initialised variables
// and `.bss` counters, each one array map of one entry whose value is the
// whole section; the lddw that reads them carries the variable's offset.
// Expected verdict: accept (every index is masked into range).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile __u32 limits[4] = {10, 20, 30, 40};  // .rodata
__u64 seen_total = 5;                               // .data
__u32 data_pad = 3;                                 // .data, offset 8
__u64 drops;                                        // .bss
__u64 passes;                                       // .bss, offset 8

SEC("xdp")
int use_globals(struct xdp_md* ctx) {
  __u32 index = ctx->rx_queue_index & 3;
  seen_total += data_pad;
  if (ctx->data_end - ctx->data > limits[index]) {
    drops++;
    return XDP_DROP;
  }
  passes++;
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
