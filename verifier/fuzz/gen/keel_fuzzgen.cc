// keel-fuzzgen: generates programs (program_generator.h), verifies each and
// runs every accepted one through the guarded-run oracle (oracle.h).
//
//   keel-fuzzgen --seed S --count N [--jobs J] [--inputs K] [--out DIR]
//                [--seconds T] [--progress P] [--emit DIR --emit-every E]
//   keel-fuzzgen --seed S --index I     (one program: listing, verdict, finding)
//   keel-fuzzgen --choices FILE         (the same for a fuzz_structured input)
//
// Program i of seed S is the same on every run and with any --jobs. Prints
// executions, accepted / rejected counts, findings and the rate; writes each
// finding as a reproducer (DIR/finding-S-I.{bin,s,txt}, the .txt holding the
// `keel verify` command and what the oracle saw). Exit status 1 when there
// were findings, 2 on a usage error.
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "keel/platform_linux.h"
#include "keel/text.h"
#include "keel/verify.h"
#include "oracle.h"
#include "program_generator.h"

namespace {

using keel::fuzzgen::Choices;
using keel::fuzzgen::FindingKind;
using keel::fuzzgen::GeneratedProgram;
using keel::fuzzgen::Judgement;

constexpr uint32_t kReasons = static_cast<uint32_t>(keel::Reason::out_of_memory) + 1;
constexpr uint32_t kKinds = static_cast<uint32_t>(FindingKind::other_status) + 1;

struct Options {
  uint64_t seed = 1;
  uint64_t count = 10000;
  uint32_t jobs = 1;
  uint32_t inputs = 4;
  std::string out = "fuzzgen-findings";
  double seconds = 0;       // 0: no time limit
  double progress = 0;      // 0: no progress lines
  std::string emit;         // "": no sample
  uint64_t emit_every = 1000;
  bool show = false;
  uint64_t index = 0;
  std::string choices;      // --choices FILE: one program from these bytes, as fuzz_structured reads them
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "keel-fuzzgen: %s\n"
               "usage: keel-fuzzgen --seed S --count N [--jobs J] [--inputs K] [--out DIR] [--seconds T]\n"
               "                    [--progress P] [--emit DIR --emit-every E]\n"
               "       keel-fuzzgen --seed S --index I\n"
               "       keel-fuzzgen --choices FILE\n",
               problem.c_str());
  std::exit(2);
}

uint64_t parse_number(const std::string& flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 0);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') usage(flag + " wants a number, got '" + text + "'");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(flag == "--help" ? "help" : "missing value after " + flag);
    const char* value = argv[++i];
    if (flag == "--seed") o.seed = parse_number(flag, value);
    else if (flag == "--count") o.count = parse_number(flag, value);
    else if (flag == "--jobs") o.jobs = static_cast<uint32_t>(parse_number(flag, value));
    else if (flag == "--inputs") o.inputs = static_cast<uint32_t>(parse_number(flag, value));
    else if (flag == "--out") o.out = value;
    else if (flag == "--seconds") o.seconds = static_cast<double>(parse_number(flag, value));
    else if (flag == "--progress") o.progress = static_cast<double>(parse_number(flag, value));
    else if (flag == "--emit") o.emit = value;
    else if (flag == "--emit-every") o.emit_every = parse_number(flag, value);
    else if (flag == "--choices") {
      o.show = true;
      o.choices = value;
    } else if (flag == "--index") {
      o.show = true;
      o.index = parse_number(flag, value);
    } else usage("unknown option " + flag);
  }
  if (o.jobs == 0 || o.jobs > 256) usage("--jobs wants 1..256");
  if (o.inputs == 0 || o.inputs > 1000) usage("--inputs wants 1..1000");
  if (o.emit_every == 0) usage("--emit-every wants at least 1");
  return o;
}

