// keel verify FILE.{bin,s} --type T [--map ...] [--unprivileged] [--strict-alignment] [--json]
// keel verify OBJ.o [--section S] [--function F] [--type T | --default-type T] [--json]
// Decodes with the helpers of a Linux program type, verifies, prints the
// verdict: one line per program, or one JSON object.
#include <cstdio>
#include <sstream>

#include "args.h"
#include "json_out.h"
#include "keel/platform_linux.h"
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

void add_verdict(JsonObject& json, const Check& check) {
  json.add("verdict", check.accepted() ? "accept" : "reject");
  if (check.accepted()) {
    json.null("pc").null("reason");
  } else {
    json.add("pc", uint64_t{check.pc()}).add("reason", check.reason);
  }
  json.add("message", check.message);
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

  if (json_output) {
    JsonObject json;
    json.add("file", input).add("type", type_name).add("insns", uint64_t{check.insns});
    add_verdict(json, check);
    json.add("max_insns_executed", check.verdict.max_insns_executed)
        .add("stack_depth", uint64_t{check.verdict.stack_depth})
        .add("spec_guards", uint64_t{check.verdict.spec_guards})
        .add("arena_bytes", uint64_t{check.arena_bytes})
        .add("verify_ns", check.verify_ns);
    if (!check.state.empty()) json.add("state", check.state);
    JsonArray map_list;
    for (const NamedMap& named : maps) map_list.push(json_quote(named.kind));
    json.raw("maps", map_list.str());
    std::printf("%s\n", json.str().c_str());
  } else if (check.accepted()) {
    std::printf("PASS %s type=%s insns=%u max_insns=%llu stack=%u%s\n", input.c_str(), type_name.c_str(), check.insns,
                static_cast<unsigned long long>(check.verdict.max_insns_executed), check.verdict.stack_depth,
                hardening_note(check.verdict).c_str());
  } else {
    std::printf("FAIL %s type=%s insns=%u %s\n", input.c_str(), type_name.c_str(), check.insns, check.message.c_str());
    print_indented(check.state);
  }
  std::fflush(stdout);
  return check.accepted() ? kExitOk : kExitTrap;
}

// One program of an object: its verdict as text or a JSON object.
struct ProgramReport {
  bool accepted = false;
  std::string json;
};

