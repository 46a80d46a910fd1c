// Verifier benchmarks: the whole pipeline a loader runs on a program's
// bytes, keel::decode + keel::verify (CFG, analysis, loop bounds, verdict),
// inside the timed loop, with a fresh Arena over a reused caller buffer each
// iteration. Shapes (bench/shapes.h):
//
//   verifier/small/{minimal,arithmetic}, verifier/control_flow/{linear,
//   single_branch,multi_branch}, verifier/scaling/instructions/{10..1000}
//     the reference verifier benchmark's programs, byte for byte
//   verifier/scaling/instructions/{4096,16384,65536}   the same straight line, longer
//   verifier/scaling/diamonds/<n>, nested_diamonds/<depth>, bounded_loop/<trip>,
//   nested_loops/<depth>                               control-flow scaling
//   verifier/realistic/{map_lookup,packet_parse,stack_spills,packet_parse_vlan}
//   verifier/corpus/<project>/<object>/<section>/<function>
//     the programs of ../shared/corpus/ebpf-samples (programs.jsonl), when present
//   verifier/corpus_all   every ebpf-samples object loaded and all its programs
//                         verified, one iteration (counters objects, programs, accepted)
//
// Counters (every benchmark):
//   insns               program size in slots (lddw counts two)
//   ns_per_insn         wall-clock ns per slot per verification: steady_clock
//                       around the timed loop / (iterations x insns); the Time
//                       column is real time too, CPU the process's CPU time
//   arena_bytes         Arena::peak() of one verification, decode's allocation included
//   max_insns_executed  Verdict::max_insns_executed (the proven worst-case run)
// A program that fails to decode or is rejected is reported with
// SkipWithError (the reason, as keel::describe renders it), never timed.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "corpus_types.h"
#include "keel/arena.h"
#include "keel/decode.h"
#include "keel/elf.h"
#include "keel/platform.h"
#include "keel/platform_linux.h"
#include "keel/verify.h"
#include "shapes.h"

