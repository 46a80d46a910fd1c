// Tests for keel::run() (verifier/src/interp/interp.cc). Programs are built
// directly in the decoded form (the decoder is tested on its own), and every
// expected value is written out by hand from RFC 9669 rather than computed
// with the interpreter's own formulas.
#include "keel/interp.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

namespace keel {
namespace {

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr uint64_t kAllOnes = ~uint64_t{0};
constexpr uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
constexpr int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

// ---- A tiny builder for decoded instructions.
Insn ins(Op op, uint8_t dst = 0, uint8_t src = 0, int32_t offset = 0, int64_t imm = 0) {
  return Insn{op, dst, src, 0, offset, imm};
}
Insn mov(uint8_t dst, int32_t imm) { return ins(Op::mov64_imm, dst, 0, 0, imm); }
Insn movr(uint8_t dst, uint8_t src) { return ins(Op::mov64_reg, dst, src); }
Insn lddw(uint8_t dst, uint64_t value) {
  return ins(Op::lddw_imm64, dst, 0, 0, static_cast<int64_t>(value));
}
Insn tail() { return ins(Op::lddw_tail); }
Insn jmp(Op op, uint8_t dst, uint8_t src, int32_t offset, int64_t imm = 0) {
  return ins(op, dst, src, offset, imm);
}
Insn ja(int32_t offset) { return ins(Op::ja, 0, 0, offset); }
Insn ldx(Op op, uint8_t dst, uint8_t src, int32_t offset) { return ins(op, dst, src, offset); }
Insn st(Op op, uint8_t dst, int32_t offset, int64_t imm) { return ins(op, dst, 0, offset, imm); }
Insn stx(Op op, uint8_t dst, uint8_t src, int32_t offset) { return ins(op, dst, src, offset); }
Insn call(int32_t id) { return ins(Op::call_helper, 0, 0, 0, id); }
Insn call_local(int32_t offset) { return ins(Op::call_local, 0, 0, offset); }
Insn exit_insn() { return ins(Op::exit); }

uint64_t address_of(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

struct Machine {
  RunStack stack{};
  RunOptions options{};
  HelperTable table{};
  std::vector<HelperFn> fns;
  std::vector<Region> regions;

  RunResult run(const std::vector<Insn>& program, RunMode mode, uint64_t arg1 = 0,
                uint64_t arg2 = 0) {
    options.mode = mode;
    if (!fns.empty()) {
      table.fns = fns.data();
      table.count = static_cast<uint32_t>(fns.size());
      options.helpers = &table;
    }
    options.regions = regions.data();
    options.region_count = static_cast<uint32_t>(regions.size());
    return keel::run(Program{program.data(), static_cast<uint32_t>(program.size())}, arg1, arg2,
                     options, stack);
  }
};

void expect_same(const RunResult& a, const RunResult& b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.r0, b.r0);
  EXPECT_EQ(a.pc, b.pc);
  EXPECT_EQ(a.address, b.address);
  EXPECT_EQ(a.insns_executed, b.insns_executed);
}

// Runs in both modes (for programs that only touch the stack or granted
// memory, the modes must agree) and returns the fast result.
RunResult run_both(const std::vector<Insn>& program, uint64_t arg1 = 0, uint64_t arg2 = 0) {
  Machine fast, guarded;
  const RunResult f = fast.run(program, RunMode::fast, arg1, arg2);
  const RunResult g = guarded.run(program, RunMode::guarded, arg1, arg2);
  expect_same(f, g);
  return f;
}

// ---------------------------------------------------------------- ALU

struct AluCase {
  Op op;
  uint64_t dst;
  int64_t operand;  // src register value, or the (sign-extended 32-bit) imm
  uint64_t expected;
};

bool is_imm_form(Op op) { return std::strstr(op_name(op), "_imm") != nullptr; }

uint64_t run_alu(const AluCase& c) {
  std::vector<Insn> program = {lddw(1, c.dst), tail()};
  if (is_imm_form(c.op)) {
    EXPECT_EQ(c.operand, static_cast<int32_t>(c.operand)) << "an imm is a sign-extended int32";
    program.push_back(ins(c.op, 1, 0, 0, c.operand));
  } else {
    program.push_back(lddw(2, u(c.operand)));
    program.push_back(tail());
    program.push_back(ins(c.op, 1, 2));
  }
  program.push_back(movr(0, 1));
  program.push_back(exit_insn());
  const RunResult result = run_both(program);
  EXPECT_EQ(result.status, RunStatus::ok);
  return result.r0;
}

const std::vector<AluCase>& alu_cases() {
  static const std::vector<AluCase> cases = {
      // add: wrap-around, imm sign extension, 32-bit zero extension.
      {Op::add64_reg, 1, -1, 0},
      {Op::add64_reg, u(kI64Max), 1, u(kI64Min)},
      {Op::add64_imm, 0, -1, kAllOnes},
      {Op::add64_imm, 5, kI32Min, 0xffffffff80000005},
      {Op::add32_reg, 0xaaaaaaaa7fffffff, 1, 0x80000000},
      {Op::add32_reg, 0xffffffffffffffff, 1, 0},
      {Op::add32_imm, 0xffffffff00000001, -1, 0},
      {Op::add32_imm, 0x100000000, kI32Max, 0x7fffffff},
      // sub
      {Op::sub64_reg, 0, 1, kAllOnes},
      {Op::sub64_reg, u(kI64Min), 1, u(kI64Max)},
      {Op::sub64_imm, 5, -3, 8},
      {Op::sub64_imm, 0, kI32Min, 0x80000000},
      {Op::sub32_reg, 0, 1, 0xffffffff},
      {Op::sub32_reg, 0x500000003, 0x100000001, 2},
      {Op::sub32_imm, 0, -1, 1},
      {Op::sub32_imm, 0x1234567800000000, 1, 0xffffffff},
      // mul
      {Op::mul64_reg, 0x100000000, 0x100000000, 0},
      {Op::mul64_reg, kAllOnes, -1, 1},
      {Op::mul64_imm, 3, -2, 0xfffffffffffffffa},
      {Op::mul64_imm, u(kI64Max), 2, 0xfffffffffffffffe},
      {Op::mul32_reg, 0x10000, 0x10000, 0},
      {Op::mul32_reg, 0xffffffff, 0xffffffff, 1},
      {Op::mul32_imm, 0xffffffff00000003, -2, 0xfffffffa},
      {Op::mul32_imm, 7, 0, 0},
      // div: unsigned, by zero -> 0
      {Op::div64_reg, 7, 2, 3},
      {Op::div64_reg, 12345, 0, 0},
      {Op::div64_reg, kAllOnes, 2, u(kI64Max)},
      {Op::div64_imm, kAllOnes, -1, 1},  // imm -1 is 2^64-1 unsigned
      {Op::div64_imm, 10, -1, 0},
      {Op::div64_imm, 10, 0, 0},
      {Op::div32_reg, 0xffffffff00000007, 2, 3},
      {Op::div32_reg, 0xffffffffffffffff, 0, 0},
      {Op::div32_reg, 100, 0x100000000, 0},  // divisor's low half is 0
      {Op::div32_imm, 0xfffffffe, -1, 0},    // 0xfffffffe / 0xffffffff
      {Op::div32_imm, 0xffffffff, 0, 0},
      // sdiv: signed, truncating; INT_MIN / -1 = INT_MIN; by zero -> 0
      {Op::sdiv64_reg, u(-7), 2, u(-3)},
      {Op::sdiv64_reg, 7, -2, u(-3)},
      {Op::sdiv64_reg, u(kI64Min), -1, u(kI64Min)},
      {Op::sdiv64_reg, u(-5), 0, 0},
      {Op::sdiv64_reg, u(kI64Min), 1, u(kI64Min)},
      {Op::sdiv64_imm, u(kI64Min), -1, u(kI64Min)},
      {Op::sdiv64_imm, 9, 0, 0},
      {Op::sdiv64_imm, u(-9), -3, 3},
      {Op::sdiv32_reg, 0x12345678fffffff9, 2, 0xfffffffd},  // -7 / 2 = -3, zero-extended
      {Op::sdiv32_reg, 0x80000000, -1, 0x80000000},
      {Op::sdiv32_reg, 0xffffffff80000000, 0x00000000ffffffff, 0x80000000},
      {Op::sdiv32_reg, 7, s(0xffffffff00000002), 3},
      {Op::sdiv32_reg, 7, 0x100000000, 0},  // low half of divisor is 0
      {Op::sdiv32_imm, 0x80000000, -1, 0x80000000},
      {Op::sdiv32_imm, 7, -2, 0xfffffffd},
      {Op::sdiv32_imm, 7, 0, 0},
      // or / and / xor
      {Op::or64_reg, 0xf0, 0x0f, 0xff},
      {Op::or64_imm, 0, -1, kAllOnes},
      {Op::or32_reg, 0xffffffff00000000, 1, 1},
      {Op::or32_imm, 0xffffffff00000000, kI32Min, 0x80000000},
      {Op::and64_reg, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0, 0x0f000f000f000f00},
      {Op::and64_imm, kAllOnes, -2, 0xfffffffffffffffe},
      {Op::and64_imm, kAllOnes, kI32Max, 0x7fffffff},
      {Op::and32_reg, kAllOnes, -1, 0xffffffff},
      {Op::and32_imm, kAllOnes, kI32Min, 0x80000000},
      {Op::xor64_reg, 0xff, 0x0f, 0xf0},
      {Op::xor64_imm, 0, -1, kAllOnes},
      {Op::xor32_reg, kAllOnes, 0, 0xffffffff},
      {Op::xor32_imm, 0, -1, 0xffffffff},
      // lsh: amounts masked to & 63 / & 31
      {Op::lsh64_reg, 1, 63, 0x8000000000000000},
      {Op::lsh64_reg, 1, 64, 1},
      {Op::lsh64_reg, 1, 65, 2},
      {Op::lsh64_reg, 3, 0x100000001, 6},
      {Op::lsh64_imm, 1, 32, 0x100000000},
      {Op::lsh64_imm, 1, 31, 0x80000000},
      {Op::lsh64_imm, 5, 0, 5},
      {Op::lsh32_reg, 1, 31, 0x80000000},
      {Op::lsh32_reg, 1, 32, 1},
      {Op::lsh32_reg, 0xffffffff, 1, 0xfffffffe},
      {Op::lsh32_imm, 0xffffffff00000001, 63, 0x80000000},  // 63 & 31 = 31
      {Op::lsh32_imm, 3, 0, 3},
      // rsh: logical
      {Op::rsh64_reg, 0x8000000000000000, 63, 1},
      {Op::rsh64_reg, kAllOnes, 64, kAllOnes},
      {Op::rsh64_reg, kAllOnes, 1, u(kI64Max)},
      {Op::rsh64_imm, 0x100000000, 32, 1},
      {Op::rsh64_imm, kAllOnes, 63, 1},
      {Op::rsh32_reg, 0xffffffff80000000, 31, 1},
      {Op::rsh32_reg, 0xffffffff80000000, 32, 0x80000000},
      {Op::rsh32_imm, 0xffffffff80000000, 1, 0x40000000},
      {Op::rsh32_imm, 0x80000000, 64, 0x80000000},
      // mod: unsigned, by zero leaves dst (32-bit: low half, zero-extended)
      {Op::mod64_reg, 7, 3, 1},
      {Op::mod64_reg, 7, 0, 7},
      {Op::mod64_reg, kAllOnes, 0, kAllOnes},
      {Op::mod64_imm, 10, -1, 10},
      {Op::mod64_imm, kAllOnes, 0, kAllOnes},
      {Op::mod32_reg, 0xffffffff00000007, 0, 7},
      {Op::mod32_reg, kAllOnes, 0x10, 15},
      {Op::mod32_reg, 9, 0x100000000, 9},  // low half of divisor is 0
      {Op::mod32_imm, 0xabcdef0000000005, 0, 5},
      {Op::mod32_imm, 0xffffffff, -1, 0},
      // smod: sign follows the dividend; x % -1 = 0; by zero leaves dst
      {Op::smod64_reg, u(-7), 2, u(-1)},
      {Op::smod64_reg, 7, -2, 1},
      {Op::smod64_reg, u(-7), -2, u(-1)},
      {Op::smod64_reg, u(kI64Min), -1, 0},
      {Op::smod64_reg, u(-5), 0, u(-5)},
      {Op::smod64_imm, u(kI64Min), -1, 0},
      {Op::smod64_imm, u(-5), 0, u(-5)},
      {Op::smod64_imm, 7, -2, 1},
      {Op::smod32_reg, 0x12345678fffffff9, 2, 0xffffffff},  // -7 % 2 = -1
      {Op::smod32_reg, 0x80000000, -1, 0},
      {Op::smod32_reg, 0xabcdabcdfffffff9, 0, 0xfffffff9},
      {Op::smod32_reg, 7, s(0xffffffff00000000), 7},
      {Op::smod32_imm, 0x80000000, -1, 0},
      {Op::smod32_imm, 7, -2, 1},
      {Op::smod32_imm, 0xfffffff9, 3, 0xffffffff},
      {Op::smod32_imm, 0xffffffff00000005, 0, 5},
      // mov
      {Op::mov64_reg, 0x1234, kI64Min, u(kI64Min)},
      {Op::mov64_imm, 0x1234, -1, kAllOnes},
      {Op::mov64_imm, 0x1234, kI32Min, 0xffffffff80000000},
      {Op::mov32_reg, 0, 0x123456789abcdef0, 0x9abcdef0},
      {Op::mov32_imm, kAllOnes, -1, 0xffffffff},
      {Op::mov32_imm, kAllOnes, kI32Max, 0x7fffffff},
      // arsh: arithmetic
      {Op::arsh64_reg, u(kI64Min), 63, kAllOnes},
      {Op::arsh64_reg, u(-2), 1, kAllOnes},
      {Op::arsh64_reg, u(kI64Min), 64, u(kI64Min)},
      {Op::arsh64_reg, u(kI64Max), 62, 1},
      {Op::arsh64_imm, 0xfffffffffffffff0, 4, kAllOnes},
      {Op::arsh64_imm, 0x80000000, 31, 1},
      {Op::arsh32_reg, 0x80000000, 31, 0xffffffff},
      {Op::arsh32_reg, 0xffffffff80000000, 32, 0x80000000},
      {Op::arsh32_reg, 0xffffffff7fffffff, 4, 0x07ffffff},
      {Op::arsh32_imm, 0x80000000, 4, 0xf8000000},
      {Op::arsh32_imm, 0x0000000140000000, 30, 1},
  };
  return cases;
}

TEST(InterpAlu, EveryCase) {
  for (const AluCase& c : alu_cases()) {
    SCOPED_TRACE(::testing::Message() << op_name(c.op) << " dst=0x" << std::hex << c.dst
                                      << " operand=0x" << u(c.operand));
    EXPECT_EQ(run_alu(c), c.expected);
  }
}

TEST(InterpAlu, TableCoversEveryBinaryAluOp) {
  std::set<Op> covered;
  for (const AluCase& c : alu_cases()) covered.insert(c.op);
  for (size_t i = 0; i <= static_cast<size_t>(Op::arsh32_reg); ++i) {
    EXPECT_TRUE(covered.count(static_cast<Op>(i))) << op_name(static_cast<Op>(i));
  }
}

struct UnaryCase {
  Op op;
  uint64_t value;
  uint64_t expected;
};

TEST(InterpAlu, NegMovsxEndian) {
  const UnaryCase cases[] = {
      {Op::neg64, 1, kAllOnes},
      {Op::neg64, 0, 0},
      {Op::neg64, u(kI64Min), u(kI64Min)},
      {Op::neg64, u(kI64Max), u(kI64Min + 1)},
      {Op::neg32, 1, 0xffffffff},
      {Op::neg32, 0x80000000, 0x80000000},
      {Op::neg32, 0xffffffff00000000, 0},
      {Op::neg32, 0x00000005ffffffff, 1},
      // movsx: source is src, dst is overwritten entirely
      {Op::movsx64_8, 0x80, 0xffffffffffffff80},
      {Op::movsx64_8, 0x7f, 0x7f},
      {Op::movsx64_8, 0x12345600000000ff, kAllOnes},
      {Op::movsx64_16, 0x8000, 0xffffffffffff8000},
      {Op::movsx64_16, 0xffff7fff, 0x7fff},
      {Op::movsx64_32, 0x80000000, 0xffffffff80000000},
      {Op::movsx64_32, 0xffffffff7fffffff, 0x7fffffff},
      {Op::movsx32_8, 0x80, 0xffffff80},
      {Op::movsx32_8, 0xffffffffffffff7f, 0x7f},
      {Op::movsx32_16, 0xffffffffffff8000, 0xffff8000},
      {Op::movsx32_16, 0x1234, 0x1234},
      // endianness (the host is little-endian)
      {Op::le16, 0x1122334455667788, 0x7788},
      {Op::le32, 0x1122334455667788, 0x55667788},
      {Op::le64, 0x1122334455667788, 0x1122334455667788},
      {Op::be16, 0x1122334455667788, 0x8877},
      {Op::be32, 0x1122334455667788, 0x88776655},
      {Op::be64, 0x1122334455667788, 0x8877665544332211},
      {Op::bswap16, 0x1122334455667788, 0x8877},
      {Op::bswap32, 0x1122334455667788, 0x88776655},
      {Op::bswap64, 0x1122334455667788, 0x8877665544332211},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << op_name(c.op) << " value=0x" << std::hex << c.value);
    const bool uses_src = std::strncmp(op_name(c.op), "movsx", 5) == 0;
    // For movsx r1 starts as garbage and r2 holds the value; otherwise r1 does.
    std::vector<Insn> program = {lddw(1, uses_src ? 0xdeadbeefdeadbeef : c.value), tail(),
                                 lddw(2, c.value), tail(), ins(c.op, 1, 2), movr(0, 1),
                                 exit_insn()};
    const RunResult result = run_both(program);
    EXPECT_EQ(result.status, RunStatus::ok);
    EXPECT_EQ(result.r0, c.expected);
  }
}

TEST(InterpAlu, Lddw) {
  const RunResult result =
      run_both({lddw(0, 0x8123456789abcdef), tail(), exit_insn()});
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 0x8123456789abcdefu);
  EXPECT_EQ(result.insns_executed, 2u);  // lddw counts once
  EXPECT_EQ(result.pc, 2u);              // the exit that ended the run
}