ProgramReport verify_object_program(const LoadedObject& loaded, const ElfProgram& program, const VerifyOptions& base,
                                    bool json_output) {
  const std::string label = program_label(program);
  JsonObject json;
  json.add("section", program.section).add("function", program.name).add("type", program.type_name)
      .add("insns", uint64_t{program.instruction_count});
  auto load_reject = [&](const std::string& reason, const std::string& message) {
    if (json_output) {
      json.add("verdict", "reject").null("pc").add("reason", reason).add("message", message).null("source_line");
      json.add("max_insns_executed", uint64_t{0}).add("stack_depth", uint64_t{0}).add("arena_bytes", uint64_t{0})
          .add("verify_ns", uint64_t{0});
      return ProgramReport{false, json.str()};
    }
    std::printf("FAIL %s insns=%u load: %s\n", label.c_str(), program.instruction_count, message.c_str());
    return ProgramReport{false, ""};
  };
  if (!program.status.ok()) return load_reject(elf_error_name(program.status.error), elf_message(program.status));
  if (program.type_name == nullptr)
    return load_reject("unknown_program_type", "no program type for the section (use --type or --default-type)");
  const ProgramType* type = find_program_type(linux_platform(), program.type_name);
  if (type == nullptr)
    return load_reject("unsupported_program_type",
                       std::string("program type '") + program.type_name + "' is not one keel models (" +
                           program_type_names() + ")");

  CheckOptions options;
  options.verify = base;
  options.verify.maps = loaded.object().maps;
  options.verify.map_count = loaded.object().map_count;
  const Check check = check_program(program.insns, size_t{program.slots} * 8, *type, options);
  const SourceLine* line = check.accepted() ? nullptr : find_source_line(program, check.pc());
  std::string where;
  if (line != nullptr && line->file != nullptr) where = std::string(line->file) + ":" + std::to_string(line->line);

  if (json_output) {
    add_verdict(json, check);
    if (where.empty()) {
      json.null("source_line");
    } else {
      json.add("source_line", where);
      if (line->text != nullptr) json.add("source_text", line->text);
    }
    json.add("max_insns_executed", check.verdict.max_insns_executed)
        .add("stack_depth", uint64_t{check.verdict.stack_depth})
        .add("spec_guards", uint64_t{check.verdict.spec_guards})
        .add("arena_bytes", uint64_t{check.arena_bytes})
        .add("verify_ns", check.verify_ns);
    return ProgramReport{check.accepted(), json.str()};
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
  return ProgramReport{check.accepted(), ""};
}

int verify_object(const std::string& input, Bytes bytes, const std::string& type_name,
                  const std::string& default_type, Args& args, const std::string& section,
                  const std::string& function, const VerifyOptions& base, bool json_output) {
  if (!type_name.empty()) (void)program_type(args, type_name);
  if (!default_type.empty()) (void)program_type(args, default_type);
  const LoadedObject loaded(std::move(bytes), type_name, default_type);
  if (!loaded.result().ok()) {
    // The object as a whole cannot be loaded: a rejection, not bad usage.
    const std::string message = elf_message(loaded.result());
    if (json_output) {
      JsonObject program;
      program.null("section").null("function").null("type").add("insns", uint64_t{0}).add("verdict", "reject")
          .null("pc").add("reason", elf_error_name(loaded.result().error)).add("message", message).null("source_line")
          .add("max_insns_executed", uint64_t{0}).add("stack_depth", uint64_t{0}).add("arena_bytes", uint64_t{0})
          .add("verify_ns", uint64_t{0});
      JsonObject json;
      json.add("object", input).raw("programs", JsonArray().push(program.str()).str());
      std::printf("%s\n", json.str().c_str());
    } else {
      std::printf("FAIL %s load: %s\n", input.c_str(), message.c_str());
    }
    std::fflush(stdout);
    return kExitTrap;
  }
  const std::vector<const ElfProgram*> programs = loaded.select("verify", section, function);
  bool all_accepted = true;
  JsonArray list;
  for (const ElfProgram* program : programs) {
    const ProgramReport report = verify_object_program(loaded, *program, base, json_output);
    all_accepted = all_accepted && report.accepted;
    if (json_output) list.push(report.json);
  }
  if (json_output) {
    JsonObject json;
    json.add("object", input).raw("programs", list.str());
    std::printf("%s\n", json.str().c_str());
  } else if (programs.empty()) {
    std::printf("%s: no autoloaded programs\n", input.c_str());
  }
  std::fflush(stdout);
  return all_accepted ? kExitOk : kExitTrap;
}

}  // namespace

int cmd_verify(const std::vector<std::string>& arguments) {
  Args args("verify", arguments);
  std::string input, type_name, default_type, section, function;
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
    } else {
      args.single_input(arg, input);
    }
  }
  if (input.empty()) args.fail("missing input file (keel verify FILE.{bin,s,o} [options])");
  options.allow_uninit_stack_reads = options.privileged;

  Bytes bytes = read_file(input);
  if (is_elf(bytes)) {
    if (!maps.empty()) args.fail("--map is for raw programs: an object's maps come from the object");
    return verify_object(input, std::move(bytes), type_name, default_type, args, section, function, options,
                         json_output);
  }
  if (!section.empty() || !function.empty()) args.fail("--section and --function select programs of an ELF object");
  if (!default_type.empty()) args.fail("--default-type is for ELF objects (raw programs take --type)");
  if (type_name.empty()) args.fail("missing --type T (one of: " + program_type_names() + ")");
  return verify_raw(input, std::move(bytes), type_name, args, maps, options, json_output);
}

}  // namespace keel::cli
