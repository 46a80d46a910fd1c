// The analysis context shared by the transfer functions (transfer.cc,
// memory.cc, calls.cc, branch.cc) and the fixpoint (fixpoint.cc). Internal.
#pragma once

#include <cstddef>
#include <cstdint>

#include "analysis/state.h"
#include "cfg/cfg.h"
#include "keel/platform.h"
#include "keel/verify.h"

namespace keel {

// Linux's limits on pointer offsets (include/linux/bpf_verifier.h).
inline constexpr int64_t kMaxVarOff = int64_t{1} << 29;   // BPF_MAX_VAR_OFF
inline constexpr uint64_t kMaxVarSize = uint64_t{1} << 29;  // BPF_MAX_VAR_SIZ
inline constexpr int64_t kMaxPacketOff = 0xffff;           // MAX_PACKET_OFF

// What the unprivileged hardening learned about one instruction slot over
// every visit (transfer.cc, memory.cc): the operand's proven range joined
// (mask_*), the values every visit's range holds (common_*), the operands
// that keep the pointer inside its object on every visit (window_*).
struct GuardState {
  int64_t mask_min, mask_max;
  int64_t common_min, common_max;
  int64_t window_min, window_max;
  uint8_t flags;        // kGuardMask* / kGuardBarrierAfter (keel/spec_guard.h)
  bool scalar_visit;    // a visit added two scalars here: no mask may apply
};

// Built with designated initializers (verify.cc): what the caller gives is
// named, everything else starts from its default here.
struct Engine {
  const Insn* insns = nullptr;
  uint32_t insn_count = 0;
  const ProgramType& type;
  const VerifyOptions& options;
  const Cfg& cfg;
  StatePool& pool;
  MapTable maps{};
  uint32_t next_id = 1;
  uint32_t iterations = 0;
  uint32_t* stack_use = nullptr;  // [function_count]: deepest byte below r10 touched per function
  Verdict verdict{};              // the first failure
  uint32_t trace_pc = UINT32_MAX;  // describe_state(): capture the states entering this pc
  State* trace = nullptr;
  uint8_t* access_kinds = nullptr;  // per pc: the pointers its load/store used (memory.cc, note_access)
  // While a callback is analysed (call_frames.cc, do_callback): the caller's
  // state it was entered with, whose references it may neither keep nor
  // release (it may run again).
  const State* callback_entry = nullptr;
  // Unprivileged programs: the speculative paths are analysed, and every
  // slot's hardening is tracked ([insn_count], zeroed; verify.cc).
  bool speculative = false;
  GuardState* guards = nullptr;

