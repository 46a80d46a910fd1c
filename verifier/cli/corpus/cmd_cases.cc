// keel-corpus cases FILE.jsonl [--maps maps.json] [--divergences FILE] [--unprivileged]
//            [--prefix ID] [--state] [--all] [--json]:
// runs the Linux verifier selftest cases (verifier/cli/cases/linux_cases.h) and
// scores keel's verdicts against Linux's. Text: one line per disagreement
// (--all: one line per case, suite::case_line(), as the bare-metal runner
// prints them), the skip reasons, then the two summary lines. A false accept listed in
// the divergences file (a justified, documented divergence: corpus README)
// is a DIVERGENCE line and does not count as a false accept.
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "commands.h"
#include "json_out.h"
#include "linux_cases.h"

namespace keel::cli {

namespace {

using tools::CaseOutcome;
using tools::CaseResult;

// "pc 12 ctx_bad_access: <describe() text after its own "pc 12: ">".
std::string why_rejected(const CaseResult& result) {
  char text[320];
  suite::rejection_text(result.check, text, sizeof text);
  return text;
}

std::string all_line(const CaseResult& result) {
  char line[1024];
  suite::case_line(result.id.c_str(), result.name.c_str(), result.outcome, result.check, result.skip_reason.c_str(),
                   line, sizeof line);
  return line;
}

Json case_json(const CaseResult& result) {
  Json json;
  json["id"] = result.id;
  json["name"] = result.name;
  json["expect"] = result.expect_accept ? "accept" : "reject";
  json["outcome"] = tools::outcome_name(result.outcome);
  if (result.outcome == CaseOutcome::skipped) {
    json["verdict"] = nullptr;
    json["skip_reason"] = result.skip_reason;
    return json;
  }
  const bool accepted = result.decode_error.empty() && result.verdict.ok();
  json["verdict"] = accepted ? "accept" : "reject";
  if (accepted) {
    json["pc"] = nullptr;
    json["reason"] = nullptr;
  } else if (!result.decode_error.empty()) {
    json["pc"] = nullptr;
    json["reason"] = "decode:" + result.decode_error;
  } else {
    json["pc"] = result.verdict.pc;
    json["reason"] = reason_name(result.verdict.reason);
  }
  json["message"] = result.message;
  json["linux_error"] = result.linux_error;
  if (!result.state.empty()) json["state"] = result.state;
  return json;
}

// "ID WHY..." lines; '#' starts a comment line.
std::map<std::string, std::string> read_divergences(const std::string& path) {
  std::map<std::string, std::string> divergences;
  std::stringstream text(read_text_file(path));
  for (std::string line; std::getline(text, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find_first_of(" \t");
    const std::string id = line.substr(0, space);
    const size_t why = space == std::string::npos ? std::string::npos : line.find_first_not_of(" \t", space);
    divergences[id] = why == std::string::npos ? "" : line.substr(why);
  }
  return divergences;
}

struct CasesArgs {
  std::string input, maps, divergences_path;
  bool json_output = false, all = false;
  tools::CaseOptions options;
};

int cases(CasesArgs args) {
  const std::string& input = args.input;
  std::string& maps = args.maps;
  const std::string& divergences_path = args.divergences_path;
  const tools::CaseOptions& options = args.options;
  const bool all = args.all;
  if (maps.empty()) maps = (std::filesystem::path(input).parent_path() / "maps.json").string();
  // run_cases() reports unreadable files too; checking first gives the
  // usual "PATH: reason" line.
  (void)read_file(input);
  (void)read_file(maps);
  const std::map<std::string, std::string> divergences =
      divergences_path.empty() ? std::map<std::string, std::string>{} : read_divergences(divergences_path);

  const tools::CaseReport report = tools::run_cases(input, maps, options);
  if (!report.loaded) usage_error("cases", report.error);
  const size_t failed = report.false_accepts + report.false_rejects;
  auto documented = [&](const CaseResult& result) {
    return result.outcome == CaseOutcome::false_accept && divergences.count(result.id) != 0;
  };
  size_t documented_count = 0;
  for (const CaseResult& result : report.cases) documented_count += documented(result);
  const size_t false_accepts = report.false_accepts - documented_count;

  if (args.json_output) {
    Json cases = Json::array();
    for (const CaseResult& result : report.cases) {
      Json json = case_json(result);
      if (documented(result)) json["divergence"] = divergences.at(result.id);
      cases.push_back(json);
    }
    Json skips = Json::object();
    for (const auto& [reason, count] : report.skip_reasons) skips[reason] = count;
    Json json;
    json["file"] = input;
    json["maps"] = maps;
    json["privileged"] = options.privileged;
    json["total"] = report.total;
    json["passed"] = report.agree;
    json["failed"] = failed;
    json["false_accepts"] = false_accepts;
    json["divergences"] = documented_count;
    json["false_rejects"] = report.false_rejects;
    json["skipped"] = report.skipped;
    json["skip_reasons"] = skips;
    json["cases"] = cases;
    print_json(json);
  } else {
    for (const CaseResult& result : report.cases) {
      if (all) {
        std::printf("%s\n", all_line(result).c_str());
      } else if (documented(result)) {
        std::printf("DIVERGENCE %s %s: %s\n", result.id.c_str(), result.name.c_str(),
                    divergences.at(result.id).c_str());
      } else if (result.outcome == CaseOutcome::false_accept) {
        std::printf("FALSE-ACCEPT %s %s\n", result.id.c_str(), result.name.c_str());
      } else if (result.outcome == CaseOutcome::false_reject) {
        std::printf("FALSE-REJECT %s %s: %s\n", result.id.c_str(), result.name.c_str(), why_rejected(result).c_str());
        std::stringstream state(result.state);
        for (std::string line; std::getline(state, line);) std::printf("    %s\n", line.c_str());
      }
    }
    for (const auto& [reason, count] : report.skip_reasons) std::printf("SKIPPED %zu: %s\n", count, reason.c_str());
    if (!divergences_path.empty()) std::printf("documented divergences: %zu\n", documented_count);
    std::printf("false-accepts: %zu, false-rejects: %zu, skipped: %zu\n", false_accepts, report.false_rejects,
                report.skipped);
    std::printf("%zu passed, %zu failed\n", report.agree, failed);
  }
  std::fflush(stdout);
  return false_accepts == 0 ? kExitOk : kExitTrap;
}

}  // namespace

Run declare_cases(CLI::App& app) {
  auto args = std::make_shared<CasesArgs>();
  add_input(app, args->input, "Linux verifier selftest cases, one JSON object a line")->type_name("FILE.jsonl");
  app.add_option("--maps", args->maps, "the cases' map kinds (default: maps.json beside FILE)")
      ->type_name("MAPS.json");
  app.add_option("--divergences", args->divergences_path,
                 "'ID why' lines: false accepts that are documented divergences, not failures")
      ->type_name("FILE");
  app.add_option("--prefix", args->options.id_prefix, "only the cases whose id starts with ID")->type_name("ID");
  app.add_flag_callback("--unprivileged", [args] { args->options.privileged = false; },
                        "score unprivileged runs against expect_unpriv");
  app.add_flag("--state", args->options.with_state, "the abstract state under each false reject");
  app.add_flag("--all", args->all, "one line per case, with its verdict");
  app.add_flag("--json", args->json_output, "one JSON object");
  return [args] { return cases(*args); };
}

}  // namespace keel::cli
