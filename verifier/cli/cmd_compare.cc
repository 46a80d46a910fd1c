// keel compare FILE... [--type T] [--map ...] [--section S] [--function F]
//              [--runs N] [--strict-alignment] [--linux-log] [--btf FILE | --no-btf] [--json]
// Verifies each program with keel and with the running kernel's verifier
// (linux_loader.h) and prints both verdicts and both verification times,
// as a table or one JSON object. Disagreement is data, not an error: the
// exit status is keel's, as for `keel verify` (0 every program accepted,
// 1 one rejected, 2 one could not be checked), also when bpf(2) is refused
// (then only keel's side is shown, under one line that says so).
#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "args.h"
#include "json_out.h"
#include "keel/platform_linux.h"
#include "kernel_btf.h"
#include "linux_loader.h"
#include "object_file.h"
#include "program.h"
#include "verification.h"
#include "verify_args.h"

namespace keel::cli {

namespace {

struct Options {
  std::string type_name;
  std::string section;
  std::string function;
  std::vector<NamedMap> maps;
  uint32_t runs = 5;
  bool strict_alignment = false;
  bool linux_log = false;
  bool json = false;
  KernelBtfBytes btf;  // CO-RE relocations of objects are applied against it (kernel_btf.h)
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
  std::vector<LinuxMap> linux_maps;
  std::string license = "GPL";
  const ElfProgram* program = nullptr;  // ELF only: its poisoned CO-RE relocations
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

// `denied` is set (and Linux no longer tried) once bpf(2) is refused.
void run_linux(const Options& options, const BpfSys& sys, std::string& denied, Row& row) {
  const Subject& subject = row.subject;
  if (!denied.empty()) return;
  if (!subject.not_loaded.empty()) {
    row.linux_message = "not loaded: keel's ELF loader could not prepare the program";
    return;
  }
  LinuxRequest request;
  const std::string problem = linux_program_type(subject.type, subject.section, request.type);
  if (!problem.empty()) {
    row.linux_message = subject.type.empty() ? "no program type for the section (use --type)" : problem;
    return;
  }
  request.insns = subject.insns;
  request.slots = subject.slots;
  request.maps = subject.linux_maps.data();
  request.map_count = subject.linux_maps.size();
  request.license = subject.license;
  request.strict_alignment = options.strict_alignment;
  request.full_log = options.linux_log;
  request.runs = options.runs;
  request.warm_up = true;
  row.linux_result = load_in_linux(sys, request);
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
      denied = row.linux_result.message;
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
  for (const NamedMap& named : options.maps) subject.linux_maps.push_back(linux_map(named.kind, named.map));
  return subject;
}

Subject object_subject(const std::string& path, const LoadedObject& loaded, const ElfProgram& program) {
  Subject subject;
  const Object& object = loaded.object();
  subject.file = path;
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

void compare(const Options& options, const BpfSys& sys, std::string& denied, Subject subject, std::vector<Row>& rows) {
  Row row;
  row.subject = std::move(subject);
  // Linux first: the verdict a user porting a program asks about, and a
  // refused bpf(2) is known before keel's side is printed.
  run_linux(options, sys, denied, row);
  run_keel(options, row);
  rows.push_back(std::move(row));
}

void compare_file(const std::string& path, Args& args, const Options& options, const BpfSys& sys, std::string& denied,
                  std::vector<Row>& rows) {
  Bytes bytes = read_file(path);
  if (is_elf(bytes)) {
    if (!options.maps.empty()) args.fail("--map is for raw programs: an object's maps come from the object");
    const LoadedObject loaded(std::move(bytes), options.type_name, "", &options.btf.bytes);
    if (!loaded.result().ok()) {
      Subject subject;
      subject.file = path;
      subject.label = file_name(path);
      subject.not_loaded = "load: " + elf_message(loaded.result());
      subject.unchecked = load_error_verdict(loaded.result().error);
      compare(options, sys, denied, std::move(subject), rows);
      return;
    }
    for (const ElfProgram* program : loaded.select("compare", options.section, options.function))
      compare(options, sys, denied, object_subject(path, loaded, *program), rows);
    return;
  }
  if (!options.section.empty() || !options.function.empty())
    args.fail(path + ": --section and --function select programs of an ELF object");
  if (options.type_name.empty()) args.fail(path + ": missing --type T (one of: " + program_type_names() + ")");
  (void)program_type(args, options.type_name);
  const Bytes program = program_from_bytes(path, std::move(bytes));
  std::vector<MapDescriptor> maps;
  for (const NamedMap& named : options.maps) maps.push_back(named.map);
  compare(options, sys, denied, raw_subject(path, program, options, maps), rows);
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

void print_table(const std::vector<Row>& rows, const Options& options, const std::string& denied) {
  std::printf(
      "kernel: %s; times: median of %u runs after a warm-up (linux: the log's verification time, keel: decode + "
      "verify)\n",
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
}

void print_json(const std::vector<Row>& rows, const Options& options, const std::string& denied) {
  JsonArray programs;
  for (const Row& row : rows) {
    const Subject& subject = row.subject;
    JsonObject json;
    json.add("name", subject.label).add("file", subject.file);
    if (subject.section.empty())
      json.null("section").null("function");
    else
      json.add("section", subject.section).add("function", subject.function);
    json.add("type", subject.type).add("insns", uint64_t{subject.insn_count});
    json.add("linux_verdict", side_name(row.linux_side));
    if (row.linux_message.empty())
      json.null("linux_message");
    else
      json.add("linux_message", row.linux_message);
    if (row.linux_result.error != 0 && row.linux_side != Side::none)
      json.add("linux_errno", errno_name(row.linux_result.error));
    else
      json.null("linux_errno");
    const bool timed = row.linux_side != Side::none && row.linux_result.verification_us >= 0;
    if (timed)
      json.add("linux_verification_us", static_cast<uint64_t>(row.linux_result.verification_us));
    else
      json.null("linux_verification_us");
    if (row.linux_side != Side::none && row.linux_result.log.processed_insns >= 0)
      json.add("linux_processed_insns", static_cast<uint64_t>(row.linux_result.log.processed_insns));
    else
      json.null("linux_processed_insns");
    if (options.linux_log) json.add("linux_log", row.linux_result.log_text);
    json.add("keel_verdict", row.keel_side == Side::none ? row.keel_unchecked : side_name(row.keel_side));
    if (row.keel_pc >= 0)
      json.add("keel_pc", static_cast<uint64_t>(row.keel_pc));
    else
      json.null("keel_pc");
    if (row.keel_reason.empty())
      json.null("keel_reason");
    else
      json.add("keel_reason", row.keel_reason);
    if (row.keel_message.empty())
      json.null("keel_message");
    else
      json.add("keel_message", row.keel_message);
    if (row.keel_side != Side::none)
      json.add("keel_verify_ns", row.keel_ns);
    else
      json.null("keel_verify_ns");
    if (row.compared())
      json.boolean("agree", row.keel_side == row.linux_side);
    else
      json.null("agree");
    if (row.has_ratio()) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.3f", row.ratio());
      json.raw("ratio", ratio);
    } else {
      json.null("ratio");
    }
    programs.push(json.str());
  }
  const Totals totals = totals_of(rows);
  JsonObject summary;
  summary.add("programs", uint64_t{rows.size()})
      .add("agree", uint64_t{totals.agree})
      .add("disagree", uint64_t{totals.disagree})
      .add("not_compared", uint64_t{totals.uncompared})
      .add("agreeing_linux_verification_us", static_cast<uint64_t>(totals.linux_us))
      .add("agreeing_keel_verify_ns", totals.keel_ns);
  JsonObject json;
  json.add("kernel", kernel_release()).add("runs", uint64_t{options.runs});
  if (options.btf.given())
    json.add("kernel_btf", options.btf.path);
  else
    json.null("kernel_btf");
  if (denied.empty())
    json.null("linux_unavailable");
  else
    json.add("linux_unavailable", denied);
  json.raw("programs", programs.str()).raw("summary", summary.str());
  std::printf("%s\n", json.str().c_str());
}

}  // namespace

int cmd_compare(const std::vector<std::string>& arguments) {
  Args args("compare", arguments);
  Options options;
  std::vector<std::string> inputs;
  std::string btf_path;
  bool no_btf = false;
  while (!args.done()) {
    const std::string& arg = args.take();
    if (arg == "--type") {
      options.type_name = args.value_of(arg);
    } else if (arg == "--map") {
      options.maps.push_back(parse_map(args, args.value_of(arg)));
    } else if (arg == "--section") {
      options.section = args.value_of(arg);
    } else if (arg == "--function") {
      options.function = args.value_of(arg);
    } else if (arg == "--runs") {
      uint64_t runs = 0;
      if (!parse_u64(args.value_of(arg), runs) || runs == 0 || runs > 1000)
        args.fail("--runs wants a number from 1 to 1000");
      options.runs = static_cast<uint32_t>(runs);
    } else if (arg == "--strict-alignment") {
      options.strict_alignment = true;
    } else if (arg == "--linux-log") {
      options.linux_log = true;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--btf") {
      btf_path = args.value_of(arg);
    } else if (arg == "--no-btf") {
      no_btf = true;
    } else if (Args::is_option(arg)) {
      args.unknown(arg);
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty()) args.fail("missing input file (keel compare FILE.{bin,s,o}... [options])");
  if (no_btf && !btf_path.empty()) args.fail("--btf and --no-btf contradict each other");
  options.btf = read_kernel_btf(btf_path, no_btf);
  // An object's programs may have a type only the kernel knows (keel's
  // side then says it does not model it); a raw program's is checked
  // against keel's types where it is read.
  LinuxProgramType unused;
  if (!options.type_name.empty() && find_program_type(linux_platform(), options.type_name.c_str()) == nullptr &&
      !linux_program_type(options.type_name, "", unused).empty())
    (void)program_type(args, options.type_name);

  const BpfSys sys = system_bpf();
  std::string denied;
  std::vector<Row> rows;
  for (const std::string& input : inputs) compare_file(input, args, options, sys, denied, rows);
  if (options.json) {
    print_json(rows, options, denied);
  } else {
    print_table(rows, options, denied);
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

}  // namespace keel::cli
