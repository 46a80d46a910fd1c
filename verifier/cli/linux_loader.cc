#include "linux_loader.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
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
constexpr const char* kCannotOpen = "libbpf cannot open the object";
// libbpf lists programs by their STT_FUNC symbols; old objects' programs
// have none (NOTYPE symbols), and libbpf then lists no program there.
constexpr const char* kNoProgram = "libbpf lists no such program";
// Past every uapi bpf_prog_type / bpf_map_type value (the uapi header has
// no __MAX_ for them); libbpf's *_type_str() returns NULL for the values
// it does not know.
constexpr int kEnumLimit = 256;

bool is_not_permitted(int error) { return error == EPERM || error == ENOSYS; }

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

// The fds of one load, closed however the load ends.
class FdSet {
 public:
  FdSet() = default;
  FdSet(const FdSet&) = delete;
  FdSet& operator=(const FdSet&) = delete;
  ~FdSet() {
    for (const int fd : fds_) ::close(fd);
  }
  void keep(int fd) { fds_.push_back(fd); }

 private:
  std::vector<int> fds_;
};

// libbpf's warnings while one object is opened and loaded: they say why a
// program never reached the verifier. libbpf has one global print hook.
std::vector<std::string>* g_libbpf_lines = nullptr;

int capture_libbpf(enum libbpf_print_level level, const char* format, va_list args) {
  if (level != LIBBPF_WARN || g_libbpf_lines == nullptr) return 0;
  char text[1024];
  std::vsnprintf(text, sizeof text, format, args);
  std::string line = text;
  if (starts_with(line, "libbpf: ")) line.erase(0, 8);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  if (!line.empty()) g_libbpf_lines->push_back(line);
  return 0;
}

class LibbpfMessages {
 public:
  LibbpfMessages() : previous_(libbpf_set_print(&capture_libbpf)) { g_libbpf_lines = &lines_; }
  LibbpfMessages(const LibbpfMessages&) = delete;
  LibbpfMessages& operator=(const LibbpfMessages&) = delete;
  ~LibbpfMessages() {
    g_libbpf_lines = nullptr;
    libbpf_set_print(previous_);
  }
  // The first line that names a cause; libbpf ends with a generic "failed
  // to load object" after it.
  std::string cause() const {
    for (const std::string& line : lines_)
      if (!starts_with(line, "failed to load object") && !starts_with(line, "-- ") &&
          line.find("program load failed") == std::string::npos)
        return "libbpf: " + line;
    return "";
  }

 private:
  std::vector<std::string> lines_;
  libbpf_print_fn_t previous_;
};

// What one load attempt left: its errno (0: loaded), and when it failed
// before the verifier, why.
struct Attempt {
  int error = 0;
  std::string loader_message;
  std::string what;
};

// Loads `settings.runs` times (after a warm-up when asked), growing the log
// while the kernel says it is full, and classifies the last load.
template <class Load>
LinuxResult timed_loads(const LoadSettings& settings, Load load) {
  LinuxResult result;
  std::vector<char> log(settings.full_log ? size_t{16} << 20 : size_t{1} << 20);
  std::vector<int64_t> times;
  const uint32_t first = settings.warm_up ? 0 : 1;
  for (uint32_t run = first; run <= std::max<uint32_t>(settings.runs, 1); ++run) {
    std::fill(log.begin(), log.end(), '\0');
    Attempt attempt = load(log);
    // A full log fails the load with ENOSPC whatever the verdict
    // (kernel/bpf/verifier.c bpf_check()): again with a larger one.
    while (attempt.error == ENOSPC && log.size() < kMaxLog) {
      log.assign(std::min(log.size() * 16, kMaxLog), '\0');
      attempt = load(log);
    }
    const std::string text(log.data(), strnlen(log.data(), log.size()));
    result = classify_load(attempt.error, text, attempt.loader_message, attempt.what);
    if (result.outcome == LinuxOutcome::unavailable || result.outcome == LinuxOutcome::not_permitted) return result;
    if (result.log.verification_us >= 0 && run > 0) times.push_back(result.log.verification_us);
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    result.verification_us = times[times.size() / 2];
  }
  return result;
}

uint32_t log_level(const LoadSettings& settings) { return kLogStats | (settings.full_log ? 1u : 0u); }

