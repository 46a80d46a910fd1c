// Stage "run": keel::run() (interp.h). One dispatch loop, instantiated twice
// on `Guarded`: the fast instantiation has no memory check compiled in, the
// guarded one shares every line of ISA semantics with it and differs only in
// access() (and the builtins' range_allowed()) and in clobbering r1-r5
// after a helper call.
//
// Preconditions (what decode() guarantees, not re-checked here): registers
// are r0..r10, r10 is never written, jump and call targets are inside the
// program and never a lddw_tail, the last slot cannot fall through.
//
// Reported values: RunResult::pc is the instruction that ended the run (the
// exit, the helper call that set `stop`, or the trapping one);
// insns_executed counts instructions started, the trapping one included,
// except that budget_exhausted reports the budget (the instruction at pc
// did not start). After a helper call r1-r5 keep their values in fast mode
// and are overwritten with kClobbered in guarded mode (see there).
#include "keel/interp.h"

#include <cstring>

#include "isa/semantics.h"
#include "support/bytes.h"
#include "support/speculation.h"

namespace keel {
namespace {

using namespace sem;  // the ALU and jump semantics, shared with the analysis (isa/semantics.h)


constexpr uint32_t low32(uint64_t value) { return static_cast<uint32_t>(value); }

// ---- Guarded-mode memory. Regions granted by helpers at run time live in
// the run's own table; Region itself is not used for the table because its
// default member initializers would zero all kMaxRegions entries on every run.
struct GrantedRegion {
  uint64_t base;
  uint64_t size;
  bool writable;
};

struct Guard {
  uint64_t stack_base;         // RunStack::bytes, one writable region for every frame
  const Region* regions;       // RunOptions::regions
  uint32_t region_count;
  uint32_t granted_count;
  uint32_t granted_limit;      // kMaxRegions minus the caller's regions
  RunStatus status;            // set by access() on a trap
  uint64_t address;
  GrantedRegion granted[kMaxRegions];
};

bool grant_region(HelperCall& call, const Region& region) {
  auto& guard = *static_cast<Guard*>(call.interp_state);
  if (guard.granted_count >= guard.granted_limit) return false;
  guard.granted[guard.granted_count++] = GrantedRegion{region.base, region.size, region.writable};
  return true;
}

// [addr, addr + size) inside [base, base + length), computed without any sum
// that could wrap.
constexpr bool contains(uint64_t base, uint64_t length, uint64_t addr, uint64_t size) {
  return addr >= base && length >= size && addr - base <= length - size;
}

// The slow half of the check: the stack is tested inline by access().
[[gnu::noinline]] bool in_granted_memory(const Guard& guard, uint64_t addr, uint64_t size,
                                         bool write) {
  for (uint32_t i = 0; i < guard.region_count; ++i) {
    const Region& region = guard.regions[i];
    if ((region.writable || !write) && contains(region.base, region.size, addr, size)) return true;
  }
  for (uint32_t i = 0; i < guard.granted_count; ++i) {
    const GrantedRegion& region = guard.granted[i];
    if ((region.writable || !write) && contains(region.base, region.size, addr, size)) return true;
  }
  return false;
}

// Address of a `size`-byte access at base + offset. Fast mode: just the sum
// (unsigned, so wrapping is defined). Guarded mode: nullptr with guard.status
// and guard.address set when the sum wraps or no single region holds all of
// [addr, addr + size) with the needed permission; memory is never touched.
template <bool Guarded>
inline uint8_t* access(uint64_t base, int32_t offset, uint64_t size, bool write, Guard& guard) {
  const uint64_t addr = base + static_cast<uint64_t>(static_cast<int64_t>(offset));
  if constexpr (Guarded) {
    if (offset >= 0 ? addr < base : addr > base) {
      guard.status = RunStatus::address_overflow;
      guard.address = addr;
      return nullptr;
    }
    // Wraps to a huge value when addr is below the stack, so one compare suffices.
    if (addr - guard.stack_base > sizeof(RunStack::bytes) - size &&
        !in_granted_memory(guard, addr, size, write)) {
      guard.status = RunStatus::out_of_bounds;
      guard.address = addr;
      return nullptr;
    }
  } else {
    (void)size;
    (void)write;
    (void)guard;
  }
  return reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(addr));
}

HelperFn find_helper(const HelperTable* table, uint64_t id) {
  if (table == nullptr || id >= table->count) return nullptr;
  return table->fns[id];
}

// What guarded mode leaves in r1-r5 after a helper call: RFC 9669 §4.3.1 says
// they are not preserved, so a program that still reads them is wrong; a
// value outside any region makes its use as a pointer trap.
constexpr uint64_t kClobbered = 0xdead'beef'dead'beefULL;

// The byte range [addr, addr + size) of a builtin lies in one region with
// the needed permission (access() assumes sizes below the stack's).
bool range_allowed(Guard& guard, uint64_t addr, uint64_t size, bool write) {
  if (contains(guard.stack_base, sizeof(RunStack::bytes), addr, size) ||
      in_granted_memory(guard, addr, size, write)) {
    return true;
  }
  guard.status = RunStatus::out_of_bounds;
  guard.address = addr;
  return false;
}

// The compiler builtins (keel/isa.h, ADR 0011) on r1..r3; false on a trap
// (guard.status and guard.address set). An empty range touches nothing.
// memcpy runs as memmove: the verifier does not rule out overlap, and C
// leaves an overlapping memcpy undefined.
template <bool Guarded>
bool call_builtin(uint64_t id, uint64_t* r, Guard& guard) {
  const uint64_t n = r[3];
  const bool reads_src = id != static_cast<uint64_t>(kBuiltinMemset);
  const bool writes_dst = id != static_cast<uint64_t>(kBuiltinMemcmp);
  if constexpr (Guarded) {
    if (n != 0 && ((reads_src && !range_allowed(guard, r[2], n, false)) ||
                   !range_allowed(guard, r[1], n, writes_dst))) {
      return false;
    }
  } else {
    (void)guard;
    (void)reads_src;
    (void)writes_dst;
  }
  auto* dst = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(r[1]));
  const auto* src = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(r[2]));
  // The range lies in memory the program was given (checked above in
  // guarded mode, proved by the verifier in fast mode), so its length fits
  // a size_t on a 32-bit target too.
  const size_t length = static_cast<size_t>(n);
  if (id == static_cast<uint64_t>(kBuiltinMemcmp)) {
    const int order = n == 0 ? 0 : std::memcmp(dst, src, length);
    r[0] = order < 0 ? ~uint64_t{0} : uint64_t{order > 0};
    return true;
  }
  if (n != 0) {
    if (id == static_cast<uint64_t>(kBuiltinMemset)) {
      std::memset(dst, static_cast<uint8_t>(r[2]), length);
    } else {
      std::memmove(dst, src, length);
    }
  }
  if constexpr (Guarded) r[0] = kClobbered;  // undefined after these, as r1-r5
  return true;
}

