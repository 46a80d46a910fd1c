#include "linux_loader.h"

#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace keel::cli {

namespace {

// include/linux/bpf_verifier.h (not uapi): the log level bit that adds
// "verification time" and "stack depth" to the log.
constexpr uint32_t kLogStats = 4;
// kernel/bpf/log.c bpf_verifier_log_attr_valid(): the largest log buffer.
constexpr size_t kMaxLog = UINT32_MAX >> 2;
constexpr uint8_t kOpLddw = BPF_LD | BPF_IMM | BPF_DW;

long system_call(void*, int cmd, void* attr, uint32_t size) {
  const long result = syscall(SYS_bpf, cmd, attr, size);
  return result < 0 ? -errno : result;
}

int system_close(void*, int fd) { return ::close(fd) < 0 ? -errno : 0; }

long denied_call(void*, int, void*, uint32_t) { return -EPERM; }

uint64_t pointer(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// The fds of one load, closed however the load ends.
class FdSet {
 public:
  explicit FdSet(const BpfSys& sys) : sys_(sys) {}
  FdSet(const FdSet&) = delete;
  FdSet& operator=(const FdSet&) = delete;
  ~FdSet() {
    for (const int fd : fds_) sys_.close(sys_.context, fd);
  }
  void keep(int fd) { fds_.push_back(fd); }

 private:
  const BpfSys& sys_;
  std::vector<int> fds_;
};

bool is_not_permitted(long error) { return error == -EPERM || error == -ENOSYS; }

std::string not_permitted_message(int error) {
  if (error == ENOSYS) return "bpf(2) is not available here (ENOSYS)";
  std::string message = "bpf(2) not permitted here (" + errno_name(error) + "): run as root or with CAP_BPF";
  std::ifstream sysctl("/proc/sys/kernel/unprivileged_bpf_disabled");
  int disabled = 0;
  if (geteuid() != 0 && sysctl >> disabled && disabled != 0)
    message += " (kernel.unprivileged_bpf_disabled = " + std::to_string(disabled) + ")";
  return message;
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// Reads the unsigned number after `prefix` at the start of `line`.
bool number_after(const std::string& line, const char* prefix, int64_t& out) {
  if (!starts_with(line, prefix)) return false;
  const char* digits = line.c_str() + std::strlen(prefix);
  if (*digits < '0' || *digits > '9') return false;
  out = std::strtoll(digits, nullptr, 10);
  return true;
}

// One BPF_PROG_LOAD with a log of `log_size` bytes: the fd or -errno.
long prog_load(const BpfSys& sys, const LinuxRequest& request, const std::vector<uint8_t>& insns,
               std::vector<char>& log) {
  std::fill(log.begin(), log.end(), '\0');
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.prog_type = request.type.prog_type;
  attr.expected_attach_type = request.type.expected_attach_type;
  attr.prog_flags = request.type.prog_flags | (request.strict_alignment ? BPF_F_STRICT_ALIGNMENT : 0u);
  attr.insns = pointer(insns.data());
  attr.insn_cnt = static_cast<uint32_t>(insns.size() / 8);
  attr.license = pointer(request.license.c_str());
  attr.log_level = kLogStats | (request.full_log ? 1u : 0u);
  attr.log_buf = pointer(log.data());
  attr.log_size = static_cast<uint32_t>(log.size());
  return sys.bpf(sys.context, BPF_PROG_LOAD, &attr, sizeof attr);
}

// Creates `map` (and fills and freezes it): the fd, or -errno with `what`
// naming the call that failed.
long create_map(const BpfSys& sys, const LinuxMap& map, FdSet& fds, std::string& what) {
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.map_type = map.type;
  attr.key_size = map.key_size;
  attr.value_size = map.value_size;
  attr.max_entries = map.max_entries;
  attr.map_flags = map.flags;
  what = "BPF_MAP_CREATE";
  const long fd = sys.bpf(sys.context, BPF_MAP_CREATE, &attr, sizeof attr);
  if (fd < 0) return fd;
  fds.keep(static_cast<int>(fd));
  if (!map.initial.empty()) {
    std::vector<uint8_t> value = map.initial;
    value.resize(map.value_size, 0);
    const uint32_t key = 0;
    std::memset(&attr, 0, sizeof attr);
    attr.map_fd = static_cast<uint32_t>(fd);
    attr.key = pointer(&key);
    attr.value = pointer(value.data());
    attr.flags = BPF_ANY;
    what = "BPF_MAP_UPDATE_ELEM";
    const long result = sys.bpf(sys.context, BPF_MAP_UPDATE_ELEM, &attr, sizeof attr);
    if (result < 0) return result;
  }
  if (map.freeze) {
    std::memset(&attr, 0, sizeof attr);
    attr.map_fd = static_cast<uint32_t>(fd);
    what = "BPF_MAP_FREEZE";
    const long result = sys.bpf(sys.context, BPF_MAP_FREEZE, &attr, sizeof attr);
    if (result < 0) return result;
  }
  return fd;
}

// uapi BPF_MAP_TYPE_* for keel's map kinds.
uint32_t linux_map_type(MapType type) {
  switch (type) {
    case MapType::array:
      return BPF_MAP_TYPE_ARRAY;
    case MapType::hash:
      return BPF_MAP_TYPE_HASH;
    case MapType::percpu_array:
      return BPF_MAP_TYPE_PERCPU_ARRAY;
    case MapType::percpu_hash:
      return BPF_MAP_TYPE_PERCPU_HASH;
    case MapType::lru_hash:
      return BPF_MAP_TYPE_LRU_HASH;
    case MapType::lru_percpu_hash:
      return BPF_MAP_TYPE_LRU_PERCPU_HASH;
    case MapType::prog_array:
      return BPF_MAP_TYPE_PROG_ARRAY;
    case MapType::perf_event_array:
      return BPF_MAP_TYPE_PERF_EVENT_ARRAY;
    case MapType::ringbuf:
      return BPF_MAP_TYPE_RINGBUF;
    case MapType::stack_trace:
      return BPF_MAP_TYPE_STACK_TRACE;
    case MapType::lpm_trie:
      return BPF_MAP_TYPE_LPM_TRIE;
    case MapType::cgroup_array:
      return BPF_MAP_TYPE_CGROUP_ARRAY;
    case MapType::devmap:
      return BPF_MAP_TYPE_DEVMAP;
    case MapType::devmap_hash:
      return BPF_MAP_TYPE_DEVMAP_HASH;
    case MapType::cpumap:
      return BPF_MAP_TYPE_CPUMAP;
    case MapType::xskmap:
      return BPF_MAP_TYPE_XSKMAP;
    default:
      // Only --map's kinds (verify_args.cc) come here; others have no name there.
      break;
  }
  return BPF_MAP_TYPE_UNSPEC;
}

// libbpf: a perf event array declared without max_entries gets one entry
// per possible CPU.
void fill_in_max_entries(LinuxMap& map) {
  if (map.type == BPF_MAP_TYPE_PERF_EVENT_ARRAY && map.max_entries == 0) {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    map.max_entries = cpus > 0 ? static_cast<uint32_t>(cpus) : 1;
  }
}

struct TypeName {
  const char* name;
  uint32_t type;
};
// keel's and libbpf's program type names (section_types.cc) with the uapi
// enum bpf_prog_type values. tracing, lsm, ext and struct_ops are missing:
// they need a BTF attach target that keel does not supply.
constexpr TypeName kProgramTypes[] = {
    {"socket_filter", BPF_PROG_TYPE_SOCKET_FILTER},
    {"kprobe", BPF_PROG_TYPE_KPROBE},
    {"sched_cls", BPF_PROG_TYPE_SCHED_CLS},
    {"sched_act", BPF_PROG_TYPE_SCHED_ACT},
    {"tracepoint", BPF_PROG_TYPE_TRACEPOINT},
    {"xdp", BPF_PROG_TYPE_XDP},
    {"perf_event", BPF_PROG_TYPE_PERF_EVENT},
    {"cgroup_skb", BPF_PROG_TYPE_CGROUP_SKB},
    {"cgroup_sock", BPF_PROG_TYPE_CGROUP_SOCK},
    {"lwt_in", BPF_PROG_TYPE_LWT_IN},
    {"lwt_out", BPF_PROG_TYPE_LWT_OUT},
    {"lwt_xmit", BPF_PROG_TYPE_LWT_XMIT},
    {"lwt_seg6local", BPF_PROG_TYPE_LWT_SEG6LOCAL},
    {"sock_ops", BPF_PROG_TYPE_SOCK_OPS},
    {"sk_skb", BPF_PROG_TYPE_SK_SKB},
    {"cgroup_device", BPF_PROG_TYPE_CGROUP_DEVICE},
    {"sk_msg", BPF_PROG_TYPE_SK_MSG},
    {"raw_tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT},
    {"cgroup_sock_addr", BPF_PROG_TYPE_CGROUP_SOCK_ADDR},
    {"sk_reuseport", BPF_PROG_TYPE_SK_REUSEPORT},
    {"flow_dissector", BPF_PROG_TYPE_FLOW_DISSECTOR},
    {"cgroup_sysctl", BPF_PROG_TYPE_CGROUP_SYSCTL},
    {"raw_tracepoint_writable", BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE},
    {"cgroup_sockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT},
    {"sk_lookup", BPF_PROG_TYPE_SK_LOOKUP},
    {"syscall", BPF_PROG_TYPE_SYSCALL},
};

struct SectionAttach {
  const char* section;  // exact name, or a prefix when it ends in '*'
  uint32_t attach;
};
// The expected_attach_type libbpf derives from SEC() names; the kernel
// requires one for these types (kernel/bpf/syscall.c
// bpf_prog_load_check_attach()), and cgroup_skb's return range depends on it.
constexpr SectionAttach kAttachTypes[] = {
    {"cgroup_skb/ingress", BPF_CGROUP_INET_INGRESS},
    {"cgroup_skb/egress", BPF_CGROUP_INET_EGRESS},
    {"cgroup/sock_create", BPF_CGROUP_INET_SOCK_CREATE},
    {"cgroup/sock_release", BPF_CGROUP_INET_SOCK_RELEASE},
    {"cgroup/post_bind4", BPF_CGROUP_INET4_POST_BIND},
    {"cgroup/post_bind6", BPF_CGROUP_INET6_POST_BIND},
    {"cgroup/sock*", BPF_CGROUP_INET_SOCK_CREATE},
    {"cgroup/bind4", BPF_CGROUP_INET4_BIND},
    {"cgroup/bind6", BPF_CGROUP_INET6_BIND},
    {"cgroup/connect4", BPF_CGROUP_INET4_CONNECT},
    {"cgroup/connect6", BPF_CGROUP_INET6_CONNECT},
    {"cgroup/sendmsg4", BPF_CGROUP_UDP4_SENDMSG},
    {"cgroup/sendmsg6", BPF_CGROUP_UDP6_SENDMSG},
    {"cgroup/recvmsg4", BPF_CGROUP_UDP4_RECVMSG},
    {"cgroup/recvmsg6", BPF_CGROUP_UDP6_RECVMSG},
    {"cgroup/getpeername4", BPF_CGROUP_INET4_GETPEERNAME},
    {"cgroup/getpeername6", BPF_CGROUP_INET6_GETPEERNAME},
    {"cgroup/getsockname4", BPF_CGROUP_INET4_GETSOCKNAME},
    {"cgroup/getsockname6", BPF_CGROUP_INET6_GETSOCKNAME},
    {"cgroup/getsockopt", BPF_CGROUP_GETSOCKOPT},
    {"cgroup/setsockopt", BPF_CGROUP_SETSOCKOPT},
    {"cgroup/dev", BPF_CGROUP_DEVICE},
    {"cgroup/sysctl", BPF_CGROUP_SYSCTL},
    {"sockops*", BPF_CGROUP_SOCK_OPS},
    {"sk_lookup*", BPF_SK_LOOKUP},
    {"sk_reuseport/migrate*", BPF_SK_REUSEPORT_SELECT_OR_MIGRATE},
    {"sk_reuseport*", BPF_SK_REUSEPORT_SELECT},
    {"kprobe.multi*", BPF_TRACE_KPROBE_MULTI},
    {"kretprobe.multi*", BPF_TRACE_KPROBE_MULTI},
    {"xdp/devmap*", BPF_XDP_DEVMAP},
    {"xdp/cpumap*", BPF_XDP_CPUMAP},
    {"xdp.frags/devmap*", BPF_XDP_DEVMAP},
    {"xdp.frags/cpumap*", BPF_XDP_CPUMAP},
};

bool section_matches(const std::string& section, const char* pattern) {
  const size_t length = std::strlen(pattern);
  if (length > 0 && pattern[length - 1] == '*') return section.compare(0, length - 1, pattern, length - 1) == 0;
  return section == pattern;
}

}  // namespace

BpfSys system_bpf() {
  BpfSys sys;
  const char* deny = std::getenv("KEEL_COMPARE_DENY_BPF");
  const bool denied = deny != nullptr && deny[0] != '\0' && std::strcmp(deny, "0") != 0;
  sys.bpf = denied ? &denied_call : &system_call;
  sys.close = &system_close;
  return sys;
}

LinuxLog parse_linux_log(const std::string& text) {
  LinuxLog log;
  std::stringstream stream(text);
  for (std::string line; std::getline(stream, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (number_after(line, "verification time ", log.verification_us)) continue;
    if (number_after(line, "processed ", log.processed_insns)) continue;
    if (line.empty() || starts_with(line, "stack depth ")) continue;
    log.last_line = line;
  }
  return log;
}

LinuxMap linux_map(const std::string& name, const MapDescriptor& map) {
  LinuxMap out;
  out.name = name;
  out.type = linux_map_type(map.type);
  out.key_size = map.key_size;
  out.value_size = map.value_size;
  out.max_entries = map.max_entries;
  out.flags = (map.read_only ? uint32_t{BPF_F_RDONLY_PROG} : 0u) | (map.write_only ? uint32_t{BPF_F_WRONLY_PROG} : 0u);
  if (out.type == BPF_MAP_TYPE_UNSPEC) out.problem = "map '" + name + "' has no Linux map type";
  fill_in_max_entries(out);
  return out;
}

LinuxMap linux_map(const MapDescriptor& descriptor, const ElfMap& info) {
  LinuxMap out;
  out.name = info.name != nullptr ? info.name : "?";
  out.type = info.linux_type;
  out.key_size = descriptor.key_size;
  out.value_size = descriptor.value_size;
  out.max_entries = descriptor.max_entries;
  out.flags = info.map_flags;
  if (info.kind == ElfMapKind::global_data) {
    // libbpf bpf_object__init_internal_map(): global data is mmapable and
    // .rodata read-only to programs; bpf_object__populate_internal_map()
    // fills it and freezes .rodata, after which the kernel reads its
    // contents as constants (bpf_map_is_rdonly()).
    out.flags |= BPF_F_MMAPABLE;
    if (info.initial != nullptr) out.initial.assign(info.initial, info.initial + descriptor.value_size);
    out.freeze = (out.flags & BPF_F_RDONLY_PROG) != 0;
  }
  if (out.type == BPF_MAP_TYPE_ARRAY_OF_MAPS || out.type == BPF_MAP_TYPE_HASH_OF_MAPS)
    out.problem = "map '" + out.name + "' holds maps: keel does not read the inner map's definition";
  else if (out.type == BPF_MAP_TYPE_SK_STORAGE || out.type == BPF_MAP_TYPE_INODE_STORAGE ||
           out.type == BPF_MAP_TYPE_TASK_STORAGE || out.type == BPF_MAP_TYPE_STRUCT_OPS)
    out.problem = "map '" + out.name + "' needs BTF, which keel does not pass to the kernel";
  fill_in_max_entries(out);
  return out;
}

std::string linux_program_type(const std::string& type, const std::string& section, LinuxProgramType& out) {
  out = LinuxProgramType{};
  const TypeName* found = nullptr;
  for (const TypeName& entry : kProgramTypes)
    if (type == entry.name) found = &entry;
  if (found == nullptr) {
    if (type == "tracing" || type == "lsm" || type == "ext" || type == "struct_ops")
      return "program type '" + type + "' needs a BTF attach target, which keel does not pass to the kernel";
    return "program type '" + type + "' is not one keel can load into Linux";
  }
  out.prog_type = found->type;
  for (const SectionAttach& entry : kAttachTypes) {
    if (section_matches(section, entry.section)) {
      out.expected_attach_type = entry.attach;
      break;
    }
  }
  if (section_matches(section, "xdp.frags*")) out.prog_flags |= BPF_F_XDP_HAS_FRAGS;
  return "";
}

std::vector<uint32_t> referenced_maps(const uint8_t* insns, size_t slots) {
  std::vector<uint32_t> indices;
  for (size_t pc = 0; pc + 1 < slots; ++pc) {
    const uint8_t* insn = insns + pc * 8;
    if (insn[0] != kOpLddw) continue;
    const uint8_t src = insn[1] >> 4;
    if (src == BPF_PSEUDO_MAP_FD || src == BPF_PSEUDO_MAP_VALUE || src == BPF_PSEUDO_MAP_IDX ||
        src == BPF_PSEUDO_MAP_IDX_VALUE) {
      int32_t imm = 0;
      std::memcpy(&imm, insn + 4, 4);
      if (imm >= 0) indices.push_back(static_cast<uint32_t>(imm));
    }
    ++pc;  // the second slot of the lddw
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

void patch_map_references(std::vector<uint8_t>& insns, const std::vector<int>& fds) {
  const size_t slots = insns.size() / 8;
  for (size_t pc = 0; pc + 1 < slots; ++pc) {
    uint8_t* insn = insns.data() + pc * 8;
    if (insn[0] != kOpLddw) continue;
    const uint8_t src = insn[1] >> 4;
    const uint8_t dst = insn[1] & 0x0f;
    uint8_t kind = 0;
    if (src == BPF_PSEUDO_MAP_FD || src == BPF_PSEUDO_MAP_IDX) kind = BPF_PSEUDO_MAP_FD;
    if (src == BPF_PSEUDO_MAP_VALUE || src == BPF_PSEUDO_MAP_IDX_VALUE) kind = BPF_PSEUDO_MAP_VALUE;
    if (kind != 0) {
      int32_t imm = 0;
      std::memcpy(&imm, insn + 4, 4);
      const int32_t fd = imm >= 0 && static_cast<size_t>(imm) < fds.size() ? fds[static_cast<size_t>(imm)] : -1;
      insn[1] = static_cast<uint8_t>(dst | kind << 4);
      std::memcpy(insn + 4, &fd, 4);
    }
    ++pc;
  }
}

LinuxResult load_in_linux(const BpfSys& sys, const LinuxRequest& request) {
  LinuxResult result;
  FdSet fds(sys);
  // Only the maps the program names are made: a map the kernel cannot
  // have (map-in-map, ...) matters only to the programs that use it.
  std::vector<int> map_fds(request.map_count, -1);
  for (const uint32_t index : referenced_maps(request.insns, request.slots)) {
    if (index >= request.map_count) continue;
    const LinuxMap& map = request.maps[index];
    if (!map.problem.empty()) {
      result.message = map.problem;
      return result;
    }
    std::string what;
    const long fd = create_map(sys, map, fds, what);
    if (fd < 0) {
      result.error = static_cast<int>(-fd);
      if (is_not_permitted(fd)) {
        result.outcome = LinuxOutcome::not_permitted;
        result.message = not_permitted_message(result.error);
      } else {
        result.message =
            "map '" + map.name + "' (type " + std::to_string(map.type) + "): " + what + ": " + errno_name(result.error);
      }
      return result;
    }
    map_fds[index] = static_cast<int>(fd);
  }
  std::vector<uint8_t> insns(request.insns, request.insns + request.slots * 8);
  patch_map_references(insns, map_fds);

  std::vector<char> log(request.full_log ? size_t{16} << 20 : size_t{1} << 16);
  std::vector<int64_t> times;
  const uint32_t first = request.warm_up ? 0 : 1;
  for (uint32_t run = first; run <= std::max<uint32_t>(request.runs, 1); ++run) {
    long fd = prog_load(sys, request, insns, log);
    // A full log fails the load with ENOSPC whatever the verdict
    // (kernel/bpf/verifier.c bpf_check()): again with a larger one.
    while (fd == -ENOSPC && log.size() < kMaxLog) {
      log.assign(std::min(log.size() * 16, kMaxLog), '\0');
      fd = prog_load(sys, request, insns, log);
    }
    if (fd >= 0) sys.close(sys.context, static_cast<int>(fd));
    result.log_text.assign(log.data(), strnlen(log.data(), log.size()));
    result.log = parse_linux_log(result.log_text);
    if (result.log.verification_us >= 0 && run > 0) times.push_back(result.log.verification_us);
    if (fd >= 0) {
      result.outcome = LinuxOutcome::accepted;
      result.error = 0;
      result.message.clear();
      continue;
    }
    result.error = static_cast<int>(-fd);
    // An empty log: the verifier never ran. EPERM or ENOSYS there is about
    // bpf(2) itself; EINVAL about the attributes, typically a program or
    // attach type this kernel does not have.
    if (result.log_text.empty() && is_not_permitted(fd)) {
      result.outcome = LinuxOutcome::not_permitted;
      result.message = not_permitted_message(result.error);
      return result;
    }
    if (result.log_text.empty() && fd == -EINVAL) {
      result.outcome = LinuxOutcome::unavailable;
      result.message = "BPF_PROG_LOAD: EINVAL before verification (program type " +
                       std::to_string(request.type.prog_type) + ", attach type " +
                       std::to_string(request.type.expected_attach_type) + " unknown to this kernel?)";
      return result;
    }
    result.outcome = LinuxOutcome::rejected;
    result.message = errno_name(result.error) + ": " +
                     (result.log.last_line.empty() ? std::string(std::strerror(result.error)) : result.log.last_line);
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    result.verification_us = times[times.size() / 2];
  }
  return result;
}

std::string errno_name(int error) {
  const char* name = strerrorname_np(error);
  return name != nullptr ? name : "errno " + std::to_string(error);
}

}  // namespace keel::cli