// ---------------------------------------------------------------- jumps

struct JumpCase {
  Op op;
  uint64_t a;
  int64_t b;  // src value or imm
  bool taken;
};

const std::vector<JumpCase>& jump_cases() {
  static const std::vector<JumpCase> cases = {
      {Op::jeq64_reg, 5, 5, true},
      {Op::jeq64_reg, 5, 6, false},
      {Op::jeq64_reg, 0x100000005, 5, false},
      {Op::jeq32_reg, 0x100000005, 5, true},
      {Op::jeq32_reg, 0x100000005, 0x100000006, false},
      {Op::jeq64_imm, kAllOnes, -1, true},
      {Op::jeq64_imm, 0xffffffff, -1, false},
      {Op::jeq32_imm, 0xffffffff, -1, true},
      {Op::jeq32_imm, 0x1ffffffff, -1, true},
      {Op::jeq32_imm, 0, -1, false},

      {Op::jgt64_reg, kAllOnes, 1, true},  // unsigned
      {Op::jgt64_reg, 1, -1, false},
      {Op::jgt64_reg, 2, 2, false},
      {Op::jgt32_reg, 0x100000000, 0xffffffff, false},  // 64-bit would be taken
      {Op::jgt32_reg, 0xffffffff, 0x100000000, true},   // 64-bit would not
      {Op::jgt64_imm, 0xffffffff, -1, false},           // imm is 2^64-1
      {Op::jgt64_imm, kAllOnes, -2, true},
      {Op::jgt32_imm, 0xffffffff, -2, true},
      {Op::jgt32_imm, 0x100000001, 2, false},

      {Op::jge64_reg, 3, 3, true},
      {Op::jge64_reg, 2, 3, false},
      {Op::jge32_reg, 0x100000002, 3, false},
      {Op::jge32_reg, 3, 0x100000003, true},
      {Op::jge64_imm, 0, -1, false},
      {Op::jge64_imm, kAllOnes, -1, true},
      {Op::jge32_imm, 0xffffffff, -1, true},
      {Op::jge32_imm, 0xfffffffe, -1, false},

      {Op::jset64_reg, 6, 1, false},
      {Op::jset64_reg, 6, 2, true},
      {Op::jset32_reg, 0x100000000, 0x100000000, false},  // 64-bit would be taken
      {Op::jset32_reg, 0x100000001, 0x3, true},
      {Op::jset64_imm, 0x8000000000000000, kI32Min, true},  // imm sign-extends
      {Op::jset64_imm, 0x7fffffff, kI32Min, false},
      {Op::jset32_imm, 0x8000000000000000, kI32Min, false},
      {Op::jset32_imm, 0x80000000, kI32Min, true},

      {Op::jne64_reg, 1, 2, true},
      {Op::jne64_reg, 2, 2, false},
      {Op::jne32_reg, 0x100000002, 2, false},
      {Op::jne32_reg, 0x100000002, 3, true},
      {Op::jne64_imm, 0xffffffff, -1, true},
      {Op::jne64_imm, kAllOnes, -1, false},
      {Op::jne32_imm, 0xffffffff, -1, false},
      {Op::jne32_imm, 0xfffffffe, -1, true},

      {Op::jsgt64_reg, 1, -1, true},  // unsigned would not be taken
      {Op::jsgt64_reg, kAllOnes, 1, false},
      {Op::jsgt64_reg, u(kI64Min), kI64Max, false},
      {Op::jsgt64_reg, u(kI64Max), kI64Min, true},
      {Op::jsgt32_reg, 0x7fffffff, 0x80000000, true},  // signed 64 would not
      {Op::jsgt32_reg, 0x80000000, 0x7fffffff, false},
      {Op::jsgt32_reg, 0x100000000, 0xffffffff, true},  // 0 > -1
      {Op::jsgt64_imm, 0xffffffff, -1, true},
      {Op::jsgt64_imm, 5, 5, false},
      {Op::jsgt32_imm, 0xffffffff, -1, false},
      {Op::jsgt32_imm, 0, -1, true},

      {Op::jsge64_reg, kAllOnes, -1, true},
      {Op::jsge64_reg, u(-2), -1, false},
      {Op::jsge64_reg, 0, kI64Min, true},
      {Op::jsge32_reg, 0x80000000, 0, false},  // signed 64 would be taken
      {Op::jsge32_reg, 0x100000000, 0, true},
      {Op::jsge64_imm, u(kI64Min), kI32Min, false},
      {Op::jsge64_imm, u(-5), -5, true},
      {Op::jsge32_imm, 0x1fffffffb, -5, true},
      {Op::jsge32_imm, 0x1fffffffa, -5, false},

      {Op::jlt64_reg, 1, -1, true},  // unsigned
      {Op::jlt64_reg, kAllOnes, 1, false},
      {Op::jlt32_reg, 0x100000001, 2, true},  // 64-bit would not
      {Op::jlt32_reg, 2, 0x100000001, false},
      {Op::jlt64_imm, 0xffffffff, -1, true},
      {Op::jlt64_imm, 3, 3, false},
      {Op::jlt32_imm, 0xffffffff, -1, false},
      {Op::jlt32_imm, 0x1fffffffe, -1, true},

      {Op::jle64_reg, 2, 2, true},
      {Op::jle64_reg, 3, 2, false},
      {Op::jle32_reg, 0x100000002, 2, true},
      {Op::jle32_reg, 3, 0x100000002, false},  // 64-bit would be taken
      {Op::jle64_imm, 0x100000000, -1, true},
      {Op::jle64_imm, 1, 0, false},
      {Op::jle32_imm, 0x100000000, 0, true},
      {Op::jle32_imm, 1, 0, false},

      {Op::jslt64_reg, kAllOnes, 1, true},  // unsigned would not
      {Op::jslt64_reg, 1, -1, false},
      {Op::jslt32_reg, 0x80000000, 0, true},  // signed 64 would not
      {Op::jslt32_reg, 0, 0x80000000, false},
      {Op::jslt64_imm, u(kI64Min), kI32Min, true},
      {Op::jslt64_imm, 0x80000000, kI32Min, false},
      {Op::jslt32_imm, 0x80000000, kI32Min, false},
      {Op::jslt32_imm, 0x80000000, kI32Max, true},

      {Op::jsle64_reg, kAllOnes, -1, true},
      {Op::jsle64_reg, 0, -1, false},
      {Op::jsle32_reg, 0xffffffff, 0, true},  // signed 64 would not
      {Op::jsle32_reg, 0x100000001, s(0xffffffff00000000), false},
      {Op::jsle64_imm, 0xffffffff, -1, false},
      {Op::jsle64_imm, kAllOnes, -1, true},
      {Op::jsle32_imm, 0xffffffff, -1, true},
      {Op::jsle32_imm, 0, -1, false},
  };
  return cases;
}

