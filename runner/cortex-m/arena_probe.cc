// keel-arena-probe: how much of a microcontroller's arena the verifier
// needs, measured on the target itself (32-bit pointers and size_t), and
// what happens when a program needs more (docs/performance/cortex-m.md).
//
// The arena is one static buffer of KEEL_FOOTPRINT_ARENA_KIB (64 KiB, as on
// a 256 KiB-SRAM part); decode() and verify() both take their memory from
// it, as firmware with one buffer would. For each program: its verdict,
// the arena's high-water mark (Arena::peak) and, where the machine has a
// cycle counter, the cycles decode plus verify took, labelled emulated=1
// (under QEMU, cycles are not hardware timings).
//
// The programs are the straight-line shape of the verifier benchmarks
// (bench/shapes.h straight_line(n): `mov64 r0, 0`, n-2 times `add64 r0,
// i % 100`, `exit`), generated here for sizes up to one that cannot fit.
// Exit status 0 when every program that fits is accepted and the largest
// is refused with out_of_memory (a verdict, never a crash); 1 otherwise.
#include <stdio.h>

#include <cstddef>
#include <cstdint>

#include "dwt.h"
#include "keel/arena.h"
#include "keel/decode.h"
#include "keel/platform_linux.h"
#include "keel/verify.h"

namespace {

constexpr size_t kArenaBytes = size_t{KEEL_FOOTPRINT_ARENA_KIB} << 10;
// Larger than any arena of this size can hold: decoding alone needs more.
constexpr uint32_t kTooLarge = 16384;
constexpr uint32_t kSizes[] = {2, 100, 1000, 2000, 3000, 4000, kTooLarge};

alignas(16) uint8_t g_arena[kArenaBytes];
uint8_t g_bytes[size_t{kTooLarge} * 8];

// One instruction slot, RFC 9669 §3 (little-endian; dst in the low nibble).
void put(uint8_t* at, uint8_t opcode, int32_t imm) {
  at[0] = opcode;
  at[1] = 0;  // dst r0, src r0
  at[2] = at[3] = 0;
  const auto value = static_cast<uint32_t>(imm);
  for (int i = 0; i < 4; ++i) at[4 + i] = static_cast<uint8_t>(value >> (8 * i));
}

size_t straight_line(uint32_t n) {
  put(g_bytes, 0xb7, 0);  // BPF_ALU64 | BPF_K | BPF_MOV (RFC 9669 §4.1)
  for (uint32_t i = 1; i + 1 < n; ++i) put(g_bytes + size_t{i} * 8, 0x07, static_cast<int32_t>(i % 100));  // ADD
  put(g_bytes + size_t{n - 1} * 8, 0x95, 0);  // BPF_JMP | BPF_EXIT
  return size_t{n} * 8;
}

}  // namespace

int main() {
  const keel::ProgramType* type = keel::find_program_type(keel::linux_platform(), "socket_filter");
  if (type == nullptr) {
    printf("keel-arena-probe: no socket_filter program type\n");
    return 1;
  }
  const bool counting = keel::cortex_m::cycle_counter_start();
  printf("== keel arena-probe: arena %zu bytes, pointers %zu bytes\n", kArenaBytes, sizeof(void*));
  printf("cycle counter: %s\n", counting ? "DWT CYCCNT, emulated=1"
                                         : "unavailable (DWT CYCCNT does not count on this machine)");
  bool as_expected = true;
  for (const uint32_t n : kSizes) {
    const size_t size = straight_line(n);
    keel::Arena arena(g_arena, sizeof g_arena);
    keel::Program program;
    const uint32_t start = keel::cortex_m::cycle_count();
    const keel::DecodeResult decoded = keel::decode(g_bytes, size, keel::DecodeOptions{}, arena, program);
    const char* verdict = nullptr;
    bool out_of_memory = false;
    if (!decoded.ok()) {
      verdict = keel::decode_error_name(decoded.error);
      out_of_memory = decoded.error == keel::DecodeError::out_of_memory;
    } else {
      const keel::Verdict v = keel::verify(program, *type, keel::VerifyOptions{}, arena);
      verdict = keel::reason_name(v.reason);
      out_of_memory = v.reason == keel::Reason::out_of_memory;
      if (!v.ok() && !out_of_memory) as_expected = false;
    }
    const uint32_t cycles = keel::cortex_m::cycle_count() - start;
    printf("straight_line/%lu verdict=%s%s arena_peak=%zu", static_cast<unsigned long>(n), verdict,
           decoded.ok() ? "" : " (decode)", arena.peak());
    if (counting) {
      printf(" cycles=%lu emulated=1\n", static_cast<unsigned long>(cycles));
    } else {
      printf(" cycles=unavailable\n");
    }
    if (!decoded.ok() && !out_of_memory) as_expected = false;
    if (n == kTooLarge && !out_of_memory) as_expected = false;
    if (n <= 1000 && (out_of_memory || !decoded.ok())) as_expected = false;
  }
  printf("== keel arena-probe %s\n", as_expected ? "done" : "FAILED: a verdict was not the expected one");
  return as_expected ? 0 : 1;
}
