// Calls of memset/memcpy/memmove as old clang emitted them for
// __builtin_mem* of a size it did not know: `call -1` with an R_BPF_64_32
// relocation against the undefined symbol. keel's loader binds them to its
// compiler builtins (docs/adr/0011-compiler-builtins-memset-memcpy.md).
// clang 14 refuses to emit such libcalls, so the calls are written out: the
// asm label names the symbol, and no_builtin keeps the optimizer from
// turning them back into intrinsics.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u8[64]);
} buffers SEC(".maps");

void* call_memset(void* dst, int byte, unsigned long n) __asm__("memset");
void* call_memcpy(void* dst, const void* src, unsigned long n) __asm__("memcpy");
void* call_memmove(void* dst, const void* src, unsigned long n) __asm__("memmove");
#define CALLS_STAY_CALLS __attribute__((no_builtin("memset", "memcpy", "memmove")))

// accept: every size is at most 31 and every buffer 64 bytes; the final
// read is of a byte the fixed-size memset initialized.
SEC("xdp") CALLS_STAY_CALLS
int copy_in_bounds(struct xdp_md* ctx) {
  __u8 scratch[64];
  __u32 key = 0;
  __u64 n = ctx->rx_queue_index & 31;
  call_memset(scratch, 1, sizeof scratch);
  call_memset(scratch, 0, n);
  __u8* value = bpf_map_lookup_elem(&buffers, &key);
  if (value == 0) return XDP_PASS;
  call_memcpy(value, scratch, n);
  call_memmove(value + 1, value, n);
  return scratch[63] == 1 ? XDP_PASS : XDP_DROP;
}

// reject, stack_out_of_bounds: the size reaches 127, past the 64-byte buffer.
SEC("xdp") CALLS_STAY_CALLS
int memset_past_buffer(struct xdp_md* ctx) {
  volatile __u8 scratch[64];
  __u64 n = ctx->rx_queue_index & 127;
  scratch[0] = 0;
  call_memset((void*)scratch, 0, n);
  return scratch[0];
}

// reject, uninit_stack: the source was never written.
SEC("xdp") CALLS_STAY_CALLS
int memcpy_from_uninitialized(struct xdp_md* ctx) {
  __u8 source[32];
  __u32 key = 0;
  __u64 n = ctx->rx_queue_index & 31;
  __u8* value = bpf_map_lookup_elem(&buffers, &key);
  if (value == 0) return XDP_PASS;
  call_memcpy(value, source, n);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