bool run_jump(const JumpCase& c) {
  std::vector<Insn> program = {lddw(1, c.a), tail(), lddw(2, u(c.b)), tail()};
  program.push_back(is_imm_form(c.op) ? jmp(c.op, 1, 0, 2, c.b) : jmp(c.op, 1, 2, 2));
  program.insert(program.end(), {mov(0, 0), exit_insn(), mov(0, 1), exit_insn()});
  const RunResult result = run_both(program);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.insns_executed, 5u);
  EXPECT_LE(result.r0, 1u);
  return result.r0 == 1;
}

TEST(InterpJump, EveryCase) {
  for (const JumpCase& c : jump_cases()) {
    SCOPED_TRACE(::testing::Message() << op_name(c.op) << " a=0x" << std::hex << c.a << " b=0x"
                                      << u(c.b));
    EXPECT_EQ(run_jump(c), c.taken);
  }
}

TEST(InterpJump, TableHasEveryConditionalTakenAndNotTaken) {
  std::set<Op> taken, not_taken;
  for (const JumpCase& c : jump_cases()) (c.taken ? taken : not_taken).insert(c.op);
  for (size_t i = static_cast<size_t>(Op::jeq64_imm); i <= static_cast<size_t>(Op::jsle32_reg);
       ++i) {
    EXPECT_TRUE(taken.count(static_cast<Op>(i))) << op_name(static_cast<Op>(i));
    EXPECT_TRUE(not_taken.count(static_cast<Op>(i))) << op_name(static_cast<Op>(i));
  }
}

