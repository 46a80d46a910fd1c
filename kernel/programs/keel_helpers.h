/* The keel kernel's BPF interface, shared by the programs in this folder
 * (clang -target bpf) and the kernel (kernel/bpf/program_types.cc, which
 * checks the context layouts against its ProgramType data): section names,
 * context structures, helper ids and, for BPF code, the helper declarations.
 * The ids are Linux's where the helper means the same (1, 2, 5), so the
 * verifier's map/helper rules keyed by Linux ids apply unchanged; keel_trace
 * takes trace_printk's slot (6) with a narrower prototype (docs/adr/0010). */
#ifndef KEEL_HELPERS_H
#define KEEL_HELPERS_H

/* SEC() names of the kernel's two program types. */
#define KEEL_SEC_TICK "keel/tick" /* keel_tick: runs on every timer tick */
#define KEEL_SEC_TEST "keel/test" /* keel_test: runs once, at start */

enum keel_helper_id {
  KEEL_HELPER_MAP_LOOKUP_ELEM = 1, /* void *(map, const key *) */
  KEEL_HELPER_MAP_UPDATE_ELEM = 2, /* long (map, const key *, const value *, u64 flags) */
  KEEL_HELPER_KTIME_GET_NS = 5,    /* u64 (void): the board clock in ns since boot */
  KEEL_HELPER_TRACE = 6,           /* long (const char *tag, u32 len, u64 value) */
};

/* keel_tick's context: read-only, every field 8 bytes. */
struct keel_tick_ctx {
  unsigned long long tick;      /* 1 for the first tick after the timer started */
  unsigned long long now_ns;    /* board clock at the interrupt, ns */
  unsigned long long period_ns; /* the requested timer period */
};

/* keel_test's context: read-only, every field 8 bytes. */
struct keel_test_ctx {
  unsigned long long now_ns; /* board clock when the run started, ns */
  unsigned long long seed;   /* a per-boot value the verifier knows nothing about */
};

#ifdef __bpf__
static void *(*keel_map_lookup_elem)(void *map, const void *key) =
    (void *)KEEL_HELPER_MAP_LOOKUP_ELEM;
static long (*keel_map_update_elem)(void *map, const void *key, const void *value,
                                    unsigned long long flags) = (void *)KEEL_HELPER_MAP_UPDATE_ELEM;
static unsigned long long (*keel_ktime_get_ns)(void) = (void *)KEEL_HELPER_KTIME_GET_NS;
/* Writes `keel trace prog=<program> tag=<tag> value=<value>` to the UART. */
static long (*keel_trace)(const char *tag, unsigned int len, unsigned long long value) =
    (void *)KEEL_HELPER_TRACE;
/* keel_trace with a string literal tag. */
#define KEEL_TRACE(tag, value) keel_trace(tag, sizeof(tag) - 1, value)
#endif

#endif /* KEEL_HELPERS_H */
