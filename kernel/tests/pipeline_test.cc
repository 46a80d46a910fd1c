// The kernel's embedded programs (kernel/programs) through the kernel's
// pipeline on the host: the verdicts manifest.cc expects, and the accepted
// programs linked and run with the kernel's helpers (a fake clock and a
// captured trace), as the service runs them.
#include "bpf/pipeline.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bpf/helpers.h"
#include "bpf/maps.h"
#include "bpf/program_types.h"
#include "keel/interp.h"
#include "programs/keel_helpers.h"
#include "programs/manifest.h"

namespace keel::bpf {
namespace {

std::vector<uint8_t> read_object(const std::string& name) {
  const std::string path = std::string(KEEL_KERNEL_PROGRAM_DIR) + "/" + name + ".bpf.o";
  std::vector<uint8_t> bytes;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return bytes;
  int c = 0;
  while ((c = std::fgetc(file)) != EOF) bytes.push_back(static_cast<uint8_t>(c));
  std::fclose(file);
  return bytes;
}

// One object through load -> decode -> verify -> maps -> link, with the
// kernel's arena sizes (service.cc) as limits.
struct Loaded {
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> program_memory = std::vector<uint8_t>(64 * 1024);
  std::vector<uint8_t> verify_memory = std::vector<uint8_t>(64 * 1024);
  std::vector<uint8_t> pool = std::vector<uint8_t>(16 * 1024);
  ArrayMap maps[32];
  Arena arena{program_memory.data(), program_memory.size()};
  Object object;
  Program decoded;
  Outcome outcome;
  size_t verify_peak = 0;
  std::vector<Insn> linked;
  MapStore store{maps, 32, 0, nullptr, 0, 0};

  explicit Loaded(const std::string& name) : bytes(read_object(name)) {
    store.pool = pool.data();
    store.pool_size = pool.size();
  }

  void run_pipeline() {
    ASSERT_FALSE(bytes.empty()) << "no object in " << KEEL_KERNEL_PROGRAM_DIR;
    ASSERT_TRUE(load(bytes.data(), bytes.size(), arena, object).ok());
    ASSERT_EQ(object.program_count, 1u);
    const ProgramType* type = program_type(object.programs[0]);
    ASSERT_NE(type, nullptr);
    const DecodeResult d = decode_program(object.programs[0], *type, arena, decoded);
    ASSERT_TRUE(d.ok()) << decode_error_name(d.error) << " at " << d.pc;
    Arena scratch(verify_memory.data(), verify_memory.size());
    outcome = verify_outcome(verify_program(decoded, *type, object, scratch));
    verify_peak = scratch.peak();
    uint32_t first = 0;
    ASSERT_EQ(create_maps(object, store, first), MapError::ok);
    linked.resize(decoded.count);
    ASSERT_TRUE(link(decoded, maps, object.map_count, linked.data()));
  }