TEST(InterpJump, JaForwardBackwardAndLoop) {
  // 0: r0 = 0; 1: ja +2; 2: r0 = 99; 3: exit; 4: r0 += 7; 5: ja -3 (to 3)
  const RunResult result =
      run_both({mov(0, 0), ja(2), mov(0, 99), exit_insn(),
                ins(Op::add64_imm, 0, 0, 0, 7), ja(-3)});
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 7u);
  EXPECT_EQ(result.insns_executed, 5u);
  EXPECT_EQ(result.pc, 3u);

  // A counted loop: r0 = 0; r1 = 10; r0 += 3; r1 -= 1; jne r1, 0, -3; exit.
  const RunResult loop =
      run_both({mov(0, 0), mov(1, 10), ins(Op::add64_imm, 0, 0, 0, 3),
                ins(Op::sub64_imm, 1, 0, 0, 1), jmp(Op::jne64_imm, 1, 0, -3, 0), exit_insn()});
  EXPECT_EQ(loop.r0, 30u);
  EXPECT_EQ(loop.insns_executed, 2u + 3u * 10u + 1u);
}

TEST(InterpJump, ArgumentsAndZeroOffsetJa) {
  const RunResult result = run_both({ja(0), movr(0, 1), ins(Op::add64_reg, 0, 2), exit_insn()},
                                    40, 2);
  EXPECT_EQ(result.r0, 42u);
  EXPECT_EQ(result.insns_executed, 4u);
}

// ---------------------------------------------------------------- memory

TEST(InterpMemory, StoresAndLoadsEverySizeOnTheStack) {
  const RunResult result = run_both(
      {st(Op::stdw, 10, -8, -2), ldx(Op::ldxdw, 0, 10, -8), exit_insn()});  // imm sign-extends
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 0xfffffffffffffffe);

  Machine m;
  std::vector<Insn> program = {
      st(Op::stw, 10, -16, kI32Min), st(Op::stw, 10, -12, 0x11223344),
      ldx(Op::ldxdw, 0, 10, -16), exit_insn()};
  EXPECT_EQ(m.run(program, RunMode::guarded).r0, 0x1122334480000000u);
  program = {st(Op::sth, 10, -2, 0x1234abcd), ldx(Op::ldxh, 0, 10, -2), exit_insn()};
  EXPECT_EQ(m.run(program, RunMode::fast).r0, 0xabcdu);
  program = {st(Op::stb, 10, -1, 0x1ff), ldx(Op::ldxb, 0, 10, -1), exit_insn()};
  EXPECT_EQ(m.run(program, RunMode::fast).r0, 0xffu);
}

TEST(InterpMemory, StxEverySizeWritesOnlyItsBytes) {
  // Fill 8 bytes with 0xaa, then stx each size at its own place.
  const std::vector<Insn> program = {
      lddw(1, 0x8877665544332211), tail(),
      lddw(2, 0xaaaaaaaaaaaaaaaa), tail(),
      stx(Op::stxdw, 10, 2, -8), stx(Op::stxb, 10, 1, -8), ldx(Op::ldxdw, 3, 10, -8),
      stx(Op::stxdw, 10, 2, -16), stx(Op::stxh, 10, 1, -16), ldx(Op::ldxdw, 4, 10, -16),
      stx(Op::stxdw, 10, 2, -24), stx(Op::stxw, 10, 1, -24), ldx(Op::ldxdw, 5, 10, -24),
      stx(Op::stxdw, 10, 1, -32), ldx(Op::ldxdw, 6, 10, -32),
      // check each against its expected value; r0 counts matches
      mov(0, 0),
      lddw(7, 0xaaaaaaaaaaaaaa11), tail(), jmp(Op::jne64_reg, 3, 7, 1), ins(Op::add64_imm, 0, 0, 0, 1),
      lddw(7, 0xaaaaaaaaaaaa2211), tail(), jmp(Op::jne64_reg, 4, 7, 1), ins(Op::add64_imm, 0, 0, 0, 2),
      lddw(7, 0xaaaaaaaa44332211), tail(), jmp(Op::jne64_reg, 5, 7, 1), ins(Op::add64_imm, 0, 0, 0, 4),
      lddw(7, 0x8877665544332211), tail(), jmp(Op::jne64_reg, 6, 7, 1), ins(Op::add64_imm, 0, 0, 0, 8),
      exit_insn()};
  const RunResult result = run_both(program);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 15u);
}

TEST(InterpMemory, LoadsFromCallerMemoryWithSignExtension) {
  alignas(8) uint8_t buffer[16] = {0x80, 0xff, 0x00, 0x80, 0x7f, 0x7f, 0xff, 0x7f,
                                   0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
  struct LoadCase {
    Op op;
    int32_t offset;
    uint64_t expected;
  };
  const LoadCase cases[] = {
      {Op::ldxb, 0, 0x80},
      {Op::ldxsb, 0, 0xffffffffffffff80},
      {Op::ldxsb, 4, 0x7f},
      {Op::ldxh, 2, 0x8000},
      {Op::ldxsh, 2, 0xffffffffffff8000},
      {Op::ldxsh, 4, 0x7f7f},
      {Op::ldxw, 0, 0x8000ff80},
      {Op::ldxsw, 0, 0xffffffff8000ff80},
      {Op::ldxsw, 4, 0x7fff7f7f},
      {Op::ldxdw, 8, 0x8807060504030201},
      {Op::ldxw, 11, 0x07060504},  // unaligned
      {Op::ldxdw, 1, 0x017fff7f7f8000ff},
  };
  Machine m;
  m.regions.push_back(Region{address_of(buffer), sizeof(buffer), false});
  for (const LoadCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << op_name(c.op) << " +" << c.offset);
    const std::vector<Insn> program = {lddw(0, 0x5555555555555555), tail(),
                                       ldx(c.op, 0, 1, c.offset), exit_insn()};
    for (RunMode mode : {RunMode::fast, RunMode::guarded}) {
      const RunResult result = m.run(program, mode, address_of(buffer));
      EXPECT_EQ(result.status, RunStatus::ok);
      EXPECT_EQ(result.r0, c.expected);
    }
  }
}

// ---------------------------------------------------------------- atomics

struct AtomicCase {
  Op op;
  uint64_t memory;    // initial 8 bytes at [r1]
  uint64_t src;       // r2
  uint64_t r0;        // initial r0 (for cmpxchg)
  uint64_t memory_after;
  uint64_t src_after;
  uint64_t r0_after;
};