struct CallerFrame {
  uint64_t saved[4];         // r6..r9, callee-saved (RFC 9669 §4.3.1)
  const Insn* return_to;
};

// Dispatch. With GNU C's labels as values (g++ and clang++ both have them),
// every handler ends in its own indirect jump through a table, which the
// branch predictor learns per handler, and there is no range check on the
// Op. On the ALU-loop benchmark this took fast mode from ~2.3 to ~1.4 ns per
// instruction (g++ 12, -O3). The plain switch is the portable fallback with
// the same handlers (-DKEEL_COMPUTED_GOTO=0 to compare).
#ifndef KEEL_COMPUTED_GOTO
#if defined(__GNUC__)
#define KEEL_COMPUTED_GOTO 1
#else
#define KEEL_COMPUTED_GOTO 0
#endif
#endif

// An unprivileged program's Spectre v1 masks (ADR 0015): the operand of a
// pointer +/- register outside what the verifier proved becomes the value it
// chose. Only the 64-bit add and sub of a register carry masks; the verifier
// refuses a slot that adds two scalars on some path and a pointer on another.
inline void harden_operands(const SpecGuard& g, uint64_t* r, const Insn& insn) {
  if ((g.flags & kGuardMaskSrc) != 0) r[insn.src] = clamp_speculative(r[insn.src], g.min, g.max, g.target);
  if ((g.flags & kGuardMaskDst) != 0) r[insn.dst] = clamp_speculative(r[insn.dst], g.min, g.max, g.target);
}

