// fuzz_run_guarded: any bytes -> keel::decode -> keel::run in guarded mode
// (verifier/src/interp/interp.cc). The program is the input (its whole
// slots); the context region r1 points to is a heap copy of the input of
// exactly its size, read-only or writable by a bit of the input, and r2
// holds its length. A budget of 10k instructions bounds every run; a helper
// table of harmless helpers (some grant memory) lets calls run.
// Properties: no crash, UB or access outside the granted memory (ASan sees
// every buffer at its exact size); the status is a defined RunStatus; the pc
// is a slot of the program; the instruction count respects the budget.
// Fast mode is not fuzzed: it trusts verified programs by design.
#include <cstdint>
#include <cstring>
#include <memory>

#include "fuzz_check.h"
#include "keel/decode.h"
#include "keel/interp.h"

namespace {

using keel::HelperCall;
using keel::Region;
using keel::RunStatus;

constexpr uint64_t kBudget = 10000;
constexpr uint32_t kMaxInsns = 4096;
constexpr size_t kGrantedBytes = 64;

// Memory the helpers hand out; ASan-visible heap blocks of exact size.
struct HelperState {
  std::unique_ptr<uint8_t[]> writable{new uint8_t[kGrantedBytes]()};
  std::unique_ptr<uint8_t[]> read_only{new uint8_t[kGrantedBytes]()};
  uint64_t calls = 0;
};

uint64_t address_of(const uint8_t* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }
HelperState& state_of(HelperCall& call) { return *static_cast<HelperState*>(call.user); }

// 1: a pure function of the arguments.
uint64_t helper_mix(HelperCall& call) {
  ++state_of(call).calls;
  return call.args[0] * 31 + (call.args[1] ^ call.args[2]) - call.args[3] + (call.args[4] >> 3);
}
// 2: grants a writable 64-byte block and returns it (a map lookup that hits), 0 when full.
uint64_t helper_grant_writable(HelperCall& call) {
  HelperState& s = state_of(call);
  const Region region{address_of(s.writable.get()), kGrantedBytes, true};
  return call.grant(call, region) ? region.base : 0;
}
// 3: the same, read-only.
uint64_t helper_grant_read_only(HelperCall& call) {
  HelperState& s = state_of(call);
  const Region region{address_of(s.read_only.get()), kGrantedBytes, false};
  return call.grant(call, region) ? region.base : 0;
}
// 4: ends the program with r0 = r1 (bpf_tail_call-like: no return).
uint64_t helper_stop(HelperCall& call) {
  call.stop = true;
  return call.args[0];
}
// 5: fills the region table until it refuses; returns how many it took.
uint64_t helper_grant_until_full(HelperCall& call) {
  HelperState& s = state_of(call);
  const Region region{address_of(s.read_only.get()), kGrantedBytes / 2, false};
  uint64_t granted = 0;
  for (uint32_t i = 0; i < 2 * keel::kMaxRegions; ++i) {
    if (!call.grant(call, region)) break;
    ++granted;
  }
  KEEL_FUZZ_CHECK(granted <= keel::kMaxRegions);
  return granted;
}
// 6: a lookup that misses.
uint64_t helper_null(HelperCall&) { return 0; }

// Id 0 and 7 stay unknown (nullptr), as does every id past the table.
constexpr keel::HelperFn kHelpers[] = {nullptr,     &helper_mix,  &helper_grant_writable,
                                       &helper_grant_read_only, &helper_stop, &helper_grant_until_full,
                                       &helper_null, nullptr};

bool is_memory_trap(RunStatus status) {
  return status == RunStatus::out_of_bounds || status == RunStatus::address_overflow;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const size_t code_bytes = size / 8 * 8;  // a partial last slot is only context
  if (code_bytes == 0) return 0;

  keel::DecodeOptions decode_options;
  decode_options.max_insns = kMaxInsns;
  std::unique_ptr<uint8_t[]> arena_memory(new uint8_t[kMaxInsns * 20 + 64]);
  keel::Arena arena(arena_memory.get(), kMaxInsns * 20 + 64);
  keel::Program program;
  if (!keel::decode(data, code_bytes, decode_options, arena, program).ok()) return 0;

  // The context: a copy of the input, exactly its size.
  std::unique_ptr<uint8_t[]> ctx(new uint8_t[size]);
  std::memcpy(ctx.get(), data, size);
  const bool ctx_writable = (data[size - 1] & 1) != 0;
  const Region regions[] = {{address_of(ctx.get()), size, ctx_writable}};

  HelperState helper_state;
  const keel::HelperTable helpers{kHelpers, sizeof kHelpers / sizeof kHelpers[0], &helper_state};
  keel::RunOptions options;
  options.mode = keel::RunMode::guarded;
  options.insn_budget = kBudget;
  options.helpers = &helpers;
  options.regions = regions;
  options.region_count = 1;

  std::unique_ptr<keel::RunStack> stack(new keel::RunStack());
  const keel::RunResult result = keel::run(program, address_of(ctx.get()), size, options, *stack);

  KEEL_FUZZ_CHECK(result.status <= RunStatus::legacy_packet_load);
  KEEL_FUZZ_CHECK(std::strcmp(keel::run_status_name(result.status), "invalid") != 0);
  KEEL_FUZZ_CHECK(result.pc < program.count);
  KEEL_FUZZ_CHECK(program.insns[result.pc].op != keel::Op::lddw_tail);
  KEEL_FUZZ_CHECK(result.insns_executed <= kBudget);
  if (result.status == RunStatus::budget_exhausted) KEEL_FUZZ_CHECK(result.insns_executed == kBudget);
  else KEEL_FUZZ_CHECK(result.insns_executed >= 1);
  if (!is_memory_trap(result.status)) KEEL_FUZZ_CHECK(result.address == 0);
  // The memory was untouched unless the program was allowed to write it.
  if (!ctx_writable) KEEL_FUZZ_CHECK(std::memcmp(ctx.get(), data, size) == 0);
  for (size_t i = 0; i < kGrantedBytes; ++i) KEEL_FUZZ_CHECK(helper_state.read_only[i] == 0);
  return 0;
}