TEST(InterpAtomic, EveryOp) {
  constexpr uint64_t m = 0x1111111180000001;  // high half must survive 32-bit ops
  const AtomicCase cases[] = {
      {Op::atomic32_add, m, 0xffffffff0000000f, 7, 0x1111111180000010, 0xffffffff0000000f, 7},
      {Op::atomic32_fetch_add, m, 0xffffffff, 7, 0x1111111180000000, 0x80000001, 7},
      {Op::atomic64_add, m, kAllOnes, 7, 0x1111111180000000, kAllOnes, 7},
      {Op::atomic64_fetch_add, kAllOnes, 1, 7, 0, kAllOnes, 7},
      {Op::atomic32_or, m, 0xffff00000000000e, 7, 0x111111118000000f, 0xffff00000000000e, 7},
      {Op::atomic32_fetch_or, m, 0x6, 7, 0x1111111180000007, 0x80000001, 7},
      {Op::atomic64_or, m, 0x2200000000000000, 7, 0x3311111180000001, 0x2200000000000000, 7},
      {Op::atomic64_fetch_or, m, 0x2, 7, 0x1111111180000003, m, 7},
      {Op::atomic32_and, m, 0xffffffff7fffffff, 7, 0x1111111100000001, 0xffffffff7fffffff, 7},
      {Op::atomic32_fetch_and, m, 0x80000000, 7, 0x1111111180000000, 0x80000001, 7},
      {Op::atomic64_and, m, 0xff000000000000ff, 7, 0x1100000000000001, 0xff000000000000ff, 7},
      {Op::atomic64_fetch_and, m, 0, 7, 0, m, 7},
      {Op::atomic32_xor, m, 0xffffffffffffffff, 7, 0x111111117ffffffe, kAllOnes, 7},
      {Op::atomic32_fetch_xor, m, 0x80000001, 7, 0x1111111100000000, 0x80000001, 7},
      {Op::atomic64_xor, m, m, 7, 0, m, 7},
      {Op::atomic64_fetch_xor, m, 0x1111111100000000, 7, 0x80000001, m, 7},
      {Op::atomic32_xchg, m, 0xabcdef0012345678, 7, 0x1111111112345678, 0x80000001, 7},
      {Op::atomic64_xchg, m, 0xabcdef0012345678, 7, 0xabcdef0012345678, m, 7},
      // cmpxchg 32: compares the low half of r0; r0 gets the old value zero-extended
      {Op::atomic32_cmpxchg, m, 0x9999999922222222, 0xffffffff80000001, 0x1111111122222222,
       0x9999999922222222, 0x80000001},
      {Op::atomic32_cmpxchg, m, 0x22222222, 0x80000002, m, 0x22222222, 0x80000001},
      {Op::atomic64_cmpxchg, m, 0x2222222222222222, m, 0x2222222222222222, 0x2222222222222222, m},
      {Op::atomic64_cmpxchg, m, 0x2222222222222222, 0x80000001, m, 0x2222222222222222, m},
  };
  for (const AtomicCase& c : cases) {
    SCOPED_TRACE(op_name(c.op));
    for (RunMode mode : {RunMode::fast, RunMode::guarded}) {
      Machine machine;
      // [r10-8] = memory; r1 = r10 - 16 so that the access uses offset +8.
      const std::vector<Insn> program = {
          lddw(3, c.memory), tail(), stx(Op::stxdw, 10, 3, -8),
          movr(1, 10), ins(Op::add64_imm, 1, 0, 0, -16),
          lddw(2, c.src), tail(), lddw(0, c.r0), tail(),
          ins(c.op, 1, 2, 8),
          ldx(Op::ldxdw, 3, 10, -8),
          // hand back memory in r0, src in r2 and r0 in r4 through the stack
          stx(Op::stxdw, 10, 0, -16), stx(Op::stxdw, 10, 2, -24),
          movr(0, 3), exit_insn()};
      const RunResult result = machine.run(program, mode);
      ASSERT_EQ(result.status, RunStatus::ok);
      EXPECT_EQ(result.r0, c.memory_after);
      uint64_t r0_after, src_after;
      std::memcpy(&r0_after, machine.stack.bytes + sizeof(machine.stack.bytes) - 16, 8);
      std::memcpy(&src_after, machine.stack.bytes + sizeof(machine.stack.bytes) - 24, 8);
      EXPECT_EQ(src_after, c.src_after);
      EXPECT_EQ(r0_after, c.r0_after);
    }
  }
}

TEST(InterpAtomic, FetchWithSrcAsBaseUsesTheOperandBeforeTheFetch) {
  // r1 = r10 - 8; [r1] = 5; atomic64_fetch_add [r1 + 0], r1 -> memory = 5 + r1, r1 = 5.
  const RunResult result = run_both({
      movr(1, 10), ins(Op::add64_imm, 1, 0, 0, -8), st(Op::stdw, 1, 0, 5), movr(6, 1),
      ins(Op::atomic64_fetch_add, 1, 1, 0), ldx(Op::ldxdw, 0, 6, 0), ins(Op::sub64_reg, 0, 6),
      ins(Op::add64_reg, 0, 1), exit_insn()});
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 10u);  // (5 + addr) - addr + 5
}

// ---------------------------------------------------------------- helpers

struct HelperLog {
  uint64_t args[5] = {};
  int calls = 0;
  void* user = nullptr;
};

uint64_t record_helper(HelperCall& call) {
  auto* log = static_cast<HelperLog*>(call.user);
  std::memcpy(log->args, call.args, sizeof(log->args));
  log->user = call.user;
  ++log->calls;
  return call.args[0] + call.args[4];
}

uint64_t stop_helper(HelperCall& call) {
  call.stop = true;
  return 77;
}

TEST(InterpHelper, ArgumentsReturnValueAndUser) {
  for (RunMode mode : {RunMode::fast, RunMode::guarded}) {
    HelperLog log;
    Machine m;
    m.fns = {nullptr, nullptr, record_helper};
    m.table.user = &log;
    const RunResult result = m.run({mov(1, 11), mov(2, 22), mov(3, 33), mov(4, 44), mov(5, 55),
                                    mov(6, 66), call(2), ins(Op::add64_reg, 0, 6), exit_insn()},
                                   mode);
    EXPECT_EQ(result.status, RunStatus::ok);
    EXPECT_EQ(result.r0, 11u + 55u + 66u);
    EXPECT_EQ(log.calls, 1);
    EXPECT_EQ(log.user, &log);
    EXPECT_EQ(log.args[0], 11u);
    EXPECT_EQ(log.args[1], 22u);
    EXPECT_EQ(log.args[2], 33u);
    EXPECT_EQ(log.args[3], 44u);
    EXPECT_EQ(log.args[4], 55u);
  }
}

TEST(InterpHelper, R1ToR5AfterACallArePreservedInFastAndPoisonedInGuarded) {
  HelperLog log;
  Machine m;
  m.fns = {record_helper};
  m.table.user = &log;
  const std::vector<Insn> program = {mov(3, 3), call(0), movr(0, 3), exit_insn()};
  EXPECT_EQ(m.run(program, RunMode::fast).r0, 3u);
  EXPECT_EQ(m.run(program, RunMode::guarded).r0, 0xdeadbeefdeadbeefu);
}

TEST(InterpHelper, StopEndsTheRunWithTheReturnedValue) {
  Machine m;
  m.fns = {stop_helper};
  const RunResult result = m.run({mov(0, 1), call(0), mov(0, 2), exit_insn()}, RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 77u);
  EXPECT_EQ(result.pc, 1u);
  EXPECT_EQ(result.insns_executed, 2u);
}

