// keel verify FILE.{bin,s} --type T [--map ...] [--unprivileged] [--strict-alignment] [--json]
// keel verify OBJ.o [--section S] [--function F] [--type T | --default-type T] [--btf FILE | --no-btf] [--json]
// Decodes with the helpers of a Linux program type, verifies, prints the
// verdict: one line per program, or one JSON object.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "args.h"
#include "json_out.h"
#include "keel/platform_linux.h"
#include "kernel_btf.h"
#include "object_file.h"
#include "program.h"
#include "verification.h"
#include "verify_args.h"

namespace keel::cli {

namespace {

// " spec_guards=N" for an unprivileged program whose run needs N slots of
// speculative-execution hardening (keel/spec_guard.h), else nothing.
std::string hardening_note(const Verdict& verdict) {
  return verdict.spec_guards == 0 ? std::string() : " spec_guards=" + std::to_string(verdict.spec_guards);
}

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

std::string entry_json(const Entry& entry) {
  JsonObject json;
  json.add("section", entry.section).add("function", entry.function);
  if (entry.type.empty())
    json.null("type");
  else
    json.add("type", entry.type);
  json.add("insns", uint64_t{entry.insns}).add("verdict", outcome_name(entry.outcome));
  const Check* check = entry.check;
  if (check != nullptr && !check->accepted())
    json.add("pc", uint64_t{check->pc()}).add("reason", check->reason);
  else if (check != nullptr)
    json.null("pc").null("reason");
  else
    json.null("pc").add("reason", entry.reason);
  json.add("message", check != nullptr ? check->message : entry.message);
  const SourceLine* line = entry.line;
  if (line != nullptr && line->file != nullptr) {
    json.add("source_file", line->file).add("source_line", uint64_t{line->line});
    if (line->text != nullptr)
      json.add("source_text", line->text);
    else
      json.null("source_text");
  } else {
    json.null("source_file").null("source_line").null("source_text");
  }
  if (check != nullptr && !check->state.empty())
    json.add("state", check->state);
  else
    json.null("state");
  json.add("max_insns_executed", check != nullptr ? check->verdict.max_insns_executed : 0)
      .add("stack_depth", uint64_t{check != nullptr ? check->verdict.stack_depth : 0})
      .add("spec_guards", uint64_t{check != nullptr ? check->verdict.spec_guards : 0})
      .add("arena_bytes", uint64_t{check != nullptr ? check->arena_bytes : 0})
      .add("verify_ns", check != nullptr ? check->verify_ns : 0);
  return json.str();
}

// The one JSON shape of `keel verify --json` for .bin, .s and .o inputs:
// the file, the overall verdict (that of the exit status), the maps, and
// one entry per program. `reason`/`message` are set when the file as a
// whole could not be checked (then `programs` is empty).
// `btf` (objects only): the kernel BTF of their CO-RE relocations, as
// "kernel_btf" (a path, or null for none).
void print_report(const std::string& input, Outcome overall, const JsonArray& maps, const JsonArray& programs,
                  const std::string& reason = "", const std::string& message = "", const KernelBtfBytes* btf = nullptr) {
  JsonObject json;
  json.add("file", input).add("verdict", outcome_name(overall));
  if (reason.empty())
    json.null("reason").null("message");
  else
    json.add("reason", reason).add("message", message);
  if (btf != nullptr && btf->given())
    json.add("kernel_btf", btf->path);
  else if (btf != nullptr)
    json.null("kernel_btf");
  json.raw("maps", maps.str()).raw("programs", programs.str());
  std::printf("%s\n", json.str().c_str());
}

int verify_raw(const std::string& input, Bytes file, const std::string& type_name, Args& args,
               const std::vector<NamedMap>& maps, const VerifyOptions& base, bool json_output) {
  const ProgramType& type = program_type(args, type_name);
  const Bytes bytes = program_from_bytes(input, std::move(file));
  std::vector<MapDescriptor> descriptors;
  for (const NamedMap& named : maps) descriptors.push_back(named.map);
  CheckOptions options;
  options.verify = base;
  options.verify.maps = descriptors.data();
  options.verify.map_count = static_cast<uint32_t>(descriptors.size());
  options.with_state = true;
  const Check check = check_program(bytes.data(), bytes.size(), type, options);
  // A raw program that decode() refuses is rejected, as bpf(2) rejects it.
  const Outcome outcome = check.accepted() ? Outcome::accept : Outcome::reject;

  if (json_output) {
    Entry entry;
    entry.type = type_name;
    entry.insns = check.insns;
    entry.outcome = outcome;
    entry.check = &check;
    JsonArray map_list;
    for (const NamedMap& named : maps) map_list.push(json_quote(named.kind));
    print_report(input, outcome, map_list, JsonArray().push(entry_json(entry)));
  } else if (check.accepted()) {
    std::printf("PASS %s type=%s insns=%u max_insns=%llu stack=%u%s\n", input.c_str(), type_name.c_str(), check.insns,
                static_cast<unsigned long long>(check.verdict.max_insns_executed), check.verdict.stack_depth,
                hardening_note(check.verdict).c_str());
  } else {
    std::printf("FAIL %s type=%s insns=%u %s\n", input.c_str(), type_name.c_str(), check.insns, check.message.c_str());
    print_indented(check.state);
  }
  return exit_status(outcome);
}

// One program of an object: its outcome, and its JSON entry (JSON output)
// or its line (text output).
struct ProgramReport {
  Outcome outcome = Outcome::error;
  std::string json;
};

ProgramReport verify_object_program(const LoadedObject& loaded, const ElfProgram& program, const VerifyOptions& base,
                                    const KernelBtfFile* kernel, bool json_output) {
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
    return ProgramReport{outcome, ""};
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

  CheckOptions options;
  options.verify = base;
  options.verify.maps = loaded.object().maps;
  options.verify.map_count = loaded.object().map_count;
  Check check = check_program(program.insns, size_t{program.slots} * 8, *type, options);
  if (!check.accepted()) {
    const std::string poisoned = core_failure_at(program, check.pc());
    if (!poisoned.empty()) check.message += " (" + poisoned + ")";
  }
  const Outcome outcome = check.accepted() ? Outcome::accept : Outcome::reject;
  const SourceLine* line = check.accepted() ? nullptr : find_source_line(program, check.pc());
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
  }
  return ProgramReport{outcome, ""};
}

int verify_object(const std::string& input, Bytes bytes, const std::string& type_name,
                  const std::string& default_type, Args& args, const std::string& section,
                  const std::string& function, const VerifyOptions& base, bool json_output,
                  const KernelBtfBytes& btf) {
  if (!type_name.empty()) (void)program_type(args, type_name);
  if (!default_type.empty()) (void)program_type(args, default_type);
  const LoadedObject loaded(std::move(bytes), type_name, default_type, &btf.bytes);
  if (!loaded.result().ok()) {
    // The object as a whole cannot be loaded: nothing was checked.
    const Outcome outcome = load_outcome(loaded.result().error);
    const std::string reason = elf_error_name(loaded.result().error);
    const std::string message = elf_message(loaded.result());
    if (json_output) {
      print_report(input, outcome, JsonArray(), JsonArray(), reason, message, &btf);
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
  JsonArray list;
  for (const ElfProgram* program : programs) {
    const ProgramReport report = verify_object_program(loaded, *program, base, kernel.get(), json_output);
    overall = worse(overall, report.outcome);
    if (json_output) list.push(report.json);
  }
  if (json_output) {
    JsonArray maps;
    const Object& object = loaded.object();
    for (uint32_t i = 0; i < object.map_count; ++i)
      maps.push(object.map_info[i].name != nullptr ? json_quote(object.map_info[i].name) : "null");
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

}  // namespace

int cmd_verify(const std::vector<std::string>& arguments) {
  Args args("verify", arguments);
  std::string input, type_name, default_type, section, function, btf_path;
  bool no_btf = false;
  std::vector<NamedMap> maps;
  bool json_output = false;
  VerifyOptions options;
  // As `keel cases` checks the Linux selftests: Linux 6.1's rules, and
  // privileged reads of unwritten stack yield unknown values.
  options.linux_rules = true;
  while (!args.done()) {
    const std::string& arg = args.take();
    if (arg == "--type") {
      type_name = args.value_of(arg);
    } else if (arg == "--default-type") {
      default_type = args.value_of(arg);
    } else if (arg == "--map") {
      maps.push_back(parse_map(args, args.value_of(arg)));
    } else if (arg == "--section") {
      section = args.value_of(arg);
    } else if (arg == "--function") {
      function = args.value_of(arg);
    } else if (arg == "--unprivileged") {
      options.privileged = false;
    } else if (arg == "--strict-alignment") {
      options.strict_alignment = true;
    } else if (arg == "--json") {
      json_output = true;
    } else if (arg == "--btf") {
      btf_path = args.value_of(arg);
    } else if (arg == "--no-btf") {
      no_btf = true;
    } else {
      args.single_input(arg, input);
    }
  }
  if (input.empty()) args.fail("missing input file (keel verify FILE.{bin,s,o} [options])");
  options.allow_uninit_stack_reads = options.privileged;

  Bytes bytes = read_file(input);
  if (is_elf(bytes)) {
    if (!maps.empty()) args.fail("--map is for raw programs: an object's maps come from the object");
    if (no_btf && !btf_path.empty()) args.fail("--btf and --no-btf contradict each other");
    return verify_object(input, std::move(bytes), type_name, default_type, args, section, function, options,
                         json_output, read_kernel_btf(btf_path, no_btf));
  }
  if (!section.empty() || !function.empty()) args.fail("--section and --function select programs of an ELF object");
  if (!btf_path.empty() || no_btf) args.fail("--btf and --no-btf are for ELF objects (CO-RE relocations)");
  if (!default_type.empty()) args.fail("--default-type is for ELF objects (raw programs take --type)");
  if (type_name.empty()) {
    // Neither an object nor a program: say what the file is not before
    // asking for a type it could not use anyway.
    if (bytes.empty()) args.fail(input + ": empty file (neither an ELF object nor a program)");
    if (!has_extension(input, ".s")) {
      // Instructions always hold zero bytes (registers, offsets), text never.
      const bool text = std::find(bytes.begin(), bytes.end(), uint8_t{0}) == bytes.end();
      const std::string problem = text ? "text, not an ELF object or raw instructions (assembly wants a .s name)"
                                       : raw_program_problem(bytes);
      if (!problem.empty()) args.fail(input + ": " + problem);
    }
    args.fail("missing --type T (one of: " + program_type_names() + ")");
  }
  return verify_raw(input, std::move(bytes), type_name, args, maps, options, json_output);
}

}  // namespace keel::cli
