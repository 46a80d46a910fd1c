// Interpreter benchmarks: keel::run() on small hand-built programs, in fast
// and guarded mode. Each benchmark reports items_per_second (items =
// instructions executed) and a counter `ns_per_insn`.
//
// Programs are written in the decoded form directly so that the numbers
// measure the interpreter alone, not the decoder.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "keel/interp.h"

namespace {

using keel::Insn;
using keel::Op;

Insn ins(Op op, uint8_t dst = 0, uint8_t src = 0, int32_t offset = 0, int64_t imm = 0) {
  return Insn{op, dst, src, 0, offset, imm};
}
Insn alu_imm(Op op, uint8_t dst, int32_t imm) { return ins(op, dst, 0, 0, imm); }
Insn alu_reg(Op op, uint8_t dst, uint8_t src) { return ins(op, dst, src); }
Insn mov(uint8_t dst, int32_t imm) { return alu_imm(Op::mov64_imm, dst, imm); }
Insn exit_insn() { return ins(Op::exit); }

// ALU loop: 8 ALU operations of both widths and a counted jne back-edge.
std::vector<Insn> alu_loop(int32_t iterations) {
  return {
      mov(0, 0),
      mov(1, iterations),
      mov(2, 3),
      // loop (slot 3):
      alu_reg(Op::add64_reg, 0, 1),
      alu_imm(Op::mul64_imm, 2, 7),
      alu_reg(Op::xor64_reg, 0, 2),
      alu_imm(Op::rsh64_imm, 2, 3),
      alu_imm(Op::add32_imm, 2, 12345),
      alu_reg(Op::or64_reg, 0, 1),
      alu_imm(Op::lsh32_imm, 0, 1),
      alu_imm(Op::sub64_imm, 1, 1),
      ins(Op::jne64_imm, 1, 0, -9, 0),
      exit_insn(),
  };
}

// Memory loop: stores and loads of every size on the stack, plus the counter.
std::vector<Insn> memory_loop(int32_t iterations) {
  return {
      mov(0, 0),
      mov(1, iterations),
      // loop (slot 2):
      ins(Op::stxdw, 10, 1, -8),
      ins(Op::ldxdw, 2, 10, -8),
      ins(Op::stxw, 10, 2, -16),
      ins(Op::ldxw, 3, 10, -16),
      ins(Op::sth, 10, 0, -18, 0x1234),
      ins(Op::ldxh, 4, 10, -18),
      ins(Op::stxb, 10, 3, -19),
      ins(Op::ldxb, 5, 10, -19),
      alu_reg(Op::add64_reg, 0, 5),
      alu_imm(Op::sub64_imm, 1, 1),
      ins(Op::jne64_imm, 1, 0, -11, 0),
      exit_insn(),
  };
}

// A helper as cheap as a helper can be, so the call path itself is measured.
uint64_t increment_helper(keel::HelperCall& call) { return call.args[0] + 1; }

// Call-heavy loop: each iteration makes a BPF-to-BPF call whose callee calls
// a helper. The counter lives in r6 (callee-saved: helpers clobber r1-r5).
std::vector<Insn> call_heavy(int32_t iterations) {
  return {
      mov(6, iterations),
      mov(7, 0),
      // loop (slot 2):
      alu_reg(Op::mov64_reg, 1, 6),
      ins(Op::call_local, 0, 0, 5),  // -> slot 9
      alu_reg(Op::add64_reg, 7, 0),
      alu_imm(Op::sub64_imm, 6, 1),
      ins(Op::jne64_imm, 6, 0, -5, 0),
      alu_reg(Op::mov64_reg, 0, 7),
      exit_insn(),
      // callee (slot 9): r0 = helper0(r1) + 1
      ins(Op::call_helper, 0, 0, 0, 0),
      alu_imm(Op::add64_imm, 0, 1),
      exit_insn(),
  };
}

// The reference interpreter shapes.
std::vector<Insn> simple_math() {
  return {mov(0, 0), mov(1, 100), alu_reg(Op::add64_reg, 0, 1), alu_imm(Op::mul64_imm, 0, 2),
          alu_imm(Op::sub64_imm, 0, 50), exit_insn()};
}

std::vector<Insn> counted_loop(int32_t n) {
  return {mov(0, 0), mov(1, n), alu_imm(Op::add64_imm, 0, 1), alu_imm(Op::sub64_imm, 1, 1),
          ins(Op::jne64_imm, 1, 0, -3, 0), exit_insn()};
}

// Branching: 100 iterations; each tests the low bit of the counter and takes
// one of two arms (alternating, so a real taken/not-taken mix) that join
// before the back-edge. Exercises conditional jumps, ja and jset.
std::vector<Insn> branching() {
  return {
      mov(0, 0),
      mov(1, 100),
      // loop (slot 2):
      ins(Op::jset64_imm, 1, 0, 2, 1),  // odd -> slot 5
      alu_imm(Op::add64_imm, 0, 3),
      ins(Op::ja, 0, 0, 1),             // -> slot 6
      alu_imm(Op::sub64_imm, 0, 1),
      ins(Op::jgt64_imm, 0, 0, 0, 1000),  // a second compare (never taken; offset 0 either way)
      alu_imm(Op::sub64_imm, 1, 1),
      ins(Op::jne64_imm, 1, 0, -7, 0),
      exit_insn(),
  };
}

// Multi-register: 100 iterations of a dependency web over r0-r9 (every
// register read and written each iteration) so that register-file traffic,
// not a single accumulator, dominates.
std::vector<Insn> multi_register() {
  return {
      mov(0, 1), mov(2, 2), mov(3, 3), mov(4, 4), mov(5, 5), mov(6, 6), mov(7, 7), mov(8, 8),
      mov(9, 9), mov(1, 100),
      // loop (slot 10):
      alu_reg(Op::add64_reg, 2, 3),
      alu_reg(Op::xor64_reg, 3, 4),
      alu_reg(Op::add64_reg, 4, 5),
      alu_reg(Op::sub64_reg, 5, 6),
      alu_reg(Op::or64_reg, 6, 7),
      alu_reg(Op::add64_reg, 7, 8),
      alu_reg(Op::and64_reg, 8, 9),
      alu_reg(Op::add64_reg, 9, 2),
      alu_reg(Op::add64_reg, 0, 9),
      alu_imm(Op::sub64_imm, 1, 1),
      ins(Op::jne64_imm, 1, 0, -11, 0),
      exit_insn(),
  };
}

void run_program(benchmark::State& state, const std::vector<Insn>& insns, keel::RunMode mode) {
  static const keel::HelperFn kFns[] = {increment_helper};
  static const keel::HelperTable kHelpers{kFns, 1, nullptr};
  keel::RunOptions options;
  options.mode = mode;
  options.helpers = &kHelpers;
  const keel::Program program{insns.data(), static_cast<uint32_t>(insns.size())};
  keel::RunStack stack{};

  const keel::RunResult first = keel::run(program, 1, 2, options, stack);
  if (first.status != keel::RunStatus::ok) {
    state.SkipWithError(keel::run_status_name(first.status));
    return;
  }
  for (auto _ : state) {
    keel::RunResult result = keel::run(program, 1, 2, options, stack);
    benchmark::DoNotOptimize(result);
  }
  const auto per_run = static_cast<double>(first.insns_executed);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(first.insns_executed));
  state.counters["insns"] = per_run;
  // (insns * 1e-9) per second, inverted: seconds * 1e9 per instruction, so
  // the value is in ns (the console appends "s" to every inverted rate).
  state.counters["ns_per_insn"] = benchmark::Counter(
      per_run * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void register_modes(const std::string& name, std::vector<Insn> insns) {
  for (auto [mode, suffix] : {std::pair{keel::RunMode::fast, "/fast"},
                              std::pair{keel::RunMode::guarded, "/guarded"}}) {
    benchmark::RegisterBenchmark((name + suffix).c_str(),
                                 [insns, mode = mode](benchmark::State& state) {
                                   run_program(state, insns, mode);
                                 });
  }
}

void register_one(const std::string& name, std::vector<Insn> insns) {
  benchmark::RegisterBenchmark(name.c_str(), [insns](benchmark::State& state) {
    run_program(state, insns, keel::RunMode::fast);
  });
}

}  // namespace

int main(int argc, char** argv) {
  register_modes("interpreter/alu_loop", alu_loop(1000));
  register_modes("interpreter/memory_loop", memory_loop(1000));
  register_modes("interpreter/call_heavy", call_heavy(1000));
  // Reference shapes, fast mode (what a verified program runs in).
  register_one("interpreter/simple_math", simple_math());
  for (int32_t n : {10, 100, 1000}) {
    register_one("interpreter/loop/" + std::to_string(n), counted_loop(n));
  }
  register_one("interpreter/branching", branching());
  register_one("interpreter/multi_register", multi_register());

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