  const ArrayMap* map(const char* name) const {
    for (uint32_t i = 0; i < store.map_count; ++i) {
      if (std::string(maps[i].name) == name) return &maps[i];
    }
    return nullptr;
  }
};

struct Host {
  uint64_t clock_ns = 1'000'000;
  std::string traces;
  static uint64_t now(void* user) { return static_cast<Host*>(user)->clock_ns += 100; }
  static void trace(void* user, const char* program, const char* tag, size_t length, uint64_t value) {
    static_cast<Host*>(user)->traces +=
        std::string(program) + " " + std::string(tag, length) + "=" + std::to_string(value) + "\n";
  }
};

RunResult run_linked(Loaded& loaded, Host& host, const char* name, void* ctx, size_t ctx_size,
                     RunMode mode) {
  HelperContext context;
  context.program = name;
  context.now_ns = &Host::now;
  context.trace = &Host::trace;
  context.user = &host;
  context.maps = loaded.maps;
  context.map_count = loaded.store.map_count;
  const HelperTable table = helper_table(context);
  std::vector<Region> regions{{reinterpret_cast<uintptr_t>(ctx), ctx_size, false}};
  for (uint32_t i = 0; i < loaded.object.map_count; ++i) {
    if (loaded.object.map_info[i].kind == ElfMapKind::global_data) {
      regions.push_back({reinterpret_cast<uintptr_t>(loaded.maps[i].values),
                         loaded.maps[i].descriptor.value_size, false});
    }
  }
  RunOptions options;
  options.mode = mode;
  options.insn_budget = loaded.outcome.verdict.max_insns_executed;
  options.helpers = &table;
  options.regions = regions.data();
  options.region_count = static_cast<uint32_t>(regions.size());
  static RunStack stack;
  return run(Program{loaded.linked.data(), static_cast<uint32_t>(loaded.linked.size())},
             reinterpret_cast<uintptr_t>(ctx), 0, options, stack);
}

class EmbeddedProgram : public ::testing::TestWithParam<const char*> {};

// The manifest's verdict, and the verify arena within the kernel's 64 KiB.
TEST_P(EmbeddedProgram, GetsTheExpectedVerdict) {
  Loaded loaded(GetParam());
  loaded.run_pipeline();
  const programs::Expectation* e = programs::find_expectation(GetParam());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(loaded.outcome.accepted, e->accept) << loaded.outcome.reason << " at pc " << loaded.outcome.pc;
  if (!e->accept) {
    EXPECT_STREQ(loaded.outcome.reason, e->reason);
  }
  EXPECT_LT(loaded.verify_peak, 32u * 1024) << "the kernel's verify arena would be tight";
}

INSTANTIATE_TEST_SUITE_P(Kernel, EmbeddedProgram,
                         ::testing::Values("tick_counter", "helpers_demo", "bounded_loop", "unsafe_oob"));

TEST(Pipeline, UnsafeOobIsRejectedAtTheLoadPastTheValue) {
  Loaded loaded("unsafe_oob");
  loaded.run_pipeline();
  ASSERT_FALSE(loaded.outcome.accepted);
  EXPECT_STREQ(loaded.outcome.reason, "map_value_out_of_bounds");
  // The offending instruction is the 8-byte load of v[i + 1]: offset 8.
  const Insn& insn = loaded.decoded.insns[loaded.outcome.pc];
  EXPECT_EQ(insn.op, Op::ldxdw);
  EXPECT_EQ(insn.offset, 8);
  EXPECT_EQ(loaded.outcome.verdict.detail.limit, 32u);  // the value's size
}

TEST(Pipeline, BoundedLoopRunsItsSixteenTripsWithinTheBound) {
  Loaded loaded("bounded_loop");
  loaded.run_pipeline();
  ASSERT_TRUE(loaded.outcome.accepted);
  Host host;
  keel_test_ctx ctx{1, 2};
  const RunResult r = run_linked(loaded, host, "bounded_loop", &ctx, sizeof ctx, RunMode::guarded);
  EXPECT_EQ(r.status, RunStatus::ok) << run_status_name(r.status) << " at " << r.pc;
  EXPECT_EQ(r.r0, 560u);
  EXPECT_LE(r.insns_executed, loaded.outcome.verdict.max_insns_executed);
  EXPECT_GE(r.insns_executed, 16u * 5);  // at least the loop body per trip
}

TEST(Pipeline, HelpersDemoUsesEveryHelper) {
  Loaded loaded("helpers_demo");
  loaded.run_pipeline();
  ASSERT_TRUE(loaded.outcome.accepted);
  Host host;
  keel_test_ctx ctx{host.clock_ns, 0};
  const RunResult r = run_linked(loaded, host, "helpers_demo", &ctx, sizeof ctx, RunMode::guarded);
  EXPECT_EQ(r.status, RunStatus::ok) << run_status_name(r.status) << " at " << r.pc;
  EXPECT_EQ(r.r0, 0u);
  // Two clock reads 100 ns apart (Host::now).
  EXPECT_EQ(host.traces, "helpers_demo helpers_demo=42\nhelpers_demo elapsed_ns=100\n");
  const ArrayMap* values = loaded.map("demo_values");
  ASSERT_NE(values, nullptr);
  EXPECT_EQ(*reinterpret_cast<const uint64_t*>(map_value(*values, 2)), 42u);
}

// Ticks 10 ms apart land in bucket 4 (quarters of the period); one 30 ms
// gap in bucket 12; the first tick has no interval.
TEST(Pipeline, TickCounterCountsAndBucketsIntervals) {
  Loaded loaded("tick_counter");
  loaded.run_pipeline();
  ASSERT_TRUE(loaded.outcome.accepted);
  Host host;
  uint64_t now = 5'000'000;
  for (uint64_t tick = 1; tick <= 6; ++tick) {
    now += tick == 4 ? 30'000'000 : 10'000'000;
    keel_tick_ctx ctx{tick, now, 10'000'000};
    const RunResult r = run_linked(loaded, host, "tick_counter", &ctx, sizeof ctx, RunMode::guarded);
    ASSERT_EQ(r.status, RunStatus::ok) << run_status_name(r.status) << " at " << r.pc;
    EXPECT_EQ(r.r0, 0u);
    EXPECT_LE(r.insns_executed, loaded.outcome.verdict.max_insns_executed);
  }
  const ArrayMap* stats = loaded.map("tick_stats");
  const ArrayMap* hist = loaded.map("tick_hist");
  ASSERT_NE(stats, nullptr);
  ASSERT_NE(hist, nullptr);
  EXPECT_EQ(*reinterpret_cast<const uint64_t*>(map_value(*stats, 0)), 6u);
  EXPECT_EQ(*reinterpret_cast<const uint64_t*>(map_value(*hist, 4)), 4u);
  EXPECT_EQ(*reinterpret_cast<const uint64_t*>(map_value(*hist, 12)), 1u);
}

// The lines the kernel prints (minus timings) and keel-kernel-check repeats.
TEST(Pipeline, VerdictLines) {
  Loaded loaded("unsafe_oob");
  loaded.run_pipeline();
  const ElfProgram& program = loaded.object.programs[0];
  const std::string pc = std::to_string(loaded.outcome.pc);
  EXPECT_EQ(std::string(load_line(program, &test_type).text()),
            "keel load prog=unsafe_oob insns=" + std::to_string(program.slots) + " type=keel_test");
  EXPECT_EQ(std::string(verify_line(program, loaded.outcome).text()),
            "keel verify prog=unsafe_oob insns=" + std::to_string(program.slots) +
                " verdict=reject stage=verify pc=" + pc + " reason=map_value_out_of_bounds");
  EXPECT_EQ(std::string(reject_line(program, loaded.outcome).text()),
            "keel reject prog=unsafe_oob pc=" + pc + " reason=map_value_out_of_bounds");
}

TEST(Manifest, NamesEveryEmbeddedProgramOnce) {
  EXPECT_NE(programs::find_expectation("tick_counter"), nullptr);
  EXPECT_EQ(programs::find_expectation("no_such_program"), nullptr);
  EXPECT_EQ(programs::find_expectation(nullptr), nullptr);
}

}  // namespace
}  // namespace keel::bpf
