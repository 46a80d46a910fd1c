#include "linux_cases.h"

#include <cstdint>
#include <fstream>
#include <sstream>

#include "json.h"
#include "keel/decode.h"
#include "keel/platform_linux.h"

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

MapType map_type(const std::string& name) {
  if (name == "BPF_MAP_TYPE_ARRAY") return MapType::array;
  if (name == "BPF_MAP_TYPE_HASH") return MapType::hash;
  if (name == "BPF_MAP_TYPE_PERCPU_ARRAY") return MapType::percpu_array;
  if (name == "BPF_MAP_TYPE_PERCPU_HASH") return MapType::percpu_hash;
  if (name == "BPF_MAP_TYPE_LRU_HASH") return MapType::lru_hash;
  if (name == "BPF_MAP_TYPE_LRU_PERCPU_HASH") return MapType::lru_percpu_hash;
  if (name == "BPF_MAP_TYPE_PROG_ARRAY") return MapType::prog_array;
  if (name == "BPF_MAP_TYPE_PERF_EVENT_ARRAY") return MapType::perf_event_array;
  if (name == "BPF_MAP_TYPE_RINGBUF") return MapType::ringbuf;
  if (name == "BPF_MAP_TYPE_STACK_TRACE") return MapType::stack_trace;
  if (name == "BPF_MAP_TYPE_LPM_TRIE") return MapType::lpm_trie;
  if (name == "BPF_MAP_TYPE_CGROUP_ARRAY") return MapType::cgroup_array;
  if (name == "BPF_MAP_TYPE_DEVMAP") return MapType::devmap;
  if (name == "BPF_MAP_TYPE_DEVMAP_HASH") return MapType::devmap_hash;
  if (name == "BPF_MAP_TYPE_CPUMAP") return MapType::cpumap;
  if (name == "BPF_MAP_TYPE_XSKMAP") return MapType::xskmap;
  // No inner map template here (maps.json gives it as prose): lookups are rejected.
  if (name == "BPF_MAP_TYPE_ARRAY_OF_MAPS") return MapType::array_of_maps;
  if (name == "BPF_MAP_TYPE_HASH_OF_MAPS") return MapType::hash_of_maps;
  return MapType::other;
}

bool helper_exists(const void* context, int32_t id) {
  return find_helper(*static_cast<const ProgramType*>(context), id) != nullptr;
}

