// keel_test: every kernel helper once. Stores 40 in demo_values[2], reads
// it back through a lookup, adds 2, and traces the 42 and the time the
// helpers took (keel_ktime_get_ns before and after). Returns 0 when every
// helper behaved. Expected verdict: accept; expected r0: 0.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "keel_helpers.h"

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} demo_values SEC(".maps");

SEC(KEEL_SEC_TEST)
int helpers_demo(struct keel_test_ctx *ctx) {
  __u64 start = keel_ktime_get_ns();
  if (start < ctx->now_ns) return 1;  // the clock went backwards
  __u32 key = 2;
  __u64 value = 40;
  if (keel_map_update_elem(&demo_values, &key, &value, BPF_ANY) != 0) return 2;
  __u32 outside = 4;  // max_entries: the update must fail
  if (keel_map_update_elem(&demo_values, &outside, &value, BPF_ANY) == 0) return 3;
  __u64 *found = keel_map_lookup_elem(&demo_values, &key);
  if (!found) return 4;
  *found += 2;
  if (keel_map_lookup_elem(&demo_values, &outside)) return 5;
  __u64 end = keel_ktime_get_ns();
  if (end < start) return 6;
  KEEL_TRACE("helpers_demo", *found);
  KEEL_TRACE("elapsed_ns", end - start);
  return 0;
}
