// The BPF service: for every program embedded in the image (programs/),
// load (keel's ELF loader) -> decode -> verify (timed with the board clock)
// -> admit (its worst-case instruction count within the hook's budget) ->
// link its maps -> attach (tick programs to the tick hook; run-once
// programs run at once), one protocol line per step. All memory is static:
// the program arena holds the loaded objects and linked code for the whole
// run, the verify arena is scratch reused per program, and the map pool
// holds every map value (sizes: docs/adr/0010).
#include "service.h"

#include "board.h"
#include "bpf/helpers.h"
#include "bpf/maps.h"
#include "bpf/pipeline.h"
#include "bpf/program_types.h"
#include "console.h"
#include "keel/interp.h"
#include "programs/keel_helpers.h"
#include "programs/manifest.h"
#include "runtime/format.h"

namespace keel::service {
namespace {

/// Loaded ELF objects, decoded and linked programs: everything that lives
/// until the end of the run. Peak on qemu-x86: see the `keel arena` line.
constexpr size_t kProgramArenaBytes = 64 * 1024;
/// Scratch for one verification (CFG, abstract states), reset per program.
constexpr size_t kVerifyArenaBytes = 64 * 1024;
/// Every map value of every object.
constexpr size_t kMapPoolBytes = 16 * 1024;
constexpr uint32_t kMaxMaps = 32;
constexpr uint32_t kMaxTickPrograms = 4;
/// Runs whose time is kept for the median (the boot measures 21 ticks).
constexpr uint32_t kMaxSamples = 64;

/// A tick program may execute at most this many instructions per tick: at
/// a (pessimistic) 100 ns per instruction that is 4% of the 10 ms tick.
constexpr uint64_t kTickBudgetInsns = 4096;
/// A run-once program runs before the timer, with no deadline but the
/// boot's: Linux's own complexity limit.
constexpr uint64_t kOnceBudgetInsns = 1'000'000;

struct TickProgram {
  const char* name;
  Program program;          // linked: map references resolved
  uint64_t max_insns;       // the verifier's bound, also the run's insn budget
  uint32_t first_map;       // its object's maps in State::maps
  uint32_t map_count;
  bpf::HelperContext helpers;
  HelperTable table;
  uint64_t runs;
  uint64_t errors;
  RunStatus first_error;
  uint64_t first_error_r0;
  uint32_t samples;
  uint64_t sample_ticks[kMaxSamples];
  uint64_t sample_insns[kMaxSamples];
};

struct State {
  const TickConverter* clock;
  uint64_t tick_period_ns;
  uint64_t seed;
  TickProgram tick_programs[kMaxTickPrograms];
  uint32_t tick_program_count;
  bpf::ArrayMap maps[kMaxMaps];
  RunStack stack;
};

alignas(16) uint8_t program_memory[kProgramArenaBytes];
alignas(16) uint8_t verify_memory[kVerifyArenaBytes];
alignas(16) uint8_t map_memory[kMapPoolBytes];
constinit State state{};

uint64_t now_ns() {
  return ticks_to_ns(*state.clock, board::clock_ticks()).value;
}

uint64_t helper_now_ns(void*) { return now_ns(); }

void helper_trace(void*, const char* program, const char* tag, size_t length, uint64_t value) {
  char text[33];
  size_t used = 0;
  for (; used < length && used < sizeof text - 1 && tag[used] != '\0'; ++used) text[used] = tag[used];
  text[used] = '\0';
  emit(Line("trace").str("prog", program).str("tag", text).dec("value", value));
}

// The helpers accept only the maps of the program's own object.
bpf::HelperContext helper_context(const char* program, uint32_t first_map, uint32_t map_count) {
  bpf::HelperContext context;
  context.program = program;
  context.now_ns = &helper_now_ns;
  context.trace = &helper_trace;
  context.maps = &state.maps[first_map];
  context.map_count = map_count;
  return context;
}

uint64_t ticks_ns(uint64_t ticks) { return ticks_to_ns(*state.clock, ticks).value; }

bool same(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return a == b;
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// The median of `count` values (sorted in place; count > 0).
uint64_t median(uint64_t* values, uint32_t count) {
  for (uint32_t i = 1; i < count; ++i) {
    const uint64_t value = values[i];
    uint32_t j = i;
    for (; j > 0 && values[j - 1] > value; --j) values[j] = values[j - 1];
    values[j] = value;
  }
  return count % 2 == 1 ? values[count / 2]
                        : values[count / 2 - 1] + (values[count / 2] - values[count / 2 - 1]) / 2;
}

// Compares the verdict with the manifest; a mismatch fails the run.
bool expected(const ElfProgram& program, const bpf::Outcome& outcome) {
  const programs::Expectation* e = programs::find_expectation(program.name);
  const bool match = e != nullptr && e->accept == outcome.accepted &&
                     (outcome.accepted || same(e->reason, outcome.reason));
  if (!match) {
    Line line("expect");
    line.str("prog", program.name);
    if (e == nullptr) {
      line.str("status", "no-expectation");
    } else {
      line.str("expected", e->accept ? "accept" : e->reason).str("status", "mismatch");
    }
    emit(line);
  }
  return match;
}

// Runs a run-once program now, in guarded mode: an accepted program that
// traps is a verifier bug, and this is where the boot would show it.
bool run_once(const ElfProgram& program, const Program& linked, uint64_t max_insns,
              const Object& object, uint32_t first_map) {
  keel_test_ctx ctx{now_ns(), state.seed};
  bpf::HelperContext context = helper_context(program.name, first_map, object.map_count);
  const HelperTable table = bpf::helper_table(context);
  // The context, and the global data the program addresses directly
  // (lddw map value); map values from lookups are granted by the helper.
  Region regions[kMaxRegions / 2];
  uint32_t region_count = 0;
  regions[region_count++] = Region{reinterpret_cast<uintptr_t>(&ctx), sizeof ctx, false};
  for (uint32_t i = 0; i < object.map_count && region_count < kMaxRegions / 2; ++i) {
    if (object.map_info[i].kind != ElfMapKind::global_data) continue;
    const bpf::ArrayMap& map = state.maps[first_map + i];
    regions[region_count++] = Region{reinterpret_cast<uintptr_t>(map.values),
                                     map.descriptor.value_size, !map.descriptor.read_only};
  }
  RunOptions options;
  options.mode = RunMode::guarded;
  options.insn_budget = max_insns;
  options.helpers = &table;
  options.regions = regions;
  options.region_count = region_count;
  const uint64_t start = board::clock_ticks();
  const RunResult result = run(linked, reinterpret_cast<uintptr_t>(&ctx), 0, options, state.stack);
  const uint64_t ns = ticks_ns(board::clock_ticks() - start);

  const programs::Expectation* e = programs::find_expectation(program.name);
  const bool r0_ok = e == nullptr || !e->check_r0 || e->r0 == result.r0;
  const bool ok = result.status == RunStatus::ok && r0_ok;
  Line line("run");
  line.str("prog", program.name).dec("runs", 1).dec("r0", result.r0)
      .dec("insns", result.insns_executed).dec("ns", ns).str("mode", "guarded")
      .dec("emulated", board::emulated() ? 1 : 0);
  if (result.status != RunStatus::ok) line.str("error", run_status_name(result.status)).dec("pc", result.pc);
  if (!r0_ok) line.dec("expected_r0", e->r0);
  emit(line.str("status", ok ? "ok" : "fail"));
  return ok;
}

bool attach_tick(const ElfProgram& program, const Program& linked, uint64_t max_insns,
                 uint32_t first_map, uint32_t map_count) {
  if (state.tick_program_count == kMaxTickPrograms) {
    emit(Line("attach").str("prog", program.name).str("hook", "tick").str("status", "hook-full"));
    return false;
  }
  TickProgram& t = state.tick_programs[state.tick_program_count];
  t = TickProgram{};
  t.name = program.name;
  t.program = linked;
  t.max_insns = max_insns;
  t.first_map = first_map;
  t.map_count = map_count;
  t.helpers = helper_context(program.name, first_map, map_count);
  t.table = bpf::helper_table(t.helpers);
  ++state.tick_program_count;  // interrupts are still off (service.h)
  emit(Line("attach").str("prog", program.name).str("hook", "tick"));
  return true;
}

// One program of a loaded object, through every step. False fails the run.
bool start_program(const ElfProgram& program, const Object& object, uint32_t first_map,
                   Arena& program_arena, size_t& verify_peak) {
  const ProgramType* type = bpf::program_type(program);
  emit(bpf::load_line(program, type));

  bpf::Outcome outcome;
  Program decoded;
  uint64_t verify_ns = 0;
  size_t arena_bytes = 0;
  if (type == nullptr) {
    outcome = bpf::load_outcome(program);
  } else {
    const DecodeResult d = bpf::decode_program(program, *type, program_arena, decoded);
    if (!d.ok()) {
      outcome = bpf::decode_outcome(d);
    } else {
      Arena scratch(verify_memory, sizeof verify_memory);
      const uint64_t start = board::clock_ticks();
      const Verdict verdict = bpf::verify_program(decoded, *type, object, scratch);
      verify_ns = ticks_ns(board::clock_ticks() - start);
      arena_bytes = scratch.peak();
      if (arena_bytes > verify_peak) verify_peak = arena_bytes;
      outcome = bpf::verify_outcome(verdict);
    }
  }
  Line line = bpf::verify_line(program, outcome);
  line.dec("verify_ns", verify_ns).dec("arena_bytes", arena_bytes)
      .dec("emulated", board::emulated() ? 1 : 0);
  emit(line);
  if (!outcome.accepted) emit(bpf::reject_line(program, outcome));
  const bool as_expected = expected(program, outcome);
  if (!outcome.accepted) return as_expected;

  const bpf::Hook hook = bpf::hook_of(*type);
  const uint64_t budget = hook == bpf::Hook::tick ? kTickBudgetInsns : kOnceBudgetInsns;
  const uint64_t max_insns = outcome.verdict.max_insns_executed;
  const bool admitted = max_insns <= budget;
  emit(Line("admit").str("prog", program.name).str("hook", bpf::hook_name(hook))
           .dec("budget", budget).dec("max_insns", max_insns)
           .str("status", admitted ? "ok" : "over-budget"));
  if (!admitted) return false;

  Insn* code = program_arena.allocate<Insn>(decoded.count);
  if (code == nullptr || !bpf::link(decoded, &state.maps[first_map], object.map_count, code)) {
    emit(Line("link").str("prog", program.name)
             .str("status", code == nullptr ? "out-of-memory" : "bad-map-reference"));
    return false;
  }
  const Program linked{code, decoded.count};
  if (hook == bpf::Hook::tick) {
    return as_expected && attach_tick(program, linked, max_insns, first_map, object.map_count);
  }
  emit(Line("attach").str("prog", program.name).str("hook", "once"));
  return run_once(program, linked, max_insns, object, first_map) && as_expected;
}

// `keel map prog=... map=... words=a,b,...`: the first 16 64-bit words of a
// map, entry after entry, so the boot log shows what the program recorded.
void emit_map(const char* program, const bpf::ArrayMap& map) {
  char words[Line::kCapacity];
  size_t used = 0;
  const uint32_t per_entry = map.descriptor.value_size / 8;
  uint32_t shown = 0;
  for (uint32_t key = 0; key < map.descriptor.max_entries && shown < 16; ++key) {
    const uint8_t* value = bpf::map_value(map, key);
    for (uint32_t w = 0; w < per_entry && shown < 16; ++w, ++shown) {
      uint64_t word = 0;
      for (uint32_t b = 0; b < 8; ++b) word |= uint64_t{value[w * 8 + b]} << (8 * b);
      char digits[24];
      const size_t n = runtime::format_unsigned(digits, sizeof digits, word);
      if (used + n + 2 >= sizeof words) break;
      if (used != 0) words[used++] = ',';
      for (size_t i = 0; i < n; ++i) words[used++] = digits[i];
    }
  }
  words[used] = '\0';
  emit(Line("map").str("prog", program).str("map", map.name).str("words", words));
}

}  // namespace

bool start(const Environment& environment) {
  state.clock = environment.clock;
  state.tick_period_ns = environment.tick_period_ns;
  state.seed = board::clock_ticks();
  state.tick_program_count = 0;

  Arena program_arena(program_memory, sizeof program_memory);
  bpf::MapStore store{state.maps, kMaxMaps, 0, map_memory, sizeof map_memory, 0};
  size_t verify_peak = 0;
  bool ok = true;
  const programs::EmbeddedObjects embedded = programs::embedded_objects();
  for (uint64_t i = 0; i < embedded.count; ++i) {
    const programs::EmbeddedObject& blob = embedded.objects[i];
    Object object;
    const ElfResult loaded = bpf::load(blob.begin, static_cast<size_t>(blob.end - blob.begin),
                                       program_arena, object);
    if (!loaded.ok()) {
      emit(Line("load").str("object", blob.name).str("status", "fail")
               .str("reason", elf_error_name(loaded.error)));
      ok = false;
      continue;
    }
    uint32_t first_map = 0;
    const bpf::MapError maps = bpf::create_maps(object, store, first_map);
    if (maps != bpf::MapError::ok) {
      emit(Line("load").str("object", blob.name).str("status", "fail")
               .str("reason", bpf::map_error_name(maps)));
      ok = false;
      continue;
    }
    for (uint32_t p = 0; p < object.program_count; ++p) {
      ok = start_program(object.programs[p], object, first_map, program_arena, verify_peak) && ok;
    }
  }
  emit(Line("arena").str("name", "program").dec("capacity", sizeof program_memory)
           .dec("peak", program_arena.peak()));
  emit(Line("arena").str("name", "verify").dec("capacity", sizeof verify_memory)
           .dec("peak", verify_peak));
  emit(Line("arena").str("name", "maps").dec("capacity", sizeof map_memory)
           .dec("peak", store.pool_used).dec("maps", store.map_count));
  return ok;
}

void on_tick(uint64_t tick) {
  if (state.clock == nullptr) return;
  const uint64_t now = board::clock_ticks();
  keel_tick_ctx ctx{tick, ticks_ns(now), state.tick_period_ns};
  for (uint32_t i = 0; i < state.tick_program_count; ++i) {
    TickProgram& t = state.tick_programs[i];
    RunOptions options;
    options.mode = RunMode::fast;
    options.insn_budget = t.max_insns;
    options.helpers = &t.table;
    const uint64_t start = board::clock_ticks();
    const RunResult result = run(t.program, reinterpret_cast<uintptr_t>(&ctx), 0, options, state.stack);
    const uint64_t elapsed = board::clock_ticks() - start;
    if (result.status != RunStatus::ok || result.r0 != 0) {
      if (t.errors++ == 0) {
        t.first_error = result.status;
        t.first_error_r0 = result.r0;
      }
    }
    if (t.samples < kMaxSamples) {
      t.sample_ticks[t.samples] = elapsed;
      t.sample_insns[t.samples] = result.insns_executed;
      ++t.samples;
    }
    ++t.runs;
  }
}

bool finish() {
  bool ok = true;
  for (uint32_t i = 0; i < state.tick_program_count; ++i) {
    TickProgram& t = state.tick_programs[i];
    Line line("run");
    line.str("prog", t.name).dec("runs", t.runs);
    const bool ran = t.samples > 0;
    if (ran) {
      const uint64_t run_ns = ticks_ns(median(t.sample_ticks, t.samples));
      const uint64_t insns = median(t.sample_insns, t.samples);
      const uint64_t per = insns == 0 ? 0 : run_ns / insns;
      const uint64_t fraction = insns == 0 ? 0 : (run_ns % insns) * 1'000'000 / insns;
      line.dec("ns_per_run_median", run_ns).fixed6("ns_per_insn", per, static_cast<uint32_t>(fraction))
          .dec("insns_median", insns);
    }
    line.dec("errors", t.errors).str("mode", "fast").dec("emulated", board::emulated() ? 1 : 0);
    if (t.errors != 0) line.str("error", run_status_name(t.first_error)).dec("r0", t.first_error_r0);
    const bool program_ok = ran && t.errors == 0;
    emit(line.str("status", program_ok ? "ok" : "fail"));
    ok = ok && program_ok;
    for (uint32_t m = 0; m < t.map_count; ++m) emit_map(t.name, state.maps[t.first_map + m]);
  }
  state.tick_program_count = 0;
  return ok;
}

}  // namespace keel::service