bool has(const Json& array, const char* value) {
  for (const Json& v : array.array) {
    if (v.string == value) return true;
  }
  return false;
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

void run_one(const Json& c, const Json& maps_json, const CaseOptions& options,
             const std::string& dir, std::vector<uint8_t>& arena_memory, CaseResult& r) {
  r.id = c["id"].str();
  r.name = c["name"].str();
  r.expect_accept = c["expect"].str() == "accept";
  if (!options.privileged) {
    // Unprivileged runs are scored against expect_unpriv.
    if (c["expect_unpriv"].is_null()) {
      r.outcome = CaseOutcome::skipped;
      r.skip_reason = "no unprivileged verdict";
      return;
    }
    r.expect_accept = c["expect_unpriv"].str() == "accept";
  }
  r.linux_error = c["errstr"].str();
  auto skip = [&](const std::string& why) {
    r.outcome = CaseOutcome::skipped;
    r.skip_reason = why;
  };
  // keel names the cgroup socket types by attach type (libbpf's names, as
  // the cases give expected_attach_type); other types by program type.
  const ProgramType* type = nullptr;
  if (!c["expected_attach_type"].is_null()) {
    type = find_program_type(linux_platform(), c["expected_attach_type"].str().c_str());
  }
  const bool attach_typed = type != nullptr;
  if (type == nullptr) type = find_program_type(linux_platform(), c["prog_type"].str().c_str());
  for (const Json& need : c["needs"].array) {
    if (need.str() == "expected_attach_type" && attach_typed) continue;
    if (!modelled_need(need.str())) return skip("needs:" + need.str());
  }
  if (!c["kfuncs"].array.empty()) return skip("kfuncs");
  if (c["has_btf_types"].boolean) return skip("btf");
  if (type == nullptr) return skip("prog_type:" + c["prog_type"].str());
  std::vector<uint8_t> bytes;
  if (!c["insns_file"].is_null()) {
    std::string raw;
    if (!read_file(dir + "/" + c["insns_file"].str(), raw)) return skip("insns_file missing");
    bytes.assign(raw.begin(), raw.end());
  } else if (!hex_bytes(c["insns"].str(), bytes)) {
    return skip("bad insns hex");
  }
  // Maps: one descriptor per entry of `maps`, the fixups name lddw slots.
  std::vector<MapDescriptor> maps;
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
  for (const Json& m : c["maps"].array) {
    const Json& desc = maps_json[m["kind"].str()];
    if (desc.is_null()) return skip("map kind:" + m["kind"].str());
    if (!desc["needs"].is_null() && !modelled_need(desc["needs"].str())) {
      return skip("needs:" + desc["needs"].str());
    }
    MapDescriptor d;
    d.type = map_type(desc["map_type"].str());
    d.key_size = static_cast<uint32_t>(desc["key_size"].number);
    d.value_size = static_cast<uint32_t>(desc["value_size"].number);
    d.max_entries = static_cast<uint32_t>(desc["max_entries"].number);
    const std::string flags = desc["map_flags"].str();
    d.read_only = flags.find("BPF_F_RDONLY_PROG") != std::string::npos;
    d.write_only = flags.find("BPF_F_WRONLY_PROG") != std::string::npos;
    const uint32_t index = static_cast<uint32_t>(maps.size());
    maps.push_back(d);
    for (const Json& fix : m["fixups"].array) {
      const size_t slot = static_cast<size_t>(fix.number);
      if (slot >= slots) return skip("bad fixup");
      for (int b = 0; b < 4; ++b) bytes[slot * 8 + 4 + b] = static_cast<uint8_t>(index >> (8 * b));
    }
  }
  Arena arena(arena_memory.data(), arena_memory.size());
  DecodeOptions decode_options;
  decode_options.max_insns = 1u << 20;
  decode_options.helper_exists = &helper_exists;
  decode_options.helper_context = type;
  Program program;
  const DecodeResult decoded = decode(bytes.data(), bytes.size(), decode_options, arena, program);
  bool accepted = false;
  if (!decoded.ok()) {
    r.decode_error = decode_error_name(decoded.error);
    r.message = "decode: " + r.decode_error + " at pc " + std::to_string(decoded.pc);
  } else {
    VerifyOptions vo;
    vo.privileged = options.privileged;
    vo.strict_alignment = has(c["prog_flags_names"], "BPF_F_STRICT_ALIGNMENT");
    vo.linux_rules = true;
    vo.allow_uninit_stack_reads = options.privileged;
    vo.speculative_paths = !options.privileged;
    vo.maps = maps.data();
    vo.map_count = static_cast<uint32_t>(maps.size());
    r.verdict = verify(program, *type, vo, arena);
    char text[256];
    describe(r.verdict, text, sizeof(text));
    r.message = text;
    accepted = r.verdict.ok();
  }
  if (accepted == r.expect_accept) {
    r.outcome = CaseOutcome::agree;
  } else {
    r.outcome = accepted ? CaseOutcome::false_accept : CaseOutcome::false_reject;
    if (options.with_state && decoded.ok() && !accepted) {
      VerifyOptions vo;
      vo.privileged = options.privileged;
      vo.strict_alignment = has(c["prog_flags_names"], "BPF_F_STRICT_ALIGNMENT");
      vo.linux_rules = true;
      vo.allow_uninit_stack_reads = options.privileged;
      vo.speculative_paths = !options.privileged;
      vo.maps = maps.data();
      vo.map_count = static_cast<uint32_t>(maps.size());
      std::vector<char> text(4096);
      Arena again(arena_memory.data() + arena.used(), arena_memory.size() - arena.used());
      describe_state(program, *type, vo, again, r.verdict.pc, text.data(), text.size());
      r.state = text.data();
    }
  }
}

}  // namespace

const char* outcome_name(CaseOutcome outcome) {
  switch (outcome) {
    case CaseOutcome::agree: return "agree";
    case CaseOutcome::false_accept: return "false_accept";
    case CaseOutcome::false_reject: return "false_reject";
    case CaseOutcome::skipped: return "skipped";
  }
  return "?";
}

CaseReport run_cases(const std::string& jsonl_path, const std::string& maps_path,
                     const CaseOptions& options) {
  CaseReport report;
  std::string maps_text;
  std::string cases_text;
  if (!read_file(maps_path, maps_text)) {
    report.error = "cannot read " + maps_path;
    return report;
  }
  if (!read_file(jsonl_path, cases_text)) {
    report.error = "cannot read " + jsonl_path;
    return report;
  }
  Json maps_json;
  std::string error;
  if (!parse_json(maps_text, maps_json, error)) {
    report.error = maps_path + ": " + error;
    return report;
  }
  report.loaded = true;
  const std::string dir = dir_of(jsonl_path);
  std::vector<uint8_t> arena_memory(options.arena_bytes);
  std::istringstream lines(cases_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    Json c;
    if (!parse_json(line, c, error)) {
      report.error = "bad line: " + error;
      report.loaded = false;
      return report;
    }
    if (!options.id_prefix.empty() && c["id"].str().rfind(options.id_prefix, 0) != 0) continue;
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
  }
  return report;
}

}  // namespace keel::tools