// Creates `map` (and fills and freezes it): the fd, or -errno with `what`
// naming the call that failed.
int create_map(const LinuxMap& map, FdSet& fds, std::string& what) {
  LIBBPF_OPTS(bpf_map_create_opts, options, .map_flags = map.flags);
  const char* type = libbpf_bpf_map_type_str(static_cast<enum bpf_map_type>(map.type));
  what = "map '" + map.name + "' (" + (type != nullptr ? type : std::to_string(map.type)) + "): BPF_MAP_CREATE";
  const int fd = bpf_map_create(static_cast<enum bpf_map_type>(map.type), nullptr, map.key_size, map.value_size,
                                map.max_entries, &options);
  if (fd < 0) return fd;
  fds.keep(fd);
  if (!map.initial.empty()) {
    std::vector<uint8_t> value = map.initial;
    value.resize(map.value_size, 0);
    const uint32_t key = 0;
    what = "map '" + map.name + "': BPF_MAP_UPDATE_ELEM";
    const int result = bpf_map_update_elem(fd, &key, value.data(), BPF_ANY);
    if (result < 0) return result;
  }
  if (map.freeze) {
    what = "map '" + map.name + "': BPF_MAP_FREEZE";
    const int result = bpf_map_freeze(fd);
    if (result < 0) return result;
  }
  return fd;
}

Attempt load_raw_once(const RawRequest& request, const LoadSettings& settings, std::vector<char>& log) {
  Attempt attempt;
  FdSet fds;
  // Only the maps the program names are made: a map the kernel cannot
  // have (map-in-map, ...) matters only to the programs that use it.
  std::vector<int> map_fds(request.map_count, -1);
  for (const uint32_t index : referenced_maps(request.insns, request.slots)) {
    if (index >= request.map_count) continue;
    const LinuxMap& map = request.maps[index];
    if (!map.problem.empty()) {
      attempt.error = EINVAL;
      attempt.loader_message = map.problem;
      return attempt;
    }
    const int fd = create_map(map, fds, attempt.what);
    if (fd < 0) {
      attempt.error = -fd;
      return attempt;
    }
    map_fds[index] = fd;
  }
  std::vector<uint8_t> insns(request.insns, request.insns + request.slots * 8);
  patch_map_references(insns, map_fds);

  LIBBPF_OPTS(bpf_prog_load_opts, options,
              .expected_attach_type = static_cast<enum bpf_attach_type>(request.type.expected_attach_type),
              .prog_flags = settings.strict_alignment ? uint32_t{BPF_F_STRICT_ALIGNMENT} : 0u,
              .log_level = log_level(settings), .log_size = static_cast<uint32_t>(log.size()), .log_buf = log.data());
  const char* type = libbpf_bpf_prog_type_str(static_cast<enum bpf_prog_type>(request.type.prog_type));
  attempt.what = "BPF_PROG_LOAD failed before verification (program type " +
                 std::string(type != nullptr ? type : std::to_string(request.type.prog_type)) + ", attach type " +
                 std::to_string(request.type.expected_attach_type) + ")";
  const int fd = bpf_prog_load(static_cast<enum bpf_prog_type>(request.type.prog_type), nullptr,
                               request.license.c_str(), reinterpret_cast<const struct bpf_insn*>(insns.data()),
                               insns.size() / 8, &options);
  if (fd >= 0) {
    ::close(fd);
    return attempt;
  }
  attempt.error = -fd;
  return attempt;
}

// The uapi enum value called `name` by libbpf's `name_of`, or -1.
template <class Enum>
int enum_by_name(const std::string& name, const char* (*name_of)(Enum), int count) {
  for (int value = 0; value < count; ++value) {
    const char* known = name_of(static_cast<Enum>(value));
    if (known != nullptr && name == known) return value;
  }
  return -1;
}

int prog_type_by_name(const std::string& name) {
  return enum_by_name<enum bpf_prog_type>(name, &libbpf_bpf_prog_type_str, kEnumLimit);
}

struct ObjectCloser {
  bpf_object* object;
  ~ObjectCloser() { bpf_object__close(object); }
};

