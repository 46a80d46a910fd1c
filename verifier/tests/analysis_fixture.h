// A program's analysis context without the fixpoint, for the unit tests of
// the transfer functions (transfer.cc, memory.cc, branch.cc) and of the
// state lattice (state.cc): assembles and decodes a program, builds its CFG
// and an Engine as verify.cc does, and the entry state verify.cc starts
// from (r1 the context, r10 the frame pointer, the rest uninitialized).
// Tests then run instructions one by one through the same step functions
// the fixpoint calls and look at the registers.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "analysis/engine.h"
#include "isa/ops.h"
#include "keel/decode.h"
#include "keel/platform.h"
#include "keel/text.h"

namespace keel::test_support {

struct AnalysisFixture {
  // `text` in keel's assembler; a plain-memory context of `ctx_size` bytes
  // (the conformance program type).
  explicit AnalysisFixture(const std::string& text, VerifyOptions verify_options = VerifyOptions{},
                           uint32_t ctx_size = 64)
      : options(verify_options) {
    type = make_conformance_type(ctx_size, nullptr, 0, ctx_field);
    bytes.assign(8 * 512, 0);
    const AsmResult as = assemble(text.data(), text.size(), bytes.data(), 512);
    if (!as.ok()) {
      error = std::string("assemble: ") + asm_error_name(as.error) + " line " + std::to_string(as.line);
      return;
    }
    bytes.resize(8 * as.slots);
    const DecodeResult d = decode(bytes.data(), bytes.size(), DecodeOptions{}, arena, program);
    if (!d.ok()) {
      error = std::string("decode: ") + decode_error_name(d.error);
      return;
    }
    const CfgResult c = build_cfg(program, arena, cfg);
    if (!c.ok()) {
      error = std::string("cfg: ") + cfg_error_name(c.error);
      return;
    }
    pool = std::make_unique<StatePool>(arena);
    engine.reset(new Engine{.insns = program.insns,
                            .insn_count = program.count,
                            .type = type,
                            .options = options,
                            .cfg = cfg,
                            .pool = *pool,
                            .maps = MapTable{options.maps, options.map_count, options.privileged},
                            .stack_use = stack_use});
    state = entry_state(*pool);
  }

  // The state verify() starts the analysis from.
  static State* entry_state(StatePool& pool) {
    State* s = pool.allocate(1, 4);
    if (s == nullptr) return nullptr;
    Frame& frame = s->frames()[0];
    for (RegState& r : frame.regs) r = make_uninit();
    clear_stack(frame);
    frame.function = 0;
    frame.call_pc = 0;
    frame.regs[1] = make_pointer(RegKind::ctx);
    frame.regs[10] = make_pointer(RegKind::stack);
    return s;
  }

  // Runs the instructions at [from, to) (slots; a lddw's second is
  // skipped) through the transfer function of their class; false at the
  // first rejection, which engine->verdict then describes. After each, the
  // stack watermark must lie below every written tag (Frame::stack_low) and
  // the spill index must hold (state.h): every test that runs stores
  // through here checks the tag and spill writers keep them.
  bool run(uint32_t from, uint32_t to) {
    for (uint32_t pc = from; pc < to; ++pc) {
      const Insn& insn = program.insns[pc];
      bool ok = true;
      switch (op_class(insn.op)) {
        case OpClass::alu: ok = step_alu(*engine, *state, insn, pc); break;
        case OpClass::lddw: ok = step_lddw(*engine, *state, insn, pc); break;
        case OpClass::load: ok = step_load(*engine, state, insn, pc); break;
        case OpClass::store_imm: case OpClass::store_reg: ok = step_store(*engine, state, insn, pc); break;
        case OpClass::atomic: ok = step_atomic(*engine, state, insn, pc); break;
        case OpClass::lddw_tail: break;
        default:
          ADD_FAILURE() << "pc " << pc << ": " << op_name(insn.op) << " is not a straight-line instruction";
          return false;
      }
      for (uint32_t f = 0; f < state->frame_count; ++f) {
        EXPECT_TRUE(stack_low_holds(state->frames()[f])) << "pc " << pc << ": stack watermark above a written tag";
      }
      EXPECT_TRUE(spills_hold(*state)) << "pc " << pc << ": spill list out of order or masks wrong";
      if (!ok) return false;
    }
    return true;
  }
  // Every instruction but a final exit.
  bool run() {
    const uint32_t end = program.count != 0 && program.insns[program.count - 1].op == Op::exit ? program.count - 1
                                                                                            : program.count;
    return run(0, end);
  }

  const RegState& reg(uint32_t r) const { return state->frames()[state->frame_count - 1].regs[r]; }
  Reason reason() const { return engine->verdict.reason; }

  std::vector<uint8_t> memory = std::vector<uint8_t>(1 << 20);
  Arena arena{memory.data(), memory.size()};
  std::vector<uint8_t> bytes;
  Program program;
  Cfg cfg;
  CtxField ctx_field;
  ProgramType type;
  VerifyOptions options;
  std::unique_ptr<StatePool> pool;
  uint32_t stack_use[kMaxCallDepth + 1] = {};
  std::unique_ptr<Engine> engine;
  State* state = nullptr;
  std::string error;  // empty when the program assembled, decoded and has a CFG
};

// A scalar register holding exactly `value`.
inline bool holds_constant(const RegState& r, uint64_t value) {
  return r.kind == RegKind::scalar && r.value.is_const() && r.value.bits.value == value;
}

}  // namespace keel::test_support
