// keel verify FILE.{bin,s} --type T [--map ...] [--unprivileged] [--strict-alignment] [--json] [--log]
// keel verify OBJ.o [--section S] [--function F] [--type T | --default-type T] [--btf FILE | --no-btf] [--json]
//                   [--log]
// Decodes with the helpers of a Linux program type, verifies, prints the
// verdict: one line per program, or one JSON object.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "commands.h"
#include "json_out.h"
#include "keel/platform_linux.h"
#include "kernel_btf.h"
#include "object_file.h"
#include "program.h"
#include "program_options.h"
#include "verification.h"

namespace keel::cli {

namespace {

// " spec_guards=N" for an unprivileged program whose run needs N slots of
// speculative-execution hardening (keel/spec_guard.h), else nothing.
std::string hardening_note(const Verdict& verdict) {
  return verdict.spec_guards == 0 ? std::string() : " spec_guards=" + std::to_string(verdict.spec_guards);
}

// --log: the most instructions of the path to a rejection it prints (the
// trace says when it cuts the path).
constexpr size_t kLogSteps = 500;
// The path searched for the exit a leaked reference leaves by.
constexpr size_t kLeakPathSteps = 4096;

// The state lines of a rejection, indented under the FAIL line.
void print_indented(const std::string& text) {
  std::stringstream stream(text);
  for (std::string line; std::getline(stream, line);) std::printf("    %s\n", line.c_str());
}

// What one program came to. accept / reject are verdicts; error (the
// program or object could not be checked) and unsupported (it uses what
// keel does not provide) are not, and make the exit status 2.
enum class Outcome : uint8_t { accept, reject, unsupported, error };

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::accept:
      return "accept";
    case Outcome::reject:
      return "reject";
    case Outcome::unsupported:
      return "unsupported";
    case Outcome::error:
      break;
  }
  return "error";
}

Outcome load_outcome(ElfError error) {
  return std::string(load_error_verdict(error)) == "unsupported" ? Outcome::unsupported : Outcome::error;
}

// The exit status of a run (cli.h): a program that could not be checked
// outweighs a rejection, since the run did not check everything.
int exit_status(Outcome worst) {
  switch (worst) {
    case Outcome::accept:
      return kExitOk;
    case Outcome::reject:
      return kExitTrap;
    default:
      return kExitUsage;
  }
}

Outcome worse(Outcome a, Outcome b) {
  const auto rank = [](Outcome o) { return o == Outcome::accept ? 0 : o == Outcome::reject ? 1 : 2; };
  return rank(b) > rank(a) ? b : a;
}

// One program's JSON entry: the same members for raw programs and for the
// programs of an object (null where they do not apply).
struct Entry {
  const char* section = nullptr;
  const char* function = nullptr;
  std::string type;
  uint32_t insns = 0;
  Outcome outcome = Outcome::error;
  const Check* check = nullptr;  // the verifier ran
  std::string reason, message;   // when it did not
  const SourceLine* line = nullptr;
};

Json entry_json(const Entry& entry) {
  Json json;
  json["section"] = string_or_null(entry.section);
  json["function"] = string_or_null(entry.function);
  json["type"] = string_or_null(entry.type);
  json["insns"] = entry.insns;
  json["verdict"] = outcome_name(entry.outcome);
  const Check* check = entry.check;
  const bool rejected = check != nullptr && !check->accepted();
  json["pc"] = rejected ? Json(check->pc()) : Json();
  json["reason"] = rejected ? Json(check->reason) : check != nullptr ? Json() : Json(entry.reason);
  json["message"] = check != nullptr ? check->message : entry.message;
  const SourceLine* line = entry.line;
  const bool has_line = line != nullptr && line->file != nullptr;
  json["source_file"] = has_line ? Json(line->file) : Json();
  json["source_line"] = has_line ? Json(line->line) : Json();
  json["source_text"] = has_line ? string_or_null(line->text) : Json();
  json["state"] = check != nullptr ? string_or_null(check->state) : Json();
  json["max_insns_executed"] = check != nullptr ? check->verdict.max_insns_executed : 0;
  json["stack_depth"] = check != nullptr ? check->verdict.stack_depth : 0;
  json["spec_guards"] = check != nullptr ? check->verdict.spec_guards : 0;
  json["arena_bytes"] = check != nullptr ? check->arena_bytes : 0;
  json["verify_ns"] = check != nullptr ? check->verify_ns : 0;
  return json;
}

