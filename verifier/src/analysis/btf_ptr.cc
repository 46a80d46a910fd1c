// PTR_TO_BTF_ID loads (kernel/bpf/verifier.c check_ptr_to_btf_access and
// kernel/bpf/btf.c btf_struct_access, Linux 6.1). The kernel runs such
// loads as probe reads (BPF_PROBE_MEM: a fault reads 0), so neither NULL
// nor a stale object is a safety problem; what is checked is that the
// access stays inside the type and that a pointer member is read whole.
#include "analysis/btf_ptr.h"

namespace keel {

namespace {

// The offset is always a constant here (a variable part is refused first),
// so the detail names the access and the type's size, no bounds.
Detail btf_detail(const RegState& ptr, int64_t off, uint32_t size, uint32_t limit) {
  return Detail{.size = static_cast<int32_t>(size), .offset = off, .limit = limit,
                .kind = static_cast<uint8_t>(ptr.kind)};
}

}  // namespace

bool btf_ptr_access(Engine& e, uint32_t reg, const RegState& ptr, int64_t insn_off, uint32_t size,
                    bool write, bool helper, uint32_t pc, RegState* out) {
  const int64_t off = int64_t{ptr.off} + insn_off;
  const int32_t r = static_cast<int32_t>(reg);
  // A helper's memory argument takes no PTR_TO_BTF_ID (compatible_reg_types).
  if (helper) return e.fail(pc, Reason::helper_argument, r, btf_detail(ptr, off, size, 0));
  // "only read is supported" (no struct_ops program type here).
  if (write) return e.fail(pc, Reason::read_only_write, r, btf_detail(ptr, off, size, 0));
  // "invalid variable offset" / "invalid negative access".
  if (!ptr.var_is_zero()) return e.fail(pc, Reason::invalid_dereference, r, btf_detail(ptr, off, size, 0));
  const KernelTypes* types = e.type.kernel_types;
  if (types == nullptr || types->read == nullptr) {
    return e.fail(pc, Reason::invalid_dereference, r, btf_detail(ptr, off, size, 0));
  }
  if (off < 0 || off > int64_t{UINT32_MAX}) {
    return e.fail(pc, Reason::memory_out_of_bounds, r, btf_detail(ptr, off, size, 0));
  }
  const BtfReadResult read = types->read(types->context, ptr.region, static_cast<uint32_t>(off), size);
  switch (read.what) {
    case BtfRead::scalar:
      // The member's bytes, zero-extended (probe reads of 1-4 bytes as any load).
      if (out != nullptr) {
        *out = make_scalar(size >= 8 ? Scalar::unknown() : Scalar::from_urange(0, (uint64_t{1} << (8 * size)) - 1));
      }
      return true;
    case BtfRead::pointer:
      // The member's value as Linux 6.1 types it: PTR_TO_BTF_ID again, not
      // known to be non-NULL, sharing nothing with other registers.
      if (out != nullptr) *out = make_pointer(RegKind::btf_ptr, read.type);
      return true;
    case BtfRead::out_of_bounds:
      return e.fail(pc, Reason::memory_out_of_bounds, r, btf_detail(ptr, off, size, read.size));
    case BtfRead::bad_access:
      break;
  }
  return e.fail(pc, Reason::invalid_dereference, r, btf_detail(ptr, off, size, read.size));
}

}  // namespace keel
