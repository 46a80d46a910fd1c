// Stage 1: bytes -> Program, in three linear passes.
//   1. slots: each slot against its opcode row (decode_table.h), in pc order;
//   2. targets: every jump and local call lands on an instruction;
//   3. shape: functions (slot 0 and every local-call target start one) are
//      only left by calls and exits, and none can fall off its end.
// The first failing pass reports its lowest pc, so a slot error wins over a
// target error at a lower pc; every error still names a pc.
#include "keel/decode.h"

#include "isa/decode_table.h"
#include "isa/ops.h"
#include "support/bytes.h"

namespace keel {
namespace {

using decode_table::Field;
using decode_table::Kind;
using decode_table::Row;

constexpr uint8_t kFramePointer = 10;

// lddw source kinds (RFC 9669 §5.4, Linux BPF_PSEUDO_*).
constexpr uint8_t kLddwMapFd = 1, kLddwMapIdx = 5, kLddwLastKind = 6;

constexpr Op op_plus(Op base, unsigned n) {
  return static_cast<Op>(static_cast<unsigned>(base) + n);
}

// Kinded rows pick their Op from a run of consecutive values; keep isa.h's
// enum in that shape.
static_assert(op_plus(Op::div64_imm, 4) == Op::sdiv64_imm && op_plus(Op::div32_reg, 4) == Op::sdiv32_reg);
static_assert(op_plus(Op::mod64_imm, 4) == Op::smod64_imm && op_plus(Op::mod32_reg, 4) == Op::smod32_reg);
static_assert(op_plus(Op::le16, 2) == Op::le64 && op_plus(Op::be16, 2) == Op::be64 &&
              op_plus(Op::bswap16, 2) == Op::bswap64);
static_assert(op_plus(Op::lddw_imm64, kLddwLastKind) == Op::lddw_map_idx_value);
static_assert(op_plus(Op::atomic32_add, 4) == Op::atomic32_or && op_plus(Op::atomic32_add, 12) == Op::atomic32_xor &&
              op_plus(Op::atomic32_add, 3) == Op::atomic64_fetch_add);
// Conditional jumps and ja are one run, so "is a jump" is a range test.
static_assert(op_plus(Op::jsle32_reg, 1) == Op::ja);

// A jump with an offset target: conditional, or ja (ja32's imm moved into offset).
constexpr bool is_jump(Op op) { return is_conditional_jump(op) || op == Op::ja; }

// The common case in one test per slot, derived from kTable: a row without
// a kind-specific check (Kind::none, or offset 0 of a row whose kind reads
// only the offset, fast_row) whose slot has its unused fields zero
// and its registers in range decodes to the row's op with the raw fields.
// Every other slot, valid or not, takes the full per-row path below, which
// alone reports errors, so the two paths cannot disagree.
struct FastRow {
  uint64_t zero_bits;  // bits of the little-endian slot that must be 0
  uint32_t head;       // the Insn's first four bytes with dst and src 0: op, 0, 0, opcode
  // 16 - (the bound dst must stay below) in the low byte, the same for src in
  // the next: added to dst | src << 8, a register at or above its bound
  // carries into bit 4 or 12. A bound of 0 (never the fast path) always does.
  uint16_t register_bias;
  uint8_t jump;  // 1 for ja and conditional jumps (pass 2 has work)
};
constexpr uint32_t kRegisterCarry = 0x1010;

// The fast path writes an Insn as two little-endian words (a 16-byte
// aggregate store compiles to a dozen narrow stores).
static_assert(offsetof(Insn, op) == 0 && offsetof(Insn, dst) == 1 && offsetof(Insn, src) == 2 &&
              offsetof(Insn, opcode) == 3 && offsetof(Insn, offset) == 4 && offsetof(Insn, imm) == 8 &&
              sizeof(Op) == 1);

constexpr uint8_t register_limit(Field f) {
  return f == Field::read ? kRegisterCount : f == Field::write ? kFramePointer : 16;
}

constexpr uint16_t register_bias(uint8_t dst_limit, uint8_t src_limit) {
  return static_cast<uint16_t>((16 - dst_limit) | (16 - src_limit) << 8);
}

constexpr FastRow fast_row(const Row& row) {
  FastRow fast{0, static_cast<uint32_t>(row.op) | uint32_t{row.opcode} << 24, register_bias(0, 0), 0};
  // MOV X (movsx) and DIV / MOD (signed_op) rows pick their op by offset,
  // and offset 0 keeps the row's op with no check beyond check_fields
  // (decode_movsx, decode_kind): with offset 0 they are plain rows. Every
  // mov rN, rM is one of them. Other offsets take the per-row path.
  const bool op_by_offset = row.kind == Kind::movsx || row.kind == Kind::signed_op;
  if (row.kind != Kind::none && !op_by_offset) return fast;
  if (row.dst == Field::zero) fast.zero_bits |= uint64_t{0x0f} << 8;
  if (row.src == Field::zero) fast.zero_bits |= uint64_t{0xf0} << 8;
  if (row.offset == Field::zero || op_by_offset) fast.zero_bits |= uint64_t{0xffff} << 16;
  if (row.imm == Field::zero) fast.zero_bits |= uint64_t{0xffffffff} << 32;
  fast.register_bias = register_bias(register_limit(row.dst), register_limit(row.src));
  fast.jump = is_jump(row.op) ? 1 : 0;
  return fast;
}

struct FastTable {
  FastRow row[256];
};

constexpr FastTable build_fast() {
  FastTable table{};
  for (size_t i = 0; i < 256; ++i) table.row[i] = fast_row(decode_table::kTable.row[i]);
  return table;
}

constexpr FastTable kFast = build_fast();

// The fields every row states (RFC 9669 §3: unused fields must be zero;
// registers are 0..10). A written r10 is refused as Linux does ("frame
// pointer is read only"): stores through r10 only read it.
DecodeError check_fields(const Row& row, const RawInsn& raw) {
  if ((row.dst == Field::zero && raw.dst != 0) || (row.src == Field::zero && raw.src != 0) ||
      (row.offset == Field::zero && raw.offset != 0) || (row.imm == Field::zero && raw.imm != 0))
    return DecodeError::reserved_field;
  const bool dst_is_register = row.dst == Field::read || row.dst == Field::write;
  if (dst_is_register && raw.dst >= kRegisterCount) return DecodeError::bad_register;
  if (row.src == Field::read && raw.src >= kRegisterCount) return DecodeError::bad_register;
  if (row.dst == Field::write && raw.dst == kFramePointer) return DecodeError::write_to_r10;
  return DecodeError::ok;
}

// RFC 9669 §4.1: MOVSX is MOV X with offset 8, 16 or 32 (32 only for ALU64,
// where a 32-to-32 extension would be a plain mov32).
DecodeError decode_movsx(const RawInsn& raw, Insn& insn) {
  const bool wide = opcode::class_of(raw.opcode) == opcode::cls_alu64;
  switch (raw.offset) {
    case 0: return DecodeError::ok;
    case 8: insn.op = wide ? Op::movsx64_8 : Op::movsx32_8; return DecodeError::ok;
    case 16: insn.op = wide ? Op::movsx64_16 : Op::movsx32_16; return DecodeError::ok;
    case 32:
      if (!wide) return DecodeError::reserved_field;
      insn.op = Op::movsx64_32;
      return DecodeError::ok;
    default: return DecodeError::reserved_field;
  }
}

// RFC 9669 §5.3: imm names the operation; BPF_FETCH (0x01) makes the plain
// ones return the old value in src; xchg and cmpxchg always fetch.
DecodeError decode_atomic(const RawInsn& raw, Insn& insn) {
  const bool wide = raw.opcode == (opcode::cls_stx | opcode::mode_atomic | opcode::size_dw);
  const bool fetch = (raw.imm & opcode::atomic_fetch) != 0;
  unsigned group;  // position of the operation in KEEL_ATOMIC_OPS
  switch (raw.imm & ~opcode::atomic_fetch) {
    case 0x00: group = 0; break;  // BPF_ADD
    case 0x40: group = 1; break;  // BPF_OR
    case 0x50: group = 2; break;  // BPF_AND
    case 0xa0: group = 3; break;  // BPF_XOR
    default: group = 4; break;
  }
  if (group < 4) {
    insn.op = op_plus(Op::atomic32_add, group * 4 + (wide ? 2u : 0u) + (fetch ? 1u : 0u));
  } else if (raw.imm == opcode::atomic_xchg) {
    insn.op = wide ? Op::atomic64_xchg : Op::atomic32_xchg;
  } else if (raw.imm == opcode::atomic_cmpxchg) {
    // Compares with r0 and loads the old value into r0, not src.
    insn.op = wide ? Op::atomic64_cmpxchg : Op::atomic32_cmpxchg;
    return DecodeError::ok;
  } else {
    return DecodeError::bad_atomic_op;
  }
  // A fetching atomic writes src, so src = r10 would overwrite the frame
  // pointer (Linux rejects it the same way).
  if (fetch && raw.src == kFramePointer) return DecodeError::write_to_r10;
  return DecodeError::ok;
}

// The per-kind check for single-slot rows; `insn` already holds the raw fields.
DecodeError decode_kind(const Row& row, const RawInsn& raw, const DecodeOptions& options, Insn& insn) {
  switch (row.kind) {
    case Kind::none:
    case Kind::legacy:
      return DecodeError::ok;
    case Kind::signed_op:
      // RFC 9669 §4.1: offset 1 selects SDIV / SMOD; other offsets are unused.
      if (raw.offset == 1) insn.op = op_plus(row.op, 4);
      else if (raw.offset != 0) return DecodeError::reserved_field;
      return DecodeError::ok;
    case Kind::movsx:
      return decode_movsx(raw, insn);
    case Kind::endian:
      // RFC 9669 §4.2: imm is the width in bits.
      switch (raw.imm) {
        case 16: return DecodeError::ok;
        case 32: insn.op = op_plus(row.op, 1); return DecodeError::ok;
        case 64: insn.op = op_plus(row.op, 2); return DecodeError::ok;
        default: return DecodeError::bad_endian_size;
      }
    case Kind::ja32:
      // RFC 9669 §4.3: JMP32 JA ("gotol") carries its 32-bit target in imm;
      // later stages read every target from offset.
      insn.offset = raw.imm;
      insn.imm = 0;
      return DecodeError::ok;
    case Kind::call:
      switch (raw.src) {
        case 0:  // §4.3.1 helper by static id
          if (options.helper_exists != nullptr && !options.helper_exists(options.helper_context, raw.imm))
            return DecodeError::unknown_helper;
          return DecodeError::ok;
        case 1:  // §4.3.2 program-local call: imm is the relative target
          insn.op = Op::call_local;
          insn.offset = raw.imm;
          insn.imm = 0;
          return DecodeError::ok;
        case 2:  // §4.3.1 helper by BTF id (a kfunc): keel has no BTF id table
          return DecodeError::unknown_helper;
        default:
          return DecodeError::reserved_field;
      }
    case Kind::atomic:
      return decode_atomic(raw, insn);
    case Kind::invalid:
    case Kind::lddw:
      break;  // handled by the caller
  }
  return DecodeError::unknown_opcode;
}

// RFC 9669 §3.2, §5.4: lddw and its second slot, which holds only imm.
DecodeResult decode_lddw(const uint8_t* bytes, uint32_t count, uint32_t pc, const RawInsn& raw, Insn* insns) {
  if (raw.src > kLddwLastKind) return {DecodeError::bad_lddw_src, {pc}};
  if (pc + 1 >= count) return {DecodeError::incomplete_lddw, {pc}};
  const RawInsn next = read_raw(bytes, pc + 1);
  // A second slot with an opcode is an instruction of its own: the lddw is
  // missing its second half (uBPF reports "incomplete lddw" at the lddw).
  if (next.opcode != 0) return {DecodeError::incomplete_lddw, {pc}};
  if (next.dst != 0 || next.src != 0 || next.offset != 0) return {DecodeError::bad_lddw_second_slot, {pc + 1}};
  // A map reference has no offset into anything: Linux refuses a non-zero
  // second imm for BPF_PSEUDO_MAP_FD / MAP_IDX ("unrecognized bpf_ld_imm64").
  // var_addr keeps it free: libbpf stores a module BTF fd there.
  if ((raw.src == kLddwMapFd || raw.src == kLddwMapIdx) && next.imm != 0)
    return {DecodeError::bad_lddw_second_slot, {pc + 1}};

  Insn& insn = insns[pc];
  insn.op = op_plus(Op::lddw_imm64, raw.src);
  if (raw.src == 0) {
    const uint64_t value = (uint64_t{static_cast<uint32_t>(next.imm)} << 32) | static_cast<uint32_t>(raw.imm);
    insn.imm = static_cast<int64_t>(value);
  }
  // The pseudo kinds' next_imm (e.g. the offset into a map value) lives in
  // the tail, which is never executed.
  insns[pc + 1] = Insn{Op::lddw_tail, 0, 0, 0, 0, next.imm};
  return {};
}

// One slot by its row (the path for every kinded row and every error);
// advances pc past a lddw's tail. Out of line, so that the fast loop
// keeps its values in registers.
[[gnu::noinline]] DecodeResult decode_slot(const uint8_t* bytes, uint32_t count, const DecodeOptions& options,
                                           Insn* insns, uint32_t& pc, uint32_t& local_calls, uint32_t& jumps) {
  const RawInsn raw = read_raw(bytes, pc);
  const Row& row = decode_table::kTable.row[raw.opcode];
  if (row.kind == Kind::invalid || (row.kind == Kind::legacy && !options.allow_legacy_packet_loads))
    return {DecodeError::unknown_opcode, {pc}};
  if (const DecodeError error = check_fields(row, raw); error != DecodeError::ok) return {error, {pc}};

  Insn& insn = insns[pc];
  insn = Insn{row.op, raw.dst, raw.src, raw.opcode, raw.offset, raw.imm};
  if (row.kind == Kind::lddw) {
    if (const DecodeResult result = decode_lddw(bytes, count, pc, raw, insns); !result.ok()) return result;
    if (insn.op == Op::lddw_code_addr) ++local_calls;  // its target starts a function (a callback)
    ++pc;  // the tail is filled in
    return {};
  }
  if (const DecodeError error = decode_kind(row, raw, options, insn); error != DecodeError::ok)
    return {error, {pc}};
  if (insn.op == Op::call_local) ++local_calls;
  if (is_jump(insn.op)) ++jumps;  // gotol
  return {};
}

// One slot of the fast path: false (nothing written) when it needs the full one.
[[gnu::always_inline]] inline bool decode_fast_one(const uint8_t* slot, Insn* insn, uint32_t& fast_jumps) {
  const auto word = bytes::load<uint64_t>(slot);
  const FastRow& fast = kFast.row[word & 0xff];
  const auto regs_byte = static_cast<uint32_t>(word >> 8) & 0xff;  // src << 4 | dst
  const uint32_t registers = (regs_byte | regs_byte << 4) & 0x0f0f;  // dst | src << 8
  if (__builtin_expect((word & fast.zero_bits) != 0 || ((registers + fast.register_bias) & kRegisterCarry) != 0, 0))
    return false;
  // Insn{op, dst, src, opcode, offset sign-extended, imm sign-extended}.
  const auto offset = static_cast<uint32_t>(int32_t{static_cast<int16_t>(word >> 16)});
  const uint64_t head = fast.head | registers << 8;
  bytes::store<uint64_t>(insn, head | uint64_t{offset} << 32);
  bytes::store<int64_t>(&insn->imm, int64_t{static_cast<int32_t>(word >> 32)});
  fast_jumps += fast.jump;
  return true;
}

// The common case of pass 1: decodes slots from pc on while each has a
// Kind::none row and valid fields; returns the first slot that does not
// (or count). No call inside, so that its loop keeps everything in registers.
uint32_t decode_fast(const uint8_t* bytes, uint32_t pc, uint32_t count, Insn* insns, uint32_t& jumps) {
  uint32_t fast_jumps = 0;
  const uint8_t* slot = bytes + size_t{pc} * 8;
  Insn* insn = insns + pc;
  Insn* const end = insns + count;
  // Two slots per round: half the loop's own counting and branching.
  for (; end - insn >= 2; slot += 16, insn += 2) {
    if (!decode_fast_one(slot, insn, fast_jumps)) goto done;
    if (!decode_fast_one(slot + 8, insn + 1, fast_jumps)) {
      ++insn;
      goto done;
    }
  }
  if (insn < end && decode_fast_one(slot, insn, fast_jumps)) ++insn;
done:
  jumps += fast_jumps;
  return static_cast<uint32_t>(insn - insns);
}

// The two kinded rows nearly every real program has, which decode_fast
// leaves to decode_slot: a helper call by static id and a lddw. For the
// slots that pass these checks, which are decode_slot's for these rows
// (check_fields, then decode_kind's src 0 call or decode_lddw), it writes
// what decode_slot would write (a lddw's tail too, pc moved onto it) and
// returns decoded, or unknown_helper where decode_slot reports that; for
// every other slot it writes nothing and returns no, and decode_slot
// decodes it (it alone reports the other errors). decode_test
// compares every field combination of these rows with the rules. Inline:
// decode_slot's call, read_raw and row dispatch cost more than the checks.
enum class Common { no, decoded, unknown_helper };
[[gnu::always_inline]] inline Common decode_common(const uint8_t* bytes, uint32_t count, const DecodeOptions& options,
                                                 Insn* insns, uint32_t& pc, uint32_t& local_calls) {
  const auto word = bytes::load<uint64_t>(bytes + size_t{pc} * 8);
  const auto opcode = static_cast<uint8_t>(word);
  const auto imm = static_cast<int32_t>(word >> 32);
  // RFC 9669 §4.3 (JMP class, code CALL 0x80) and §5.4 (LD class, IMM mode, DW size).
  constexpr uint8_t kCall = opcode::cls_jmp | 0x80, kLddw = opcode::cls_ld | opcode::mode_imm | opcode::size_dw;
  // The rows these checks stand for.
  static_assert(decode_table::kTable.row[kCall].kind == Kind::call &&
                decode_table::kTable.row[kCall].op == Op::call_helper &&
                decode_table::kTable.row[kCall].dst == Field::zero &&
                decode_table::kTable.row[kCall].offset == Field::zero);
  static_assert(decode_table::kTable.row[kLddw].kind == Kind::lddw &&
                decode_table::kTable.row[kLddw].dst == Field::write &&
                decode_table::kTable.row[kLddw].offset == Field::zero);
  if (opcode == kCall) {
    // The call row: dst and offset zero; src 0 is a helper by static id.
    if ((word & 0xffffff00) != 0) return Common::no;
    if (options.helper_exists != nullptr && !options.helper_exists(options.helper_context, imm))
      return Common::unknown_helper;  // decode_slot's error, without asking the table twice
    insns[pc] = Insn{Op::call_helper, 0, 0, kCall, 0, imm};
    return Common::decoded;
  }
  if (opcode != kLddw) return Common::no;
  const auto dst = static_cast<uint8_t>((word >> 8) & 0x0f), src = static_cast<uint8_t>((word >> 12) & 0x0f);
  // The lddw row: dst written (so r0-r9), offset zero; src a kind; a second
  // slot holding only imm, which a map reference keeps zero.
  if (dst >= kFramePointer || ((word >> 16) & 0xffff) != 0 || src > kLddwLastKind || pc + 1 >= count) return Common::no;
  const auto next = bytes::load<uint64_t>(bytes + (size_t{pc} + 1) * 8);
  if (static_cast<uint32_t>(next) != 0) return Common::no;
  const auto next_imm = static_cast<int32_t>(next >> 32);
  if ((src == kLddwMapFd || src == kLddwMapIdx) && next_imm != 0) return Common::no;
  const Op op = op_plus(Op::lddw_imm64, src);
  const int64_t value = src != 0 ? int64_t{imm}
                                 : static_cast<int64_t>((uint64_t{static_cast<uint32_t>(next_imm)} << 32) |
                                                        static_cast<uint32_t>(imm));
  insns[pc] = Insn{op, dst, src, kLddw, 0, value};
  insns[pc + 1] = Insn{Op::lddw_tail, 0, 0, 0, 0, next_imm};
  if (op == Op::lddw_code_addr) ++local_calls;  // its target starts a function (a callback)
  ++pc;
  return Common::decoded;
}

// Pass 1. Counts the local calls, so that pass 3 can skip its scratch array
// for the common single-function program, and the jumps, so that pass 2 can
// be skipped when there are neither.
DecodeResult decode_slots(const uint8_t* bytes, uint32_t count, const DecodeOptions& options, Insn* insns,
                          uint32_t& local_calls, uint32_t& jumps) {
  local_calls = 0;
  jumps = 0;
  for (uint32_t pc = decode_fast(bytes, 0, count, insns, jumps); pc < count;
       pc = decode_fast(bytes, pc + 1, count, insns, jumps)) {
    const Common common = decode_common(bytes, count, options, insns, pc, local_calls);
    if (common == Common::decoded) continue;
    if (common == Common::unknown_helper) return {DecodeError::unknown_helper, {pc}};
    if (const DecodeResult result = decode_slot(bytes, count, options, insns, pc, local_calls, jumps);
        !result.ok())
      return result;
  }
  return {};
}

int64_t target_of(const Insn& insn, uint32_t pc) { return int64_t{pc} + 1 + insn.offset; }

// Pass 2: targets land on an instruction of the program (RFC 9669 §4.3:
// target = pc + 1 + offset). Marks the callees in `starts` when given.
DecodeResult check_targets(const Insn* insns, uint32_t count, uint32_t* starts) {
  for (uint32_t pc = 0; pc < count; ++pc) {
    const Insn& insn = insns[pc];
    if (insn.op == Op::lddw_code_addr) {
      // BPF_PSEUDO_FUNC: a callback's address, imm relative to the next slot;
      // Linux check_subprogs makes its target a subprogram (add_subprog:
      // "call to invalid destination" outside the program).
      const int64_t target = int64_t{pc} + 1 + insn.imm;
      if (target < 0 || target >= count) return {DecodeError::jump_out_of_range, {pc}};
      if (insns[target].op == Op::lddw_tail) return {DecodeError::jump_into_lddw, {pc}};
      if (starts != nullptr) starts[target] = 1;
      continue;
    }
    if (!is_jump(insn.op) && insn.op != Op::call_local) continue;
    const int64_t target = target_of(insn, pc);
    // `ja -1` can never leave; conditional self-jumps are left to the analysis.
    if (insn.op == Op::ja && target == pc) return {DecodeError::infinite_loop, {pc}};
    if (target < 0 || target >= count) return {DecodeError::jump_out_of_range, {pc}};
    if (insns[target].op == Op::lddw_tail) return {DecodeError::jump_into_lddw, {pc}};
    if (insn.op == Op::call_local && starts != nullptr) starts[target] = 1;
  }
  return {};
}

// What may end a function: anything else falls into the next function or
// off the program.
constexpr bool ends_function(Op op) { return op == Op::exit || op == Op::ja; }

// Pass 3, given `function[pc]` = index of the function holding pc (nullptr:
// the whole program is one function).
DecodeResult check_shape(const Insn* insns, uint32_t count, const uint32_t* function) {
  // One function: only the last slot can end it.
  for (uint32_t pc = function == nullptr ? count - 1 : 0; pc < count; ++pc) {
    const Insn& insn = insns[pc];
    if (function != nullptr && is_jump(insn.op)) {
      const auto target = static_cast<uint32_t>(target_of(insn, pc));  // in range: pass 2
      if (function[target] != function[pc]) return {DecodeError::jump_out_of_range, {pc}};
    }
    const bool last = pc + 1 == count || (function != nullptr && function[pc + 1] != function[pc]);
    if (!last) continue;
    // A tail ends its function only after its lddw, which must be reported.
    const uint32_t at = insn.op == Op::lddw_tail ? pc - 1 : pc;
    if (!ends_function(insns[at].op)) return {DecodeError::fall_through_end, {at}};
  }
  return {};
}

}  // namespace

const char* decode_error_name(DecodeError error) {
  switch (error) {
    case DecodeError::ok: return "ok";
    case DecodeError::empty_program: return "empty_program";
    case DecodeError::truncated: return "truncated";
    case DecodeError::too_many_instructions: return "too_many_instructions";
    case DecodeError::unknown_opcode: return "unknown_opcode";
    case DecodeError::reserved_field: return "reserved_field";
    case DecodeError::bad_register: return "bad_register";
    case DecodeError::write_to_r10: return "write_to_r10";
    case DecodeError::bad_endian_size: return "bad_endian_size";
    case DecodeError::bad_atomic_op: return "bad_atomic_op";
    case DecodeError::bad_lddw_src: return "bad_lddw_src";
    case DecodeError::incomplete_lddw: return "incomplete_lddw";
    case DecodeError::bad_lddw_second_slot: return "bad_lddw_second_slot";
    case DecodeError::jump_out_of_range: return "jump_out_of_range";
    case DecodeError::jump_into_lddw: return "jump_into_lddw";
    case DecodeError::infinite_loop: return "infinite_loop";
    case DecodeError::fall_through_end: return "fall_through_end";
    case DecodeError::unknown_helper: return "unknown_helper";
    case DecodeError::out_of_memory: return "out_of_memory";
  }
  return "invalid";
}

DecodeResult decode(const uint8_t* bytes, size_t size, const DecodeOptions& options, Arena& arena, Program& out) {
  out = Program{};
  constexpr size_t kSlot = 8;  // RFC 9669 §3: every slot is 64 bits
  const size_t slots = size / kSlot;
  if (size == 0) return {DecodeError::empty_program, {0}};
  // Reported at the partial slot; a count past uint32 is too many anyway.
  const auto clamp = [](size_t n) { return n > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(n); };
  if (size % kSlot != 0) return {DecodeError::truncated, {clamp(slots)}};
  if (slots > options.max_insns) return {DecodeError::too_many_instructions, {options.max_insns}};
  const auto count = static_cast<uint32_t>(slots);

  // Everything is released on failure; on success only the Insn array stays.
  const size_t mark = arena.mark();
  Insn* insns = arena.allocate_uninitialized<Insn>(count);  // pass 1 writes every slot
  if (insns == nullptr) return {DecodeError::out_of_memory, {0}};

  uint32_t local_calls = 0, jumps = 0;
  DecodeResult result = decode_slots(bytes, count, options, insns, local_calls, jumps);
  if (result.ok()) {
    const size_t scratch = arena.mark();
    // Function index per slot, built from the call targets by a prefix sum:
    // 4 bytes a slot, needed only when there is more than one function.
    uint32_t* function = nullptr;
    if (local_calls != 0) {
      function = arena.allocate<uint32_t>(count);
      if (function == nullptr) result = {DecodeError::out_of_memory, {0}};
    }
    if (result.ok() && jumps + local_calls != 0) result = check_targets(insns, count, function);
    // (A call to slot 0 shifts every index by one, which changes nothing.)
    if (result.ok() && function != nullptr)
      for (uint32_t pc = 1; pc < count; ++pc) function[pc] += function[pc - 1];
    if (result.ok()) result = check_shape(insns, count, function);
    arena.release_to(scratch);
  }
  if (!result.ok()) {
    arena.release_to(mark);
    return result;
  }
  out = Program{insns, count};
  return result;
}

}  // namespace keel