#if KEEL_COMPUTED_GOTO
#define KEEL_CASE(name) op_##name:
// Counting down keeps the budget check one compare per instruction.
#define KEEL_DISPATCH()                                   \
  do {                                                    \
    if (__builtin_expect(remaining == 0, 0)) goto budget_exhausted; \
    --remaining;                                          \
    goto* kLabels[static_cast<uint8_t>(ip->op)];          \
  } while (0)
#else
#define KEEL_CASE(name) case Op::name:
#define KEEL_DISPATCH() continue
#endif

template <bool Guarded, bool Hardened>
RunResult execute(const Program& program, uint64_t arg1, uint64_t arg2, const RunOptions& options,
                  RunStack& stack) {
  const Insn* const insns = program.insns;
  const SpecGuard* const spec_guards = options.spec_guards;  // Hardened: one per slot
  const uint64_t stack_base = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(stack.bytes));
  const uint64_t stack_top = stack_base + sizeof(stack.bytes);

  Guard guard;  // granted[] left uninitialized on purpose: entries below granted_count are read
  guard.stack_base = stack_base;
  guard.regions = options.regions;
  guard.region_count = options.region_count;
  guard.granted_count = 0;
  guard.granted_limit = options.region_count < kMaxRegions ? kMaxRegions - options.region_count : 0;
  guard.status = RunStatus::ok;
  guard.address = 0;

  uint64_t r[kRegisterCount] = {};
  r[1] = arg1;
  r[2] = arg2;
  r[10] = stack_top;  // frame 0 is the top kStackSize bytes; frames grow down

  CallerFrame frames[kMaxCallDepth];
  uint32_t depth = 0;  // frames[0..depth) are callers of the running function

  const uint64_t budget = options.insn_budget;
  uint64_t remaining = budget;  // counting down keeps the per-instruction check one compare
  const Insn* ip = insns;

#define KEEL_END(run_status, fault_address)                                                   \
  return RunResult{run_status, r[0], static_cast<uint32_t>(ip - insns), fault_address,       \
                   budget - remaining}
#define KEEL_NEXT \
  ++ip;           \
  KEEL_DISPATCH()
#define KEEL_JUMP_IF(condition)                   \
  ip += 1 + ((condition) ? ip->offset : 0);       \
  KEEL_DISPATCH()
#define KEEL_ACCESS(pointer, base, size, write)                                    \
  uint8_t* const pointer = access<Guarded>(base, ip->offset, size, write, guard);  \
  if constexpr (Guarded) {                                                         \
    if (pointer == nullptr) KEEL_END(guard.status, guard.address);                 \
  }
#define KEEL_CALL_HELPER(id_value)                                                             \
  {                                                                                           \
    const uint64_t id = id_value;                                                             \
    if (is_builtin(id)) {                                                                     \
      if (!call_builtin<Guarded>(id, r, guard)) KEEL_END(guard.status, guard.address);        \
      if constexpr (Guarded) r[1] = r[2] = r[3] = r[4] = r[5] = kClobbered;                   \
      KEEL_NEXT;                                                                              \
    }                                                                                         \
    const HelperFn fn = find_helper(options.helpers, id);                                     \
    if (fn == nullptr) KEEL_END(RunStatus::unknown_helper, 0);                                \
    HelperCall call{{r[1], r[2], r[3], r[4], r[5]}, options.helpers->user, &grant_region,     \
                    &guard, false};                                                           \
    r[0] = fn(call);                                                                          \
    if constexpr (Guarded) r[1] = r[2] = r[3] = r[4] = r[5] = kClobbered;                     \
    if (call.stop) KEEL_END(RunStatus::ok, 0);                                                \
    KEEL_NEXT;                                                                                \
  }

#if KEEL_COMPUTED_GOTO
  // One entry per possible byte, so an Op value outside the enum also lands
  // on a label. The order is the enum's (isa.h); the tests run every Op.
#define KEEL_LABEL4(name) &&op_##name##64_imm, &&op_##name##64_reg, &&op_##name##32_imm, &&op_##name##32_reg,
#define KEEL_LABEL_ATOMIC(name) \
  &&op_atomic32_##name, &&op_atomic32_fetch_##name, &&op_atomic64_##name, &&op_atomic64_fetch_##name,
