// Loads through BTF-typed kernel pointers (Linux PTR_TO_BTF_ID), which the
// BTF-typed program types (fentry/fexit/fmod_ret, tp_btf, lsm, iter) get
// from their context. Internal to the analysis; docs/adr/0049.
#pragma once

#include <cstdint>

#include "analysis/engine.h"

namespace keel {

// Checks an access of `size` bytes at insn_off through `ptr` (a btf_ptr) as
// Linux 6.1's check_ptr_to_btf_access does: reads only, at a constant
// non-negative offset, inside the pointed-to type as the embedder's
// KernelTypes describes it; helpers may not take it as memory. On success
// `out` (when given) is what the load yields: a scalar, or a btf_ptr for a
// pointer member.
bool btf_ptr_access(Engine& e, uint32_t reg, const RegState& ptr, int64_t insn_off, uint32_t size,
                    bool write, bool helper, uint32_t pc, RegState* out);

}  // namespace keel
