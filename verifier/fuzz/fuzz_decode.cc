// fuzz_decode: any bytes -> keel::decode (verifier/src/isa/decode.cc).
// Properties: no crash or UB; the error is a defined DecodeError naming a pc
// inside the input; a failure leaves `out` empty and the arena as it was; a
// success has one Insn per slot with a valid Op, registers r0..r10, jump and
// call targets on an instruction (never a lddw tail) and a last slot that
// cannot fall through. The same bytes give the same answer whatever the
// arena (unless it is too small: out_of_memory) and whatever the alignment
// of the input, and stricter options never accept more.
#include <cstdint>
#include <cstring>
#include <memory>

#include "fuzz_check.h"
#include "isa/ops.h"
#include "keel/decode.h"

namespace {

using keel::DecodeError;
using keel::DecodeOptions;
using keel::DecodeResult;
using keel::Insn;
using keel::Op;
using keel::Program;

constexpr uint32_t kSmallMaxInsns = 16;
constexpr uint32_t kLargeMaxInsns = 1u << 20;

struct Outcome {
  DecodeResult result;
  Program program;
};

bool is_jump(Op op) { return keel::is_conditional_jump(op) || op == Op::ja; }

// Decodes with an arena of `arena_bytes` (heap, exact size, so that ASan sees
// any write past it) and checks what holds for every outcome.
Outcome decode_checked(const uint8_t* bytes, size_t size, const DecodeOptions& options,
                       size_t arena_bytes, std::unique_ptr<uint8_t[]>& memory) {
  memory.reset(new uint8_t[arena_bytes == 0 ? 1 : arena_bytes]);
  keel::Arena arena(memory.get(), arena_bytes);
  // Something already in the arena: decode must keep it and release only its own.
  const size_t prefix = arena_bytes >= 64 ? 24 : 0;
  if (prefix != 0) KEEL_FUZZ_CHECK(arena.allocate_bytes(prefix, 8) != nullptr);
  const size_t before = arena.used();

  Outcome o;
  o.program = Program{reinterpret_cast<const Insn*>(&o), 12345};  // must be overwritten
  o.result = keel::decode(bytes, size, options, arena, o.program);

  const size_t slots = size / 8;
  KEEL_FUZZ_CHECK(o.result.error <= DecodeError::out_of_memory);
  KEEL_FUZZ_CHECK(std::strcmp(keel::decode_error_name(o.result.error), "invalid") != 0);
  KEEL_FUZZ_CHECK(arena.used() <= arena.capacity());
  if (!o.result.ok()) {
    KEEL_FUZZ_CHECK(o.program.insns == nullptr && o.program.count == 0);
    KEEL_FUZZ_CHECK(arena.used() == before);
    switch (o.result.error) {
      case DecodeError::empty_program: KEEL_FUZZ_CHECK(size == 0); break;
      case DecodeError::truncated: KEEL_FUZZ_CHECK(size % 8 != 0 && o.result.pc == slots); break;
      case DecodeError::too_many_instructions: KEEL_FUZZ_CHECK(slots > options.max_insns); break;
      case DecodeError::out_of_memory: break;
      default:
        KEEL_FUZZ_CHECK(size % 8 == 0 && slots <= options.max_insns);
        KEEL_FUZZ_CHECK(o.result.pc < slots);
        break;
    }
    return o;
  }

  const Program& p = o.program;
  KEEL_FUZZ_CHECK(size != 0 && size % 8 == 0 && p.count == slots && slots <= options.max_insns);
  KEEL_FUZZ_CHECK(p.insns != nullptr);
  KEEL_FUZZ_CHECK(arena.used() >= before + slots * sizeof(Insn));
  for (uint32_t pc = 0; pc < p.count; ++pc) {
    const Insn& insn = p.insns[pc];
    KEEL_FUZZ_CHECK(insn.op < Op::count_);
    KEEL_FUZZ_CHECK(insn.dst < keel::kRegisterCount && insn.src < keel::kRegisterCount);
    KEEL_FUZZ_CHECK(insn.opcode == bytes[pc * 8]);
    if (keel::is_lddw(insn.op)) {
      KEEL_FUZZ_CHECK(pc + 1 < p.count && p.insns[pc + 1].op == Op::lddw_tail);
      ++pc;
      continue;
    }
    KEEL_FUZZ_CHECK(insn.op != Op::lddw_tail);  // only ever right after its lddw
    if (is_jump(insn.op) || insn.op == Op::call_local) {
      const int64_t target = int64_t{pc} + 1 + insn.offset;
      KEEL_FUZZ_CHECK(target >= 0 && target < int64_t{p.count});
      KEEL_FUZZ_CHECK(p.insns[target].op != Op::lddw_tail);
      KEEL_FUZZ_CHECK(insn.op != Op::ja || target != pc);
    }
    if (insn.op == Op::ld_abs_b || insn.op == Op::ld_abs_h || insn.op == Op::ld_abs_w ||
        insn.op == Op::ld_ind_b || insn.op == Op::ld_ind_h || insn.op == Op::ld_ind_w)
      KEEL_FUZZ_CHECK(options.allow_legacy_packet_loads);
    if (insn.op == Op::call_helper && options.helper_exists != nullptr)
      KEEL_FUZZ_CHECK(options.helper_exists(options.helper_context, static_cast<int32_t>(insn.imm)));
  }
  // A lddw cannot end a function either, so the last slot is never its tail.
  const Op last = p.insns[p.count - 1].op;
  KEEL_FUZZ_CHECK(last == Op::exit || last == Op::ja);
  return o;
}

bool same_program(const Program& a, const Program& b) {
  return a.count == b.count && std::memcmp(a.insns, b.insns, a.count * sizeof(Insn)) == 0;
}

bool same_result(const DecodeResult& a, const DecodeResult& b) {
  return a.error == b.error && a.pc == b.pc;
}

bool even_helpers_only(const void* context, int32_t id) {
  KEEL_FUZZ_CHECK(context == &kSmallMaxInsns);
  return id % 2 == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const size_t slots = size / 8;
  // Always enough: 16 bytes a slot for the Insns, 4 for the function map.
  const size_t big_arena = slots * 20 + 4096;
  DecodeOptions large;
  large.max_insns = kLargeMaxInsns;
  std::unique_ptr<uint8_t[]> reference_memory;
  const Outcome reference = decode_checked(data, size, large, big_arena, reference_memory);

  // Arenas from none at all to exactly enough: the same answer, or out_of_memory.
  const size_t exact = slots * sizeof(Insn) + 24;
  const size_t arenas[] = {0, 1, 16, 100, exact > 8 ? exact - 8 : 0, exact, exact + slots * 4 + 16};
  for (const size_t bytes : arenas) {
    std::unique_ptr<uint8_t[]> memory;
    const Outcome o = decode_checked(data, size, large, bytes, memory);
    if (o.result.error == DecodeError::out_of_memory) {
      KEEL_FUZZ_CHECK(reference.result.error != DecodeError::empty_program &&
                      reference.result.error != DecodeError::truncated &&
                      reference.result.error != DecodeError::too_many_instructions);
      continue;
    }
    KEEL_FUZZ_CHECK(same_result(o.result, reference.result));
    if (o.result.ok()) KEEL_FUZZ_CHECK(same_program(o.program, reference.program));
  }

  // A small max_insns: the same answer when the input fits, else too many.
  {
    DecodeOptions small;
    small.max_insns = kSmallMaxInsns;
    std::unique_ptr<uint8_t[]> memory;
    const Outcome o = decode_checked(data, size, small, big_arena, memory);
    if (size == 0 || size % 8 != 0 || slots <= kSmallMaxInsns) {
      KEEL_FUZZ_CHECK(same_result(o.result, reference.result));
      if (o.result.ok()) KEEL_FUZZ_CHECK(same_program(o.program, reference.program));
    } else {
      KEEL_FUZZ_CHECK(o.result.error == DecodeError::too_many_instructions);
    }
  }

  // An unaligned copy of the input (the decoder reads bytes, not words).
  {
    std::unique_ptr<uint8_t[]> copy(new uint8_t[size + 1]);
    if (size != 0) std::memcpy(copy.get() + 1, data, size);
    std::unique_ptr<uint8_t[]> memory;
    const Outcome o = decode_checked(copy.get() + 1, size, large, big_arena, memory);
    KEEL_FUZZ_CHECK(same_result(o.result, reference.result));
    if (o.result.ok()) KEEL_FUZZ_CHECK(same_program(o.program, reference.program));
  }

  // Stricter options (no legacy loads, only even helper ids) accept a subset.
  {
    DecodeOptions strict = large;
    strict.allow_legacy_packet_loads = false;
    strict.helper_exists = &even_helpers_only;
    strict.helper_context = &kSmallMaxInsns;
    std::unique_ptr<uint8_t[]> memory;
    const Outcome o = decode_checked(data, size, strict, big_arena, memory);
    if (o.result.ok()) {
      KEEL_FUZZ_CHECK(reference.result.ok() && same_program(o.program, reference.program));
    }
  }
  return 0;
}