#define KEEL_INVALID8 &&op_invalid, &&op_invalid, &&op_invalid, &&op_invalid, \
                      &&op_invalid, &&op_invalid, &&op_invalid, &&op_invalid,
  static const void* const kLabels[] = {
      KEEL_ALU_OPS(KEEL_LABEL4)
      &&op_neg64, &&op_neg32,
      &&op_movsx64_8, &&op_movsx64_16, &&op_movsx64_32, &&op_movsx32_8, &&op_movsx32_16,
      &&op_le16, &&op_le32, &&op_le64, &&op_be16, &&op_be32, &&op_be64,
      &&op_bswap16, &&op_bswap32, &&op_bswap64,
      KEEL_JMP_OPS(KEEL_LABEL4)
      &&op_ja, &&op_call_helper, &&op_call_local, &&op_callx, &&op_exit,
      &&op_lddw_imm64, &&op_lddw_map_fd, &&op_lddw_map_value, &&op_lddw_var_addr,
      &&op_lddw_code_addr, &&op_lddw_map_idx, &&op_lddw_map_idx_value, &&op_lddw_tail,
      &&op_ldxb, &&op_ldxh, &&op_ldxw, &&op_ldxdw, &&op_ldxsb, &&op_ldxsh, &&op_ldxsw,
      &&op_stb, &&op_sth, &&op_stw, &&op_stdw, &&op_stxb, &&op_stxh, &&op_stxw, &&op_stxdw,
      KEEL_ATOMIC_OPS(KEEL_LABEL_ATOMIC)
      &&op_atomic32_xchg, &&op_atomic64_xchg, &&op_atomic32_cmpxchg, &&op_atomic64_cmpxchg,
      &&op_ld_abs_b, &&op_ld_abs_h, &&op_ld_abs_w, &&op_ld_ind_b, &&op_ld_ind_h, &&op_ld_ind_w,
      &&op_count_,  // index kOpCount
      // kOpCount + 1 .. 255
      KEEL_INVALID8 KEEL_INVALID8 KEEL_INVALID8 KEEL_INVALID8 KEEL_INVALID8
      KEEL_INVALID8 KEEL_INVALID8 KEEL_INVALID8 KEEL_INVALID8 KEEL_INVALID8
      &&op_invalid, &&op_invalid, &&op_invalid, &&op_invalid, &&op_invalid,
  };