// The generator's and the oracle's seeds for program `index`.
uint64_t program_seed(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + index;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string listing(const std::vector<uint8_t>& bytes) {
  std::string text;
  const size_t slots = bytes.size() / 8;
  char line[keel::kDisassemblyLineMax];
  for (size_t i = 0; i < slots;) {
    const size_t used = keel::disassemble_one(bytes.data(), slots, i, line, sizeof line);
    text += line;
    text += '\n';
    i += used == 0 ? 1 : used;
  }
  return text;
}

std::string verify_command(const std::string& file, const GeneratedProgram& p) {
  std::string command = "keel verify " + file + " --type " + p.type;
  for (uint32_t m = 0; m < keel::fuzzgen::kMapCount; ++m) {
    const keel::MapDescriptor& map = keel::fuzzgen::kMaps[m];
    command += " --map m" + std::to_string(m) + (map.type == keel::MapType::array ? ":array:" : ":hash:") +
               std::to_string(map.key_size) + ":" + std::to_string(map.value_size) + ":" + std::to_string(map.max_entries);
  }
  if (!p.privileged) command += " --unprivileged";
  return command;
}

void write_file(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

struct Generated {
  GeneratedProgram program;
  Judgement judgement;
};

Generated make_and_judge(const Options& o, uint64_t index, const std::vector<uint8_t>* bytes = nullptr) {
  const uint64_t s = program_seed(o.seed, index);
  Choices choices = bytes != nullptr ? Choices(bytes->data(), bytes->size()) : Choices(s);
  Generated g;
  g.program = keel::fuzzgen::generate(choices);
  const keel::ProgramType* type = keel::find_program_type(keel::linux_platform(), g.program.type);
  g.judgement = keel::fuzzgen::judge(g.program.bytes.data(), g.program.bytes.size(), *type,
                                     keel::fuzzgen::verify_options(g.program.privileged), s, o.inputs);
  return g;
}

std::string describe_verdict(const keel::Verdict& v) {
  char text[512];
  keel::describe(v, text, sizeof text);
  if (v.ok()) return "PASS max_insns=" + std::to_string(v.max_insns_executed) + " stack=" + std::to_string(v.stack_depth);
  return std::string("FAIL ") + keel::reason_name(v.reason) + ": " + text;
}

// Writes finding-S-I.{bin,s,txt} into o.out; returns the .txt's path.
std::string write_reproducer(const Options& o, uint64_t index, const Generated& g) {
  mkdir(o.out.c_str(), 0755);
  const std::string stem = o.out + "/finding-" + std::to_string(o.seed) + "-" + std::to_string(index);
  write_file(stem + ".bin", g.program.bytes.data(), g.program.bytes.size());
  const std::string s = listing(g.program.bytes);
  write_file(stem + ".s", s.data(), s.size());
  const keel::fuzzgen::Finding& f = g.judgement.finding;
  std::string txt = std::string("finding: ") + keel::fuzzgen::finding_kind_name(f.kind) + " at pc " +
                    std::to_string(f.pc) + ": " + f.message + "\n" + "verdict: " + describe_verdict(g.judgement.verdict) +
                    "\n" + "reproduce: " + verify_command(stem + ".bin", g.program) + "\n" +
                    "note: the oracle verifies with VerifyOptions defaults (allow_uninit_stack_reads = false); "
                    "keel verify, like privileged Linux, allows unwritten stack reads unless --unprivileged\n" +
                    "regenerate: keel-fuzzgen --seed " + std::to_string(o.seed) + " --index " + std::to_string(index) +
                    " --inputs " + std::to_string(o.inputs) + "\n";
  write_file(stem + ".txt", txt.data(), txt.size());
  return stem + ".txt";
}

int show(const Options& o) {
  std::vector<uint8_t> bytes;
  if (!o.choices.empty()) {
    std::ifstream in(o.choices, std::ios::binary);
    if (!in) usage("cannot read " + o.choices);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto start = std::chrono::steady_clock::now();
  const Generated g = make_and_judge(o, o.index, o.choices.empty() ? nullptr : &bytes);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("; program %" PRIu64 " of seed %" PRIu64 ": %s, %s\n", o.index, o.seed, g.program.type,
              g.program.privileged ? "privileged" : "unprivileged");
  std::printf("%s", listing(g.program.bytes).c_str());
  std::printf("; verdict: %s (verified and judged in %.1f ms)\n", describe_verdict(g.judgement.verdict).c_str(), ms);
  std::printf("; %s\n", verify_command("PROGRAM.bin", g.program).c_str());
  if (!g.judgement.finding.found()) {
    std::printf("; no finding in %u guarded runs\n", g.judgement.runs);
    return 0;
  }
  std::printf("; FINDING %s at pc %u: %s\n", keel::fuzzgen::finding_kind_name(g.judgement.finding.kind),
              g.judgement.finding.pc, g.judgement.finding.message.c_str());
  return 1;
}

struct Totals {
  std::atomic<uint64_t> executions{0}, decoded{0}, accepted{0}, runs{0}, findings{0};
  std::atomic<uint64_t> privileged{0}, privileged_accepted{0}, hardened{0};
  std::atomic<uint64_t> reasons[kReasons] = {};
  std::atomic<uint64_t> kinds[kKinds] = {};
};

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.show) return show(o);
  if (!o.emit.empty()) mkdir(o.emit.c_str(), 0755);

  Totals totals;
  std::mutex report_lock;
  std::atomic<bool> stop{false};
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  auto work = [&](uint32_t job) {
    for (uint64_t i = job; i < o.count && !stop.load(std::memory_order_relaxed); i += o.jobs) {
      const Generated g = make_and_judge(o, i);
      totals.executions.fetch_add(1, std::memory_order_relaxed);
      if (g.program.privileged) totals.privileged.fetch_add(1, std::memory_order_relaxed);
      if (g.judgement.decoded) totals.decoded.fetch_add(1, std::memory_order_relaxed);
      totals.reasons[static_cast<uint32_t>(g.judgement.verdict.reason)].fetch_add(1, std::memory_order_relaxed);
      totals.runs.fetch_add(g.judgement.runs, std::memory_order_relaxed);
      if (g.judgement.decoded && g.judgement.verdict.ok()) {
        totals.accepted.fetch_add(1, std::memory_order_relaxed);
        if (g.program.privileged) totals.privileged_accepted.fetch_add(1, std::memory_order_relaxed);
        if (g.judgement.verdict.spec_guards != 0) totals.hardened.fetch_add(1, std::memory_order_relaxed);
      }
      if (!o.emit.empty() && i % o.emit_every == 0) {
        const std::string stem = o.emit + "/gen-" + std::to_string(o.seed) + "-" + std::to_string(i);
        write_file(stem + ".bin", g.program.bytes.data(), g.program.bytes.size());
        const std::string args = std::string("--type ") + g.program.type + (g.program.privileged ? "" : " --unprivileged") +
                                 "\n" + (g.judgement.verdict.ok() ? "keel=accept\n" : "keel=reject\n");
        write_file(stem + ".args", args.data(), args.size());
      }
      if (g.judgement.finding.found()) {
        totals.findings.fetch_add(1, std::memory_order_relaxed);
        totals.kinds[static_cast<uint32_t>(g.judgement.finding.kind)].fetch_add(1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(report_lock);
        const std::string path = write_reproducer(o, i, g);
        std::fprintf(stderr, "finding %s (program %" PRIu64 "): %s -> %s\n",
                     keel::fuzzgen::finding_kind_name(g.judgement.finding.kind), i, g.judgement.finding.message.c_str(),
                     path.c_str());
      }
      if (o.seconds > 0 && (i / o.jobs) % 256 == 0 && elapsed() >= o.seconds) stop = true;
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t j = 1; j < o.jobs; ++j) threads.emplace_back(work, j);
  std::thread monitor;
  std::atomic<bool> done{false};
  if (o.progress > 0) {
    monitor = std::thread([&] {
      double next = o.progress;
      while (!done) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (elapsed() < next) continue;
        next += o.progress;
        const uint64_t n = totals.executions;
        std::fprintf(stderr, "progress: %.0f s, %" PRIu64 " executions, %" PRIu64 " accepted, %" PRIu64 " findings, %.0f/s\n",
                     elapsed(), n, totals.accepted.load(), totals.findings.load(), static_cast<double>(n) / elapsed());
      }
    });
  }
  work(0);
  for (std::thread& t : threads) t.join();
  done = true;
  if (monitor.joinable()) monitor.join();

  const double seconds = elapsed();
  const uint64_t n = totals.executions, accepted = totals.accepted;
  std::printf("seed %" PRIu64 ", jobs %u, inputs %u per accepted program%s\n", o.seed, o.jobs, o.inputs,
              stop ? " (stopped by --seconds)" : "");
  std::printf("executions %" PRIu64 " (privileged %" PRIu64 ", unprivileged %" PRIu64 ")\n", n,
              totals.privileged.load(), n - totals.privileged.load());
  std::printf("accepted %" PRIu64 " (privileged %" PRIu64 ", unprivileged %" PRIu64 "), rejected %" PRIu64 ", undecodable %" PRIu64 "\n",
              accepted, totals.privileged_accepted.load(), accepted - totals.privileged_accepted.load(),
              totals.decoded.load() - accepted, n - totals.decoded.load());
  std::printf("guarded runs %" PRIu64 ", accepted unprivileged programs with speculation hardening %" PRIu64 "\n",
              totals.runs.load(), totals.hardened.load());
  std::printf("findings %" PRIu64, totals.findings.load());
  for (uint32_t k = 1; k < kKinds; ++k) {
    if (totals.kinds[k] != 0)
      std::printf(" %s=%" PRIu64, keel::fuzzgen::finding_kind_name(static_cast<FindingKind>(k)), totals.kinds[k].load());
  }
  std::printf("\nelapsed %.1f s, rate %.0f programs/s\n", seconds, seconds > 0 ? static_cast<double>(n) / seconds : 0.0);
  std::printf("rejections by reason:");
  for (uint32_t r = 1; r < kReasons; ++r) {
    if (totals.reasons[r] != 0)
      std::printf(" %s=%" PRIu64, keel::reason_name(static_cast<keel::Reason>(r)), totals.reasons[r].load());
  }
  std::printf("\n");
  return totals.findings != 0 ? 1 : 0;
}
