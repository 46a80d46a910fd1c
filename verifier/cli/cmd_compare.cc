// keel compare FILE... [--type T] [--map ...] [--section S] [--function F]
//              [--runs N] [--strict-alignment] [--linux-log] [--btf FILE | --no-btf] [--json]
// Verifies each program with keel and with the running kernel's verifier
// (linux_loader.h) and prints both verdicts and both verification times,
// as a table or one JSON object. Disagreement is data, not an error: the
// exit status is keel's, as for `keel verify` (0 every program accepted,
// 1 one rejected, 2 one could not be checked), also when bpf(2) is refused
// (then only keel's side is shown, under one line that says so). A program
// that cannot reach one side's verifier is n/a there, with the reason, and
// is counted as not compared.
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "commands.h"
#include "json_out.h"
#include "keel/platform_linux.h"
#include "kernel_btf.h"
#include "linux_loader.h"
#include "object_file.h"
#include "program.h"
#include "program_options.h"
#include "verification.h"

namespace keel::cli {

namespace {

struct Options {
  std::vector<std::string> inputs;
  std::string type_name;
  std::string section;
  std::string function;
  std::vector<std::string> map_texts;
  std::vector<NamedMap> maps;  // map_texts, parsed
  uint32_t runs = 5;
  bool strict_alignment = false;
  bool linux_log = false;
  bool json = false;
  std::string btf_path;  // --btf
  bool no_btf = false;   // --no-btf
  KernelBtfBytes btf;    // CO-RE relocations of objects are applied against it (kernel_btf.h)
};

// One program to compare, as both sides need it. `insns` and `maps` point
// into the file being read: valid only while compare() runs for it.
struct Subject {
  std::string file;
  std::string section;   // ELF only
  std::string function;  // ELF only
  std::string label;
  std::string type;  // "" when unknown
  const uint8_t* insns = nullptr;
  size_t slots = 0;
  uint32_t insn_count = 0;
  const MapDescriptor* maps = nullptr;
  uint32_t map_count = 0;
  std::vector<LinuxMap> linux_maps;  // raw programs, and objects libbpf cannot open
  std::string license = "GPL";
  const ElfProgram* program = nullptr;   // ELF only: its poisoned CO-RE relocations
  std::shared_ptr<const Bytes> object;  // ELF only: the whole object, for libbpf
  std::string type_override;            // ELF only: --type
  std::string not_loaded;  // keel's ELF loader could not prepare the program: neither side runs
  const char* unchecked = "error";  // with not_loaded: "error" or "unsupported" (load_error_verdict)
};

enum class Side : uint8_t { accept, reject, none };

const char* side_name(Side side) {
  switch (side) {
    case Side::accept:
      return "accept";
    case Side::reject:
      return "reject";
    case Side::none:
      break;
  }
  return "n/a";
}

struct Row {
  Subject subject;
  Side keel_side = Side::none;
  std::string keel_reason;
  int64_t keel_pc = -1;
  std::string keel_message;  // the rejection, or why keel did not run
  const char* keel_unchecked = "error";  // keel did not run: "error" or "unsupported"
  uint64_t keel_ns = 0;      // median of the runs
  Side linux_side = Side::none;
  LinuxResult linux_result;
  std::string linux_loader;   // what loaded it: "libbpf", "keel" (raw), "keel, without BTF (why)"
  std::string linux_message;  // the rejection, or why Linux did not run ("" after a refused bpf(2))

