// `keel compare`'s kernel side (linux_loader.h) without depending on bpf(2):
// the log parser on recorded logs, the map and program type translation,
// the lddw patching, and load_in_linux() against a stand-in kernel. Where
// this process may call bpf(2), one test also loads two tiny programs into
// the real kernel; elsewhere it is skipped.
#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <cerrno>
#include <cstring>
#include <map>
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
  const LinuxMap map = linux_map("counters", hash);
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
  EXPECT_EQ(linux_map("r", read_only).type, uint32_t{BPF_MAP_TYPE_LRU_PERCPU_HASH});
  EXPECT_EQ(linux_map("r", read_only).flags, uint32_t{BPF_F_RDONLY_PROG});

  MapDescriptor events;
  events.type = MapType::perf_event_array;
  events.key_size = events.value_size = 4;
  EXPECT_GT(linux_map("events", events).max_entries, 0u);  // libbpf: one per possible CPU

  MapDescriptor other;
  other.type = MapType::other;
  EXPECT_FALSE(linux_map("x", other).problem.empty());
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
}

TEST(LinuxProgramTypes, NamesSectionsAndAttachTypes) {
  LinuxProgramType type;
  EXPECT_EQ(linux_program_type("xdp", "", type), "");
  EXPECT_EQ(type.prog_type, uint32_t{BPF_PROG_TYPE_XDP});
  EXPECT_EQ(type.expected_attach_type, 0u);
  EXPECT_EQ(linux_program_type("xdp", "xdp.frags", type), "");
  EXPECT_EQ(type.prog_flags, uint32_t{BPF_F_XDP_HAS_FRAGS});
  EXPECT_EQ(linux_program_type("cgroup_skb", "cgroup_skb/egress", type), "");
  EXPECT_EQ(type.prog_type, uint32_t{BPF_PROG_TYPE_CGROUP_SKB});
  EXPECT_EQ(type.expected_attach_type, uint32_t{BPF_CGROUP_INET_EGRESS});
  EXPECT_EQ(linux_program_type("cgroup_sock_addr", "cgroup/connect4", type), "");
  EXPECT_EQ(type.expected_attach_type, uint32_t{BPF_CGROUP_INET4_CONNECT});
  EXPECT_EQ(linux_program_type("cgroup_sock", "cgroup/sock", type), "");
  EXPECT_EQ(type.expected_attach_type, uint32_t{BPF_CGROUP_INET_SOCK_CREATE});
  EXPECT_NE(linux_program_type("tracing", "fentry/x", type).find("BTF"), std::string::npos);
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

// A stand-in kernel: records every call, answers as configured.
struct FakeKernel {
  long map_create_result = 0;  // 0: hand out fds from 100; else this result
  long prog_load_result = 3;   // the fd or -errno of BPF_PROG_LOAD
  std::string log;             // what BPF_PROG_LOAD writes to the log
  size_t needs_log = 0;        // BPF_PROG_LOAD fails with ENOSPC while the log is smaller
  int next_fd = 100;
  std::vector<int> commands;
  std::vector<union bpf_attr> attrs;
  std::vector<std::vector<uint8_t>> loaded;  // the instructions of each BPF_PROG_LOAD
  std::vector<std::vector<uint8_t>> values;  // of each BPF_MAP_UPDATE_ELEM
  std::map<int, int> open;                   // fd -> 1 while open

  static long bpf(void* context, int cmd, void* attr_pointer, uint32_t size) {
    auto& self = *static_cast<FakeKernel*>(context);
    EXPECT_EQ(size, sizeof(union bpf_attr));
    union bpf_attr attr;
    std::memcpy(&attr, attr_pointer, sizeof attr);
    self.commands.push_back(cmd);
    self.attrs.push_back(attr);
    if (cmd == BPF_MAP_CREATE) {
      if (self.map_create_result != 0) return self.map_create_result;
      self.open[self.next_fd] = 1;
      return self.next_fd++;
    }
    if (cmd == BPF_MAP_UPDATE_ELEM) {
      const auto* value = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(attr.value));
      self.values.emplace_back(value, value + 6);
      return 0;
    }
    if (cmd == BPF_MAP_FREEZE) return 0;
    if (cmd != BPF_PROG_LOAD) return -EINVAL;
    const auto* insns = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(attr.insns));
    self.loaded.emplace_back(insns, insns + size_t{attr.insn_cnt} * 8);
    char* log = reinterpret_cast<char*>(static_cast<uintptr_t>(attr.log_buf));
    if (attr.log_size < self.needs_log) {
      std::memcpy(log, "x", 2);
      return -ENOSPC;
    }
    std::snprintf(log, attr.log_size, "%s", self.log.c_str());
    if (self.prog_load_result >= 0) self.open[static_cast<int>(self.prog_load_result)] = 1;
    return self.prog_load_result;
  }
  static int close(void* context, int fd) {
    auto& self = *static_cast<FakeKernel*>(context);
    EXPECT_EQ(self.open.count(fd), 1u) << "closing fd " << fd << " that is not open";
    self.open.erase(fd);
    return 0;
  }
  BpfSys sys() {
    BpfSys s;
    s.bpf = &FakeKernel::bpf;
    s.close = &FakeKernel::close;
    s.context = this;
    return s;
  }
};