  // Ids stay below kRefBit: reference names (state.h) are never an id of
  // another pointer, whose NULL check would then refine the wrong copies.
  // Reused ids would link unrelated values, so running out (2^31 in one
  // verification) rejects the program instead of wrapping (verify.cc).
  uint32_t fresh_id() {
    const uint32_t id = next_id;
    if (next_id + 1 == kRefBit) {
      ids_exhausted = true;
    } else {
      ++next_id;
    }
    return id;
  }
  bool ids_exhausted = false;
  // Records a rejection (the first one wins) and returns false.
  bool fail(uint32_t pc, Reason reason, int32_t reg = -1, Detail detail = Detail{});
  bool oom(uint32_t pc) { return fail(pc, Reason::out_of_memory); }
};

// A register operand must be initialized (Linux check_reg_arg(SRC_OP)).
[[nodiscard]] bool check_init(Engine& e, const State& s, uint32_t reg, uint32_t pc);
// Marks a register as written with a fresh value (breaks any id link).
inline void set_reg(State& s, uint32_t reg, const RegState& value) { s.regs()[reg] = value; }

// transfer.cc: the Spectre v1 mask of a pointer +/- scalar at pc (the
// scalar's proven range `off`, the operand register dst or src) and the
// offsets that keep `ptr` inside its object; false (rejected) when no one
// mask serves every visit.
[[nodiscard]] bool note_pointer_operand(Engine& e, uint32_t pc, const Scalar& off, bool operand_is_dst,
                                        int64_t window_min, int64_t window_max);
// memory.cc: a speculation barrier after the stack store at pc.
inline void note_barrier(Engine& e, uint32_t pc) {
  if (e.guards != nullptr) e.guards[pc].flags |= kGuardBarrierAfter;
}

// transfer.cc: ALU, mov, byte swaps, lddw.
[[nodiscard]] bool step_alu(Engine& e, State& s, const Insn& insn, uint32_t pc);
[[nodiscard]] bool step_lddw(Engine& e, State& s, const Insn& insn, uint32_t pc);
// Every map reference, reachable or not, must name a map the caller gave and
// a value offset inside it: Linux resolves them all at load time
// (resolve_pseudo_ldimm64), and a loader patches them all.
[[nodiscard]] bool check_map_references(Engine& e);

// memory.cc: loads, stores, atomics; and the region check helper arguments use.
[[nodiscard]] bool step_load(Engine& e, State*& s, const Insn& insn, uint32_t pc);
[[nodiscard]] bool step_store(Engine& e, State*& s, const Insn& insn, uint32_t pc);
[[nodiscard]] bool step_atomic(Engine& e, State*& s, const Insn& insn, uint32_t pc);
enum class Access : uint8_t { read, write };
// Checks that every byte of [ptr + off, ptr + off + size) may be accessed as
// `access` through register `reg` (a pointer of any kind), size known up to
// size_max; helper-written stack bytes become initialized. For helpers: reads
// of the stack need initialized bytes; `packet_ok` says whether packet
// pointers are allowed at all.
[[nodiscard]] bool check_memory_arg(Engine& e, State*& s, uint32_t reg, uint64_t size_max, Access access,
                                    bool packet_ok, uint32_t pc);
// A store of n bytes through `reg` with n in [size_min, size_max] (a
// builtin's destination), checked as check_memory_arg; on the stack only the
// first size_min bytes surely become initialized (zero when `zero`).
[[nodiscard]] bool check_memory_store(Engine& e, State*& s, uint32_t reg, uint64_t size_min, uint64_t size_max,
                                      bool zero, bool packet_ok, uint32_t pc);
// Marks packet pointers of every frame unusable (a helper changed the packet).
void invalidate_packet_pointers(State& s);

// calls.cc: helper calls and legacy packet loads.
[[nodiscard]] bool step_helper(Engine& e, State*& s, const Insn& insn, uint32_t pc);
[[nodiscard]] bool step_legacy_load(Engine& e, State& s, const Insn& insn, uint32_t pc);
// At the program's exit (frame 0): every reference acquired must have been
// released (Linux check_reference_leak).
[[nodiscard]] bool check_reference_leak(Engine& e, const State& s, uint32_t pc);

// branch.cc: narrows `s` to the states in which the conditional jump at pc
// goes the way `taken` says; `feasible` false when no state does.
[[nodiscard]] bool refine_branch(Engine& e, State& s, const Insn& insn, uint32_t pc, bool taken,
                                 bool& feasible);

// trace.cc: renders a state (or "unreached" for nullptr) for describe_state().
size_t render_state(const State* s, char* buffer, size_t size);

// Narrows every scalar register/spill linked to `reg` (same id; Link in
// reg_state.h) to the values its link allows, given `reg`'s value; false
// when one has none left (the state is infeasible).
[[nodiscard]] bool propagate_scalar(State& s, const RegState& reg);

// Whether a copy of `r` (a register move, a fill from its spill slot)
// should share an id with it: a bound learned on one non-constant scalar
// holds for its copies (Linux find_equal_scalars), a NULL check of a
// maybe-NULL pointer checks its copies (mark_ptr_or_null_regs), a range
// proven for a packet pointer with a variable part holds for its copies
// (find_good_pkt_pointers). Linux keeps these ids along each path; keel's
// joins drop ids that differ, so a copy made after a join links afresh.
inline bool links_copies(const RegState& r) {
  if (r.kind == RegKind::scalar) return !r.value.is_const();
  if (r.kind == RegKind::packet || r.kind == RegKind::packet_meta) return !r.var_is_zero();
  return r.maybe_null();
}

// Gives `r` (which has no id) a fresh one for the copies about to be made;
// a scalar starts a class of its own (its value is B: Link::same, delta 0).
// A scalar's `off` and `link` mean something only while it has an id.
inline void start_link(Engine& e, RegState& r) {
  r.id = e.fresh_id();
  if (r.kind == RegKind::scalar) {
    r.link = Link::same;
    r.off = 0;
  }
}

}  // namespace keel
