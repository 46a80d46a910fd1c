// keel_test: a loop whose trip count the verifier must prove (16): sums
// the 16 nibbles of a 64-bit constant, each weighted by its index. The
// constant is read from .rodata through a volatile access (so LLVM cannot
// fold the loop away, and the program uses global data), and `#pragma
// nounroll` keeps the loop a loop. Expected verdict: accept, max_insns
// proportional to 16 trips; expected r0: sum of i * (15 - i) for i < 16 =
// 560 (nibble i of 0x0123456789abcdef, from the low end, is 15 - i).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "keel_helpers.h"

#define NIBBLES 16

static volatile const __u64 input = 0x0123456789abcdefULL;

SEC(KEEL_SEC_TEST)
int bounded_loop(struct keel_test_ctx *ctx) {
  (void)ctx;
  __u64 value = input;
  __u64 sum = 0;
#pragma nounroll
  for (__u32 i = 0; i < NIBBLES; i++) sum += ((value >> (4 * i)) & 0xf) * i;
  return (int)sum;
}