// The one JSON shape of `keel verify --json` for .bin, .s and .o inputs:
// the file, the overall verdict (that of the exit status), the maps, and
// one entry per program. `reason`/`message` are set when the file as a
// whole could not be checked (then `programs` is empty).
// `btf` (objects only): the kernel BTF of their CO-RE relocations, as
// "kernel_btf" (a path, or null for none).
void print_report(const std::string& input, Outcome overall, const Json& maps, const Json& programs,
                  const std::string& reason = "", const std::string& message = "",
                  const KernelBtfBytes* btf = nullptr) {
  Json json;
  json["file"] = input;
  json["verdict"] = outcome_name(overall);
  json["reason"] = string_or_null(reason);
  json["message"] = reason.empty() ? Json() : Json(message);
  if (btf != nullptr) json["kernel_btf"] = btf->given() ? Json(btf->path) : Json();
  json["maps"] = maps;
  json["programs"] = programs;
  print_json(json);
}

int verify_raw(const std::string& input, Bytes file, const std::string& type_name, const std::vector<NamedMap>& maps,
               const VerifyOptions& base, bool json_output, bool log) {
  const ProgramType& type = *keel_program_type(type_name);
  const Bytes bytes = program_from_bytes(input, std::move(file));
  std::vector<MapDescriptor> descriptors;
  for (const NamedMap& named : maps) descriptors.push_back(named.map);
  CheckOptions options;
  options.verify = base;
  options.verify.maps = descriptors.data();
  options.verify.map_count = static_cast<uint32_t>(descriptors.size());
  options.with_state = true;
  options.helper_name = linux_helper_name;
  options.path_steps = log && !json_output ? kLogSteps : 0;  // the JSON has no trace (yet)
  const Check check = check_program(bytes.data(), bytes.size(), type, options);
  // A raw program that decode() refuses is rejected, as bpf(2) rejects it.
  const Outcome outcome = check.accepted() ? Outcome::accept : Outcome::reject;

  if (json_output) {
    Entry entry;
    entry.type = type_name;
    entry.insns = check.insns;
    entry.outcome = outcome;
    entry.check = &check;
    Json map_list = Json::array();
    for (const NamedMap& named : maps) map_list.push_back(named.kind);
    print_report(input, outcome, map_list, Json::array({entry_json(entry)}));
  } else if (check.accepted()) {
    std::printf("PASS %s type=%s insns=%u max_insns=%llu stack=%u%s\n", input.c_str(), type_name.c_str(), check.insns,
                static_cast<unsigned long long>(check.verdict.max_insns_executed), check.verdict.stack_depth,
                hardening_note(check.verdict).c_str());
  } else {
    std::printf("FAIL %s type=%s insns=%u %s\n", input.c_str(), type_name.c_str(), check.insns, check.message.c_str());
    print_indented(check.state);
    if (log) print_indented(render_path(check.path, bytes.data(), bytes.size() / 8));
  }
  return exit_status(outcome);
}

// Where a leaked reference was taken and the exit path that leaks it: the
// exit instruction is shared by every return (its line is the closing
// brace), so the path's last line before it that is not the exit's own is
// the `return` that leaks.
struct LeakSite {
  const SourceLine* exit = nullptr;  // the leaking return's line, when found
  std::string note;                  // appended to the message
};

std::string at(const SourceLine* line) {
  return line != nullptr && line->file != nullptr ? std::string(line->file) + ":" + std::to_string(line->line) : "";
}