  bool compared() const { return keel_side != Side::none && linux_side != Side::none; }
  // Linux's time over keel's: above 1, keel verified faster.
  bool has_ratio() const { return compared() && linux_result.verification_us > 0 && keel_ns > 0; }
  double ratio() const {
    return static_cast<double>(linux_result.verification_us) * 1000.0 / static_cast<double>(keel_ns);
  }
};

std::string kernel_release() {
  utsname name{};
  if (uname(&name) != 0) return "unknown";
  return std::string(name.sysname) + " " + name.release;
}

std::string file_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void run_keel(const Options& options, Row& row) {
  const Subject& subject = row.subject;
  if (!subject.not_loaded.empty()) {
    row.keel_message = subject.not_loaded;
    row.keel_unchecked = subject.unchecked;
    return;
  }
  const ProgramType* type = find_program_type(linux_platform(), subject.type.c_str());
  if (type == nullptr) {
    row.keel_unchecked = "unsupported";
    row.keel_message = subject.type.empty() ? "no program type for the section (use --type)"
                                            : "program type '" + subject.type + "' is not one keel models";
    return;
  }
  CheckOptions check_options;
  // As `keel verify` does: Linux 6.1's rules, privileged (compare loads
  // into Linux as root), unwritten stack reads yield unknown values.
  check_options.verify.linux_rules = true;
  check_options.verify.allow_uninit_stack_reads = check_options.verify.privileged;
  check_options.verify.strict_alignment = options.strict_alignment;
  check_options.verify.maps = subject.maps;
  check_options.verify.map_count = subject.map_count;
  std::vector<uint64_t> times;
  Check check;
  // Run 0 warms caches and the allocator up and is not counted, as on the
  // kernel's side.
  for (uint32_t run = 0; run <= options.runs; ++run) {
    check = check_program(subject.insns, subject.slots * 8, *type, check_options);
    if (run > 0) times.push_back(check.verify_ns);
  }
  std::sort(times.begin(), times.end());
  row.keel_ns = times[times.size() / 2];
  row.keel_side = check.accepted() ? Side::accept : Side::reject;
  if (!check.accepted()) {
    row.keel_reason = check.reason;
    row.keel_pc = check.pc();
    row.keel_message = check.message;
    const std::string poisoned =
        subject.program != nullptr ? core_failure_at(*subject.program, check.pc()) : std::string();
    if (!poisoned.empty()) row.keel_message += " (" + poisoned + ")";
  }
}

// What one `keel compare` run carries from program to program.
struct Comparison {
  Options options;
  std::string denied;  // set (and Linux no longer tried) once bpf(2) is refused
  std::vector<Row> rows;
  size_t file_index = 0;
  bool progress = false;  // a progress line on stderr, a terminal
};

LoadSettings load_settings(const Options& options) {
  LoadSettings settings;
  settings.strict_alignment = options.strict_alignment;
  settings.full_log = options.linux_log;
  settings.runs = options.runs;
  settings.warm_up = true;
  settings.btf_path = options.btf.path;
  return settings;
}

// keel's relocated copy of the program, with maps made from keel's
// reading of the object (or the --map options): no BTF.
LinuxResult load_without_btf(const Options& options, const Subject& subject, std::string& problem) {
  RawRequest request;
  problem = linux_program_type(subject.type, subject.section, request.type);
  if (!problem.empty()) return LinuxResult{};
  request.insns = subject.insns;
  request.slots = subject.slots;
  request.maps = subject.linux_maps.data();
  request.map_count = subject.linux_maps.size();
  request.license = subject.license;
  return load_raw_in_linux(request, load_settings(options));
}

void run_linux(Comparison& run, Row& row) {
  const Subject& subject = row.subject;
  if (!run.denied.empty()) return;
  if (subject.object == nullptr && !subject.not_loaded.empty()) {
    row.linux_message = "not loaded: keel's ELF loader could not read the object";
    return;
  }
  if (subject.object != nullptr) {
    // The object as libbpf loads it: BTF, func_info, line_info, its maps.
    ObjectRequest request;
    request.bytes = subject.object->data();
    request.size = subject.object->size();
    request.name = file_name(subject.file);
    request.section = subject.section;
    request.function = subject.function;
    request.type = subject.type_override;
    request.fallback_type = subject.type;
    row.linux_result = load_object_in_linux(request, load_settings(run.options));
    row.linux_loader = "libbpf";
    if (row.linux_result.libbpf_cannot_prepare && subject.not_loaded.empty()) {
      // libbpf 1.x refuses some objects whole (legacy SEC("maps")
      // definitions, ...): keel's relocated copy, without BTF, is the
      // closest the kernel can get.
      std::string problem;
      const std::string why = row.linux_result.message;
      row.linux_result = load_without_btf(run.options, subject, problem);
      row.linux_loader = "keel, without BTF (" + why + ")";
      if (!problem.empty()) {
        row.linux_message = problem;
        return;
      }
    }
  } else {
    std::string problem;
    row.linux_result = load_without_btf(run.options, subject, problem);
    row.linux_loader = "keel";
    if (!problem.empty()) {
      row.linux_message = subject.type.empty() ? "no program type for the section (use --type)" : problem;
      return;
    }
  }
  switch (row.linux_result.outcome) {
    case LinuxOutcome::accepted:
      row.linux_side = Side::accept;
      break;
    case LinuxOutcome::rejected:
      row.linux_side = Side::reject;
      row.linux_message = row.linux_result.message;
      break;
    case LinuxOutcome::unavailable:
      row.linux_message = row.linux_result.message;
      break;
    case LinuxOutcome::not_permitted:
      run.denied = row.linux_result.message;
      break;
  }
}

Subject raw_subject(const std::string& path, const Bytes& bytes, const Options& options,
                    const std::vector<MapDescriptor>& maps) {
  Subject subject;
  subject.file = path;
  subject.label = file_name(path);
  subject.type = options.type_name;
  subject.insns = bytes.data();
  subject.slots = bytes.size() / 8;
  subject.insn_count = static_cast<uint32_t>(subject.slots);
  subject.maps = maps.data();
  subject.map_count = static_cast<uint32_t>(maps.size());
  for (const NamedMap& named : options.maps)
    subject.linux_maps.push_back(linux_map(named.kind, named.type_name, named.map));
  return subject;
}

Subject object_subject(const std::string& path, const std::shared_ptr<const Bytes>& bytes, const Options& options,
                       const LoadedObject& loaded, const ElfProgram& program) {
  Subject subject;
  const Object& object = loaded.object();
  subject.file = path;
  subject.object = bytes;
  subject.type_override = options.type_name;
  subject.section = program.section != nullptr ? program.section : "";
  subject.function = program.name != nullptr ? program.name : "";
  subject.label = file_name(path) + ":" + program_label(program);
  subject.type = program.type_name != nullptr ? program.type_name : "";
  subject.program = &program;
  subject.insns = program.insns;
  subject.slots = program.slots;
  subject.insn_count = program.instruction_count;
  subject.maps = object.maps;
  subject.map_count = object.map_count;
  for (uint32_t i = 0; i < object.map_count; ++i)
    subject.linux_maps.push_back(linux_map(object.maps[i], object.map_info[i]));
  if (object.license != nullptr) subject.license = object.license;
  if (!program.status.ok()) {
    subject.not_loaded = "load: " + elf_message(program.status);
    subject.unchecked = load_error_verdict(program.status.error);
  }
  return subject;
}

void compare(Comparison& run, Subject subject) {
  if (run.progress) {
    std::fprintf(stderr, "\r\033[Kcompare: file %zu/%zu, program %zu: %s", run.file_index + 1,
                 run.options.inputs.size(), run.rows.size() + 1, subject.label.c_str());
    std::fflush(stderr);
  }
  Row row;
  row.subject = std::move(subject);
  // Linux first: the verdict a user porting a program asks about, and a
  // refused bpf(2) is known before keel's side is printed.
  run_linux(run, row);
  run_keel(run.options, row);
  run.rows.push_back(std::move(row));
}

void compare_file(Comparison& run, const std::string& path) {
  const Options& options = run.options;
  Bytes bytes = read_file(path);
  if (is_elf(bytes)) {
    if (!options.maps.empty()) usage_error("compare", "--map is for raw programs: an object's maps come from the object");
    const auto object = std::make_shared<const Bytes>(bytes);
    const LoadedObject loaded(std::move(bytes), options.type_name, "", &options.btf.bytes);
    if (!loaded.result().ok()) {
      Subject subject;
      subject.file = path;
      subject.label = file_name(path);
      subject.not_loaded = "load: " + elf_message(loaded.result());
      subject.unchecked = load_error_verdict(loaded.result().error);
      compare(run, std::move(subject));
      return;
    }
    for (const ElfProgram* program : loaded.select("compare", options.section, options.function))
      compare(run, object_subject(path, object, options, loaded, *program));
    return;
  }
  if (!options.section.empty() || !options.function.empty())
    usage_error("compare", path + ": --section and --function select programs of an ELF object");
  if (options.type_name.empty())
    usage_error("compare", path + ": missing --type T (one of: " + program_type_names() + ")");
  if (keel_program_type(options.type_name) == nullptr)
    usage_error("compare", path + ": unknown program type '" + options.type_name + "' (one of: " +
                               program_type_names() + ")");
  const Bytes program = program_from_bytes(path, std::move(bytes));
  std::vector<MapDescriptor> maps;
  for (const NamedMap& named : options.maps) maps.push_back(named.map);
  compare(run, raw_subject(path, program, options, maps));
}

std::string microseconds(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(ns) / 1000.0);
  return text;
}

std::string agreement(const Row& row) {
  if (!row.compared()) return "-";
  return row.keel_side == row.linux_side ? "yes" : "NO";
}

void print_indented(const std::string& text) {
  std::stringstream stream(text);
  for (std::string line; std::getline(stream, line);) std::printf("      %s\n", line.c_str());
}

struct Totals {
  uint32_t agree = 0, disagree = 0, uncompared = 0;
  int64_t linux_us = 0;  // over the agreeing programs with a ratio
  uint64_t keel_ns = 0;
};

Totals totals_of(const std::vector<Row>& rows) {
  Totals totals;
  for (const Row& row : rows) {
    if (!row.compared()) {
      ++totals.uncompared;
    } else if (row.keel_side == row.linux_side) {
      ++totals.agree;
    } else {
      ++totals.disagree;
    }
    // Only where both verdicts agree: a program one side gives up on
    // early (or hits a complexity limit on) would skew the sum.
    if (row.has_ratio() && row.keel_side == row.linux_side) {
      totals.linux_us += row.linux_result.verification_us;
      totals.keel_ns += row.keel_ns;
    }
  }
  return totals;
}

// The reasons rows were not compared, with their counts, most frequent
// first: the side that could not give a verdict and why (a libbpf or
// kernel reason, or keel's "error" / "unsupported").
std::vector<std::pair<size_t, std::string>> uncompared_reasons(const std::vector<Row>& rows) {
  std::map<std::string, size_t> counts;
  for (const Row& row : rows) {
    if (row.compared()) continue;
    // keel's side first: a program keel could not check is exit status 2.
    const std::string reason =
        row.keel_side == Side::none
            ? std::string("keel ") + row.keel_unchecked
            : "linux n/a: " + (row.linux_message.empty() ? std::string("not loaded") : row.linux_message);
    ++counts[reason];
  }
  std::vector<std::pair<size_t, std::string>> sorted;
  for (const auto& [reason, count] : counts) sorted.emplace_back(count, reason);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return sorted;
}

void print_table(const std::vector<Row>& rows, const Options& options, const std::string& denied) {
  std::printf(
      "kernel: %s; times: median of %u runs after a warm-up (linux: the log's verification time, keel: decode + "
      "verify, allocating their arenas included)\n",
      kernel_release().c_str(), options.runs);
  if (!denied.empty()) std::printf("linux: %s; keel's verdicts follow\n", denied.c_str());
  std::printf("kernel BTF for CO-RE: %s\n", options.btf.given() ? options.btf.path.c_str() : "none");
  size_t width = 7;
  for (const Row& row : rows) width = std::max(width, row.subject.label.size());
  const int w = static_cast<int>(width);
  std::printf("%-*s  %-15s %-7s %-11s %-5s %10s %10s %8s\n", w, "PROGRAM", "TYPE", "LINUX", "KEEL", "AGREE", "LINUX_US",
              "KEEL_US", "RATIO");
  for (const Row& row : rows) {
    const std::string linux_us = row.linux_side != Side::none && row.linux_result.verification_us >= 0
                                     ? std::to_string(row.linux_result.verification_us)
                                     : "-";
    const std::string keel_us = row.keel_side != Side::none ? microseconds(row.keel_ns) : "-";
    char ratio[32] = "-";
    if (row.has_ratio()) std::snprintf(ratio, sizeof ratio, "%.1fx", row.ratio());
    std::printf("%-*s  %-15s %-7s %-11s %-5s %10s %10s %8s\n", w, row.subject.label.c_str(),
                row.subject.type.empty() ? "?" : row.subject.type.c_str(), side_name(row.linux_side),
                row.keel_side == Side::none ? row.keel_unchecked : side_name(row.keel_side),
                agreement(row).c_str(), linux_us.c_str(), keel_us.c_str(), ratio);
    if (!row.linux_message.empty()) std::printf("    linux: %s\n", row.linux_message.c_str());
    if (!row.keel_message.empty()) std::printf("    keel: %s\n", row.keel_message.c_str());
    if (options.linux_log && !row.linux_result.log_text.empty()) {
      std::printf("    linux log:\n");
      print_indented(row.linux_result.log_text);
    }
  }
  const Totals totals = totals_of(rows);
  std::printf("%zu programs: %u agree, %u disagree, %u not compared", rows.size(), totals.agree, totals.disagree,
              totals.uncompared);
  if (totals.keel_ns > 0)
    std::printf("; where they agree: linux %lld us, keel %s us (%.1fx)", static_cast<long long>(totals.linux_us),
                microseconds(totals.keel_ns).c_str(),
                static_cast<double>(totals.linux_us) * 1000.0 / static_cast<double>(totals.keel_ns));
  std::printf("\n");
  // Why the others were not compared, most frequent first (once bpf(2) is
  // refused, the line above the table already says it for all of them).
  if (denied.empty()) {
    for (const auto& [count, reason] : uncompared_reasons(rows))
      std::printf("  not compared: %zu %s\n", count, reason.c_str());
  }
}

void print_json_report(const std::vector<Row>& rows, const Options& options, const std::string& denied) {
  Json programs = Json::array();
  for (const Row& row : rows) {
    const Subject& subject = row.subject;
    const bool linux_ran = row.linux_side != Side::none;
    Json json;
    json["name"] = subject.label;
    json["file"] = subject.file;
    json["section"] = string_or_null(subject.section);
    json["function"] = subject.section.empty() ? Json() : Json(subject.function);
    json["type"] = subject.type;
    json["insns"] = subject.insn_count;
    json["linux_verdict"] = side_name(row.linux_side);
    json["linux_loader"] = string_or_null(row.linux_loader);
    json["linux_message"] = string_or_null(row.linux_message);
    json["linux_errno"] = row.linux_result.error != 0 && linux_ran ? Json(errno_name(row.linux_result.error)) : Json();
    json["linux_verification_us"] =
        linux_ran && row.linux_result.verification_us >= 0 ? Json(row.linux_result.verification_us) : Json();
    json["linux_processed_insns"] =
        linux_ran && row.linux_result.log.processed_insns >= 0 ? Json(row.linux_result.log.processed_insns) : Json();
    if (options.linux_log) json["linux_log"] = row.linux_result.log_text;
    json["keel_verdict"] = row.keel_side == Side::none ? row.keel_unchecked : side_name(row.keel_side);
    json["keel_pc"] = row.keel_pc >= 0 ? Json(row.keel_pc) : Json();
    json["keel_reason"] = string_or_null(row.keel_reason);
    json["keel_message"] = string_or_null(row.keel_message);
    json["keel_verify_ns"] = row.keel_side != Side::none ? Json(row.keel_ns) : Json();
    json["agree"] = row.compared() ? Json(row.keel_side == row.linux_side) : Json();
    // Three decimals, as a number.
    json["ratio"] = row.has_ratio() ? Json(std::round(row.ratio() * 1000.0) / 1000.0) : Json();
    programs.push_back(json);
  }
  const Totals totals = totals_of(rows);
  Json summary;
  summary["programs"] = rows.size();
  summary["agree"] = totals.agree;
  summary["disagree"] = totals.disagree;
  summary["not_compared"] = totals.uncompared;
  summary["agreeing_linux_verification_us"] = totals.linux_us;
  summary["agreeing_keel_verify_ns"] = totals.keel_ns;
  Json json;
  json["kernel"] = kernel_release();
  json["runs"] = options.runs;
  json["kernel_btf"] = options.btf.given() ? Json(options.btf.path) : Json();
  json["linux_unavailable"] = string_or_null(denied);
  json["programs"] = programs;
  json["summary"] = summary;
  print_json(json);
}

bool kernel_knows_type(const std::string& name) {
  LinuxProgramType unused;
  return linux_program_type(name, "", unused).empty();
}

int compare_all(Options options) {
  options.maps = named_maps(options.map_texts);
  options.btf = read_kernel_btf(options.btf_path, options.no_btf);
  Comparison run;
  run.options = options;
  // Many programs take a while (the corpus: minutes): say where it is.
  run.progress = isatty(STDERR_FILENO) != 0;
  for (run.file_index = 0; run.file_index < options.inputs.size(); ++run.file_index)
    compare_file(run, options.inputs[run.file_index]);
  if (run.progress) std::fprintf(stderr, "\r\033[K");
  const std::vector<Row>& rows = run.rows;
  if (options.json) {
    print_json_report(rows, options, run.denied);
  } else {
    print_table(rows, options, run.denied);
  }
  // The exit-code contract (cli.h) on keel's side: a program keel could
  // not check outweighs a rejection.
  int status = kExitOk;
  for (const Row& row : rows) {
    if (row.keel_side == Side::none) return kExitUsage;
    if (row.keel_side == Side::reject) status = kExitTrap;
  }
  return status;
}

}  // namespace

