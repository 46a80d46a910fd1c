// keel_tick: counts timer ticks and keeps a histogram of the tick-to-tick
// interval, in buckets of a quarter of the requested period (a tick on time
// lands in bucket 4; bucket 15 collects everything from 3.75 periods up).
// Expected verdict: accept.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "keel_helpers.h"

#define HIST_BUCKETS 16

struct tick_stats {
  __u64 count;
  __u64 last_ns;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct tick_stats);
} tick_stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, HIST_BUCKETS);
  __type(key, __u32);
  __type(value, __u64);
} tick_hist SEC(".maps");

SEC(KEEL_SEC_TICK)
int tick_counter(struct keel_tick_ctx *ctx) {
  __u32 zero = 0;
  struct tick_stats *stats = keel_map_lookup_elem(&tick_stats, &zero);
  if (!stats) return 0;
  __u64 now = ctx->now_ns;
  __u64 last = stats->last_ns;
  stats->count += 1;
  stats->last_ns = now;
  if (last == 0 || now < last) return 0;  // the first tick has no interval
  __u64 quarter = ctx->period_ns / 4;     // division by zero is 0 (RFC 9669 §4.1)
  __u64 bucket = quarter ? (now - last) / quarter : HIST_BUCKETS - 1;
  if (bucket > HIST_BUCKETS - 1) bucket = HIST_BUCKETS - 1;
  __u32 key = (__u32)bucket;
  __u64 *slot = keel_map_lookup_elem(&tick_hist, &key);
  if (slot) *slot += 1;
  return 0;
}
