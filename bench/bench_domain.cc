// Scalar-domain micro-benchmarks (domain/scalar.h): reduce, ALU transfer
// functions, branch refinement and join on the values a verifier meets most
// (constants, unknowns, small ranges, tnum-only values). Names are
// domain/<op>/<case>. The verification budget is about 5 ns per instruction
// for everything, so these are the numbers to keep small.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "domain/scalar.h"

namespace {

using keel::AluOp;
using keel::JmpOp;
using keel::Scalar;
using keel::Tnum;
using keel::Width;

// Hides a value from the optimizer so that each iteration recomputes. For
// the Scalar operands, benchmark::DoNotOptimize(x) on the variable itself
// (no copy): the call then reads its operands from memory, as the analysis
// reads them from its register file.
template <class T>
T opaque(T v) {
  benchmark::DoNotOptimize(v);
  return v;
}

// ---------------------------------------------------------------------------
// Construction and reduce

void construct_constant(benchmark::State& state) {
  uint64_t v = 42;
  for (auto _ : state) {
    Scalar s = Scalar::constant(opaque(v));
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(construct_constant)->Name("domain/construct/constant");

void construct_urange(benchmark::State& state) {
  for (auto _ : state) {
    Scalar s = Scalar::from_urange(opaque(uint64_t{0}), opaque(uint64_t{255}));
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(construct_urange)->Name("domain/construct/urange");

void reduce_case(benchmark::State& state, Scalar input) {
  for (auto _ : state) {
    Scalar s = input;  // reduce works in place: a fresh copy each time
    benchmark::DoNotOptimize(s);
    const bool ok = keel::reduce(s);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(s);
  }
}

Scalar unreduced_small_range() {
  Scalar s;  // a fresh interval: the other components still at their extremes
  s.umin = 0;
  s.umax = 100;
  return s;
}

Scalar unreduced_tnum() {
  Scalar s;
  s.bits = Tnum{0x10, 0xff00};
  return s;
}

BENCHMARK_CAPTURE(reduce_case, constant, Scalar::constant(42))->Name("domain/reduce/constant");
BENCHMARK_CAPTURE(reduce_case, unknown, Scalar::unknown())->Name("domain/reduce/unknown");
BENCHMARK_CAPTURE(reduce_case, small_range, Scalar::from_urange(0, 100))->Name("domain/reduce/small_range");
BENCHMARK_CAPTURE(reduce_case, tnum_only, Scalar::from_tnum(Tnum{0x10, 0xff00}))->Name("domain/reduce/tnum_only");
BENCHMARK_CAPTURE(reduce_case, signed_range, Scalar::from_srange(-100, 100))->Name("domain/reduce/signed_range");
BENCHMARK_CAPTURE(reduce_case, fresh_small_range, unreduced_small_range())
    ->Name("domain/reduce/fresh_small_range");
BENCHMARK_CAPTURE(reduce_case, fresh_tnum, unreduced_tnum())->Name("domain/reduce/fresh_tnum");

// ---------------------------------------------------------------------------
// ALU

void alu_case(benchmark::State& state, AluOp op, Width w, Scalar a, Scalar b) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    Scalar r = keel::alu(opaque(op), w, a, b);
    benchmark::DoNotOptimize(r);
  }
}

const Scalar kC1 = Scalar::constant(0x1234);
const Scalar kC2 = Scalar::constant(7);
const Scalar kRange = Scalar::from_urange(0, 100);
const Scalar kUnknown = Scalar::unknown();

BENCHMARK_CAPTURE(alu_case, add_cc, AluOp::add, Width::w64, kC1, kC2)->Name("domain/alu/add/const_const");
BENCHMARK_CAPTURE(alu_case, and_cc, AluOp::bit_and, Width::w64, kC1, kC2)->Name("domain/alu/and/const_const");
BENCHMARK_CAPTURE(alu_case, lsh_cc, AluOp::lsh, Width::w64, kC1, kC2)->Name("domain/alu/lsh/const_const");
BENCHMARK_CAPTURE(alu_case, mul_cc, AluOp::mul, Width::w64, kC1, kC2)->Name("domain/alu/mul/const_const");
BENCHMARK_CAPTURE(alu_case, add32_cc, AluOp::add, Width::w32, kC1, kC2)->Name("domain/alu/add32/const_const");
BENCHMARK_CAPTURE(alu_case, mov_c, AluOp::mov, Width::w64, kUnknown, kC2)->Name("domain/alu/mov/const");
BENCHMARK_CAPTURE(alu_case, add_rc, AluOp::add, Width::w64, kRange, kC2)->Name("domain/alu/add/range_const");
BENCHMARK_CAPTURE(alu_case, and_uc, AluOp::bit_and, Width::w64, kUnknown, Scalar::constant(0xff))
    ->Name("domain/alu/and/unknown_const");
BENCHMARK_CAPTURE(alu_case, lsh_rc, AluOp::lsh, Width::w64, kRange, kC2)->Name("domain/alu/lsh/range_const");
BENCHMARK_CAPTURE(alu_case, mul_rc, AluOp::mul, Width::w64, kRange, kC2)->Name("domain/alu/mul/range_const");
BENCHMARK_CAPTURE(alu_case, add_uu, AluOp::add, Width::w64, kUnknown, kUnknown)->Name("domain/alu/add/unknown_unknown");
BENCHMARK_CAPTURE(alu_case, add32_rc, AluOp::add, Width::w32, kRange, kC2)->Name("domain/alu/add32/range_const");

// ---------------------------------------------------------------------------
// Branch refinement and join

void refine_case(benchmark::State& state, JmpOp op, bool taken, Scalar a, Scalar b) {
  for (auto _ : state) {
    Scalar x = a, y = b;  // refine works in place: fresh copies each time
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(y);
    const bool ok = keel::refine(opaque(op), Width::w64, taken, x, y);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(y);
  }
}

BENCHMARK_CAPTURE(refine_case, jlt_uc, JmpOp::jlt, true, kUnknown, Scalar::constant(10))
    ->Name("domain/refine/jlt/unknown_const");
BENCHMARK_CAPTURE(refine_case, jlt_rc, JmpOp::jlt, false, kRange, Scalar::constant(10))
    ->Name("domain/refine/jlt/range_const");
BENCHMARK_CAPTURE(refine_case, jeq_rc, JmpOp::jeq, true, kRange, Scalar::constant(5))
    ->Name("domain/refine/jeq/range_const");
BENCHMARK_CAPTURE(refine_case, jne_rc, JmpOp::jeq, false, kRange, Scalar::constant(0))
    ->Name("domain/refine/jne/range_const");
BENCHMARK_CAPTURE(refine_case, jset_uc, JmpOp::jset, true, kUnknown, Scalar::constant(1))
    ->Name("domain/refine/jset/unknown_const");

// A u32 load (Scalar::from_urange(0, UINT32_MAX), a wide-low value) against
// a constant, both ways: the first shape of a bounds check.
const Scalar kU32 = Scalar::from_urange(0, UINT32_MAX);
BENCHMARK_CAPTURE(refine_case, jgt_u32c_taken, JmpOp::jgt, true, kU32, Scalar::constant(1000))
    ->Name("domain/refine/jgt/u32_const_taken");
BENCHMARK_CAPTURE(refine_case, jgt_u32c_fall, JmpOp::jgt, false, kU32, Scalar::constant(1000))
    ->Name("domain/refine/jgt/u32_const_fallthrough");

BENCHMARK_CAPTURE(refine_case, jlt_cc, JmpOp::jlt, true, Scalar::constant(3), Scalar::constant(10))
    ->Name("domain/refine/jlt/const_const");

void evaluate_case(benchmark::State& state, JmpOp op, Scalar a, Scalar b) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    const keel::Outcome o = keel::evaluate(opaque(op), Width::w64, a, b);
    benchmark::DoNotOptimize(o);
  }
}

BENCHMARK_CAPTURE(evaluate_case, jlt_cc, JmpOp::jlt, Scalar::constant(3), Scalar::constant(10))
    ->Name("domain/evaluate/jlt/const_const");
BENCHMARK_CAPTURE(evaluate_case, jlt_rc, JmpOp::jlt, kRange, Scalar::constant(10))
    ->Name("domain/evaluate/jlt/range_const");

void join_case(benchmark::State& state, Scalar a, Scalar b) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    Scalar r = keel::join(a, b);
    benchmark::DoNotOptimize(r);
  }
}

BENCHMARK_CAPTURE(join_case, ranges, Scalar::from_urange(0, 5), Scalar::from_urange(10, 20))
    ->Name("domain/join/range_range");
BENCHMARK_CAPTURE(join_case, consts, Scalar::constant(3), Scalar::constant(9))->Name("domain/join/const_const");
BENCHMARK_CAPTURE(join_case, same, kRange, kRange)->Name("domain/join/same");
BENCHMARK_CAPTURE(join_case, u32_range, Scalar::from_urange(1001, UINT32_MAX), Scalar::from_urange(0, 1000))
    ->Name("domain/join/u32_range");

}  // namespace

BENCHMARK_MAIN();
