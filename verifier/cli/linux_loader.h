// The running kernel's side of `keel compare`: create maps equivalent to a
// program's, point its map references at them, load it with BPF_PROG_LOAD
// under a statistics log, and read the verdict and the kernel's own
// verification time from that log. Programs are never attached; every fd
// is closed before load_in_linux() returns. bpf(2) goes through BpfSys
// hooks so that tests can stand in for the kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "keel/elf.h"
#include "keel/platform.h"

namespace keel::cli {

// bpf(2) and close(2) as hooks; results are >= 0 or -errno.
struct BpfSys {
  long (*bpf)(void* context, int cmd, void* attr, uint32_t size) = nullptr;
  int (*close)(void* context, int fd) = nullptr;
  void* context = nullptr;
};

// The real system calls; or, when the environment variable
// KEEL_COMPARE_DENY_BPF is set to anything but "" or "0" (for tests of the
// refused path on machines that do permit bpf(2)), a bpf(2) that always
// fails with EPERM.
BpfSys system_bpf();

// What a verifier log says.
struct LinuxLog {
  int64_t verification_us = -1;  // "verification time N usec" (BPF_LOG_STATS); -1 when absent
  int64_t processed_insns = -1;  // "processed N insns (limit ...) ..."; -1 when absent
  std::string last_line;         // the last line that is no statistic: a rejection's error
};
LinuxLog parse_linux_log(const std::string& text);

// A map as BPF_MAP_CREATE wants it.
struct LinuxMap {
  std::string name;
  uint32_t type = 0;  // BPF_MAP_TYPE_*
  uint32_t key_size = 0;
  uint32_t value_size = 0;
  uint32_t max_entries = 0;
  uint32_t flags = 0;
  std::vector<uint8_t> initial;  // global data: the value of key 0 (empty: all zero)
  bool freeze = false;           // frozen after `initial`: what makes .rodata constant to the kernel
  std::string problem;           // not empty: no kernel equivalent can be made, and why
};

// A --map of a raw program.
LinuxMap linux_map(const std::string& name, const MapDescriptor& map);
// A map of an ELF object (`descriptor` and `info` of the same index).
LinuxMap linux_map(const MapDescriptor& descriptor, const ElfMap& info);

// BPF_PROG_LOAD's type fields.
struct LinuxProgramType {
  uint32_t prog_type = 0;             // BPF_PROG_TYPE_*
  uint32_t expected_attach_type = 0;  // BPF_* attach type; 0 where the type does not check it
  uint32_t prog_flags = 0;            // e.g. BPF_F_XDP_HAS_FRAGS for SEC("xdp.frags")
};

// The kernel type for program type name `type` (keel's and libbpf's names:
// "xdp", "cgroup_sock_addr", ...) as SEC(`section`) would load it
// (`section` "" for a raw program). An empty string when found, else why
// the kernel side cannot load it.
std::string linux_program_type(const std::string& type, const std::string& section, LinuxProgramType& out);

// The map indices that lddw instructions of `insns` name (BPF_PSEUDO_MAP_FD,
// _VALUE, _IDX, _IDX_VALUE; imm = index), sorted, each once.
std::vector<uint32_t> referenced_maps(const uint8_t* insns, size_t slots);

// Rewrites those lddw in place to BPF_PSEUDO_MAP_FD / _VALUE with imm =
// fds[index], or -1 (a bad fd, which the kernel rejects as keel rejects a
// missing map) when the index has no fd.
void patch_map_references(std::vector<uint8_t>& insns, const std::vector<int>& fds);

struct LinuxRequest {
  const uint8_t* insns = nullptr;  // slots * 8 bytes, map references by index
  size_t slots = 0;
  LinuxProgramType type;
  const LinuxMap* maps = nullptr;  // lddw imm indexes this
  size_t map_count = 0;
  std::string license = "GPL";
  bool strict_alignment = false;  // BPF_F_STRICT_ALIGNMENT
  bool full_log = false;          // log_level 1|4 (the instruction trace too) instead of 4
  uint32_t runs = 1;              // loads; the time reported is their median
  bool warm_up = false;           // one more load first, its time not counted
};

enum class LinuxOutcome : uint8_t {
  accepted,
  rejected,       // the verifier (or the load) refused the program
  unavailable,    // this program cannot be loaded here (map or program type the kernel or keel lacks)
  not_permitted,  // bpf(2) itself is refused (EPERM, ENOSYS): no program can be
};

struct LinuxResult {
  LinuxOutcome outcome = LinuxOutcome::unavailable;
  int error = 0;                 // errno of the failing call
  std::string message;           // rejected: "EACCES: <last log line>"; unavailable / not_permitted: why
  LinuxLog log;                  // of the last load
  std::string log_text;          // of the last load
  int64_t verification_us = -1;  // median over the runs; -1 without BPF_LOG_STATS output
};

LinuxResult load_in_linux(const BpfSys& sys, const LinuxRequest& request);

// "EACCES" (or the number).
std::string errno_name(int error);

}  // namespace keel::cli