LeakSite leak_site(const ElfProgram& program, const Check& check) {
  LeakSite site;
  const SourceLine* acquired = find_source_line(program, check.verdict.detail.limit);
  const SourceLine* exit = find_source_line(program, check.verdict.pc);
  const std::vector<TraceStep>& steps = check.path.steps;
  for (size_t i = steps.size(); exit != nullptr && i-- > 0;) {
    const SourceLine* line = find_source_line(program, steps[i].pc);
    if (line != nullptr && line->file != nullptr && (line->line != exit->line || line->file != exit->file)) {
      site.exit = line;
      break;
    }
  }
  if (!at(acquired).empty()) site.note += "; acquired at " + at(acquired);
  if (site.exit != nullptr) site.note += "; leaks on the exit path through line " + std::to_string(site.exit->line);
  return site;
}

// One program of an object: its outcome, and its JSON entry (JSON output)
// or its line (text output).
struct ProgramReport {
  Outcome outcome = Outcome::error;
  Json json;
};

ProgramReport verify_object_program(const LoadedObject& loaded, const ElfProgram& program, const VerifyOptions& base,
                                    const KernelBtfFile* kernel, bool json_output, bool log) {
  const std::string label = program_label(program);
  Entry entry;
  entry.section = program.section;
  entry.function = program.name;
  if (program.type_name != nullptr) entry.type = program.type_name;
  entry.insns = program.instruction_count;
  // The program could not be checked: error or unsupported, never a verdict.
  auto unchecked = [&](Outcome outcome, const std::string& reason, const std::string& message) {
    entry.outcome = outcome;
    entry.reason = reason;
    entry.message = message;
    if (json_output) return ProgramReport{outcome, entry_json(entry)};
    std::printf("%s %s insns=%u %s\n", outcome == Outcome::error ? "ERROR" : "UNSUPPORTED", label.c_str(),
                program.instruction_count, message.c_str());
    return ProgramReport{outcome, Json()};
  };
  if (!program.status.ok())
    return unchecked(load_outcome(program.status.error), elf_error_name(program.status.error),
                     elf_message(program.status));
  if (program.type_name == nullptr)
    return unchecked(Outcome::unsupported, "unknown_program_type",
                     "no program type for the section (use --type or --default-type)");
  const ProgramType* type = find_program_type(linux_platform(), program.type_name);
  std::unique_ptr<BtfProgramType> btf_type;
  if (type == nullptr && is_btf_typed_section(program.section)) {
    std::string why;
    btf_type = btf_program_type(kernel, program, why);
    if (btf_type == nullptr) return unchecked(Outcome::unsupported, "unsupported_program_type", why);
    type = &btf_type->type;
  }
  if (type == nullptr)
    return unchecked(Outcome::unsupported, "unsupported_program_type",
                     std::string("program type '") + program.type_name + "' is not one keel models (" +
                         program_type_names() + ")");

  std::vector<const char*> map_names;
  for (uint32_t i = 0; i < loaded.object().map_count; ++i) map_names.push_back(loaded.object().map_info[i].name);
  CheckOptions options;
  options.verify = base;
  options.verify.maps = loaded.object().maps;
  options.verify.map_count = loaded.object().map_count;
  // The registers at the rejected pc, as for .s/.bin programs.
  options.with_state = true;
  options.helper_name = linux_helper_name;
  options.map_names = map_names.data();
  options.path_steps = log && !json_output ? kLogSteps : 0;  // the JSON has no trace (yet)
  Check check = check_program(program.insns, size_t{program.slots} * 8, *type, options);
  if (check.decoded.ok() && check.verdict.reason == Reason::unreleased_reference && options.path_steps == 0) {
    // The leak's exit path comes from the trace (the exit itself is shared).
    options.path_steps = kLeakPathSteps;
    check = check_program(program.insns, size_t{program.slots} * 8, *type, options);
  }
  if (!check.accepted()) {
    const std::string poisoned = core_failure_at(program, check.pc());
    if (!poisoned.empty()) check.message += " (" + poisoned + ")";
  }
  const Outcome outcome = check.accepted() ? Outcome::accept : Outcome::reject;
  const SourceLine* line = check.accepted() ? nullptr : find_source_line(program, check.pc());
  if (check.decoded.ok() && check.verdict.reason == Reason::unreleased_reference) {
    const LeakSite leak = leak_site(program, check);
    if (leak.exit != nullptr) line = leak.exit;
    check.message += leak.note;
  }
  std::string where;
  if (line != nullptr && line->file != nullptr) where = std::string(line->file) + ":" + std::to_string(line->line);

  if (json_output) {
    entry.outcome = outcome;
    entry.check = &check;
    entry.line = line;
    return ProgramReport{outcome, entry_json(entry)};
  }
  if (check.accepted()) {
    std::printf("PASS %s type=%s insns=%u max_insns=%llu stack=%u%s\n", label.c_str(), program.type_name,
                program.instruction_count, static_cast<unsigned long long>(check.verdict.max_insns_executed),
                check.verdict.stack_depth, hardening_note(check.verdict).c_str());
  } else {
    std::printf("FAIL %s type=%s insns=%u %s%s\n", label.c_str(), program.type_name, program.instruction_count,
                check.message.c_str(), where.empty() ? "" : (", " + where).c_str());
    if (line != nullptr && line->text != nullptr) {
      const char* text = line->text;
      while (*text == ' ' || *text == '\t') ++text;
      if (*text != '\0') std::printf("    %s\n", text);
    }
    print_indented(check.state);
    if (log) print_indented(render_path(check.path, program.insns, program.slots));
  }
  return ProgramReport{outcome, Json()};
}

