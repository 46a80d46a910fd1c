// keel-runner: the verifier's suites on a bare-metal target. Reads the suite
// blob (suite/blob.h, written on the host by `keel suite-pack`) from the
// file suite.blob through Arm semihosting, and prints exactly what the host
// prints for the same files (docs/adr/0025):
//
//   == keel test-data
//   <what `keel test-data DIR` prints>
//   == keel cases
//   <what `keel cases FILE --all` prints>
//   == keel-runner done
//
// Every data_run and case_run record is decoded, verified and run here, on
// the target's ISA, by the same per-case functions the host tool calls
// (suite/conformance_case.h, suite/linux_case.h). Exit status: bit 0 a
// test-data file failed, bit 1 a case was falsely accepted (as the host
// commands' exit statuses 1), 4 the blob could not be read.
//
// The same source for every target (runner/targets/*.cmake): 64-bit
// AArch64 and 32-bit Cortex-M alike.
//
// C library: picolibc with its semihosting back end (docs/adr/0003); only
// stdio is used, and no errno.
#include <stdio.h>

#include <cstddef>
#include <cstdint>

#include "blob.h"
#include "conformance_case.h"
#include "keel/platform_linux.h"
#include "linux_case.h"

namespace {

using keel::suite::Record;
using keel::suite::RecordKind;

// Where the memory lives is the runner's business: static buffers sized
// by the target (runner/targets/*.cmake), none on the heap. A conformance
// file's verification gets exactly the host's arena; a selftest case gets
// all of g_arena, the host's 64 MiB where the target has them (a case that
// needs more than a smaller target gives shows as an out_of_memory line
// the host does not print, and fails the comparison).
constexpr size_t kBlobCapacity = size_t{KEEL_RUNNER_BLOB_KIB} << 10;
constexpr size_t kArenaBytes = size_t{KEEL_RUNNER_ARENA_KIB} << 10;
constexpr size_t kDecodeArenaBytes = size_t{KEEL_RUNNER_DECODE_ARENA_KIB} << 10;
constexpr size_t kMemCapacity = size_t{64} << 10;
constexpr int kExitBadInput = 4;
static_assert(kArenaBytes >= keel::suite::kConformanceArenaBytes, "a conformance file needs the host's arena");
static_assert(kArenaBytes <= keel::suite::kLinuxCaseArenaBytes, "a case gets no more arena than on the host");

alignas(16) uint8_t g_blob[kBlobCapacity];
alignas(16) uint8_t g_arena[kArenaBytes];
alignas(16) uint8_t g_decode_arena[kDecodeArenaBytes];
alignas(16) uint8_t g_mem[kMemCapacity];
keel::RunStack g_stack;

// Reads the whole file into g_blob; its size, or -1 with a message printed.
long read_blob(const char* path) {
  FILE* file = fopen(path, "rb");
  if (file == nullptr) {
    printf("keel-runner: cannot open %s through semihosting\n", path);
    return -1;
  }
  size_t size = 0;
  for (;;) {
    const size_t got = fread(g_blob + size, 1, kBlobCapacity - size, file);
    if (got == 0) break;
    size += got;
    if (size == kBlobCapacity) {
      printf("keel-runner: %s is larger than the runner's %zu-byte buffer\n", path, kBlobCapacity);
      fclose(file);
      return -1;
    }
  }
  fclose(file);
  return static_cast<long>(size);
}

struct DataTotals {
  size_t passed = 0, failed = 0, skipped = 0, verified = 0, verify_rejected = 0;
};

// One data_run or data_line record: its line(s), as `keel test-data` prints them.
void data_record(const Record& record, DataTotals& totals) {
  if (record.kind == RecordKind::data_line) {
    switch (record.outcome) {
      case 0: ++totals.passed; printf("PASS %s\n", record.name); break;
      case 1: ++totals.failed; printf("FAIL %s: %s\n", record.name, record.text); break;
      default: ++totals.skipped; printf("N/A %s: %s\n", record.name, record.text); break;
    }
    return;
  }
  keel::Arena decode_arena(g_decode_arena, sizeof g_decode_arena);
  keel::Arena verify_arena(g_arena, keel::suite::kConformanceArenaBytes);
  const keel::suite::ConformanceScratch scratch{g_mem, sizeof g_mem, &g_stack};
  static keel::suite::ConformanceOutcome outcome;  // 1 KiB: off the stack
  keel::suite::check_conformance_file(record.program, record.program_size, record.mem, record.mem_size,
                                      record.expected_r0, keel::RunOptions{}.insn_budget, decode_arena,
                                      verify_arena, scratch, outcome);
  if (outcome.passed) {
    ++totals.passed;
    printf("PASS %s\n", record.name);
  } else {
    ++totals.failed;
    printf("FAIL %s: %s\n", record.name, outcome.why);
  }
  if (outcome.verified && outcome.accepted) ++totals.verified;
  if (outcome.verified && !outcome.accepted) {
    ++totals.verify_rejected;
    printf("VERIFY-REJECT %s: %s\n", record.name, outcome.verify_why);
  }
}

// Skip reasons and their counts, printed in byte order as the host's
// std::map<std::string, size_t> iterates them.
struct SkipCounts {
  static constexpr int kMax = 64;
  const char* reason[kMax] = {};
  size_t count[kMax] = {};
  int used = 0;

