// The running kernel's side of `keel compare`, through libbpf
// (docs/adr/0046). An ELF object is opened from its bytes with
// bpf_object__open_mem() and loaded one program at a time (every other
// program's autoload off), so the kernel gets what libbpf would give it:
// the object's BTF with func_info and line_info, BTF-defined maps and their
// inner maps, global data (filled; .rodata frozen), CO-RE relocations
// against the kernel's BTF. A raw program (.bin / .s with --map) has no BTF:
// its maps are made with bpf_map_create() and it is loaded with
// bpf_prog_load(); so has, as a fallback, the program of an object libbpf
// cannot open or lists no such program in (keel's relocated copy, its maps
// made from keel's reading of the object). Nothing is attached; every fd is closed before a load
// returns. Whatever keeps a program from reaching the verifier makes it
// `unavailable`, with the reason: never a verdict (classify_load()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "keel/elf.h"
#include "keel/platform.h"

namespace keel::cli {

// True when the environment variable KEEL_COMPARE_DENY_BPF is set to
// anything but "" or "0": bpf(2) is then treated as refused (EPERM)
// without being called, for tests of that path on machines that permit it.
bool bpf_denied_by_environment();

// What a verifier log says.
struct LinuxLog {
  int64_t verification_us = -1;  // "verification time N usec" (BPF_LOG_STATS); -1 when absent
  int64_t processed_insns = -1;  // "processed N insns (limit ...) ..."; -1 when absent
  std::string last_line;         // the last line that is no statistic: a rejection's error
};
LinuxLog parse_linux_log(const std::string& text);

// A map of a raw program, as bpf_map_create() wants it.
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

// A --map: `type_name` is libbpf's name of the map type ("array",
// "lru_hash", ...: libbpf_bpf_map_type_str()), as --map takes it.
LinuxMap linux_map(const std::string& name, const std::string& type_name, const MapDescriptor& map);
// A map of an ELF object libbpf cannot open (legacy SEC("maps")
// definitions, which libbpf 1.x refuses): keel's reading of it
// (`descriptor` and `info` of the same index), for a load without BTF.
LinuxMap linux_map(const MapDescriptor& descriptor, const ElfMap& info);

// BPF_PROG_LOAD's type fields for a raw program.
struct LinuxProgramType {
  uint32_t prog_type = 0;             // BPF_PROG_TYPE_*
  uint32_t expected_attach_type = 0;  // BPF_* attach type; 0 where the type does not check it
};

// The kernel type for program type `type` as libbpf names it
// (libbpf_bpf_prog_type_str(): "xdp", "cgroup_sock_addr", ...), with the
// attach type SEC(`section`) gives (libbpf_prog_type_by_name(); `section`
// "" for a raw program). An empty string when found, else why the kernel
// side cannot load it.
std::string linux_program_type(const std::string& type, const std::string& section, LinuxProgramType& out);

// The map indices that lddw instructions of `insns` name (BPF_PSEUDO_MAP_FD,
// _VALUE, _IDX, _IDX_VALUE; imm = index), sorted, each once.
std::vector<uint32_t> referenced_maps(const uint8_t* insns, size_t slots);

// Rewrites those lddw in place to BPF_PSEUDO_MAP_FD / _VALUE with imm =
// fds[index], or -1 (a bad fd, which the kernel rejects as keel rejects a
// missing map) when the index has no fd.
void patch_map_references(std::vector<uint8_t>& insns, const std::vector<int>& fds);

// How every load is made and timed.
struct LoadSettings {
  bool strict_alignment = false;  // BPF_F_STRICT_ALIGNMENT
  bool full_log = false;          // log_level 1|4 (the instruction trace too) instead of 4
  uint32_t runs = 1;              // loads; the time reported is their median
  bool warm_up = false;           // one more load first, its time not counted
  std::string btf_path;           // --btf: libbpf's btf_custom_path for CO-RE ("": the running kernel's)
};

struct RawRequest {
  const uint8_t* insns = nullptr;  // slots * 8 bytes, map references by index
  size_t slots = 0;
  LinuxProgramType type;
  const LinuxMap* maps = nullptr;  // lddw imm indexes this
  size_t map_count = 0;
  std::string license = "GPL";
};

struct ObjectRequest {
  const uint8_t* bytes = nullptr;  // the whole ELF object
  size_t size = 0;
  std::string name;      // the object's name (its file name)
  std::string section;   // the program: its section and function
  std::string function;
  std::string type;      // not empty: load as this program type (libbpf's name) instead of the section's
  std::string fallback_type;  // the type where libbpf's section names give none (keel's reading of SEC())
};

enum class LinuxOutcome : uint8_t {
  accepted,
  rejected,       // the verifier refused the program
  unavailable,    // this program cannot reach the verifier here (what libbpf or the kernel lacks): n/a
  not_permitted,  // bpf(2) itself is refused (EPERM, ENOSYS): no program can be loaded
};

struct LinuxResult {
  LinuxOutcome outcome = LinuxOutcome::unavailable;
  int error = 0;                 // errno of the failing call
  std::string message;           // rejected: "EACCES: <last log line>"; unavailable / not_permitted: why
  LinuxLog log;                  // of the last load
  std::string log_text;          // of the last load
  int64_t verification_us = -1;  // median over the runs; -1 without BPF_LOG_STATS output
  // load_object_in_linux(): libbpf could not open the object, or lists no
  // such program in it (an old object's program without an STT_FUNC symbol).
  bool libbpf_cannot_prepare = false;
};

// What one load came to: `error` 0 (loaded) or its errno, the verifier's
// log, and why the loader gave up before the verifier (`loader_message`,
// e.g. libbpf's first warning). A log with text means the verifier ran:
// a rejection, unless all it refused is the call libbpf puts in place of
// an instruction whose CO-RE relocation failed (`unavailable`). Without one, EPERM / ENOSYS is bpf(2) refused, anything
// else `unavailable` with the loader's reason (or `what` failed and its errno).
LinuxResult classify_load(int error, const std::string& log_text, const std::string& loader_message,
                          const std::string& what);

LinuxResult load_raw_in_linux(const RawRequest& request, const LoadSettings& settings);
LinuxResult load_object_in_linux(const ObjectRequest& request, const LoadSettings& settings);

// "EACCES" (or the number).
std::string errno_name(int error);

}  // namespace keel::cli