LinuxRequest request_for(const std::vector<uint8_t>& insns, const std::vector<LinuxMap>& maps) {
  LinuxRequest request;
  request.insns = insns.data();
  request.slots = insns.size() / 8;
  request.type.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  request.maps = maps.data();
  request.map_count = maps.size();
  return request;
}

TEST(LoadInLinux, RejectionCreatesMapsPatchesAndClosesEverything) {
  std::vector<uint8_t> insns;
  lddw(insns, BPF_PSEUDO_MAP_VALUE, 1, 4);
  exit_insn(insns);
  LinuxMap unused;
  unused.name = "unused";
  unused.type = BPF_MAP_TYPE_HASH;
  LinuxMap rodata;
  rodata.name = ".rodata";
  rodata.type = BPF_MAP_TYPE_ARRAY;
  rodata.key_size = 4;
  rodata.value_size = 6;
  rodata.max_entries = 1;
  rodata.flags = BPF_F_RDONLY_PROG | BPF_F_MMAPABLE;
  rodata.initial = {9, 8, 7};
  rodata.freeze = true;
  const std::vector<LinuxMap> maps = {unused, rodata};

  FakeKernel kernel;
  kernel.prog_load_result = -EACCES;
  kernel.log = kRejectedLog;
  LinuxRequest request = request_for(insns, maps);
  request.license = "Dual BSD/GPL";
  request.runs = 3;
  const LinuxResult result = load_in_linux(kernel.sys(), request);

  EXPECT_EQ(result.outcome, LinuxOutcome::rejected);
  EXPECT_EQ(result.error, EACCES);
  EXPECT_EQ(result.message, "EACCES: R0 !read_ok");
  EXPECT_EQ(result.verification_us, 13);
  // Only the map the program names; filled (zero-padded) and frozen; then three loads.
  EXPECT_EQ(kernel.commands, (std::vector<int>{BPF_MAP_CREATE, BPF_MAP_UPDATE_ELEM, BPF_MAP_FREEZE, BPF_PROG_LOAD,
                                               BPF_PROG_LOAD, BPF_PROG_LOAD}));
  EXPECT_EQ(kernel.attrs[0].map_type, uint32_t{BPF_MAP_TYPE_ARRAY});
  EXPECT_EQ(kernel.attrs[0].value_size, 6u);
  EXPECT_EQ(kernel.attrs[0].map_flags, uint32_t{BPF_F_RDONLY_PROG | BPF_F_MMAPABLE});
  EXPECT_EQ(kernel.values[0], (std::vector<uint8_t>{9, 8, 7, 0, 0, 0}));
  const union bpf_attr& load = kernel.attrs[3];
  EXPECT_EQ(load.prog_type, uint32_t{BPF_PROG_TYPE_SOCKET_FILTER});
  EXPECT_EQ(load.log_level, 4u);
  EXPECT_STREQ(reinterpret_cast<const char*>(static_cast<uintptr_t>(load.license)), "Dual BSD/GPL");
  EXPECT_EQ(kernel.loaded[0][1] >> 4, BPF_PSEUDO_MAP_VALUE);
  EXPECT_EQ(imm_at(kernel.loaded[0], 0), 100);
  EXPECT_EQ(imm_at(kernel.loaded[0], 1), 4);
  EXPECT_TRUE(kernel.open.empty());
}

TEST(LoadInLinux, AcceptedProgramIsClosedAndTimedByMedianAfterWarmUp) {
  std::vector<uint8_t> insns;
  exit_insn(insns);
  FakeKernel kernel;
  kernel.prog_load_result = 7;
  kernel.log = kAcceptedLog;
  LinuxRequest request = request_for(insns, {});
  request.runs = 2;
  request.warm_up = true;
  request.full_log = true;
  const LinuxResult result = load_in_linux(kernel.sys(), request);
  EXPECT_EQ(result.outcome, LinuxOutcome::accepted);
  EXPECT_EQ(result.verification_us, 18);
  EXPECT_EQ(result.log.processed_insns, 14);
  EXPECT_EQ(kernel.commands.size(), 3u);
  EXPECT_EQ(kernel.attrs[0].log_level, 5u);
  EXPECT_TRUE(kernel.open.empty());
}