Attempt load_object_once(const ObjectRequest& request, const LoadSettings& settings, std::vector<char>& log) {
  Attempt attempt;
  const LibbpfMessages messages;
  LIBBPF_OPTS(bpf_object_open_opts, open_options, .object_name = request.name.c_str(),
              .btf_custom_path = settings.btf_path.empty() ? nullptr : settings.btf_path.c_str());
  bpf_object* object = bpf_object__open_mem(request.bytes, request.size, &open_options);
  if (object == nullptr) {
    attempt.error = errno != 0 ? errno : EINVAL;
    attempt.loader_message = messages.cause();
    attempt.what = kCannotOpen;
    return attempt;
  }
  const ObjectCloser closer{object};
  // The program by section and function name; failing that, the one
  // program of the section (keel names a program after its section where
  // an old object's function symbol is not the one libbpf uses).
  bpf_program* target = nullptr;
  bpf_program* in_section = nullptr;
  size_t section_programs = 0;
  bpf_program* program = nullptr;
  bpf_object__for_each_program(program, object) {
    if (request.section != bpf_program__section_name(program)) continue;
    ++section_programs;
    in_section = program;
    if (request.function == bpf_program__name(program)) target = program;
  }
  if (target == nullptr && section_programs == 1) target = in_section;
  bpf_object__for_each_program(program, object) bpf_program__set_autoload(program, program == target);
  if (target == nullptr) {
    attempt.error = ENOENT;
    attempt.loader_message = "libbpf lists no program " + request.section + "/" + request.function;
    attempt.what = kNoProgram;
    return attempt;
  }
  const std::string& type_name = !request.type.empty() ? request.type
                                  : bpf_program__type(target) == BPF_PROG_TYPE_UNSPEC ? request.fallback_type
                                                                                      : request.type;
  if (!type_name.empty()) {
    const int type = prog_type_by_name(type_name);
    if (type < 0) {
      attempt.error = EINVAL;
      attempt.loader_message = "program type '" + type_name + "' is not one libbpf knows";
      return attempt;
    }
    bpf_program__set_type(target, static_cast<enum bpf_prog_type>(type));
  }
  bpf_program__set_log_level(target, log_level(settings));
  bpf_program__set_log_buf(target, log.data(), log.size());
  if (settings.strict_alignment) bpf_program__set_flags(target, bpf_program__flags(target) | BPF_F_STRICT_ALIGNMENT);
  const int error = bpf_object__load(object);
  if (error != 0) {
    attempt.error = -error;
    attempt.loader_message = messages.cause();
    attempt.what = "libbpf cannot load the object";
  }
  return attempt;
}

}  // namespace

