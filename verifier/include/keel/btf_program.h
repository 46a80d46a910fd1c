// BTF-typed Linux program types (fentry/fexit/fmod_ret, tp_btf, lsm, iter):
// their context is the target's arguments as the kernel's BTF types them,
// so there is one program type per target, built from the kernel's raw BTF
// (the bytes of /sys/kernel/btf/vmlinux) and the program's section name.
// docs/adr/0049-ptr-to-btf-id.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/platform.h"

namespace keel {

// The kernel's BTF with its types indexed (in the arena given to parse_kernel_btf).
struct KernelBtf {
  const void* index = nullptr;  // internal (the loader's BTF view)
};

enum class BtfProgramError : uint8_t {
  ok,
  not_btf_typed,       // the section names no BTF-typed program type
  bad_btf,             // the kernel's BTF is malformed
  out_of_memory,       // the arena is too small to index the kernel's BTF
  no_target,           // the kernel's BTF has no such function, tracepoint, LSM hook or iterator
  unsupported_target,  // a target keel does not model: arguments passed as structs, more than 12
                       // arguments, variadic, iterators with buffer arguments, lsm_cgroup
};

// Stable snake_case name ("no_target").
const char* btf_program_error_name(BtfProgramError error);

[[nodiscard]] BtfProgramError parse_kernel_btf(const uint8_t* bytes, size_t size, Arena& arena, KernelBtf& out);

// True when `section` (a `?` prefix allowed) is one of libbpf's BTF-typed
// sections: fentry/, fexit/, fmod_ret/, tp_btf/, lsm/, lsm_cgroup/, iter/
// and their sleepable `.s` forms.
bool is_btf_typed_section(const char* section);

inline constexpr uint32_t kMaxBtfArgs = 12;  // MAX_BPF_FUNC_ARGS (include/linux/bpf.h)

// A program type built for one target. It points into itself: build it in
// place and do not copy it.
struct BtfProgramType {
  BtfProgramType() = default;
  BtfProgramType(const BtfProgramType&) = delete;
  BtfProgramType& operator=(const BtfProgramType&) = delete;

  ProgramType type;
  CtxField fields[kMaxBtfArgs + 1] = {};  // the arguments, and the return value where readable
  KernelTypes types;
  const char* target = nullptr;  // the target's name after the section's `/` ("tcp_connect")

  // Internal: the kernel's BTF the answers come from, and the structs
  // helpers have asked for by name (a lookup scans the whole BTF, and the
  // analysis asks at every visit of a bpf_skc_to_* call).
  struct NamedStruct {
    const char* name = nullptr;
    uint32_t id = 0;
  };
  static constexpr uint32_t kNamedCache = 8;
  const void* btf = nullptr;
  mutable NamedStruct named[kNamedCache] = {};
  mutable uint32_t named_count = 0;
};

// Builds the program type for `section` ("fentry/tcp_connect") against the
// kernel's types: context slot i (8 bytes at 8*i) is argument i; a pointer
// to a struct or union is a btf_ptr, other pointers and integers scalars.
[[nodiscard]] BtfProgramError make_btf_program_type(const KernelBtf& btf, const char* section,
                                                    BtfProgramType& out);

}  // namespace keel