Run declare_compare(CLI::App& app) {
  auto options = std::make_shared<Options>();
  app.add_option("input", options->inputs, "raw programs (.bin, .s: as for verify) and ELF objects (.o)")
      ->required()
      ->type_name("FILE...");
  // An object's programs may have a type only the kernel knows (keel's
  // side then says it does not model it); a raw program's must be keel's.
  add_type(app, "--type", options->type_name, "Linux program type: required for raw programs", &kernel_knows_type);
  add_maps(app, options->map_texts);
  app.add_option("--section", options->section, "only the programs of this section of an object");
  app.add_option("--function", options->function, "only this program (function) of an object");
  add_number(app, "--runs", options->runs, 1, 1000, "verifications per side; the time shown is their median (5)");
  app.add_flag("--strict-alignment", options->strict_alignment, "as BPF_F_STRICT_ALIGNMENT, on both sides");
  app.add_flag("--linux-log", options->linux_log, "add the kernel verifier's log (level 1)");
  app.add_flag("--json", options->json, "one JSON object instead of the table");
  auto* btf = app.add_option("--btf", options->btf_path,
                              "the kernel's BTF for CO-RE relocations, on both sides (default: "
                              "/sys/kernel/btf/vmlinux when it exists)")
                   ->type_name("FILE");
  app.add_flag("--no-btf", options->no_btf, "no kernel BTF on keel's side: CO-RE programs are then unsupported")
      ->excludes(btf);
  return [options] { return compare_all(*options); };
}

}  // namespace keel::cli
