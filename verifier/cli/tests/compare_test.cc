// `keel compare`'s kernel side (linux_loader.h) without depending on bpf(2):
// the log parser on recorded logs, the map and program type translation
// (libbpf's names), the lddw patching, and classify_load(), which decides
// accepted / rejected / n/a from what a load left. Where this process may
// call bpf(2), two tests also load into the real kernel (a raw program,
// and an object through libbpf); elsewhere they are skipped, saying why.
#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "linux_loader.h"

namespace keel::cli {
namespace {

// Linux 6.1, log_level 1|4, a socket filter reading r0 before writing it.
constexpr const char* kRejectedLog =
    "func#0 @0\n"
    "0: R1=ctx(off=0,imm=0) R10=fp0\n"
    "0: (95) exit\n"
    "R0 !read_ok\n"
    "verification time 13 usec\n"
    "stack depth 0\n"
    "processed 1 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n";

// Linux 6.18, log_level 4, an accepted program.
constexpr const char* kAcceptedLog =
    "verification time 18 usec\n"
    "stack depth 8\n"
    "processed 14 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 mark_read 1\n";

TEST(LinuxLog, RejectionGivesTimeInsnsAndTheErrorLine) {
  const LinuxLog log = parse_linux_log(kRejectedLog);
  EXPECT_EQ(log.verification_us, 13);
  EXPECT_EQ(log.processed_insns, 1);
  EXPECT_EQ(log.last_line, "R0 !read_ok");
}

TEST(LinuxLog, AcceptedHasNoErrorLine) {
  const LinuxLog log = parse_linux_log(kAcceptedLog);
  EXPECT_EQ(log.verification_us, 18);
  EXPECT_EQ(log.processed_insns, 14);
  EXPECT_EQ(log.last_line, "");
}

TEST(LinuxLog, WithoutStatisticsTheNumbersAreMissing) {
  // An error before the verifier's main pass (and log_level 1 alone) prints no statistics.
  const LinuxLog log = parse_linux_log("fd 7 is not pointing to valid bpf_map\n");
  EXPECT_EQ(log.verification_us, -1);
  EXPECT_EQ(log.processed_insns, -1);
  EXPECT_EQ(log.last_line, "fd 7 is not pointing to valid bpf_map");
  EXPECT_EQ(parse_linux_log("").last_line, "");
}

TEST(LinuxMapTranslation, RawMapOption) {
  MapDescriptor hash;
  hash.type = MapType::hash;
  hash.key_size = 4;
  hash.value_size = 16;
  hash.max_entries = 64;
  const LinuxMap map = linux_map("counters", "hash", hash);
  EXPECT_EQ(map.name, "counters");
  EXPECT_EQ(map.type, uint32_t{BPF_MAP_TYPE_HASH});
  EXPECT_EQ(map.key_size, 4u);
  EXPECT_EQ(map.value_size, 16u);
  EXPECT_EQ(map.max_entries, 64u);
  EXPECT_EQ(map.flags, 0u);
  EXPECT_TRUE(map.problem.empty());

  MapDescriptor read_only = hash;
  read_only.type = MapType::lru_percpu_hash;
  read_only.read_only = true;
  EXPECT_EQ(linux_map("r", "lru_percpu_hash", read_only).type, uint32_t{BPF_MAP_TYPE_LRU_PERCPU_HASH});
  EXPECT_EQ(linux_map("r", "lru_percpu_hash", read_only).flags, uint32_t{BPF_F_RDONLY_PROG});

  MapDescriptor events;
  events.type = MapType::perf_event_array;
  events.key_size = events.value_size = 4;
  EXPECT_EQ(linux_map("events", "perf_event_array", events).type, uint32_t{BPF_MAP_TYPE_PERF_EVENT_ARRAY});
  EXPECT_GT(linux_map("events", "perf_event_array", events).max_entries, 0u);  // libbpf: one per possible CPU

  MapDescriptor other;
  other.type = MapType::other;
  EXPECT_FALSE(linux_map("x", "no_such_type", other).problem.empty());
  EXPECT_NE(linux_map("x", "array_of_maps", other).problem.find("no inner map"), std::string::npos);
}

TEST(LinuxMapTranslation, GlobalDataAndObjectMaps) {
  const uint8_t bytes[6] = {1, 2, 3, 4, 5, 6};
  MapDescriptor data;
  data.type = MapType::array;
  data.key_size = 4;
  data.value_size = sizeof bytes;
  data.max_entries = 1;
  data.read_only = true;
  ElfMap rodata;
  rodata.name = ".rodata";
  rodata.kind = ElfMapKind::global_data;
  rodata.linux_type = BPF_MAP_TYPE_ARRAY;
  rodata.map_flags = BPF_F_RDONLY_PROG;
  rodata.initial = bytes;
  const LinuxMap map = linux_map(data, rodata);
  EXPECT_EQ(map.type, uint32_t{BPF_MAP_TYPE_ARRAY});
  EXPECT_EQ(map.flags, uint32_t{BPF_F_RDONLY_PROG | BPF_F_MMAPABLE});
  EXPECT_EQ(map.initial, std::vector<uint8_t>(bytes, bytes + sizeof bytes));
  EXPECT_TRUE(map.freeze);

  ElfMap bss = rodata;
  bss.name = ".bss";
  bss.map_flags = 0;
  bss.initial = nullptr;
  data.read_only = false;
  const LinuxMap zeroed = linux_map(data, bss);
  EXPECT_EQ(zeroed.flags, uint32_t{BPF_F_MMAPABLE});
  EXPECT_TRUE(zeroed.initial.empty());
  EXPECT_FALSE(zeroed.freeze);

  // A legacy or BTF map keeps its Linux type and flags as written.
  MapDescriptor lpm;
  lpm.type = MapType::other;
  lpm.key_size = 8;
  lpm.value_size = 8;
  lpm.max_entries = 16;
  ElfMap trie;
  trie.name = "routes";
  trie.kind = ElfMapKind::btf;
  trie.linux_type = BPF_MAP_TYPE_LPM_TRIE;
  trie.map_flags = BPF_F_NO_PREALLOC;
  const LinuxMap routes = linux_map(lpm, trie);
  EXPECT_EQ(routes.type, uint32_t{BPF_MAP_TYPE_LPM_TRIE});
  EXPECT_EQ(routes.flags, uint32_t{BPF_F_NO_PREALLOC});
  EXPECT_TRUE(routes.problem.empty());
  EXPECT_FALSE(routes.freeze);

  ElfMap outer = trie;
  outer.linux_type = BPF_MAP_TYPE_ARRAY_OF_MAPS;
  EXPECT_NE(linux_map(lpm, outer).problem.find("inner map"), std::string::npos);
  ElfMap storage = trie;
  storage.linux_type = BPF_MAP_TYPE_SK_STORAGE;
  EXPECT_NE(linux_map(lpm, storage).problem.find("BTF"), std::string::npos);
}

TEST(LinuxProgramTypes, NamesSectionsAndAttachTypes) {
  LinuxProgramType type;
  EXPECT_EQ(linux_program_type("xdp", "", type), "");
  EXPECT_EQ(type.prog_type, uint32_t{BPF_PROG_TYPE_XDP});
  EXPECT_EQ(type.expected_attach_type, 0u);
  EXPECT_EQ(linux_program_type("sched_cls", "tc", type), "");
  EXPECT_EQ(type.prog_type, uint32_t{BPF_PROG_TYPE_SCHED_CLS});
  EXPECT_EQ(linux_program_type("cgroup_skb", "cgroup_skb/egress", type), "");
  EXPECT_EQ(type.prog_type, uint32_t{BPF_PROG_TYPE_CGROUP_SKB});
  EXPECT_EQ(type.expected_attach_type, uint32_t{BPF_CGROUP_INET_EGRESS});
  EXPECT_EQ(linux_program_type("cgroup_sock_addr", "cgroup/connect4", type), "");
  EXPECT_EQ(type.expected_attach_type, uint32_t{BPF_CGROUP_INET4_CONNECT});
  EXPECT_EQ(linux_program_type("cgroup_sock", "cgroup/sock", type), "");
  EXPECT_EQ(type.expected_attach_type, uint32_t{BPF_CGROUP_INET_SOCK_CREATE});
  // A section of another type gives no attach type.
  EXPECT_EQ(linux_program_type("cgroup_skb", "xdp", type), "");
  EXPECT_EQ(type.expected_attach_type, 0u);
  EXPECT_NE(linux_program_type("nosuch", "", type), "");
}

// lddw r1, <src> imm; second slot imm = `next`.
void lddw(std::vector<uint8_t>& out, uint8_t src, int32_t imm, int32_t next = 0) {
  uint8_t slots[16] = {0x18, static_cast<uint8_t>(1 | src << 4)};
  std::memcpy(slots + 4, &imm, 4);
  std::memcpy(slots + 12, &next, 4);
  out.insert(out.end(), slots, slots + 16);
}

void exit_insn(std::vector<uint8_t>& out) {
  const uint8_t slot[8] = {0x95};
  out.insert(out.end(), slot, slot + 8);
}

int32_t imm_at(const std::vector<uint8_t>& insns, size_t slot) {
  int32_t imm = 0;
  std::memcpy(&imm, insns.data() + slot * 8 + 4, 4);
  return imm;
}

TEST(MapReferences, FoundAndPatchedToFds) {
  std::vector<uint8_t> insns;
  lddw(insns, BPF_PSEUDO_MAP_FD, 2);
  lddw(insns, BPF_PSEUDO_MAP_VALUE, 0, 12);
  lddw(insns, BPF_PSEUDO_MAP_IDX, 2);
  lddw(insns, BPF_PSEUDO_MAP_IDX_VALUE, 7);
  lddw(insns, 0, 5);  // a plain 64-bit constant: no map
  exit_insn(insns);
  EXPECT_EQ(referenced_maps(insns.data(), insns.size() / 8), (std::vector<uint32_t>{0, 2, 7}));

  patch_map_references(insns, {30, -1, 32});
  EXPECT_EQ(insns[1] >> 4, BPF_PSEUDO_MAP_FD);
  EXPECT_EQ(imm_at(insns, 0), 32);
  EXPECT_EQ(insns[17] >> 4, BPF_PSEUDO_MAP_VALUE);
  EXPECT_EQ(imm_at(insns, 2), 30);
  EXPECT_EQ(imm_at(insns, 3), 12);  // the offset into the value stays
  EXPECT_EQ(insns[33] >> 4, BPF_PSEUDO_MAP_FD);
  EXPECT_EQ(imm_at(insns, 4), 32);
  EXPECT_EQ(insns[49] >> 4, BPF_PSEUDO_MAP_VALUE);
  EXPECT_EQ(imm_at(insns, 6), -1);  // index 7 has no map: a bad fd
  EXPECT_EQ(insns[65] >> 4, 0);
  EXPECT_EQ(imm_at(insns, 8), 5);
}

TEST(ClassifyLoad, TheVerifiersLogDecidesBetweenAVerdictAndNotApplicable) {
  // Loaded.
  LinuxResult result = classify_load(0, kAcceptedLog, "", "");
  EXPECT_EQ(result.outcome, LinuxOutcome::accepted);
  EXPECT_EQ(result.log.verification_us, 18);

  // Refused with a log: the verifier ran, a rejection (EPERM too: a
  // CAP_BPF-only feature is the verifier's verdict).
  result = classify_load(EACCES, kRejectedLog, "libbpf: prog 'x': BPF program load failed", "");
  EXPECT_EQ(result.outcome, LinuxOutcome::rejected);
  EXPECT_EQ(result.message, "EACCES: R0 !read_ok");
  result = classify_load(EPERM, "loading/calling other bpf or kernel functions are allowed for CAP_BPF\n", "", "");
  EXPECT_EQ(result.outcome, LinuxOutcome::rejected);

  // Refused without a log: bpf(2) itself (EPERM, ENOSYS) ...
  result = classify_load(EPERM, "", "", "BPF_MAP_CREATE");
  EXPECT_EQ(result.outcome, LinuxOutcome::not_permitted);
  EXPECT_NE(result.message.find("not permitted here (EPERM)"), std::string::npos);
  EXPECT_EQ(classify_load(ENOSYS, "", "", "").outcome, LinuxOutcome::not_permitted);

  // ... or what the loader or kernel lacks: n/a, with the loader's reason
  // or the call that failed, never a verdict.
  result = classify_load(EINVAL, "", "libbpf: map 'outer': inner map definition is missing", "libbpf cannot load");
  EXPECT_EQ(result.outcome, LinuxOutcome::unavailable);
  EXPECT_EQ(result.message, "libbpf: map 'outer': inner map definition is missing");
  result = classify_load(EINVAL, "", "", "BPF_PROG_LOAD failed before verification (program type xdp, attach type 0)");
  EXPECT_EQ(result.outcome, LinuxOutcome::unavailable);
  EXPECT_EQ(result.message, "BPF_PROG_LOAD failed before verification (program type xdp, attach type 0): EINVAL");

  // A CO-RE relocation libbpf could not apply: it poisons the instruction
  // with call 0xbad2310 and the verifier refuses that call; n/a.
  result = classify_load(EINVAL, "0: (85) call unknown#195896080\ninvalid func unknown#195896080\n", "", "");
  EXPECT_EQ(result.outcome, LinuxOutcome::unavailable);
  EXPECT_NE(result.message.find("CO-RE relocation failed"), std::string::npos);
}

TEST(ClassifyLoad, DeniedByTheEnvironmentIsNotPermitted) {
  // The switch the CLI tests use to stand in for a machine refusing bpf(2).
  std::vector<uint8_t> insns;
  exit_insn(insns);
  RawRequest request;
  request.insns = insns.data();
  request.slots = 1;
  setenv("KEEL_COMPARE_DENY_BPF", "1", 1);
  EXPECT_TRUE(bpf_denied_by_environment());
  const LinuxResult raw = load_raw_in_linux(request, LoadSettings{});
  ObjectRequest object;
  const LinuxResult from_object = load_object_in_linux(object, LoadSettings{});
  setenv("KEEL_COMPARE_DENY_BPF", "0", 1);
  EXPECT_FALSE(bpf_denied_by_environment());
  unsetenv("KEEL_COMPARE_DENY_BPF");
  EXPECT_EQ(raw.outcome, LinuxOutcome::not_permitted);
  EXPECT_EQ(from_object.outcome, LinuxOutcome::not_permitted);
}

// The real kernel, where this process may load programs.
RawRequest socket_filter(const std::vector<uint8_t>& insns) {
  RawRequest request;
  request.insns = insns.data();
  request.slots = insns.size() / 8;
  request.type.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  return request;
}

TEST(LoadInLinux, RawProgramsInTheRealKernelWherePermitted) {
  std::vector<uint8_t> reads_r0;  // exit: r0 never written
  exit_insn(reads_r0);
  LoadSettings settings;
  settings.runs = 2;
  settings.warm_up = true;
  const LinuxResult rejected = load_raw_in_linux(socket_filter(reads_r0), settings);
  if (rejected.outcome == LinuxOutcome::not_permitted) GTEST_SKIP() << "skipped: " << rejected.message;
  EXPECT_EQ(rejected.outcome, LinuxOutcome::rejected);
  EXPECT_NE(rejected.message.find("R0 !read_ok"), std::string::npos) << rejected.message;
  EXPECT_GE(rejected.verification_us, 0);

  std::vector<uint8_t> returns_zero = {0xb7, 0, 0, 0, 0, 0, 0, 0};  // mov64 r0, 0
  exit_insn(returns_zero);
  const LinuxResult accepted = load_raw_in_linux(socket_filter(returns_zero), settings);
  EXPECT_EQ(accepted.outcome, LinuxOutcome::accepted) << accepted.message;
  EXPECT_EQ(accepted.log.processed_insns, 2);

  // A map the program names is made and its fd patched in; a map with no
  // kernel equivalent makes the program n/a before any call.
  std::vector<uint8_t> uses_map;
  lddw(uses_map, BPF_PSEUDO_MAP_FD, 0);
  uses_map.insert(uses_map.end(), returns_zero.begin(), returns_zero.end());
  MapDescriptor array;
  array.key_size = 4;
  array.value_size = 8;
  array.max_entries = 1;
  std::vector<LinuxMap> maps = {linux_map("m", "array", array)};
  RawRequest with_map = socket_filter(uses_map);
  with_map.maps = maps.data();
  with_map.map_count = maps.size();
  EXPECT_EQ(load_raw_in_linux(with_map, settings).outcome, LinuxOutcome::accepted);
  maps = {linux_map("outer", "array_of_maps", array)};
  with_map.maps = maps.data();
  const LinuxResult outer = load_raw_in_linux(with_map, settings);
  EXPECT_EQ(outer.outcome, LinuxOutcome::unavailable);
  EXPECT_NE(outer.message.find("holds maps"), std::string::npos);
}

TEST(LoadInLinux, ObjectThroughLibbpfWherePermitted) {
  const char* dir = std::getenv("KEEL_BPF_OBJECT_DIR");
  if (dir == nullptr) GTEST_SKIP() << "skipped: no BPF test objects (KEEL_BPF_OBJECT_DIR unset: clang missing)";
  std::ifstream in(std::string(dir) + "/maps.bpf.o", std::ios::binary);
  ASSERT_TRUE(in.good());
  const std::vector<uint8_t> object((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ObjectRequest request;
  request.bytes = object.data();
  request.size = object.size();
  request.name = "maps";
  request.section = "xdp";
  request.function = "use_maps";
  const LinuxResult accepted = load_object_in_linux(request, LoadSettings{});
  if (accepted.outcome == LinuxOutcome::not_permitted) GTEST_SKIP() << "skipped: " << accepted.message;
  EXPECT_EQ(accepted.outcome, LinuxOutcome::accepted) << accepted.message;
  EXPECT_GT(accepted.log.processed_insns, 0);

  // SEC("xdp/tail") is no section libbpf names a type for: keel's reading
  // of it is the fallback.
  request.section = "xdp/tail";
  request.function = "tail_callee";
  EXPECT_EQ(load_object_in_linux(request, LoadSettings{}).outcome, LinuxOutcome::unavailable);
  request.fallback_type = "xdp";
  EXPECT_EQ(load_object_in_linux(request, LoadSettings{}).outcome, LinuxOutcome::accepted);

  // The one program of a section stands for a function name libbpf does
  // not know (keel names an old object's program after its section).
  request.function = "xdp/tail";
  EXPECT_EQ(load_object_in_linux(request, LoadSettings{}).outcome, LinuxOutcome::accepted);
  // A section the object does not have, and bytes that are no object: n/a,
  // and marked for the fallback without BTF.
  request.section = "no_such_section";
  const LinuxResult missing = load_object_in_linux(request, LoadSettings{});
  EXPECT_EQ(missing.outcome, LinuxOutcome::unavailable);
  EXPECT_TRUE(missing.libbpf_cannot_prepare);
  const std::vector<uint8_t> garbage(64, 0x5a);
  request.bytes = garbage.data();
  request.size = garbage.size();
  const LinuxResult unopened = load_object_in_linux(request, LoadSettings{});
  EXPECT_EQ(unopened.outcome, LinuxOutcome::unavailable);
  EXPECT_TRUE(unopened.libbpf_cannot_prepare);
}

}  // namespace
}  // namespace keel::cli
