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
// The programs: first the straight-line shape of the verifier benchmarks
// (bench/shapes.h straight_line(n): `mov64 r0, 0`, n-2 times `add64 r0,
// i % 100`, `exit`), generated here for sizes up to one that cannot fit;
// then the benchmarks' reference, scaling and realistic shapes, read from
// shapes.bin through semihosting (written on the host by keel-shapes-dump,
// bench/shapes_dump.cc, whose header gives the format). Exit status 0 when
// every straight-line program up to 1000 slots is accepted, the largest is
// refused with out_of_memory (a verdict, never a crash), and every shape
// is accepted or out_of_memory; 1 otherwise.
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

constexpr size_t kShapesCapacity = size_t{512} << 10;
constexpr uint32_t kMaxMaps = 8;

alignas(16) uint8_t g_arena[kArenaBytes];
uint8_t g_bytes[size_t{kTooLarge} * 8];
uint8_t g_shapes[kShapesCapacity];

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

bool g_counting = false;

// Decodes and verifies `size` bytes as `type` in the whole arena and prints
// one line; returns whether the verdict was out_of_memory, through `oom`,
// and whether it was ok or out_of_memory at all.
bool probe(const char* name, const uint8_t* bytes, size_t size, const keel::ProgramType& type,
           const keel::MapDescriptor* maps, uint32_t map_count, bool& oom) {
  keel::Arena arena(g_arena, sizeof g_arena);
  keel::Program program;
  keel::VerifyOptions options;
  options.maps = maps;
  options.map_count = map_count;
  const uint32_t start = keel::cortex_m::cycle_count();
  const keel::DecodeResult decoded = keel::decode(bytes, size, keel::DecodeOptions{}, arena, program);
  const char* verdict = nullptr;
  bool ok = false;
  if (!decoded.ok()) {
    verdict = keel::decode_error_name(decoded.error);
    oom = decoded.error == keel::DecodeError::out_of_memory;
  } else {
    const keel::Verdict v = keel::verify(program, type, options, arena);
    verdict = keel::reason_name(v.reason);
    oom = v.reason == keel::Reason::out_of_memory;
    ok = v.ok();
  }
  const uint32_t cycles = keel::cortex_m::cycle_count() - start;
  printf("%s slots=%zu verdict=%s%s arena_peak=%zu", name, size / 8, verdict, decoded.ok() ? "" : " (decode)",
         arena.peak());
  if (g_counting) {
    printf(" cycles=%lu emulated=1\n", static_cast<unsigned long>(cycles));
  } else {
    printf(" cycles=unavailable\n");
  }
  return ok || oom;
}

// A little-endian 32-bit field of shapes.bin, advancing `at`; false past `end`.
bool take32(size_t& at, size_t end, uint32_t& value) {
  if (end - at < 4) return false;
  value = 0;
  for (int i = 0; i < 4; ++i) value |= uint32_t{g_shapes[at + i]} << (8 * i);
  at += 4;
  return true;
}

// Reads shapes.bin and probes every shape in it; false (with a message) when
// the file is missing or malformed, or a shape is neither accepted nor out
// of memory.
bool probe_shapes() {
  FILE* file = fopen("shapes.bin", "rb");
  if (file == nullptr) {
    printf("keel-arena-probe: cannot open shapes.bin through semihosting\n");
    return false;
  }
  const size_t end = fread(g_shapes, 1, sizeof g_shapes, file);
  fclose(file);
  size_t at = 4;
  uint32_t count = 0;
  if (end < 8 || g_shapes[0] != 'K' || g_shapes[1] != 'S' || g_shapes[2] != 'H' || g_shapes[3] != 'P' ||
      end == sizeof g_shapes || !take32(at, end, count)) {
    printf("keel-arena-probe: shapes.bin is not a shapes file (or larger than %zu bytes)\n", sizeof g_shapes);
    return false;
  }
  bool all = true;
  for (uint32_t i = 0; i < count; ++i) {
    static char name[128], type_name[64];
    static keel::MapDescriptor maps[kMaxMaps];
    uint32_t length = 0, map_count = 0, size = 0;
    bool fine = take32(at, end, length) && length < sizeof name && end - at >= length;
    if (fine) {
      __builtin_memcpy(name, g_shapes + at, length);
      name[length] = '\0';
      at += length;
      fine = take32(at, end, length) && length < sizeof type_name && end - at >= length;
    }
    if (fine) {
      __builtin_memcpy(type_name, g_shapes + at, length);
      type_name[length] = '\0';
      at += length;
      fine = take32(at, end, map_count) && map_count <= kMaxMaps;
    }
    for (uint32_t m = 0; fine && m < map_count; ++m) {
      uint32_t type = 0, key = 0, value = 0, entries = 0, flags = 0;
      fine = take32(at, end, type) && take32(at, end, key) && take32(at, end, value) &&
             take32(at, end, entries) && take32(at, end, flags) &&
             type <= static_cast<uint32_t>(keel::MapType::xskmap);
      maps[m] = keel::MapDescriptor{};
      maps[m].type = static_cast<keel::MapType>(type);
      maps[m].key_size = key;
      maps[m].value_size = value;
      maps[m].max_entries = entries;
      maps[m].read_only = (flags & 1u) != 0;
      maps[m].write_only = (flags & 2u) != 0;
    }
    fine = fine && take32(at, end, size) && end - at >= size;
    if (!fine) {
      printf("keel-arena-probe: shapes.bin: shape %lu is malformed\n", static_cast<unsigned long>(i));
      return false;
    }
    const keel::ProgramType* type = keel::find_program_type(keel::linux_platform(), type_name);
    if (type == nullptr) {
      printf("keel-arena-probe: %s: unknown program type %s\n", name, type_name);
      return false;
    }
    bool oom = false;
    if (!probe(name, g_shapes + at, size, *type, maps, map_count, oom)) all = false;
    at += size;
  }
  return all;
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
  g_counting = counting;
  bool as_expected = true;
  for (const uint32_t n : kSizes) {
    const size_t size = straight_line(n);
    char name[32];
    snprintf(name, sizeof name, "straight_line/%lu", static_cast<unsigned long>(n));
    bool oom = false;
    const bool ok_or_oom = probe(name, g_bytes, size, *type, nullptr, 0, oom);
    if (!ok_or_oom) as_expected = false;
    if (n == kTooLarge && !oom) as_expected = false;
    if (n <= 1000 && oom) as_expected = false;
  }
  printf("== shapes (bench/shapes.h)\n");
  if (!probe_shapes()) as_expected = false;
  printf("== keel arena-probe %s\n", as_expected ? "done" : "FAILED: a verdict was not the expected one");
  return as_expected ? 0 : 1;
}