#undef KEEL_LABEL4
#undef KEEL_LABEL_ATOMIC
#undef KEEL_INVALID8
  static_assert(sizeof(kLabels) / sizeof(kLabels[0]) == 256, "one label per byte value");
  static_assert(kOpCount == 170, "an added Op needs a label in kLabels and a handler below");
  KEEL_DISPATCH();
  {
#else
  for (;;) {
    if (remaining == 0) goto budget_exhausted;
    --remaining;
    switch (ip->op) {
#endif
#define KEEL_ALU_CASES(name)                                                         \
  KEEL_CASE(name##64_imm)                                                             \
    r[ip->dst] = alu64_##name(r[ip->dst], static_cast<uint64_t>(ip->imm));           \
    KEEL_NEXT;                                                                       \
  KEEL_CASE(name##64_reg)                                                             \
    if constexpr (Hardened) harden_operands(spec_guards[ip - insns], r, *ip);          \
    r[ip->dst] = alu64_##name(r[ip->dst], r[ip->src]);                               \
    KEEL_NEXT;                                                                       \
  KEEL_CASE(name##32_imm)                                                             \
    r[ip->dst] = alu32_##name(low32(r[ip->dst]), static_cast<uint32_t>(ip->imm));    \
    KEEL_NEXT;                                                                       \
  KEEL_CASE(name##32_reg)                                                             \
    r[ip->dst] = alu32_##name(low32(r[ip->dst]), low32(r[ip->src]));                 \
    KEEL_NEXT;
      KEEL_ALU_OPS(KEEL_ALU_CASES)
#undef KEEL_ALU_CASES

      KEEL_CASE(neg64) r[ip->dst] = 0 - r[ip->dst]; KEEL_NEXT;
      KEEL_CASE(neg32) r[ip->dst] = 0u - low32(r[ip->dst]); KEEL_NEXT;
      // §4.1.1 MOVSX: sign-extend the low 8/16/32 bits of src; the 32-bit
      // forms sign-extend into 32 bits, then the ALU rule zero-extends.
      KEEL_CASE(movsx64_8) r[ip->dst] = static_cast<uint64_t>(static_cast<int8_t>(r[ip->src])); KEEL_NEXT;
      KEEL_CASE(movsx64_16) r[ip->dst] = static_cast<uint64_t>(static_cast<int16_t>(r[ip->src])); KEEL_NEXT;
      KEEL_CASE(movsx64_32) r[ip->dst] = static_cast<uint64_t>(static_cast<int32_t>(r[ip->src])); KEEL_NEXT;
      KEEL_CASE(movsx32_8) r[ip->dst] = static_cast<uint32_t>(static_cast<int8_t>(r[ip->src])); KEEL_NEXT;
      KEEL_CASE(movsx32_16) r[ip->dst] = static_cast<uint32_t>(static_cast<int16_t>(r[ip->src])); KEEL_NEXT;
      // §4.2: to little-endian is a truncation on a little-endian machine
      // (bytes.h asserts we are one); to big-endian swaps; bswap always swaps.
      KEEL_CASE(le16) r[ip->dst] = static_cast<uint16_t>(r[ip->dst]); KEEL_NEXT;
      KEEL_CASE(le32) r[ip->dst] = static_cast<uint32_t>(r[ip->dst]); KEEL_NEXT;
      KEEL_CASE(le64) KEEL_NEXT;
      KEEL_CASE(be16)
      KEEL_CASE(bswap16) r[ip->dst] = __builtin_bswap16(static_cast<uint16_t>(r[ip->dst])); KEEL_NEXT;
      KEEL_CASE(be32)
      KEEL_CASE(bswap32) r[ip->dst] = __builtin_bswap32(static_cast<uint32_t>(r[ip->dst])); KEEL_NEXT;
      KEEL_CASE(be64)
      KEEL_CASE(bswap64) r[ip->dst] = __builtin_bswap64(r[ip->dst]); KEEL_NEXT;

#define KEEL_JMP_CASES(name)                                                                       \
  KEEL_CASE(name##64_imm) KEEL_JUMP_IF(jmp64_##name(r[ip->dst], static_cast<uint64_t>(ip->imm)));   \
  KEEL_CASE(name##64_reg) KEEL_JUMP_IF(jmp64_##name(r[ip->dst], r[ip->src]));                       \
  KEEL_CASE(name##32_imm) KEEL_JUMP_IF(jmp32_##name(low32(r[ip->dst]), static_cast<uint32_t>(ip->imm))); \
  KEEL_CASE(name##32_reg) KEEL_JUMP_IF(jmp32_##name(low32(r[ip->dst]), low32(r[ip->src])));
      KEEL_JMP_OPS(KEEL_JMP_CASES)
#undef KEEL_JMP_CASES
      KEEL_CASE(ja) KEEL_JUMP_IF(true);

      KEEL_CASE(call_helper) KEEL_CALL_HELPER(static_cast<uint64_t>(ip->imm))
      KEEL_CASE(callx) KEEL_CALL_HELPER(r[ip->dst])
      KEEL_CASE(call_local) {
        // §4.3.1 / Linux MAX_CALL_FRAMES: frame `depth + 1` must exist in RunStack.
        if (depth + 1 >= kMaxCallDepth) KEEL_END(RunStatus::call_depth_exceeded, 0);
        CallerFrame& frame = frames[depth++];
        frame.saved[0] = r[6];
        frame.saved[1] = r[7];
        frame.saved[2] = r[8];
        frame.saved[3] = r[9];
        frame.return_to = ip + 1;
        r[10] = stack_top - uint64_t{depth} * kStackSize;
        KEEL_JUMP_IF(true);
      }
      KEEL_CASE(exit) {
        if (depth == 0) KEEL_END(RunStatus::ok, 0);
        const CallerFrame& frame = frames[--depth];
        r[6] = frame.saved[0];
        r[7] = frame.saved[1];
        r[8] = frame.saved[2];
        r[9] = frame.saved[3];
        r[10] = stack_top - uint64_t{depth} * kStackSize;
        ip = frame.return_to;
        KEEL_DISPATCH();
      }

      // §5.4: source kind 0 is the 64-bit immediate; the other kinds need
      // maps, variables or code addresses resolved by a loader first.
      KEEL_CASE(lddw_imm64)
        r[ip->dst] = static_cast<uint64_t>(ip->imm);
        ip += 2;
        KEEL_DISPATCH();
      KEEL_CASE(lddw_map_fd)
      KEEL_CASE(lddw_map_value)
      KEEL_CASE(lddw_var_addr)
      KEEL_CASE(lddw_code_addr)
      KEEL_CASE(lddw_map_idx)
      KEEL_CASE(lddw_map_idx_value)
        // FIXME: maps are not modelled yet; a loader will resolve these to lddw_imm64.
        KEEL_END(RunStatus::unresolved_lddw, 0);
#define KEEL_LOAD(op, T)                                            \
  KEEL_CASE(op) {                                                    \
    KEEL_ACCESS(p, r[ip->src], sizeof(T), false)                    \
    r[ip->dst] = static_cast<uint64_t>(bytes::load<T>(p));          \
    KEEL_NEXT;                                                      \
  }
        // §5.2: ldxs sign-extends; converting a negative signed value to
        // uint64_t is modular, which is exactly sign extension.
        KEEL_LOAD(ldxb, uint8_t)
        KEEL_LOAD(ldxh, uint16_t)
        KEEL_LOAD(ldxw, uint32_t)
        KEEL_LOAD(ldxdw, uint64_t)
        KEEL_LOAD(ldxsb, int8_t)
        KEEL_LOAD(ldxsh, int16_t)
        KEEL_LOAD(ldxsw, int32_t)
#undef KEEL_LOAD

#define KEEL_STORE(op, T, value)                                    \
  KEEL_CASE(op) {                                                    \
    KEEL_ACCESS(p, r[ip->dst], sizeof(T), true)                     \
    bytes::store<T>(p, static_cast<T>(value));                      \
    if constexpr (Hardened) {                                       \
      if (spec_guards[ip - insns].flags & kGuardBarrierAfter) speculation_barrier(); \
    }                                                               \
    KEEL_NEXT;                                                      \
  }
        KEEL_STORE(stb, uint8_t, ip->imm)
        KEEL_STORE(sth, uint16_t, ip->imm)
        KEEL_STORE(stw, uint32_t, ip->imm)
        KEEL_STORE(stdw, uint64_t, ip->imm)
        KEEL_STORE(stxb, uint8_t, r[ip->src])
        KEEL_STORE(stxh, uint16_t, r[ip->src])
        KEEL_STORE(stxw, uint32_t, r[ip->src])
        KEEL_STORE(stxdw, uint64_t, r[ip->src])
#undef KEEL_STORE

        // §5.3: single-threaded, so a plain read-modify-write is atomic. The
        // operand is read before the fetch writes src, which matters when
        // src is also the base register. A 32-bit fetch zero-extends.
#define KEEL_ATOMIC_CASES(name)                                                         \
  KEEL_CASE(atomic32_##name) {                                                           \
    KEEL_ACCESS(p, r[ip->dst], 4, true)                                                 \
    bytes::store<uint32_t>(p, alu32_##name(bytes::load<uint32_t>(p), low32(r[ip->src]))); \
    KEEL_NEXT;                                                                          \
  }                                                                                     \
  KEEL_CASE(atomic32_fetch_##name) {                                                     \
    KEEL_ACCESS(p, r[ip->dst], 4, true)                                                 \
    const uint32_t old = bytes::load<uint32_t>(p);                                      \
    bytes::store<uint32_t>(p, alu32_##name(old, low32(r[ip->src])));                    \
    r[ip->src] = old;                                                                   \
    KEEL_NEXT;                                                                          \
  }                                                                                     \
  KEEL_CASE(atomic64_##name) {                                                           \
    KEEL_ACCESS(p, r[ip->dst], 8, true)                                                 \
    bytes::store<uint64_t>(p, alu64_##name(bytes::load<uint64_t>(p), r[ip->src]));      \
    KEEL_NEXT;                                                                          \
  }                                                                                     \
  KEEL_CASE(atomic64_fetch_##name) {                                                     \
    KEEL_ACCESS(p, r[ip->dst], 8, true)                                                 \
    const uint64_t old = bytes::load<uint64_t>(p);                                      \
    bytes::store<uint64_t>(p, alu64_##name(old, r[ip->src]));                           \
    r[ip->src] = old;                                                                   \
    KEEL_NEXT;                                                                          \
  }
        KEEL_ATOMIC_OPS(KEEL_ATOMIC_CASES)
#undef KEEL_ATOMIC_CASES
      KEEL_CASE(atomic32_xchg) {
        KEEL_ACCESS(p, r[ip->dst], 4, true)
        const uint32_t old = bytes::load<uint32_t>(p);
        bytes::store<uint32_t>(p, low32(r[ip->src]));
        r[ip->src] = old;
        KEEL_NEXT;
      }
      KEEL_CASE(atomic64_xchg) {
        KEEL_ACCESS(p, r[ip->dst], 8, true)
        const uint64_t old = bytes::load<uint64_t>(p);
        bytes::store<uint64_t>(p, r[ip->src]);
        r[ip->src] = old;
        KEEL_NEXT;
      }
      // §5.3: compare r0 with memory, store src on a match; r0 always gets
      // the old value. The access counts as a write even when nothing is
      // stored, as in Linux, so the outcome of the check never depends on data.
      KEEL_CASE(atomic32_cmpxchg) {
        KEEL_ACCESS(p, r[ip->dst], 4, true)
        const uint32_t old = bytes::load<uint32_t>(p);
        if (old == low32(r[0])) bytes::store<uint32_t>(p, low32(r[ip->src]));
        r[0] = old;
        KEEL_NEXT;
      }
      KEEL_CASE(atomic64_cmpxchg) {
        KEEL_ACCESS(p, r[ip->dst], 8, true)
        const uint64_t old = bytes::load<uint64_t>(p);
        if (old == r[0]) bytes::store<uint64_t>(p, r[ip->src]);
        r[0] = old;
        KEEL_NEXT;
      }

      KEEL_CASE(ld_abs_b)
      KEEL_CASE(ld_abs_h)
      KEEL_CASE(ld_abs_w)
      KEEL_CASE(ld_ind_b)
      KEEL_CASE(ld_ind_h)
      KEEL_CASE(ld_ind_w)
        // FIXME: no packet model yet (RFC 9669 §5.5 legacy packet access).
        KEEL_END(RunStatus::legacy_packet_load, 0);

      // The second slot of a lddw, or an Op value outside the enum: decode()
      // never puts either at a reachable pc. Stop with a defined result
      // rather than UB. FIXME: RunStatus has no dedicated code for this;
      // unresolved_lddw is the nearest ("a lddw slot that cannot run").
      KEEL_CASE(lddw_tail)
      KEEL_CASE(count_)
#if KEEL_COMPUTED_GOTO
    op_invalid:
#else
      default:
#endif
        KEEL_END(RunStatus::unresolved_lddw, 0);
    }
#if !KEEL_COMPUTED_GOTO
  }
#endif
budget_exhausted:
  return RunResult{RunStatus::budget_exhausted, r[0], static_cast<uint32_t>(ip - insns), 0, budget};
#undef KEEL_END
#undef KEEL_NEXT
#undef KEEL_JUMP_IF
#undef KEEL_ACCESS
#undef KEEL_CALL_HELPER
#undef KEEL_CASE
#undef KEEL_DISPATCH
}

}  // namespace

RunResult run(const Program& program, uint64_t arg1, uint64_t arg2, const RunOptions& options,
              RunStack& stack) {
  if (options.spec_guards != nullptr) {
    return options.mode == RunMode::guarded ? execute<true, true>(program, arg1, arg2, options, stack)
                                            : execute<false, true>(program, arg1, arg2, options, stack);
  }
  return options.mode == RunMode::guarded ? execute<true, false>(program, arg1, arg2, options, stack)
                                          : execute<false, false>(program, arg1, arg2, options, stack);
}

const char* run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::ok: return "ok";
    case RunStatus::out_of_bounds: return "out_of_bounds";
    case RunStatus::address_overflow: return "address_overflow";
    case RunStatus::unknown_helper: return "unknown_helper";
    case RunStatus::call_depth_exceeded: return "call_depth_exceeded";
    case RunStatus::budget_exhausted: return "budget_exhausted";
    case RunStatus::unresolved_lddw: return "unresolved_lddw";
    case RunStatus::legacy_packet_load: return "legacy_packet_load";
  }
  return "invalid";
}

}  // namespace keel