namespace {

namespace fs = std::filesystem;

constexpr size_t kKiB = 1024, kMiB = 1024 * kKiB;

// One program to benchmark. `error` set: not verifiable as prepared (a
// loader failure, a type keel's platform lacks); reported, not timed.
struct Case {
  std::string name;
  std::vector<uint8_t> bytes;
  const keel::ProgramType* type = nullptr;
  std::vector<keel::MapDescriptor> maps;
  size_t arena_size = kMiB;
  std::string error;
};

// The arena memory every benchmark reuses: allocated once (main), as large
// as the largest Case asks for, so that page faults are not measured.
uint8_t* g_arena_memory = nullptr;

struct Outcome {
  keel::DecodeResult decoded;
  keel::Verdict verdict;
  uint32_t slots = 0;
  size_t peak = 0;
};

keel::VerifyOptions verify_options(const Case& c) {
  keel::VerifyOptions options;
  options.maps = c.maps.data();
  options.map_count = static_cast<uint32_t>(c.maps.size());
  return options;
}

// The timed work, identical in the untimed first run and in the loop.
inline Outcome verify_once(const Case& c, const keel::VerifyOptions& options) {
  Outcome out;
  keel::Arena arena(g_arena_memory, c.arena_size);
  keel::Program program;
  out.decoded = keel::decode(c.bytes.data(), c.bytes.size(), keel::DecodeOptions{}, arena, program);
  if (out.decoded.ok()) out.verdict = keel::verify(program, *c.type, options, arena);
  out.slots = program.count;
  out.peak = arena.peak();
  return out;
}

void run_case(benchmark::State& state, const Case& c) {
  if (!c.error.empty()) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  const keel::VerifyOptions options = verify_options(c);
  const Outcome first = verify_once(c, options);
  if (!first.decoded.ok()) {
    const std::string what = std::string("decode: ") + keel::decode_error_name(first.decoded.error) +
                             " at pc " + std::to_string(first.decoded.pc);
    state.SkipWithError(what.c_str());
    return;
  }
  if (!first.verdict.ok()) {
    char buffer[256];
    keel::describe(first.verdict, buffer, sizeof(buffer));
    const std::string what = std::string("rejected (") + keel::reason_name(first.verdict.reason) +
                             "): " + buffer + "; arena peak " + std::to_string(first.peak) + " of " +
                             std::to_string(c.arena_size);
    state.SkipWithError(what.c_str());
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    Outcome out = verify_once(c, options);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  const auto slots = static_cast<double>(first.slots);
  state.counters["insns"] = slots;
  // Real (steady_clock) time of the loop over iterations x slots. Not a
  // Counter rate: without UseRealTime() (which would append "/real_time"
  // to every name) Google Benchmark divides rates by CPU time.
  state.counters["ns_per_insn"] =
      elapsed.count() / (static_cast<double>(state.iterations()) * std::max(slots, 1.0));
  state.counters["arena_bytes"] = static_cast<double>(first.peak);
  state.counters["max_insns_executed"] = static_cast<double>(first.verdict.max_insns_executed);
}

std::vector<Case>& cases() {
  static std::vector<Case> all;
  return all;
}

const keel::ProgramType* linux_type(const char* name) {
  return keel::find_program_type(keel::linux_platform(), name);
}

void add_shape(const std::string& name, keel::shapes::Shape shape, size_t arena_size) {
  Case c;
  c.name = name;
  c.bytes = std::move(shape.bytes);
  c.type = linux_type(shape.type);
  c.maps = std::move(shape.maps);
  c.arena_size = arena_size;
  if (c.type == nullptr) c.error = std::string("no program type ") + shape.type;
  cases().push_back(std::move(c));
}

// Arena sizes: comfortably above the measured peak (arena_bytes reports
// the peak; out_of_memory would be reported as a rejection).
void add_synthetic() {
  namespace s = keel::shapes;
  constexpr size_t kSmall = 1 * kMiB, kLarge = 64 * kMiB;
  add_shape("verifier/small/minimal", s::minimal(), kSmall);
  add_shape("verifier/small/arithmetic", s::arithmetic(), kSmall);
  for (uint32_t n : {10u, 50u, 100u, 500u, 1000u, 4096u, 16384u, 65536u}) {
    add_shape("verifier/scaling/instructions/" + std::to_string(n), s::straight_line(n),
              n <= 1000 ? kSmall : kLarge);
  }
  add_shape("verifier/control_flow/linear", s::linear(), kSmall);
  add_shape("verifier/control_flow/single_branch", s::single_branch(), kSmall);
  add_shape("verifier/control_flow/multi_branch", s::multi_branch(), kSmall);
  for (uint32_t n : {1u, 10u, 100u, 1000u, 10000u}) {
    add_shape("verifier/scaling/diamonds/" + std::to_string(n), s::diamonds(n), kLarge);
  }
  for (uint32_t depth : {1u, 2u, 4u, 8u, 12u}) {
    add_shape("verifier/scaling/nested_diamonds/" + std::to_string(depth), s::nested_diamonds(depth),
              kLarge);
  }
  for (int32_t trip : {10, 100, 1000, 10000}) {
    add_shape("verifier/scaling/bounded_loop/" + std::to_string(trip), s::bounded_loop(trip), kSmall);
  }
  for (uint32_t depth : {2u, 3u}) {
    add_shape("verifier/scaling/nested_loops/" + std::to_string(depth), s::nested_loops(depth, 10),
              kSmall);
  }
  add_shape("verifier/realistic/map_lookup", s::map_lookup(), kSmall);
  add_shape("verifier/realistic/packet_parse", s::packet_parse(), kSmall);
  add_shape("verifier/realistic/stack_spills", s::stack_spills(), kSmall);
  add_shape("verifier/realistic/packet_parse_vlan", s::packet_parse_vlan(), kSmall);
}

// ---- The ebpf-samples corpus ------------------------------------------------

#ifndef KEEL_CORPUS_DIR
#define KEEL_CORPUS_DIR ""
#endif

std::string elf_error_text(const keel::ElfResult& result) {
  char buffer[256];
  keel::describe(result, buffer, sizeof(buffer));
  return buffer;
}

// verifier/corpus/<project>/<object>/<section>/<function> for every program
// programs.jsonl lists, in its order; <object> is the file name without .o.
void add_corpus() {
  const fs::path dir = fs::path(KEEL_CORPUS_DIR) / "ebpf-samples";
  std::ifstream list(dir / "programs.jsonl");
  if (!list) {
    std::fprintf(stderr, "bench_verifier: no corpus at %s; verifier/corpus/* not registered\n",
                 dir.string().c_str());
    return;
  }
  struct Wanted {
    std::string section, function;
  };
  std::vector<std::pair<std::string, std::vector<Wanted>>> objects;  // in list order
  std::string line;
  while (std::getline(list, line)) {
    const std::string object = keel::corpus::json_field(line, "object");
    if (object.empty()) continue;
    if (objects.empty() || objects.back().first != object) objects.push_back({object, {}});
    objects.back().second.push_back(
        {keel::corpus::json_field(line, "section"), keel::corpus::json_field(line, "function")});
  }

  keel::LoadOptions options;
  options.partial = true;
  options.text_programs = keel::TextPrograms::always;
  options.section_type = keel::corpus::section_type;
  const std::vector<keel::corpus::TypeRule> rules = keel::corpus::read_type_rules(KEEL_CORPUS_TYPES);
  for (const auto& [object, wanted] : objects) {
    options.section_type_context = keel::corpus::rule_for(rules, object);
    std::ifstream in(dir / object, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::vector<uint8_t> memory(bytes.size() * 64 + kMiB);
    keel::Arena arena(memory.data(), memory.size());
    keel::Object loaded;
    const keel::ElfResult result = keel::load_object(bytes.data(), bytes.size(), options, arena, loaded);

    fs::path path(object);
    const std::string project = path.begin()->string();
    const std::string stem = (path.parent_path().lexically_relative(project) / path.stem()).generic_string();
    const std::string base = "verifier/corpus/" + project + "/" +
                             (stem.rfind("./", 0) == 0 ? stem.substr(2) : stem) + "/";
    for (const Wanted& w : wanted) {
      Case c;
      c.name = base + w.section + "/" + w.function;
      c.arena_size = 64 * kMiB;
      const keel::ElfProgram* found = nullptr;
      for (uint32_t i = 0; result.ok() && i < loaded.program_count; ++i) {
        const keel::ElfProgram& p = loaded.programs[i];
        if (w.section == p.section && w.function == p.name) found = &p;
      }
      if (!result.ok()) {
        c.error = "load: " + elf_error_text(result);
      } else if (found == nullptr) {
        c.error = "load: no such program in the object";
      } else if (!found->status.ok()) {
        c.error = "load: " + elf_error_text(found->status);
      } else if (found->type_name == nullptr) {
        c.error = "load: no program type for section " + w.section;
      } else if ((c.type = linux_type(found->type_name)) == nullptr) {
        c.error = std::string("program type ") + found->type_name + " is not in keel::linux_platform()";
      } else {
        c.bytes.assign(found->insns, found->insns + size_t{found->slots} * 8);
        c.maps.assign(loaded.maps, loaded.maps + loaded.map_count);
      }
      cases().push_back(std::move(c));
    }
  }
}

// verifier/corpus_all: what `keel verify` does for the whole corpus, in one
// process: every object loaded (ELF, BTF, relocations, linking) and every
// program it yields decoded and verified, as one iteration. Rejections are
// timed too: they are part of the cost of a corpus run.
struct CorpusObject {
  std::string name;
  std::vector<uint8_t> bytes;
  const keel::corpus::TypeRule* rule = nullptr;
};

void run_corpus_all(benchmark::State& state, const std::vector<CorpusObject>& objects) {
  std::vector<uint8_t> load_memory;
  size_t programs = 0, accepted = 0;
  auto once = [&] {
    programs = accepted = 0;
    for (const CorpusObject& object : objects) {
      keel::LoadOptions options;
      options.partial = true;
      options.section_type = keel::corpus::section_type;
      options.section_type_context = object.rule;
      keel::Arena load_arena(load_memory.data(), load_memory.size());
      keel::Object loaded;
      if (!keel::load_object(object.bytes.data(), object.bytes.size(), options, load_arena, loaded).ok()) continue;
      for (uint32_t i = 0; i < loaded.program_count; ++i) {
        const keel::ElfProgram& p = loaded.programs[i];
        const keel::ProgramType* type = p.status.ok() && p.type_name != nullptr ? linux_type(p.type_name) : nullptr;
        if (type == nullptr) continue;
        ++programs;
        keel::Arena arena(g_arena_memory, 64 * kMiB);
        keel::Program program;
        if (!keel::decode(p.insns, size_t{p.slots} * 8, keel::DecodeOptions{}, arena, program).ok()) continue;
        keel::VerifyOptions verify;
        verify.maps = loaded.maps;
        verify.map_count = loaded.map_count;
        // As `keel verify OBJ.o` checks objects (cmd_verify.cc): Linux 6.1's
        // rules, privileged, unwritten stack reads as unknown values.
        verify.linux_rules = true;
        verify.allow_uninit_stack_reads = true;
        accepted += keel::verify(program, *type, verify, arena).ok();
      }
    }
  };
  size_t largest = 0;
  for (const CorpusObject& object : objects) largest = std::max(largest, object.bytes.size());
  load_memory.assign(largest * 64 + kMiB, 0);
  for (auto _ : state) {
    once();
    benchmark::ClobberMemory();
  }
  state.counters["objects"] = static_cast<double>(objects.size());
  state.counters["programs"] = static_cast<double>(programs);
  state.counters["accepted"] = static_cast<double>(accepted);
}

void add_corpus_all() {
  static std::vector<CorpusObject> objects;
  static std::vector<keel::corpus::TypeRule> rules;
  const fs::path dir = fs::path(KEEL_CORPUS_DIR) / "ebpf-samples";
  if (!fs::exists(dir / "programs.jsonl")) return;  // add_corpus() has said so
  rules = keel::corpus::read_type_rules(KEEL_CORPUS_TYPES);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".o") continue;
    CorpusObject object;
    object.name = fs::relative(entry.path(), dir).generic_string();
    std::ifstream in(entry.path(), std::ios::binary);
    object.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    objects.push_back(std::move(object));
  }
  std::sort(objects.begin(), objects.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (CorpusObject& object : objects) object.rule = keel::corpus::rule_for(rules, object.name);
  benchmark::RegisterBenchmark("verifier/corpus_all", [](benchmark::State& state) { run_corpus_all(state, objects); })
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  add_synthetic();
  add_corpus();
  size_t largest = 0;
  for (const Case& c : cases()) largest = std::max(largest, c.arena_size);
  static std::vector<uint8_t> memory;
  memory.assign(largest, 0);  // touch every page once, before any timing
  g_arena_memory = memory.data();
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(c.name.c_str(), [&c](benchmark::State& state) { run_case(state, c); });
  }
  add_corpus_all();

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