TEST(LoadInLinux, FullLogIsRetriedWithALargerBuffer) {
  std::vector<uint8_t> insns;
  exit_insn(insns);
  FakeKernel kernel;
  kernel.log = kAcceptedLog;
  kernel.needs_log = size_t{1} << 20;
  const LinuxResult result = load_in_linux(kernel.sys(), request_for(insns, {}));
  EXPECT_EQ(result.outcome, LinuxOutcome::accepted);
  EXPECT_EQ(kernel.commands.size(), 2u);  // 64 KiB: ENOSPC; 16 times that: enough
  EXPECT_GE(kernel.attrs.back().log_size, kernel.needs_log);
}

TEST(LoadInLinux, RefusedBpfIsNotPermittedNotARejection) {
  std::vector<uint8_t> insns;
  lddw(insns, BPF_PSEUDO_MAP_FD, 0);
  exit_insn(insns);
  LinuxMap map;
  map.name = "m";
  map.type = BPF_MAP_TYPE_ARRAY;
  const std::vector<LinuxMap> maps = {map};
  FakeKernel at_map;
  at_map.map_create_result = -EPERM;
  LinuxResult result = load_in_linux(at_map.sys(), request_for(insns, maps));
  EXPECT_EQ(result.outcome, LinuxOutcome::not_permitted);
  EXPECT_NE(result.message.find("not permitted here (EPERM)"), std::string::npos);
  EXPECT_EQ(at_map.commands.size(), 1u);

  std::vector<uint8_t> plain;
  exit_insn(plain);
  FakeKernel at_load;
  at_load.prog_load_result = -EPERM;
  result = load_in_linux(at_load.sys(), request_for(plain, {}));
  EXPECT_EQ(result.outcome, LinuxOutcome::not_permitted);

  // With a log, EPERM is the verifier's verdict (e.g. a CAP_BPF-only feature).
  FakeKernel verdict;
  verdict.prog_load_result = -EPERM;
  verdict.log = "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN\n";
  result = load_in_linux(verdict.sys(), request_for(plain, {}));
  EXPECT_EQ(result.outcome, LinuxOutcome::rejected);

  // EINVAL before the verifier ran: a type this kernel lacks.
  FakeKernel unknown;
  unknown.prog_load_result = -EINVAL;
  result = load_in_linux(unknown.sys(), request_for(plain, {}));
  EXPECT_EQ(result.outcome, LinuxOutcome::unavailable);

  // The environment switch the CLI test uses.
  setenv("KEEL_COMPARE_DENY_BPF", "1", 1);
  result = load_in_linux(system_bpf(), request_for(plain, {}));
  unsetenv("KEEL_COMPARE_DENY_BPF");
  EXPECT_EQ(result.outcome, LinuxOutcome::not_permitted);
}

TEST(LoadInLinux, MapWithoutKernelEquivalentMakesTheProgramUnavailable) {
  std::vector<uint8_t> insns;
  lddw(insns, BPF_PSEUDO_MAP_FD, 0);
  exit_insn(insns);
  LinuxMap outer;
  outer.problem = "map 'outer' holds maps";
  const std::vector<LinuxMap> maps = {outer};
  FakeKernel kernel;
  const LinuxResult result = load_in_linux(kernel.sys(), request_for(insns, maps));
  EXPECT_EQ(result.outcome, LinuxOutcome::unavailable);
  EXPECT_EQ(result.message, "map 'outer' holds maps");
  EXPECT_TRUE(kernel.commands.empty());
}

// The real kernel, where this process may load programs.
TEST(LoadInLinux, RealKernelWherePermitted) {
  std::vector<uint8_t> reads_r0;  // exit: r0 never written
  exit_insn(reads_r0);
  const LinuxResult rejected = load_in_linux(system_bpf(), request_for(reads_r0, {}));
  if (rejected.outcome == LinuxOutcome::not_permitted) GTEST_SKIP() << rejected.message;
  EXPECT_EQ(rejected.outcome, LinuxOutcome::rejected);
  EXPECT_NE(rejected.message.find("R0 !read_ok"), std::string::npos) << rejected.message;
  EXPECT_GE(rejected.verification_us, 0);

  std::vector<uint8_t> returns_zero = {0xb7, 0, 0, 0, 0, 0, 0, 0};  // mov64 r0, 0
  exit_insn(returns_zero);
  const LinuxResult accepted = load_in_linux(system_bpf(), request_for(returns_zero, {}));
  EXPECT_EQ(accepted.outcome, LinuxOutcome::accepted) << accepted.message;
  EXPECT_EQ(accepted.log.processed_insns, 2);
}

}  // namespace
}  // namespace keel::cli