TEST(InterpHelper, UnknownIds) {
  Machine m;
  m.fns = {stop_helper, nullptr};
  RunResult result = m.run({mov(0, 1), call(1), exit_insn()}, RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::unknown_helper);
  EXPECT_EQ(result.pc, 1u);
  result = m.run({mov(0, 1), call(2), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::unknown_helper);
  result = m.run({mov(0, 1), call(-1), exit_insn()}, RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::unknown_helper);
  Machine no_table;
  result = no_table.run({call(0), exit_insn()}, RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::unknown_helper);
  EXPECT_EQ(result.pc, 0u);
}

TEST(InterpHelper, CallxTakesTheIdFromDst) {
  HelperLog log;
  Machine m;
  m.fns = {stop_helper, record_helper};
  m.table.user = &log;
  RunResult result =
      m.run({mov(1, 5), mov(5, 1), mov(7, 1), ins(Op::callx, 7), exit_insn()}, RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 6u);
  EXPECT_EQ(log.calls, 1);
  result = m.run({mov(7, 0), ins(Op::callx, 7), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.r0, 77u);
  result = m.run({lddw(7, 0x100000001), tail(), ins(Op::callx, 7), exit_insn()}, RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::unknown_helper);
  EXPECT_EQ(result.pc, 2u);
}

// ---------------------------------------------------------------- local calls

// ---------------------------------------------------------------- builtins (keel/isa.h)

Insn addi(uint8_t dst, int32_t imm) { return ins(Op::add64_imm, dst, 0, 0, imm); }
// r1 = r10 + dst_off, r2 = r10 + src_off (or the value `byte` for memset), r3 = n.
std::vector<Insn> builtin_call(int32_t id, int32_t dst_off, int32_t second, bool second_is_fp, int32_t n) {
  std::vector<Insn> p = {movr(1, 10), addi(1, dst_off)};
  if (second_is_fp) {
    p.push_back(movr(2, 10));
    p.push_back(addi(2, second));
  } else {
    p.push_back(mov(2, second));
  }
  p.push_back(mov(3, n));
  p.push_back(call(id));
  return p;
}
std::vector<Insn> then(std::vector<Insn> program, std::initializer_list<Insn> more) {
  program.insert(program.end(), more);
  return program;
}

TEST(InterpBuiltin, MemsetMemcpyMemmoveResults) {
  // memset(fp-16, 0x1ab, 12): the byte is r2's low 8 bits; fp-4.. untouched.
  std::vector<Insn> p = {st(Op::stdw, 10, -8, -1)};
  for (const Insn& i : builtin_call(kBuiltinMemset, -16, 0x1ab, false, 12)) p.push_back(i);
  EXPECT_EQ(run_both(then(p, {ldx(Op::ldxdw, 0, 10, -8), exit_insn()})).r0, 0xffffffffababababu);
  EXPECT_EQ(run_both(then(p, {ldx(Op::ldxdw, 0, 10, -16), exit_insn()})).r0, 0xababababababababu);

  // memcpy(fp-16, fp-32, 8) copies; memmove(fp-31, fp-32, 8) overlaps.
  const std::vector<Insn> setup = {lddw(4, 0x0807060504030201), tail(), stx(Op::stxdw, 10, 4, -32),
                                   st(Op::stdw, 10, -24, 0), st(Op::stdw, 10, -16, 0)};
  std::vector<Insn> copy = setup;
  for (const Insn& i : builtin_call(kBuiltinMemcpy, -16, -32, true, 8)) copy.push_back(i);
  EXPECT_EQ(run_both(then(copy, {ldx(Op::ldxdw, 0, 10, -16), exit_insn()})).r0, 0x0807060504030201u);
  std::vector<Insn> move = setup;
  for (const Insn& i : builtin_call(kBuiltinMemmove, -31, -32, true, 8)) move.push_back(i);
  EXPECT_EQ(run_both(then(move, {ldx(Op::ldxdw, 0, 10, -32), exit_insn()})).r0, 0x0706050403020101u);
  EXPECT_EQ(run_both(then(move, {ldx(Op::ldxb, 0, 10, -24), exit_insn()})).r0, 8u);
  // memcpy with overlap behaves as memmove (C leaves it undefined; keel does not).
  std::vector<Insn> overlap = setup;
  for (const Insn& i : builtin_call(kBuiltinMemcpy, -31, -32, true, 8)) overlap.push_back(i);
  EXPECT_EQ(run_both(then(overlap, {ldx(Op::ldxdw, 0, 10, -32), exit_insn()})).r0, 0x0706050403020101u);
}

TEST(InterpBuiltin, MemcmpReturnsMinusOneZeroOrOne) {
  const std::vector<Insn> setup = {st(Op::stdw, 10, -16, 0x0100), st(Op::stdw, 10, -8, 0x0200)};
  struct Case {
    int32_t a, b, n;
    uint64_t expected;
  };
  for (const Case& c : {Case{-16, -8, 8, kAllOnes}, Case{-8, -16, 8, 1}, Case{-16, -8, 1, 0},
                        Case{-16, -16, 8, 0}, Case{-16, -8, 0, 0}}) {
    std::vector<Insn> p = setup;
    for (const Insn& i : builtin_call(kBuiltinMemcmp, c.a, c.b, true, c.n)) p.push_back(i);
    EXPECT_EQ(run_both(then(p, {exit_insn()})).r0, c.expected) << c.a << " " << c.b << " " << c.n;
  }
}

TEST(InterpBuiltin, CallxAndClobbers) {
  // callx with a builtin id; guarded mode clobbers r0 (undefined after memset) and r1-r5.
  std::vector<Insn> p = {movr(1, 10), addi(1, -8), mov(2, 7), mov(3, 8), lddw(7, uint64_t{kBuiltinMemset}),
                         tail(), ins(Op::callx, 7), ldx(Op::ldxdw, 0, 10, -8), exit_insn()};
  EXPECT_EQ(run_both(p).r0, 0x0707070707070707u);
  Machine m;
  EXPECT_EQ(m.run(then(builtin_call(kBuiltinMemset, -8, 0, false, 8), {exit_insn()}), RunMode::guarded).r0,
            0xdeadbeefdeadbeefu);
  EXPECT_EQ(m.run(then(builtin_call(kBuiltinMemset, -8, 0, false, 8), {movr(0, 3), exit_insn()}),
                  RunMode::guarded).r0,
            0xdeadbeefdeadbeefu);
}

TEST(InterpBuiltin, GuardedRangesTrapWithoutTouchingMemory) {
  alignas(8) uint8_t memory[32] = {};
  for (int i = 0; i < 32; ++i) memory[i] = static_cast<uint8_t>(i);
  uint8_t before[32];
  std::memcpy(before, memory, sizeof memory);
  const uint64_t base = address_of(memory);
  Machine m;
  m.regions.push_back(Region{base, 16, true});        // [0, 16) writable
  m.regions.push_back(Region{base + 16, 16, false});  // [16, 32) read-only
  // r1 = base + d, r2 = base + s (or the byte), r3 = n.
  auto program = [&](int32_t id, int32_t d, int32_t s_off, int32_t n) {
    return std::vector<Insn>{lddw(1, base + static_cast<uint64_t>(d)), tail(),
                             lddw(2, id == kBuiltinMemset ? 0x5a : base + static_cast<uint64_t>(s_off)), tail(),
                             mov(3, n), call(id), mov(0, 0), exit_insn()};
  };
  struct Case {
    int32_t id, dst, src, n;
    bool ok;
    int32_t fault;  // offset of the reported address
  };
  const Case cases[] = {
      {kBuiltinMemset, 0, 0, 16, true, 0},     {kBuiltinMemset, 1, 0, 16, false, 1},
      {kBuiltinMemset, 16, 0, 1, false, 16},   // read-only
      {kBuiltinMemcpy, 0, 16, 16, true, 0},    // read from the read-only half
      {kBuiltinMemcpy, 16, 0, 4, false, 16},   {kBuiltinMemcpy, 0, 20, 16, false, 20},
      {kBuiltinMemmove, 0, 8, 9, false, 8},    // the source spans two regions: one must hold it all
      {kBuiltinMemcmp, 16, 0, 16, true, 0},    // both only read
      {kBuiltinMemcmp, 0, 24, 9, false, 24},
      {kBuiltinMemset, 40, 0, 0, true, 0},     // empty: nothing is touched or checked
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.id << " dst+" << c.dst << " src+" << c.src << " n=" << c.n);
    const RunResult r = m.run(program(c.id, c.dst, c.src, c.n), RunMode::guarded);
    if (c.ok) {
      EXPECT_EQ(r.status, RunStatus::ok);
    } else {
      EXPECT_EQ(r.status, RunStatus::out_of_bounds);
      EXPECT_EQ(r.pc, 5u);
      EXPECT_EQ(r.address, base + static_cast<uint64_t>(c.fault));
      EXPECT_EQ(std::memcmp(before, memory, sizeof memory), 0);
    }
    std::memcpy(memory, before, sizeof memory);
  }
}

TEST(InterpBuiltin, GuardedHugeAndWrappingSizesTrap) {
  // A size beyond the stack's is not taken for "inside the stack".
  std::vector<Insn> p = {movr(1, 10), addi(1, -8), mov(2, 0), lddw(3, uint64_t{1} << 63), tail(),
                         call(kBuiltinMemset), exit_insn()};
  Machine stack_only;
  RunResult r = stack_only.run(p, RunMode::guarded);
  EXPECT_EQ(r.status, RunStatus::out_of_bounds);
  EXPECT_EQ(r.address, address_of(stack_only.stack.bytes) + sizeof(stack_only.stack.bytes) - 8);
  // One byte past the top of the stack.
  r = stack_only.run(then(builtin_call(kBuiltinMemset, -8, 0, false, 9), {exit_insn()}), RunMode::guarded);
  EXPECT_EQ(r.status, RunStatus::out_of_bounds);
  // A range that wraps past 2^64 is in no region.
  Machine everything;
  everything.regions.push_back(Region{0, kAllOnes, true});
  r = everything.run({lddw(1, 0xfffffffffffffff0), tail(), mov(2, 0), mov(3, 0x20), call(kBuiltinMemset), exit_insn()},
            RunMode::guarded);
  EXPECT_EQ(r.status, RunStatus::out_of_bounds);
  EXPECT_EQ(r.address, 0xfffffffffffffff0u);
}

TEST(InterpCall, CalleeSavedRegistersAndSeparateFrames) {
  // main: r6..r9 = 6..9; [r10-4] = 0x1234; r1 = 3; call f; r0 += r6+r7+r8+r9; r0 += [r10-4]
  // f:    r6..r9 = 0; [r10-4] = 0x5555 (its own frame); r0 = r1 * 100; exit
  const std::vector<Insn> program = {
      mov(6, 6), mov(7, 7), mov(8, 8), mov(9, 9), st(Op::stw, 10, -4, 0x1234), mov(1, 3),
      call_local(8),  // pc 6 -> 15
      ins(Op::add64_reg, 0, 6), ins(Op::add64_reg, 0, 7), ins(Op::add64_reg, 0, 8),
      ins(Op::add64_reg, 0, 9), ldx(Op::ldxw, 2, 10, -4), ins(Op::add64_reg, 0, 2),
      movr(3, 10), exit_insn(),
      // f at 15
      mov(6, 0), mov(7, 0), mov(8, 0), mov(9, 0), st(Op::stw, 10, -4, 0x5555),
      movr(0, 1), ins(Op::mul64_imm, 0, 0, 0, 100), exit_insn()};
  for (RunMode mode : {RunMode::fast, RunMode::guarded}) {
    Machine m;
    const RunResult result = m.run(program, mode);
    EXPECT_EQ(result.status, RunStatus::ok);
    EXPECT_EQ(result.r0, 300u + 30u + 0x1234u);
    EXPECT_EQ(result.insns_executed, 23u);
    // Frame 1 sits right below frame 0.
    uint32_t callee_value;
    std::memcpy(&callee_value, m.stack.bytes + sizeof(m.stack.bytes) - kStackSize - 4, 4);
    EXPECT_EQ(callee_value, 0x5555u);
  }
}

TEST(InterpCall, R10IsRestoredAfterReturn) {
  // r0 = r10 after a call minus r10 before it: 0.
  const RunResult result =
      run_both({movr(6, 10), call_local(3), movr(0, 10), ins(Op::sub64_reg, 0, 6), exit_insn(),
                // callee: r0 = r10 (its own frame pointer), exit
                movr(0, 10), exit_insn()});
  EXPECT_EQ(result.r0, 0u);
}

TEST(InterpCall, CalleeFramePointerIsOneFrameDown) {
  Machine m;
  const RunResult result =
      m.run({call_local(1), exit_insn(), movr(0, 10), exit_insn()}, RunMode::fast);
  EXPECT_EQ(result.r0, address_of(m.stack.bytes) + sizeof(m.stack.bytes) - kStackSize);
}

TEST(InterpCall, DepthLimit) {
  // f: r0 += 1; jeq r0, LIMIT, +1; call f; exit. Main: r0 = 0; call f; exit.
  auto nested = [](int32_t limit) {
    return std::vector<Insn>{mov(0, 0), call_local(1), exit_insn(),
                             ins(Op::add64_imm, 0, 0, 0, 1), jmp(Op::jeq64_imm, 0, 0, 1, limit),
                             call_local(-3), exit_insn()};
  };
  // kMaxCallDepth frames in all: main plus kMaxCallDepth - 1 nested calls.
  RunResult result = run_both(nested(kMaxCallDepth - 1));
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, kMaxCallDepth - 1);
  result = run_both(nested(kMaxCallDepth));
  EXPECT_EQ(result.status, RunStatus::call_depth_exceeded);
  EXPECT_EQ(result.pc, 5u);
  EXPECT_EQ(result.r0, kMaxCallDepth - 1);
}