int verify_object(const std::string& input, Bytes bytes, const std::string& type_name,
                  const std::string& default_type, const std::string& section,
                  const std::string& function, const VerifyOptions& base, bool json_output,
                  const KernelBtfBytes& btf, bool log) {
  const LoadedObject loaded(std::move(bytes), type_name, default_type, &btf.bytes);
  if (!loaded.result().ok()) {
    // The object as a whole cannot be loaded: nothing was checked.
    const Outcome outcome = load_outcome(loaded.result().error);
    const std::string reason = elf_error_name(loaded.result().error);
    const std::string message = elf_message(loaded.result());
    if (json_output) {
      print_report(input, outcome, Json::array(), Json::array(), reason, message, &btf);
    } else {
      std::printf("%s %s: %s\n", outcome == Outcome::error ? "ERROR" : "UNSUPPORTED", input.c_str(), message.c_str());
    }
    return exit_status(outcome);
  }
  const std::vector<const ElfProgram*> programs = loaded.select("verify", section, function);
  // The BTF's type index is built only for an object with a BTF-typed
  // program: CO-RE alone needs the bytes, not the index.
  std::unique_ptr<KernelBtfFile> kernel;
  for (const ElfProgram* program : programs) {
    if (btf.given() && kernel == nullptr && is_btf_typed_section(program->section))
      kernel = std::make_unique<KernelBtfFile>(btf);
  }
  Outcome overall = Outcome::accept;
  Json list = Json::array();
  for (const ElfProgram* program : programs) {
    const ProgramReport report = verify_object_program(loaded, *program, base, kernel.get(), json_output, log);
    overall = worse(overall, report.outcome);
    if (json_output) list.push_back(report.json);
  }
  if (json_output) {
    Json maps = Json::array();
    const Object& object = loaded.object();
    for (uint32_t i = 0; i < object.map_count; ++i)
      maps.push_back(string_or_null(object.map_info[i].name));
    print_report(input, overall, maps, list, "", "", &btf);
  } else if (programs.empty()) {
    std::printf("%s: no autoloaded programs\n", input.c_str());
  }
  if (!json_output) {
    const std::string core = core_summary(loaded.object(), btf);
    if (!core.empty()) std::printf("%s\n", core.c_str());
  }
  return exit_status(overall);
}