  static int compare(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) ++a, ++b;
    return static_cast<int>(static_cast<unsigned char>(*a)) - static_cast<int>(static_cast<unsigned char>(*b));
  }
  bool add(const char* text) {
    for (int i = 0; i < used; ++i) {
      if (compare(reason[i], text) == 0) {
        ++count[i];
        return true;
      }
    }
    if (used == kMax) return false;
    int at = used++;
    while (at > 0 && compare(reason[at - 1], text) > 0) {
      reason[at] = reason[at - 1];
      count[at] = count[at - 1];
      --at;
    }
    reason[at] = text;
    count[at] = 1;
    return true;
  }
};

struct CaseTotals {
  size_t agree = 0, false_accepts = 0, false_rejects = 0, skipped = 0;
  SkipCounts skips;
};

// One case_run or case_skip record: its `keel cases --all` line. False
// when the blob names a program type this build does not know.
bool case_record(const Record& record, CaseTotals& totals) {
  static keel::suite::LinuxCheck check;
  check = keel::suite::LinuxCheck{};
  keel::suite::CaseOutcome outcome = keel::suite::CaseOutcome::skipped;
  if (record.kind == RecordKind::case_skip) {
    ++totals.skipped;
    if (!totals.skips.add(record.text)) {
      printf("keel-runner: more than %d skip reasons\n", SkipCounts::kMax);
      return false;
    }
  } else {
    keel::suite::LinuxCase c;
    c.bytes = record.program;
    c.size = record.program_size;
    c.type = keel::find_program_type(keel::linux_platform(), record.text);
    if (c.type == nullptr) {
      printf("keel-runner: %s: unknown program type %s\n", record.name, record.text);
      return false;
    }
    c.maps = record.maps;
    c.map_count = record.map_count;
    c.strict_alignment = record.strict_alignment;
    c.privileged = record.privileged;
    keel::Arena arena(g_arena, sizeof g_arena);
    keel::Program program;
    keel::suite::check_linux_case(c, arena, program, check);
    outcome = keel::suite::score(check.accepted(), record.expect_accept);
    switch (outcome) {
      case keel::suite::CaseOutcome::agree: ++totals.agree; break;
      case keel::suite::CaseOutcome::false_accept: ++totals.false_accepts; break;
      case keel::suite::CaseOutcome::false_reject: ++totals.false_rejects; break;
      case keel::suite::CaseOutcome::skipped: break;
    }
  }
  static char line[1024];
  keel::suite::case_line(record.name, record.title, outcome, check, record.text, line, sizeof line);
  printf("%s\n", line);
  return true;
}

bool is_data(RecordKind kind) { return kind == RecordKind::data_run || kind == RecordKind::data_line; }

// One pass over the blob for the records `wanted` selects; false (with a
// message printed) on a malformed blob.
template <class Wanted, class Each>
bool each_record(size_t size, Wanted wanted, Each each) {
  keel::suite::BlobReader reader(g_blob, size);
  if (!reader.open()) {
    printf("keel-runner: suite.blob: %s\n", reader.error());
    return false;
  }
  static Record record;  // holds kMaxCaseMaps descriptors: off the stack
  while (reader.next(record)) {
    if (wanted(record.kind) && !each(record)) return false;
  }
  if (reader.error() != nullptr) {
    printf("keel-runner: suite.blob at byte %zu: %s\n", reader.offset(), reader.error());
    return false;
  }
  return true;
}

}  // namespace

int main() {
  const long size = read_blob("suite.blob");
  if (size < 0) return kExitBadInput;
  const size_t blob_size = static_cast<size_t>(size);

  printf("== keel test-data\n");
  DataTotals data;
  if (!each_record(blob_size, is_data, [&](const Record& record) {
        data_record(record, data);
        return true;
      }))
    return kExitBadInput;
  printf("verifier: %zu accepted, %zu rejected\n", data.verified, data.verify_rejected);
  if (data.skipped > 0) printf("skipped: %zu (see docs/conformance-exceptions.md)\n", data.skipped);
  printf("%zu passed, %zu failed\n", data.passed, data.failed);

  printf("== keel cases\n");
  static CaseTotals cases;
  if (!each_record(blob_size, [](RecordKind kind) { return !is_data(kind); },
                   [&](const Record& record) { return case_record(record, cases); }))
    return kExitBadInput;
  for (int i = 0; i < cases.skips.used; ++i) printf("SKIPPED %zu: %s\n", cases.skips.count[i], cases.skips.reason[i]);
  printf("false-accepts: %zu, false-rejects: %zu, skipped: %zu\n", cases.false_accepts, cases.false_rejects,
         cases.skipped);
  printf("%zu passed, %zu failed\n", cases.agree, cases.false_accepts + cases.false_rejects);
  printf("== keel-runner done\n");
  return (data.failed != 0 ? 1 : 0) | (cases.false_accepts != 0 ? 2 : 0);
}
