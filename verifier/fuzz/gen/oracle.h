// The soundness oracle shared by the fuzz targets and keel-fuzzgen: an
// accepted program runs in the guarded interpreter on edge-biased contents
// (context, packet, map values, helper results), with the instruction
// budget set to Verdict::max_insns_executed. A trap, a run longer than that
// bound, a helper argument outside its prototype, or an outcome that
// depends on never-written stack bytes is a Finding. Host code (std, mmap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "keel/isa.h"
#include "keel/platform.h"
#include "keel/verify.h"

namespace keel::fuzzgen {

// The maps every program may name (lddw imm = index): an array of 4 values
// of 48 bytes and a hash of 8 values of 16 bytes (8-byte keys; the even
// keys hit).
inline constexpr MapDescriptor kMaps[] = {
    {MapType::array, 4, 48, 4, false, false},
    {MapType::hash, 8, 16, 8, false, false},
};
inline constexpr uint32_t kMapCount = sizeof kMaps / sizeof kMaps[0];

// Runs whose bound is larger than this stop here and are not judged on
// their length (a trap before it still is a finding).
inline constexpr uint64_t kBudgetCap = 1u << 16;

enum class FindingKind : uint8_t {
  none,
  trap,              // the guarded interpreter stopped the run at a memory access
  budget_overrun,    // more instructions than Verdict::max_insns_executed
  saturated_bound,   // max_insns_executed is UINT64_MAX: no bound at all
  uninit_read,       // the outcome changed with the never-written stack contents
  helper_argument,   // a helper got an argument its prototype forbids
  pointer_leak,      // unprivileged: an address in r0 at exit or stored into a map, the context or the packet
  spec_guard,        // unprivileged: the speculation hardening changed what an architectural run did
  other_status,      // another RunStatus the interpreter should never give a verified program
};

const char* finding_kind_name(FindingKind kind);

struct Finding {
  FindingKind kind = FindingKind::none;
  uint32_t pc = 0;       // where the run stopped (the helper's call for helper_argument)
  uint64_t value = 0;    // faulting address, bound, or helper argument
  std::string message;   // one line
  bool found() const { return kind != FindingKind::none; }
};

// What judge() did with one program.
struct Judgement {
  bool decoded = false;
  Verdict verdict;
  uint32_t runs = 0;     // guarded runs made (two per input: the stack differential; three when hardened)
  Finding finding;
};

// Runs the accepted `decoded` program (its map lddws name kMaps) as `type`
// on `inputs` edge-biased inputs derived from `seed`, each twice with
// different never-written stack contents. Returns the first finding. With
// `unprivileged`, an address the program lets out is a finding too
// (8-byte values only: a stored half of a pointer is not seen); with
// `spec_guards` (verify()'s hardening table) each input also runs once
// hardened, and must do exactly what it did unhardened.
// `verdict` is what the verifier said; the runs trust nothing else, so a
// test may hand in a program the verifier never saw.
Finding run_accepted(const Program& decoded, const ProgramType& type, const Verdict& verdict, uint64_t seed,
                     uint32_t inputs, bool unprivileged = false, uint32_t* runs = nullptr,
                     const SpecGuard* spec_guards = nullptr);

// Decodes and verifies `bytes` as `type` with `options` (maps: kMaps), and
// when accepted, run_accepted().
Judgement judge(const uint8_t* bytes, size_t size, const ProgramType& type, const VerifyOptions& options,
                uint64_t seed, uint32_t inputs);

// The VerifyOptions a generated program is checked with.
VerifyOptions verify_options(bool privileged);

}  // namespace keel::fuzzgen
