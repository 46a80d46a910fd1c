// isa/ops.h against the decoder's opcode table: every opcode byte's class,
// width, operand form and access size (RFC 9669 §3-§5) must be what the
// Op's OpInfo row says, so the two tables cannot drift apart. And the
// registers an instruction writes and reads, case by case.
#include "isa/ops.h"

#include <gtest/gtest.h>

#include "isa/decode_table.h"

namespace keel {
namespace {

uint8_t size_bytes(uint8_t opcode) {
  switch (opcode & 0x18) {
    case opcode::size_w: return 4;
    case opcode::size_h: return 2;
    case opcode::size_b: return 1;
    default: return 8;
  }
}

TEST(IsaOps, RowsAgreeWithTheDecoderTable) {
  using decode_table::Kind;
  uint32_t checked = 0;
  for (const decode_table::Row& row : decode_table::rows::kRows) {
    SCOPED_TRACE(::testing::Message() << "opcode 0x" << std::hex << int{row.opcode} << " " << op_name(row.op));
    const OpInfo& info = op_info(row.op);
    const uint8_t cls = opcode::class_of(row.opcode);
    const bool x = (row.opcode & opcode::src_x) != 0;
    switch (cls) {
      case opcode::cls_alu:
      case opcode::cls_alu64:
        EXPECT_EQ(info.cls, OpClass::alu);
        if (row.kind == Kind::endian) break;  // the byte swaps: width is in imm
        EXPECT_EQ(info.width, cls == opcode::cls_alu64 ? Width::w64 : Width::w32);
        EXPECT_EQ(info.reads_src, x);
        break;
      case opcode::cls_jmp:
      case opcode::cls_jmp32:
        if (row.kind != Kind::none || row.op == Op::ja || row.op == Op::callx || row.op == Op::exit) {
          EXPECT_NE(info.cls, OpClass::cond_jump);
          break;
        }
        EXPECT_EQ(info.cls, OpClass::cond_jump);
        EXPECT_EQ(info.width, cls == opcode::cls_jmp ? Width::w64 : Width::w32);
        EXPECT_EQ(info.reads_src, x);
        break;
      case opcode::cls_ldx:
        EXPECT_EQ(info.cls, OpClass::load);
        EXPECT_EQ(info.size, size_bytes(row.opcode));
        EXPECT_EQ(info.extend != 0, (row.opcode & 0xe0) == opcode::mode_memsx);
        break;
      case opcode::cls_st:
        EXPECT_EQ(info.cls, OpClass::store_imm);
        EXPECT_EQ(info.size, size_bytes(row.opcode));
        break;
      case opcode::cls_stx:
        EXPECT_EQ(info.cls, row.kind == Kind::atomic ? OpClass::atomic : OpClass::store_reg);
        EXPECT_EQ(info.size, size_bytes(row.opcode));
        break;
      case opcode::cls_ld:
        EXPECT_EQ(info.cls, row.kind == Kind::lddw ? OpClass::lddw : OpClass::legacy_load);
        if (row.kind == Kind::legacy) {
          EXPECT_EQ(info.size, size_bytes(row.opcode));
          EXPECT_EQ(info.reads_src, (row.opcode & 0xe0) == opcode::mode_ind);
        }
        break;
    }
    ++checked;
  }
  EXPECT_EQ(checked, decode_table::kDefinedOpcodes);
}

Insn insn(Op op, uint8_t dst, uint8_t src) { return Insn{op, dst, src, 0, 0, 0}; }

TEST(IsaOps, WrittenRegistersFollowRfc9669) {
  EXPECT_EQ(written_regs(insn(Op::add64_reg, 3, 4)), reg_bit(3));
  EXPECT_EQ(written_regs(insn(Op::ldxw, 2, 1)), reg_bit(2));
  EXPECT_EQ(written_regs(insn(Op::lddw_map_fd, 1, 1)), reg_bit(1));
  EXPECT_EQ(written_regs(insn(Op::stxdw, 10, 1)), 0);
  EXPECT_EQ(written_regs(insn(Op::jeq64_reg, 1, 2)), 0);
  EXPECT_EQ(written_regs(insn(Op::exit, 0, 0)), 0);
  // §5.3: no FETCH, nothing; FETCH and XCHG, src; CMPXCHG, r0.
  EXPECT_EQ(written_regs(insn(Op::atomic64_add, 10, 3)), 0);
  EXPECT_EQ(written_regs(insn(Op::atomic32_fetch_xor, 10, 3)), reg_bit(3));
  EXPECT_EQ(written_regs(insn(Op::atomic64_xchg, 10, 3)), reg_bit(3));
  EXPECT_EQ(written_regs(insn(Op::atomic64_cmpxchg, 10, 3)), reg_bit(0));
  // §4.3.1: a call leaves r0-r5 undefined; the legacy loads are taken as calls.
  EXPECT_EQ(written_regs(insn(Op::call_helper, 0, 0)), kCallerSaved);
  EXPECT_EQ(written_regs(insn(Op::callx, 4, 0)), kCallerSaved);
  EXPECT_EQ(written_regs(insn(Op::ld_ind_b, 0, 2)), kCallerSaved);
}

TEST(IsaOps, ReadRegisters) {
  EXPECT_EQ(read_regs(insn(Op::add64_reg, 3, 4)), reg_bit(3) | reg_bit(4));
  EXPECT_EQ(read_regs(insn(Op::add32_imm, 3, 4)), reg_bit(3));
  EXPECT_EQ(read_regs(insn(Op::mov64_reg, 3, 4)), reg_bit(4));
  EXPECT_EQ(read_regs(insn(Op::mov64_imm, 3, 4)), 0);
  EXPECT_EQ(read_regs(insn(Op::movsx64_8, 3, 4)), reg_bit(4));
  EXPECT_EQ(read_regs(insn(Op::neg64, 3, 4)), reg_bit(3));
  EXPECT_EQ(read_regs(insn(Op::jlt32_imm, 5, 6)), reg_bit(5));
  EXPECT_EQ(read_regs(insn(Op::ldxb, 2, 1)), reg_bit(1));
  EXPECT_EQ(read_regs(insn(Op::stb, 10, 1)), reg_bit(10));
  EXPECT_EQ(read_regs(insn(Op::atomic64_cmpxchg, 10, 3)), reg_bit(10) | reg_bit(3) | reg_bit(0));
  EXPECT_EQ(read_regs(insn(Op::call_helper, 0, 0)), kArgumentRegs);
  EXPECT_EQ(read_regs(insn(Op::exit, 0, 0)), reg_bit(0));
}

TEST(IsaOps, ClassQueries) {
  EXPECT_TRUE(is_binary_alu(Op::arsh32_reg));
  EXPECT_FALSE(is_binary_alu(Op::neg64));
  EXPECT_TRUE(is_alu(Op::bswap64));
  EXPECT_TRUE(is_conditional_jump(Op::jsle32_reg));
  EXPECT_FALSE(is_conditional_jump(Op::ja));
  EXPECT_TRUE(is_control(Op::ja) && is_control(Op::exit) && is_control(Op::callx));
  EXPECT_FALSE(is_control(Op::lddw_imm64));
  EXPECT_TRUE(is_lddw(Op::lddw_code_addr));
  EXPECT_FALSE(is_lddw(Op::lddw_tail));
  EXPECT_TRUE(is_store(Op::stb) && is_store(Op::stxdw));
  JmpOp jmp = JmpOp::jeq;
  Width w = Width::w64;
  ASSERT_TRUE(jmp_of(Op::jsge32_reg, jmp, w));
  EXPECT_EQ(jmp, JmpOp::jsge);
  EXPECT_EQ(w, Width::w32);
  EXPECT_TRUE(jump_uses_src(Op::jsge32_reg));
  EXPECT_FALSE(jump_uses_src(Op::jsge32_imm));
  EXPECT_FALSE(jmp_of(Op::ja, jmp, w));
}

}  // namespace
}  // namespace keel