bool bpf_denied_by_environment() {
  const char* deny = std::getenv("KEEL_COMPARE_DENY_BPF");
  return deny != nullptr && deny[0] != '\0' && std::strcmp(deny, "0") != 0;
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

namespace {

// libbpf: a perf event array declared without max_entries gets one entry
// per possible CPU.
void fill_in_max_entries(LinuxMap& map) {
  if (map.type == BPF_MAP_TYPE_PERF_EVENT_ARRAY && map.max_entries == 0) {
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    map.max_entries = cpus > 0 ? static_cast<uint32_t>(cpus) : 1;
  }
}

void check_kernel_equivalent(LinuxMap& map) {
  if (map.type == BPF_MAP_TYPE_ARRAY_OF_MAPS || map.type == BPF_MAP_TYPE_HASH_OF_MAPS)
    map.problem = "map '" + map.name + "' holds maps, and no inner map is known here";
  else if (map.type == BPF_MAP_TYPE_SK_STORAGE || map.type == BPF_MAP_TYPE_INODE_STORAGE ||
           map.type == BPF_MAP_TYPE_TASK_STORAGE || map.type == BPF_MAP_TYPE_STRUCT_OPS)
    map.problem = "map '" + map.name + "' needs BTF, which an object libbpf cannot open does not give";
}

}  // namespace

LinuxMap linux_map(const std::string& name, const std::string& type_name, const MapDescriptor& map) {
  LinuxMap out;
  out.name = name;
  const int type = enum_by_name<enum bpf_map_type>(type_name, &libbpf_bpf_map_type_str, kEnumLimit);
  out.type = type < 0 ? 0 : static_cast<uint32_t>(type);
  out.key_size = map.key_size;
  out.value_size = map.value_size;
  out.max_entries = map.max_entries;
  out.flags = (map.read_only ? uint32_t{BPF_F_RDONLY_PROG} : 0u) | (map.write_only ? uint32_t{BPF_F_WRONLY_PROG} : 0u);
  if (type <= 0) out.problem = "map '" + name + "' has no Linux map type '" + type_name + "'";
  check_kernel_equivalent(out);
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
  check_kernel_equivalent(out);
  fill_in_max_entries(out);
  return out;
}

std::string linux_program_type(const std::string& type, const std::string& section, LinuxProgramType& out) {
  out = LinuxProgramType{};
  const int found = prog_type_by_name(type);
  if (found <= 0) return "program type '" + type + "' is not one libbpf can load into Linux";
  out.prog_type = static_cast<uint32_t>(found);
  // The attach type libbpf derives from the SEC() name, where its program
  // type is this one (the kernel requires one for some types:
  // kernel/bpf/syscall.c bpf_prog_load_check_attach()).
  enum bpf_prog_type section_type = BPF_PROG_TYPE_UNSPEC;
  enum bpf_attach_type attach = static_cast<enum bpf_attach_type>(0);
  if (!section.empty() && libbpf_prog_type_by_name(section.c_str(), &section_type, &attach) == 0 &&
      static_cast<int>(section_type) == found)
    out.expected_attach_type = static_cast<uint32_t>(attach);
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

LinuxResult classify_load(int error, const std::string& log_text, const std::string& loader_message,
                          const std::string& what) {
  LinuxResult result;
  result.error = error;
  result.log_text = log_text;
  result.log = parse_linux_log(log_text);
  if (error == 0) {
    result.outcome = LinuxOutcome::accepted;
    return result;
  }
  // libbpf replaces an instruction whose CO-RE relocation failed with a
  // call of helper 0xbad2310 (libbpf relo_core.c, bpf_core_poison_insn()):
  // the verifier then refuses a program it was never really given.
  if (result.log.last_line.find("unknown#195896080") != std::string::npos) {
    result.outcome = LinuxOutcome::unavailable;
    result.message = "a CO-RE relocation failed against this kernel's BTF" +
                     (loader_message.empty() ? std::string() : " (" + loader_message + ")");
    return result;
  }
  // Text in the log: the verifier ran and refused the program.
  if (!log_text.empty()) {
    result.outcome = LinuxOutcome::rejected;
    result.message = errno_name(error) + ": " +
                     (result.log.last_line.empty() ? std::string(std::strerror(error)) : result.log.last_line);
    return result;
  }
  // An empty log: the verifier never ran. EPERM or ENOSYS there is about
  // bpf(2) itself; anything else about what the loader or the kernel lacks.
  if (is_not_permitted(error)) {
    result.outcome = LinuxOutcome::not_permitted;
    result.message = not_permitted_message(error);
    return result;
  }
  result.outcome = LinuxOutcome::unavailable;
  if (!loader_message.empty())
    result.message = loader_message;
  else
    result.message = (what.empty() ? std::string("load") : what) + ": " + errno_name(error);
  return result;
}

LinuxResult load_raw_in_linux(const RawRequest& request, const LoadSettings& settings) {
  if (bpf_denied_by_environment()) return classify_load(EPERM, "", "", "");
  return timed_loads(settings, [&](std::vector<char>& log) { return load_raw_once(request, settings, log); });
}

LinuxResult load_object_in_linux(const ObjectRequest& request, const LoadSettings& settings) {
  if (bpf_denied_by_environment()) return classify_load(EPERM, "", "", "");
  bool unopened = false;
  LinuxResult result = timed_loads(settings, [&](std::vector<char>& log) {
    Attempt attempt = load_object_once(request, settings, log);
    unopened = attempt.what == kCannotOpen || attempt.what == kNoProgram;
    return attempt;
  });
  result.libbpf_cannot_prepare = unopened && result.outcome == LinuxOutcome::unavailable;
  return result;
}

std::string errno_name(int error) {
  const char* name = strerrorname_np(error);
  return name != nullptr ? name : "errno " + std::to_string(error);
}

}  // namespace keel::cli