TEST(InterpCall, DeepestFrameIsTheBottomOfTheStack) {
  // Recurse to the deepest frame and store at [r10-8] there, then read it
  // back through the stack region: guarded mode must allow it.
  Machine m;
  const std::vector<Insn> program = {
      mov(0, 0), call_local(1), exit_insn(),
      ins(Op::add64_imm, 0, 0, 0, 1), jmp(Op::jeq64_imm, 0, 0, 1, kMaxCallDepth - 1),
      call_local(-3), st(Op::stdw, 10, -static_cast<int32_t>(kStackSize), 0x42), exit_insn()};
  const RunResult result = m.run(program, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(m.stack.bytes[0], 0x42);
}

// ---------------------------------------------------------------- budget

TEST(InterpBudget, ExactCountAndExhaustion) {
  const std::vector<Insn> program = {mov(0, 0), mov(1, 10), ins(Op::add64_imm, 0, 0, 0, 1),
                                     ins(Op::sub64_imm, 1, 0, 0, 1),
                                     jmp(Op::jne64_imm, 1, 0, -3, 0), exit_insn()};
  Machine m;
  m.options.insn_budget = 33;  // exactly what it needs
  RunResult result = m.run(program, RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.insns_executed, 33u);
  m.options.insn_budget = 32;
  result = m.run(program, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::budget_exhausted);
  EXPECT_EQ(result.pc, 5u);  // the exit that did not run
  EXPECT_EQ(result.insns_executed, 32u);
  EXPECT_EQ(result.r0, 10u);
  m.options.insn_budget = 0;
  result = m.run(program, RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::budget_exhausted);
  EXPECT_EQ(result.pc, 0u);
  EXPECT_EQ(result.insns_executed, 0u);
}

TEST(InterpBudget, InfiniteLoopStops) {
  Machine m;
  m.options.insn_budget = 1000;
  const RunResult result = m.run({mov(0, 0), ins(Op::add64_imm, 0, 0, 0, 1), ja(-2)},
                                 RunMode::fast);
  EXPECT_EQ(result.status, RunStatus::budget_exhausted);
  EXPECT_EQ(result.insns_executed, 1000u);
  EXPECT_EQ(result.r0, 500u);  // the mov, 499 (add, ja) pairs, then one more add
  EXPECT_EQ(result.pc, 2u);
}

// ---------------------------------------------------------------- traps

TEST(InterpTrap, UnresolvedLddwAndLegacyPacketLoads) {
  for (Op op : {Op::lddw_map_fd, Op::lddw_map_value, Op::lddw_var_addr, Op::lddw_code_addr,
                Op::lddw_map_idx, Op::lddw_map_idx_value}) {
    const RunResult result = run_both({mov(0, 3), ins(op, 1, 0, 0, 5), tail(), exit_insn()});
    EXPECT_EQ(result.status, RunStatus::unresolved_lddw) << op_name(op);
    EXPECT_EQ(result.pc, 1u);
    EXPECT_EQ(result.r0, 3u);
  }
  for (Op op : {Op::ld_abs_b, Op::ld_abs_h, Op::ld_abs_w, Op::ld_ind_b, Op::ld_ind_h,
                Op::ld_ind_w}) {
    const RunResult result = run_both({mov(0, 3), mov(6, 0), ins(op, 0, 1, 0, 0), exit_insn()});
    EXPECT_EQ(result.status, RunStatus::legacy_packet_load) << op_name(op);
    EXPECT_EQ(result.pc, 2u);
  }
}

TEST(InterpTrap, SlotsThatCannotRunStopWithADefinedResult) {
  // decode() never lets these be reached; run() must still not misbehave.
  RunResult result = run_both({mov(0, 4), ja(1), lddw(1, 5), tail(), exit_insn()});
  EXPECT_EQ(result.status, RunStatus::unresolved_lddw);
  EXPECT_EQ(result.pc, 3u);
  EXPECT_EQ(result.r0, 4u);
  for (unsigned value : {static_cast<unsigned>(Op::count_), 200u, 255u}) {
    result = run_both({mov(0, 4), ins(static_cast<Op>(value)), exit_insn()});
    EXPECT_EQ(result.status, RunStatus::unresolved_lddw) << value;
    EXPECT_EQ(result.pc, 1u);
  }
}

TEST(InterpGuarded, OutOfBoundsReadsAndWritesNeverTouchMemory) {
  alignas(8) uint8_t memory[32] = {};
  for (int i = 0; i < 32; ++i) memory[i] = static_cast<uint8_t>(i);
  Machine m;
  m.regions.push_back(Region{address_of(memory + 8), 16, true});  // [8, 24)
  const uint64_t base = address_of(memory);
  struct Access {
    Op op;
    int32_t offset;
    bool ok;
  };
  const Access accesses[] = {
      {Op::ldxdw, 8, true},   {Op::ldxdw, 16, true},  {Op::ldxdw, 17, false},
      {Op::ldxb, 23, true},   {Op::ldxb, 24, false},  {Op::ldxb, 7, false},
      {Op::ldxw, 6, false},   {Op::ldxsh, 22, true},  {Op::ldxsh, 23, false},
      {Op::stxdw, 16, true},  {Op::stxdw, 20, false}, {Op::stxb, 7, false},
      {Op::stdw, 17, false},  {Op::sth, 23, false},   {Op::atomic64_add, 20, false},
      {Op::atomic32_cmpxchg, 21, false}, {Op::atomic32_fetch_or, 20, true},
  };
  for (const Access& a : accesses) {
    SCOPED_TRACE(::testing::Message() << op_name(a.op) << " +" << a.offset);
    uint8_t before[32];
    std::memcpy(before, memory, sizeof(memory));
    const bool is_load = std::strncmp(op_name(a.op), "ldx", 3) == 0;
    const Insn access_insn = is_load ? ldx(a.op, 0, 1, a.offset) : ins(a.op, 1, 2, a.offset, 0);
    const RunResult result =
        m.run({mov(0, 0), mov(2, 0), access_insn, mov(0, 1), exit_insn()}, RunMode::guarded, base);
    if (a.ok) {
      EXPECT_EQ(result.status, RunStatus::ok);
      std::memcpy(memory, before, sizeof(memory));
    } else {
      EXPECT_EQ(result.status, RunStatus::out_of_bounds);
      EXPECT_EQ(result.pc, 2u);
      EXPECT_EQ(result.address, base + static_cast<uint64_t>(a.offset));
      EXPECT_EQ(result.insns_executed, 3u);
      EXPECT_EQ(std::memcmp(before, memory, sizeof(memory)), 0);
    }
  }
}

TEST(InterpGuarded, StackBoundaries) {
  Machine m;
  // [r10 + 0] is one past the top of the stack.
  RunResult result = m.run({ldx(Op::ldxb, 0, 10, 0), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  EXPECT_EQ(result.address, address_of(m.stack.bytes) + sizeof(m.stack.bytes));
  result = m.run({ldx(Op::ldxdw, 0, 10, -7), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  result = m.run({ldx(Op::ldxdw, 0, 10, -8), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::ok);
  // Every frame of RunStack is one region; one byte below it is not.
  const int32_t whole = static_cast<int32_t>(sizeof(m.stack.bytes));
  result = m.run({st(Op::stb, 10, -whole, 1), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::ok);
  result = m.run({st(Op::stb, 10, -whole - 1, 1), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  EXPECT_EQ(result.address, address_of(m.stack.bytes) - 1);
}

TEST(InterpGuarded, WriteToReadOnlyRegion) {
  alignas(8) uint8_t memory[16] = {1, 2, 3, 4};
  Machine m;
  m.regions.push_back(Region{address_of(memory), sizeof(memory), false});
  const uint64_t base = address_of(memory);
  RunResult result = m.run({ldx(Op::ldxw, 0, 1, 0), exit_insn()}, RunMode::guarded, base);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 0x04030201u);
  result = m.run({st(Op::stb, 1, 2, 9), exit_insn()}, RunMode::guarded, base);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  EXPECT_EQ(result.address, base + 2);
  EXPECT_EQ(memory[2], 3);
  result = m.run({mov(2, 1), ins(Op::atomic32_xchg, 1, 2, 0), exit_insn()}, RunMode::guarded,
                 base);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  EXPECT_EQ(memory[0], 1);
  // The same write is allowed once a writable region also covers it.
  m.regions.push_back(Region{address_of(memory), 4, true});
  result = m.run({st(Op::stb, 1, 2, 9), exit_insn()}, RunMode::guarded, base);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(memory[2], 9);
}

TEST(InterpGuarded, AddressOverflow) {
  Machine m;
  m.regions.push_back(Region{0, kAllOnes, true});  // everything, so only overflow can trap
  RunResult result =
      m.run({ldx(Op::ldxb, 0, 1, 0x20), exit_insn()}, RunMode::guarded, 0xfffffffffffffff0);
  EXPECT_EQ(result.status, RunStatus::address_overflow);
  EXPECT_EQ(result.address, 0x10u);
  EXPECT_EQ(result.pc, 0u);
  result = m.run({mov(0, 0), st(Op::stb, 1, -8, 0), exit_insn()}, RunMode::guarded, 4);
  EXPECT_EQ(result.status, RunStatus::address_overflow);
  EXPECT_EQ(result.address, 0xfffffffffffffffcu);
  EXPECT_EQ(result.pc, 1u);
  // Not an overflow: an access ending exactly at 2^64 is just outside the region.
  result = m.run({ldx(Op::ldxb, 0, 1, 0), exit_insn()}, RunMode::guarded, kAllOnes);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
}

// A helper that hands the program a buffer, like bpf_map_lookup_elem.
struct Granted {
  alignas(8) uint8_t bytes[16] = {};
  bool writable = true;
  int refused = 0;
};

uint64_t grant_helper(HelperCall& call) {
  auto* granted = static_cast<Granted*>(call.user);
  const uint64_t base = address_of(granted->bytes);
  if (!call.grant(call, Region{base, sizeof(granted->bytes), granted->writable})) {
    ++granted->refused;
    return 0;
  }
  return base;
}

TEST(InterpGuarded, HelperGrantedRegionBecomesAccessible) {
  Granted granted;
  Machine m;
  m.fns = {grant_helper};
  m.table.user = &granted;
  const uint64_t base = address_of(granted.bytes);
  // Before the grant, the same address traps.
  RunResult result = m.run({st(Op::stdw, 1, 8, 5), exit_insn()}, RunMode::guarded, base);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  // After: r0 = lookup(); [r0 + 8] = 5; r0 = [r0 + 8]
  result = m.run({call(0), st(Op::stdw, 0, 8, 5), ldx(Op::ldxdw, 0, 0, 8), exit_insn()},
                 RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 5u);
  // Grants last for one run only.
  result = m.run({st(Op::stdw, 1, 8, 6), exit_insn()}, RunMode::guarded, base);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  // A read-only grant still refuses writes, and the end of the grant is enforced.
  granted.writable = false;
  result = m.run({call(0), ldx(Op::ldxdw, 1, 0, 8), st(Op::stb, 0, 0, 1), exit_insn()},
                 RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  EXPECT_EQ(result.pc, 2u);
  result = m.run({call(0), ldx(Op::ldxdw, 1, 0, 9), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  EXPECT_EQ(result.address, base + 9);
  EXPECT_EQ(granted.refused, 0);
}

TEST(InterpGuarded, GrantTableFillsUp) {
  Granted granted;
  Machine m;
  m.fns = {grant_helper};
  m.table.user = &granted;
  static uint8_t dummy[kMaxRegions];
  for (uint32_t i = 0; i < kMaxRegions - 2; ++i) m.regions.push_back(Region{address_of(dummy + i), 1, false});
  // Two grants fit, the third is refused.
  const RunResult result = m.run({call(0), call(0), call(0), exit_insn()}, RunMode::guarded);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 0u);
  EXPECT_EQ(granted.refused, 1);
}

TEST(InterpFast, DoesNotCheckMemory) {
  // Memory not listed anywhere: fast mode trusts the verifier and accesses
  // it, guarded mode refuses.
  alignas(8) uint8_t memory[8] = {};
  const uint64_t base = address_of(memory);
  const std::vector<Insn> program = {st(Op::stdw, 1, 0, 0x77), ldx(Op::ldxdw, 0, 1, 0),
                                     exit_insn()};
  Machine m;
  RunResult result = m.run(program, RunMode::fast, base);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(result.r0, 0x77u);
  EXPECT_EQ(memory[0], 0x77);
  memory[0] = 0;
  result = m.run(program, RunMode::guarded, base);
  EXPECT_EQ(result.status, RunStatus::out_of_bounds);
  EXPECT_EQ(memory[0], 0);
  // A read-only region is writable in fast mode.
  m.regions.push_back(Region{base, sizeof(memory), false});
  result = m.run(program, RunMode::fast, base);
  EXPECT_EQ(result.status, RunStatus::ok);
  EXPECT_EQ(memory[0], 0x77);
}

TEST(InterpStatus, Names) {
  EXPECT_STREQ(run_status_name(RunStatus::ok), "ok");
  EXPECT_STREQ(run_status_name(RunStatus::out_of_bounds), "out_of_bounds");
  EXPECT_STREQ(run_status_name(RunStatus::address_overflow), "address_overflow");
  EXPECT_STREQ(run_status_name(RunStatus::unknown_helper), "unknown_helper");
  EXPECT_STREQ(run_status_name(RunStatus::call_depth_exceeded), "call_depth_exceeded");
  EXPECT_STREQ(run_status_name(RunStatus::budget_exhausted), "budget_exhausted");
  EXPECT_STREQ(run_status_name(RunStatus::unresolved_lddw), "unresolved_lddw");
  EXPECT_STREQ(run_status_name(RunStatus::legacy_packet_load), "legacy_packet_load");
  EXPECT_STREQ(run_status_name(static_cast<RunStatus>(200)), "invalid");
}

}  // namespace
}  // namespace keel
