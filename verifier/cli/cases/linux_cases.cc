#include "linux_cases.h"

#include <cstdint>
#include <fstream>
#include <sstream>

#include "case_json.h"
#include "keel/decode.h"
#include "keel/platform_linux.h"
#include "linux_case.h"

namespace keel::tools {
namespace {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

bool hex_bytes(const std::string& hex, std::vector<uint8_t>& out) {
  if (hex.size() % 2 != 0) return false;
  out.resize(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return true;
}

// `needs` values keel models (the map kinds keel::MapType has).
bool modelled_need(const std::string& need) {
  return need == "prog_array" || need == "map_rdonly_wronly" || need == "perf_event_array" ||
         need == "stack_trace" || need == "ringbuf";
}

// The platform's Linux map-type table; array_of_maps and hash_of_maps get
// no inner map template here (maps.json gives it as prose): lookups are rejected.
MapType map_type(const std::string& name) {
  const LinuxMapType* row = find_linux_map_type(name.c_str());
  return row != nullptr ? row->type : MapType::other;
}

bool has(const Json& array, const char* value) {
  if (!array.is_array()) return false;
  for (const Json& v : array) {
    if (as_text(v) == value) return true;
  }
  return false;
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// The case's JSON line into `p`: skipped (skip_reason) or ready to verify.
void prepare_one(const Json& c, const Json& maps_json, const CaseOptions& options, const std::string& dir,
                 PreparedCase& p) {
  p.id = text(c, "id");
  p.name = text(c, "name");
  p.expect_accept = text(c, "expect") == "accept";
  p.privileged = options.privileged;
  auto skip = [&](const std::string& why) { p.skip_reason = why; };
  if (!options.privileged) {
    // Unprivileged runs are scored against expect_unpriv.
    if (member(c, "expect_unpriv").is_null()) return skip("no unprivileged verdict");
    p.expect_accept = text(c, "expect_unpriv") == "accept";
  }
  p.linux_error = text(c, "errstr");
  // keel names the cgroup socket types by attach type (libbpf's names, as
  // the cases give expected_attach_type); other types by program type.
  const ProgramType* type = nullptr;
  if (!member(c, "expected_attach_type").is_null()) {
    p.type_name = text(c, "expected_attach_type");
    type = find_program_type(linux_platform(), p.type_name.c_str());
  }
  const bool attach_typed = type != nullptr;
  if (type == nullptr) {
    p.type_name = text(c, "prog_type");
    type = find_program_type(linux_platform(), p.type_name.c_str());
  }
  for (const Json& need : items(c, "needs")) {
    if (as_text(need) == "expected_attach_type" && attach_typed) continue;
    if (!modelled_need(as_text(need))) return skip("needs:" + as_text(need));
  }
  if (!items(c, "kfuncs").empty()) return skip("kfuncs");
  if (flag(c, "has_btf_types")) return skip("btf");
  if (type == nullptr) return skip("prog_type:" + text(c, "prog_type"));
  p.type = type;
  std::vector<uint8_t>& bytes = p.bytes;
  if (!member(c, "insns_file").is_null()) {
    std::string raw;
    if (!read_file(dir + "/" + text(c, "insns_file"), raw)) return skip("insns_file missing");
    bytes.assign(raw.begin(), raw.end());
  } else if (!hex_bytes(text(c, "insns"), bytes)) {
    return skip("bad insns hex");
  }
  // Maps: one descriptor per entry of `maps`, the fixups name lddw slots.
  const size_t slots = bytes.size() / 8;
  // An unpatched map lddw names no map (Linux: an invalid fd).
  for (size_t i = 0; i + 1 < slots; ++i) {
    const uint8_t opcode = bytes[i * 8];
    const uint8_t src = static_cast<uint8_t>(bytes[i * 8 + 1] >> 4);
    if (opcode == 0x18 && (src == 1 || src == 2)) {
      for (int b = 4; b < 8; ++b) bytes[i * 8 + b] = 0xff;
    }
    if (opcode == 0x18) ++i;
  }
  for (const Json& m : items(c, "maps")) {
    const Json& desc = member(maps_json, text(m, "kind"));
    if (desc.is_null()) return skip("map kind:" + text(m, "kind"));
    if (!member(desc, "needs").is_null() && !modelled_need(text(desc, "needs"))) {
      return skip("needs:" + text(desc, "needs"));
    }
    MapDescriptor d;
    d.type = map_type(text(desc, "map_type"));
    d.key_size = static_cast<uint32_t>(number(desc, "key_size"));
    d.value_size = static_cast<uint32_t>(number(desc, "value_size"));
    d.max_entries = static_cast<uint32_t>(number(desc, "max_entries"));
    const std::string flags = text(desc, "map_flags");
    d.read_only = flags.find("BPF_F_RDONLY_PROG") != std::string::npos;
    d.write_only = flags.find("BPF_F_WRONLY_PROG") != std::string::npos;
    const uint32_t index = static_cast<uint32_t>(p.maps.size());
    p.maps.push_back(d);
    for (const Json& fix : items(m, "fixups")) {
      const size_t slot = static_cast<size_t>(as_number(fix));
      if (slot >= slots) return skip("bad fixup");
      for (int b = 0; b < 4; ++b) bytes[slot * 8 + 4 + b] = static_cast<uint8_t>(index >> (8 * b));
    }
  }
  p.strict_alignment = has(member(c, "prog_flags_names"), "BPF_F_STRICT_ALIGNMENT");
}

suite::LinuxCase linux_case(const PreparedCase& p) {
  suite::LinuxCase c;
  c.bytes = p.bytes.data();
  c.size = p.bytes.size();
  c.type = p.type;
  c.maps = p.maps.data();
  c.map_count = static_cast<uint32_t>(p.maps.size());
  c.strict_alignment = p.strict_alignment;
  c.privileged = p.privileged;
  return c;
}

void run_one(const Json& json, const Json& maps_json, const CaseOptions& options,
             const std::string& dir, std::vector<uint8_t>& arena_memory, CaseResult& r) {
  PreparedCase p;
  prepare_one(json, maps_json, options, dir, p);
  r.id = p.id;
  r.name = p.name;
  r.expect_accept = p.expect_accept;
  r.linux_error = p.linux_error;
  if (!p.skip_reason.empty()) {
    r.outcome = CaseOutcome::skipped;
    r.skip_reason = p.skip_reason;
    return;
  }
  const suite::LinuxCase c = linux_case(p);
  Arena arena(arena_memory.data(), arena_memory.size());
  Program program;
  suite::check_linux_case(c, arena, program, r.check);
  const bool accepted = r.check.accepted();
  if (!r.check.decoded.ok()) r.decode_error = decode_error_name(r.check.decoded.error);
  r.verdict = r.check.verdict;
  r.message = r.check.message;
  r.outcome = suite::score(accepted, r.expect_accept);
  if (r.outcome != CaseOutcome::agree && options.with_state && r.check.decoded.ok() && !accepted) {
    std::vector<char> text(4096);
    Arena again(arena_memory.data() + arena.used(), arena_memory.size() - arena.used());
    describe_state(program, *c.type, suite::linux_case_verify_options(c), again, r.verdict.pc, text.data(),
                   text.size());
    r.state = text.data();
  }
}

// Reads both files and calls `each(json, maps_json, dir)` per case line
// (after the --prefix filter); false with `error` set on any problem.
template <class Each>
bool for_each_case(const std::string& jsonl_path, const std::string& maps_path, const CaseOptions& options,
                   std::string& error, Each each) {
  std::string maps_text;
  std::string cases_text;
  if (!read_file(maps_path, maps_text)) {
    error = "cannot read " + maps_path;
    return false;
  }
  if (!read_file(jsonl_path, cases_text)) {
    error = "cannot read " + jsonl_path;
    return false;
  }
  Json maps_json;
  if (!parse_json(maps_text, maps_json, error)) {
    error = maps_path + ": " + error;
    return false;
  }
  const std::string dir = dir_of(jsonl_path);
  std::istringstream lines(cases_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    Json c;
    if (!parse_json(line, c, error)) {
      error = "bad line: " + error;
      return false;
    }
    if (!options.id_prefix.empty() && text(c, "id").rfind(options.id_prefix, 0) != 0) continue;
    each(c, maps_json, dir);
  }
  return true;
}

}  // namespace

CaseReport run_cases(const std::string& jsonl_path, const std::string& maps_path,
                     const CaseOptions& options) {
  CaseReport report;
  // A file that cannot be read or parsed before the first case is not loaded;
  // a bad line later ends the run, also as not loaded.
  std::vector<uint8_t> arena_memory(options.arena_bytes);
  report.loaded = for_each_case(jsonl_path, maps_path, options, report.error,
                                [&](const Json& c, const Json& maps_json, const std::string& dir) {
    CaseResult r;
    run_one(c, maps_json, options, dir, arena_memory, r);
    ++report.total;
    switch (r.outcome) {
      case CaseOutcome::agree: ++report.agree; break;
      case CaseOutcome::false_accept: ++report.false_accepts; break;
      case CaseOutcome::false_reject: ++report.false_rejects; break;
      case CaseOutcome::skipped:
        ++report.skipped;
        ++report.skip_reasons[r.skip_reason];
        break;
    }
    report.cases.push_back(std::move(r));
  });
  return report;
}

CasePack prepare_cases(const std::string& jsonl_path, const std::string& maps_path, const CaseOptions& options) {
  CasePack pack;
  pack.loaded = for_each_case(jsonl_path, maps_path, options, pack.error,
                              [&](const Json& c, const Json& maps_json, const std::string& dir) {
    PreparedCase p;
    prepare_one(c, maps_json, options, dir, p);
    pack.cases.push_back(std::move(p));
  });
  return pack;
}

}  // namespace keel::tools
