// The names of Linux's helpers by id (enum bpf_func_id in
// include/uapi/linux/bpf.h), for messages that name a helper as the program's
// source wrote it ("bpf_spin_lock (93)") rather than by its number alone.
#include "keel/platform_linux.h"

namespace keel {
namespace {

struct HelperName {
  int32_t id;
  const char* name;
};

// helpers.inc lists every id of Linux 6.1's enum, ascending, from 0.
constexpr HelperName kHelperNames[] = {
#define KEEL_LINUX_HELPER(id, name) HelperName{id, "bpf_" #name},
#include "platform/linux/helpers.inc"
#undef KEEL_LINUX_HELPER
};
constexpr int32_t kHelperNameCount = static_cast<int32_t>(sizeof(kHelperNames) / sizeof(kHelperNames[0]));

constexpr bool names_indexed_by_id() {
  for (int32_t i = 0; i < kHelperNameCount; ++i) {
    if (kHelperNames[i].id != i) return false;
  }
  return true;
}
static_assert(names_indexed_by_id(), "helpers.inc's KEEL_LINUX_HELPER rows must run 0, 1, 2, ...");

}  // namespace

const char* linux_helper_name(int32_t id) {
  // 0 is BPF_FUNC_unspec: no helper.
  if (id <= 0 || id >= kHelperNameCount) return nullptr;
  return kHelperNames[id].name;
}

}  // namespace keel