// The arguments of `keel verify`, as declare_verify() binds them.
struct VerifyArgs {
  std::string input, type_name, default_type, section, function, btf_path;
  std::vector<std::string> maps;
  bool json = false, unprivileged = false, strict_alignment = false, no_btf = false, log = false;
};

int verify(const VerifyArgs& args) {
  VerifyOptions options;
  // As `keel-corpus cases` checks the Linux selftests: Linux 6.1's rules,
  // and privileged reads of unwritten stack yield unknown values.
  options.linux_rules = true;
  options.privileged = !args.unprivileged;
  options.strict_alignment = args.strict_alignment;
  options.allow_uninit_stack_reads = options.privileged;
  const std::string& input = args.input;
  auto fail = [](const std::string& message) { usage_error("verify", message); };

  Bytes bytes = read_file(input);
  if (is_elf(bytes)) {
    if (!args.maps.empty()) fail("--map is for raw programs: an object's maps come from the object");
    return verify_object(input, std::move(bytes), args.type_name, args.default_type, args.section, args.function,
                         options, args.json, read_kernel_btf(args.btf_path, args.no_btf), args.log);
  }
  if (!args.section.empty() || !args.function.empty()) fail("--section and --function select programs of an ELF object");
  if (!args.btf_path.empty() || args.no_btf) fail("--btf and --no-btf are for ELF objects (CO-RE relocations)");
  if (!args.default_type.empty()) fail("--default-type is for ELF objects (raw programs take --type)");
  if (args.type_name.empty()) {
    // Neither an object nor a program: say what the file is not before
    // asking for a type it could not use anyway.
    if (bytes.empty()) fail(input + ": empty file (neither an ELF object nor a program)");
    if (!has_extension(input, ".s")) {
      // Instructions always hold zero bytes (registers, offsets), text never.
      const bool text = std::find(bytes.begin(), bytes.end(), uint8_t{0}) == bytes.end();
      const std::string problem = text ? "text, not an ELF object or raw instructions (assembly wants a .s name)"
                                       : raw_program_problem(bytes);
      if (!problem.empty()) fail(input + ": " + problem);
    }
    fail("missing --type T (one of: " + program_type_names() + ")");
  }
  return verify_raw(input, std::move(bytes), args.type_name, named_maps(args.maps), options, args.json, args.log);
}

}  // namespace

Run declare_verify(CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  add_input(app, args->input, "a raw program (.bin, .s) or an ELF object (.o)");
  add_type(app, "--type", args->type_name,
           "Linux program type (socket_filter, xdp, ...): required for a raw program; for an object, overrides "
           "every section's type");
  add_type(app, "--default-type", args->default_type, "an object's type for sections whose names keel lacks");
  add_maps(app, args->maps);
  app.add_option("--section", args->section, "only the programs of this section of an object");
  app.add_option("--function", args->function, "only this program (function) of an object");
  app.add_flag("--unprivileged", args->unprivileged, "verify as loaded without CAP_BPF / CAP_PERFMON");
  app.add_flag("--strict-alignment", args->strict_alignment, "as BPF_F_STRICT_ALIGNMENT");
  app.add_flag("--json", args->json, "one JSON object instead of PASS/FAIL lines");
  app.add_flag("--log", args->log,
               "after a rejection, the path to it: each instruction under the abstract state entering it");
  auto* btf = app.add_option("--btf", args->btf_path,
                              "the kernel's BTF: CO-RE relocations are applied against it, and it types the "
                              "context of fentry/fexit/fmod_ret/tp_btf/lsm/iter programs (default: "
                              "/sys/kernel/btf/vmlinux when it exists)")
                   ->type_name("FILE");
  app.add_flag("--no-btf", args->no_btf, "no kernel BTF: CO-RE and BTF-typed programs are then unsupported")
      ->excludes(btf);
  return [args] { return verify(*args); };
}

}  // namespace keel::cli
