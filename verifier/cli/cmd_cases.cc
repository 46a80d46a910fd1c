// keel cases FILE.jsonl [--maps maps.json] [--divergences FILE] [--unprivileged]
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

#include "args.h"
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

std::string case_json(const CaseResult& result) {
  JsonObject json;
  json.add("id", result.id).add("name", result.name).add("expect", result.expect_accept ? "accept" : "reject")
      .add("outcome", tools::outcome_name(result.outcome));
  if (result.outcome == CaseOutcome::skipped) {
    json.null("verdict").add("skip_reason", result.skip_reason);
    return json.str();
  }
  const bool accepted = result.decode_error.empty() && result.verdict.ok();
  json.add("verdict", accepted ? "accept" : "reject");
  if (accepted) {
    json.null("pc").null("reason");
  } else if (!result.decode_error.empty()) {
    json.null("pc").add("reason", "decode:" + result.decode_error);
  } else {
    json.add("pc", uint64_t{result.verdict.pc}).add("reason", reason_name(result.verdict.reason));
  }
  json.add("message", result.message).add("linux_error", result.linux_error);
  if (!result.state.empty()) json.add("state", result.state);
  return json.str();
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

}  // namespace

int cmd_cases(const std::vector<std::string>& arguments) {
  Args args("cases", arguments);
  std::string input, maps, divergences_path;
  bool json_output = false, all = false;
  tools::CaseOptions options;
  while (!args.done()) {
    const std::string& arg = args.take();
    if (arg == "--maps") {
      maps = args.value_of(arg);
    } else if (arg == "--divergences") {
      divergences_path = args.value_of(arg);
    } else if (arg == "--prefix") {
      options.id_prefix = args.value_of(arg);
    } else if (arg == "--unprivileged") {
      options.privileged = false;
    } else if (arg == "--state") {
      options.with_state = true;
    } else if (arg == "--json") {
      json_output = true;
    } else if (arg == "--all") {
      all = true;
    } else {
      args.single_input(arg, input);
    }
  }
  if (input.empty()) args.fail("missing input file (keel cases FILE.jsonl [--maps maps.json])");
  if (maps.empty()) maps = (std::filesystem::path(input).parent_path() / "maps.json").string();
  // run_cases() reports unreadable files too; checking first gives the
  // usual "PATH: reason" line.
  (void)read_file(input);
  (void)read_file(maps);
  const std::map<std::string, std::string> divergences =
      divergences_path.empty() ? std::map<std::string, std::string>{} : read_divergences(divergences_path);

  const tools::CaseReport report = tools::run_cases(input, maps, options);
  if (!report.loaded) args.fail(report.error);
  const size_t failed = report.false_accepts + report.false_rejects;
  auto documented = [&](const CaseResult& result) {
    return result.outcome == CaseOutcome::false_accept && divergences.count(result.id) != 0;
  };
  size_t documented_count = 0;
  for (const CaseResult& result : report.cases) documented_count += documented(result);
  const size_t false_accepts = report.false_accepts - documented_count;

  if (json_output) {
    JsonArray cases;
    for (const CaseResult& result : report.cases) {
      std::string json = case_json(result);
      if (documented(result))
        json.insert(json.size() - 1, ", \"divergence\": " + json_quote(divergences.at(result.id)));
      cases.push(json);
    }
    JsonObject skips;
    for (const auto& [reason, count] : report.skip_reasons) skips.add(reason.c_str(), uint64_t{count});
    JsonObject json;
    json.add("file", input).add("maps", maps).boolean("privileged", options.privileged)
        .add("total", uint64_t{report.total}).add("passed", uint64_t{report.agree}).add("failed", uint64_t{failed})
        .add("false_accepts", uint64_t{false_accepts}).add("divergences", uint64_t{documented_count})
        .add("false_rejects", uint64_t{report.false_rejects})
        .add("skipped", uint64_t{report.skipped}).raw("skip_reasons", skips.str()).raw("cases", cases.str());
    std::printf("%s\n", json.str().c_str());
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

}  // namespace keel::cli
