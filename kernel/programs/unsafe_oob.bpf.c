// keel_test, deliberately unsafe: an off-by-one. Entry i of a 4-entry
// array in a map value is compared with entry i + 1, and for i = 3 that
// neighbour lies past the 32-byte value. Expected verdict: reject,
// map_value_out_of_bounds at the load of v[i + 1] (the pointer itself,
// value + 8 * i, stays inside the value, as unprivileged arithmetic must).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "keel_helpers.h"

struct quad {
  __u64 v[4];
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct quad);
} oob_values SEC(".maps");

SEC(KEEL_SEC_TEST)
int unsafe_oob(struct keel_test_ctx *ctx) {
  __u32 zero = 0;
  struct quad *q = keel_map_lookup_elem(&oob_values, &zero);
  if (!q) return 0;
  __u64 i = ctx->seed & 3;
  return q->v[i] < q->v[i + 1];  // i + 1 == 4 is out of bounds
}
