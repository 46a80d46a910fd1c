// Tests for keel::decode (verifier/src/isa/decode.cc). Programs are built by
// hand from (opcode, dst, src, offset, imm) so that these tests depend on no
// assembler; expected Ops are compared by name, derived here from the
// RFC 9669 opcode structure rather than from the decoder's table.
#include "keel/decode.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace keel {
namespace {

// One 8-byte slot.
struct S {
  uint8_t opcode = 0;
  uint8_t dst = 0;
  uint8_t src = 0;
  int16_t offset = 0;
  int32_t imm = 0;
};

std::vector<uint8_t> encode(const std::vector<S>& slots) {
  std::vector<uint8_t> bytes;
  for (const S& s : slots) {
    const auto offset = static_cast<uint16_t>(s.offset);
    const auto imm = static_cast<uint32_t>(s.imm);
    bytes.push_back(s.opcode);
    bytes.push_back(static_cast<uint8_t>((s.dst & 0x0f) | (s.src << 4)));
    bytes.push_back(static_cast<uint8_t>(offset & 0xff));
    bytes.push_back(static_cast<uint8_t>(offset >> 8));
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(imm >> (8 * i)));
  }
  return bytes;
}

// uBPF's `-- raw` form: one little-endian 64-bit word a slot.
std::vector<uint8_t> words(std::initializer_list<uint64_t> list) {
  std::vector<uint8_t> bytes;
  for (uint64_t word : list)
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(word >> (8 * i)));
  return bytes;
}

// A few instructions by name.
S exit_insn() { return {0x95}; }
S mov64(uint8_t dst, int32_t imm) { return {0xb7, dst, 0, 0, imm}; }
S ja(int16_t offset) { return {0x05, 0, 0, offset, 0}; }
S jeq_imm(uint8_t dst, int32_t imm, int16_t offset) { return {0x15, dst, 0, offset, imm}; }
S call_local(int32_t imm) { return {0x85, 0, 1, 0, imm}; }
S call_helper(int32_t id) { return {0x85, 0, 0, 0, id}; }
S lddw_head(uint8_t dst, uint8_t src, int32_t imm) { return {0x18, dst, src, 0, imm}; }
S lddw_tail(int32_t imm) { return {0x00, 0, 0, 0, imm}; }

struct Decoded {
  DecodeResult result;
  Program program;
  std::shared_ptr<void> storage;  // keeps program.insns alive
};

// Owns an arena (by default 20 bytes a slot: the Insns and the function map).
class Decoder {
 public:
  explicit Decoder(size_t arena_bytes) : memory_((arena_bytes + 7) / 8), arena_(memory_.data(), arena_bytes) {}

  Decoded run(const std::vector<uint8_t>& bytes, const DecodeOptions& options = {}) {
    Decoded decoded;
    decoded.result = decode(bytes.data(), bytes.size(), options, arena_, decoded.program);
    return decoded;
  }
  Decoded run(const std::vector<S>& slots, const DecodeOptions& options = {}) { return run(encode(slots), options); }

  Arena& arena() { return arena_; }

 private:
  std::vector<uint64_t> memory_;
  Arena arena_;
};

Decoded decode_bytes(const std::vector<uint8_t>& bytes, const DecodeOptions& options = {}) {
  auto decoder = std::make_shared<Decoder>(bytes.size() / 8 * (sizeof(Insn) + sizeof(uint32_t)));
  Decoded decoded = decoder->run(bytes, options);
  decoded.storage = decoder;
  return decoded;
}

Decoded decode_slots(const std::vector<S>& slots, const DecodeOptions& options = {}) {
  return decode_bytes(encode(slots), options);
}

// Asserts the exact error and pc (the trace names the caller's line).
void check_error(const Decoded& decoded, DecodeError error, uint32_t pc) {
  EXPECT_STREQ(decode_error_name(decoded.result.error), decode_error_name(error));
  EXPECT_EQ(decoded.result.pc, pc);
}
#define EXPECT_DECODE_ERROR(decoded, code, at)         \
  do {                                                 \
    SCOPED_TRACE("expected " #code " at pc " #at);     \
    check_error((decoded), DecodeError::code, (at));   \
  } while (0)

#define EXPECT_DECODE_OK(decoded)                                                                      \
  do {                                                                                                 \
    const Decoded& d_ = (decoded);                                                                     \
    EXPECT_TRUE(d_.result.ok()) << decode_error_name(d_.result.error) << " at pc " << d_.result.pc; \
  } while (0)

// ---------------------------------------------------------------------------
// Error names

TEST(DecodeErrorName, EveryCodeHasItsEnumSpelling) {
  const std::vector<std::pair<DecodeError, std::string>> names = {
      {DecodeError::ok, "ok"},
      {DecodeError::empty_program, "empty_program"},
      {DecodeError::truncated, "truncated"},
      {DecodeError::too_many_instructions, "too_many_instructions"},
      {DecodeError::unknown_opcode, "unknown_opcode"},
      {DecodeError::reserved_field, "reserved_field"},
      {DecodeError::bad_register, "bad_register"},
      {DecodeError::write_to_r10, "write_to_r10"},
      {DecodeError::bad_endian_size, "bad_endian_size"},
      {DecodeError::bad_atomic_op, "bad_atomic_op"},
      {DecodeError::bad_lddw_src, "bad_lddw_src"},
      {DecodeError::incomplete_lddw, "incomplete_lddw"},
      {DecodeError::bad_lddw_second_slot, "bad_lddw_second_slot"},
      {DecodeError::jump_out_of_range, "jump_out_of_range"},
      {DecodeError::jump_into_lddw, "jump_into_lddw"},
      {DecodeError::infinite_loop, "infinite_loop"},
      {DecodeError::fall_through_end, "fall_through_end"},
      {DecodeError::unknown_helper, "unknown_helper"},
      {DecodeError::out_of_memory, "out_of_memory"},
  };
  ASSERT_EQ(names.size(), static_cast<size_t>(DecodeError::out_of_memory) + 1);
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(names[i].first), i);
    EXPECT_EQ(decode_error_name(names[i].first), names[i].second);
  }
  EXPECT_STREQ(decode_error_name(static_cast<DecodeError>(200)), "invalid");
}

// ---------------------------------------------------------------------------
// Input size

TEST(Decode, EmptyProgram) {
  Decoder decoder(64);
  EXPECT_DECODE_ERROR(decoder.run(std::vector<uint8_t>{}), empty_program, 0);
  Program program;
  const DecodeResult result = decode(nullptr, 0, DecodeOptions{}, decoder.arena(), program);
  EXPECT_EQ(result.error, DecodeError::empty_program);
  EXPECT_EQ(program.insns, nullptr);
}

TEST(Decode, TruncatedAtThePartialSlot) {
  auto bytes = encode({mov64(0, 0), exit_insn()});
  bytes.resize(12);
  EXPECT_DECODE_ERROR(decode_bytes(bytes), truncated, 1);
  bytes.resize(7);
  EXPECT_DECODE_ERROR(decode_bytes(bytes), truncated, 0);
  bytes = encode({mov64(0, 0), exit_insn()});
  bytes.push_back(0);
  EXPECT_DECODE_ERROR(decode_bytes(bytes), truncated, 2);
}

TEST(Decode, MaxInstructionsBoundary) {
  DecodeOptions options;
  options.max_insns = 4;
  std::vector<S> slots(3, mov64(0, 1));
  slots.push_back(exit_insn());
  EXPECT_DECODE_OK(decode_slots(slots, options));  // exactly max
  slots.insert(slots.begin(), mov64(0, 1));
  EXPECT_DECODE_ERROR(decode_slots(slots, options), too_many_instructions, 4);  // max + 1
}

// uBPF err-too-many-instructions: 65536 `mov r1, 1` then exit, with the
// default limit of 65536.
TEST(Decode, UbpfTooManyInstructions) {
  std::vector<S> slots(65536, mov64(1, 1));
  slots.push_back(exit_insn());
  EXPECT_DECODE_ERROR(decode_slots(slots), too_many_instructions, 65536);
  slots.erase(slots.begin());
  const Decoded ok = decode_slots(slots);
  EXPECT_DECODE_OK(ok);
  EXPECT_EQ(ok.program.count, 65536u);
}

// ---------------------------------------------------------------------------
// Arena

TEST(Decode, ArenaTooSmallForTheInsns) {
  const std::vector<S> slots = {mov64(0, 0), exit_insn()};
  Decoder small(2 * sizeof(Insn) - 1);
  EXPECT_DECODE_ERROR(small.run(slots), out_of_memory, 0);
  EXPECT_EQ(small.arena().used(), 0u);
  Decoder exact(2 * sizeof(Insn));
  const Decoded ok = exact.run(slots);
  EXPECT_DECODE_OK(ok);
  EXPECT_EQ(exact.arena().used(), 2 * sizeof(Insn));
}

TEST(Decode, ArenaTooSmallForTheFunctionMap) {
  // Two functions need 4 scratch bytes a slot during the decode.
  const std::vector<S> slots = {call_local(1), exit_insn(), exit_insn()};
  Decoder no_scratch(3 * sizeof(Insn));
  EXPECT_DECODE_ERROR(no_scratch.run(slots), out_of_memory, 0);
  EXPECT_EQ(no_scratch.arena().used(), 0u);
  Decoder enough(3 * sizeof(Insn) + 3 * sizeof(uint32_t));
  EXPECT_DECODE_OK(enough.run(slots));
  EXPECT_EQ(enough.arena().used(), 3 * sizeof(Insn));  // the scratch is given back
}

TEST(Decode, FailureReleasesTheArena) {
  Decoder decoder(1024);
  ASSERT_NE(decoder.arena().allocate<uint64_t>(3), nullptr);
  const size_t before = decoder.arena().used();
  EXPECT_DECODE_ERROR(decoder.run({mov64(0, 0), ja(5), exit_insn()}), jump_out_of_range, 1);
  EXPECT_EQ(decoder.arena().used(), before);
  const Decoded ok = decoder.run({mov64(0, 0), exit_insn()});
  EXPECT_DECODE_OK(ok);
  EXPECT_EQ(ok.program.count, 2u);
  EXPECT_EQ(decoder.arena().used(), before + 2 * sizeof(Insn));
}

// ---------------------------------------------------------------------------
// Every RFC 9669 encoding

struct Expected {
  S insn;
  std::string op;  // op_name of the decoded Op
};

std::vector<Expected> all_valid_encodings() {
  std::vector<Expected> out;
  const std::vector<std::pair<std::string, uint8_t>> alu = {
      {"add", 0x00}, {"sub", 0x10}, {"mul", 0x20}, {"div", 0x30}, {"or", 0x40},  {"and", 0x50},
      {"lsh", 0x60}, {"rsh", 0x70}, {"mod", 0x90}, {"xor", 0xa0}, {"mov", 0xb0}, {"arsh", 0xc0}};
  for (const auto& [cls, width] : {std::pair<uint8_t, std::string>{0x07, "64"}, {0x04, "32"}}) {
    for (const auto& [name, code] : alu) {
      out.push_back({{static_cast<uint8_t>(cls | code), 1, 0, 0, 7}, name + width + "_imm"});
      out.push_back({{static_cast<uint8_t>(cls | code | 0x08), 1, 2, 0, 0}, name + width + "_reg"});
    }
    // RFC 9669 §4.1: sdiv / smod are DIV / MOD with offset 1.
    for (const auto& [name, code] : {std::pair<std::string, uint8_t>{"sdiv", 0x30}, {"smod", 0x90}}) {
      out.push_back({{static_cast<uint8_t>(cls | code), 1, 0, 1, 7}, name + width + "_imm"});
      out.push_back({{static_cast<uint8_t>(cls | code | 0x08), 1, 2, 1, 0}, name + width + "_reg"});
    }
    out.push_back({{static_cast<uint8_t>(cls | 0x80), 3}, "neg" + width});
    // MOVSX: MOV X with offset 8/16 (and 32 for ALU64).
    out.push_back({{static_cast<uint8_t>(cls | 0xb8), 1, 2, 8}, "movsx" + width + "_8"});
    out.push_back({{static_cast<uint8_t>(cls | 0xb8), 1, 2, 16}, "movsx" + width + "_16"});
  }
  out.push_back({{0xbf, 1, 2, 32}, "movsx64_32"});
  // END (§4.2): ALU TO_LE / TO_BE, ALU64 TO_LE = bswap.
  for (const int32_t bits : {16, 32, 64}) {
    out.push_back({{0xd4, 1, 0, 0, bits}, "le" + std::to_string(bits)});
    out.push_back({{0xdc, 1, 0, 0, bits}, "be" + std::to_string(bits)});
    out.push_back({{0xd7, 1, 0, 0, bits}, "bswap" + std::to_string(bits)});
  }
  // Jumps (§4.3), offset 0 = the next slot.
  const std::vector<std::pair<std::string, uint8_t>> jcc = {
      {"jeq", 0x10}, {"jgt", 0x20}, {"jge", 0x30}, {"jset", 0x40}, {"jne", 0x50}, {"jsgt", 0x60},
      {"jsge", 0x70}, {"jlt", 0xa0}, {"jle", 0xb0}, {"jslt", 0xc0}, {"jsle", 0xd0}};
  for (const auto& [cls, width] : {std::pair<uint8_t, std::string>{0x05, "64"}, {0x06, "32"}}) {
    for (const auto& [name, code] : jcc) {
      out.push_back({{static_cast<uint8_t>(cls | code), 1, 0, 0, -3}, name + width + "_imm"});
      out.push_back({{static_cast<uint8_t>(cls | code | 0x08), 1, 2, 0, 0}, name + width + "_reg"});
    }
  }
  out.push_back({{0x05}, "ja"});
  out.push_back({{0x06}, "ja"});  // ja32 / gotol
  out.push_back({{0x85, 0, 0, 0, 12}, "call_helper"});
  out.push_back({{0x85, 0, 1, 0, 1}, "call_local"});  // lands on the second exit
  out.push_back({{0x8d, 4}, "callx"});
  out.push_back({{0x95}, "exit"});
  // lddw (§5.4) by source kind.
  const char* lddw[] = {"lddw_imm64", "lddw_map_fd", "lddw_map_value", "lddw_var_addr",
                        "lddw_code_addr", "lddw_map_idx", "lddw_map_idx_value"};
  // (code_addr's imm is a target: 2 is program_around's last exit.)
  for (uint8_t src = 0; src <= 6; ++src) out.push_back({{0x18, 1, src, 0, src == 4 ? 2 : 5}, lddw[src]});
  // Legacy packet loads (§5.5).
  out.push_back({{0x20, 0, 0, 0, 4}, "ld_abs_w"});
  out.push_back({{0x28, 0, 0, 0, 4}, "ld_abs_h"});
  out.push_back({{0x30, 0, 0, 0, 4}, "ld_abs_b"});
  out.push_back({{0x40, 0, 3, 0, 4}, "ld_ind_w"});
  out.push_back({{0x48, 0, 3, 0, 4}, "ld_ind_h"});
  out.push_back({{0x50, 0, 3, 0, 4}, "ld_ind_b"});
  // Loads and stores (§5.1, §5.2).
  const std::vector<std::pair<std::string, uint8_t>> sizes = {{"w", 0x00}, {"h", 0x08}, {"b", 0x10}, {"dw", 0x18}};
  for (const auto& [suffix, size] : sizes) {
    out.push_back({{static_cast<uint8_t>(0x61 | size), 1, 2, -8}, "ldx" + suffix});
    out.push_back({{static_cast<uint8_t>(0x62 | size), 10, 0, -8, 9}, "st" + suffix});
    out.push_back({{static_cast<uint8_t>(0x63 | size), 10, 2, -8}, "stx" + suffix});
    if (suffix != "dw") out.push_back({{static_cast<uint8_t>(0x81 | size), 1, 2, 4}, "ldxs" + suffix});
  }
  // Atomics (§5.3), W and DW.
  for (const auto& [opcode, width] : {std::pair<uint8_t, std::string>{0xc3, "32"}, {0xdb, "64"}}) {
    for (const auto& [name, code] :
         std::vector<std::pair<std::string, int32_t>>{{"add", 0x00}, {"or", 0x40}, {"and", 0x50}, {"xor", 0xa0}}) {
      out.push_back({{opcode, 10, 1, -8, code}, "atomic" + width + "_" + name});
      out.push_back({{opcode, 10, 1, -8, code | 0x01}, "atomic" + width + "_fetch_" + name});
    }
    out.push_back({{opcode, 10, 1, -8, 0xe1}, "atomic" + width + "_xchg"});
    out.push_back({{opcode, 10, 1, -8, 0xf1}, "atomic" + width + "_cmpxchg"});
  }
  return out;
}

// The instruction, its lddw tail if any, and two exits so that jumps with
// offset 0 and a local call with imm 1 land inside the program.
std::vector<S> program_around(const S& insn) {
  std::vector<S> slots = {insn};
  if (insn.opcode == 0x18) slots.push_back(lddw_tail(0));
  slots.push_back(exit_insn());
  slots.push_back(exit_insn());
  return slots;
}

TEST(DecodeAll, EveryValidEncodingDecodesToItsOp) {
  const auto expected = all_valid_encodings();
  std::set<uint8_t> opcodes;
  std::set<std::string> ops;
  for (const Expected& e : expected) {
    SCOPED_TRACE("opcode 0x" + std::to_string(e.insn.opcode) + " " + e.op);
    const Decoded d = decode_slots(program_around(e.insn));
    ASSERT_TRUE(d.result.ok()) << decode_error_name(d.result.error) << " at pc " << d.result.pc;
    const Insn& insn = d.program.insns[0];
    EXPECT_EQ(op_name(insn.op), e.op);
    EXPECT_EQ(insn.opcode, e.insn.opcode);
    EXPECT_EQ(insn.dst, e.insn.dst);
    EXPECT_EQ(insn.src, e.insn.src);
    opcodes.insert(e.insn.opcode);
    ops.insert(e.op);
  }
  // 126 opcode bytes; every Op but lddw_tail is reached.
  EXPECT_EQ(opcodes.size(), 126u);
  EXPECT_EQ(ops.size(), kOpCount - 1);
}

TEST(DecodeAll, EveryOtherOpcodeByteIsUnknown) {
  std::set<uint8_t> valid;
  for (const Expected& e : all_valid_encodings()) valid.insert(e.insn.opcode);
  int unknown = 0;
  for (int byte = 0; byte < 256; ++byte) {
    const auto opcode = static_cast<uint8_t>(byte);
    if (valid.count(opcode)) continue;
    ++unknown;
    SCOPED_TRACE("opcode " + std::to_string(byte));
    EXPECT_DECODE_ERROR(decode_slots({S{opcode}, exit_insn()}), unknown_opcode, 0);
    // Unknown wins over any field check.
    EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), S{opcode, 12, 13, 5, 7}, exit_insn()}), unknown_opcode, 1);
  }
  EXPECT_EQ(unknown, 256 - 126);
}

TEST(DecodeAll, NotInTheIsa) {
  // Neighbours of valid opcodes that RFC 9669 leaves undefined.
  for (const uint8_t opcode : std::initializer_list<uint8_t>{0x8c, 0x8f,   // NEG with X source
                               0xdf,         // ALU64 END with TO_BE
                               0x99,         // MEMSX DW
                               0x38, 0x58,   // ABS / IND with DW
                               0x00, 0x08, 0x10, 0x19,  // IMM mode other than lddw
                               0x0d, 0x0e,   // JA with X
                               0x86, 0x96, 0x8e,  // CALL / EXIT / CALLX in JMP32
                               0x9d,         // EXIT with X
                               0xcb, 0xd3,   // atomics of H and B
                               0x64 | 0x80 | 0x02,  // ST MEMSX
                               0xe4, 0xf7, 0xe5, 0xf6}) {
    SCOPED_TRACE(static_cast<int>(opcode));
    EXPECT_DECODE_ERROR(decode_slots({S{opcode}, exit_insn()}), unknown_opcode, 0);
  }
}

TEST(DecodeAll, LegacyPacketLoadsAreAnOption) {
  DecodeOptions options;
  options.allow_legacy_packet_loads = false;
  for (const uint8_t opcode : std::initializer_list<uint8_t>{0x20, 0x28, 0x30, 0x40, 0x48, 0x50}) {
    EXPECT_DECODE_ERROR(decode_slots({S{opcode, 0, 0, 0, 1}, exit_insn()}, options), unknown_opcode, 0);
    EXPECT_DECODE_OK(decode_slots({S{opcode, 0, 0, 0, 1}, exit_insn()}));
  }
}

// ---------------------------------------------------------------------------
// Decoded fields

TEST(DecodeFields, OffsetAndImmAreSignExtended) {
  const Decoded d = decode_slots({{0x79, 1, 10, -8}, {0xb7, 2, 0, 0, -1}, {0x07, 3, 0, 0, INT32_MIN},
                                  {0x15, 2, 0, 1, -5}, exit_insn(), exit_insn()});
  ASSERT_TRUE(d.result.ok());
  EXPECT_EQ(d.program.insns[0].offset, -8);
  EXPECT_EQ(d.program.insns[0].imm, 0);
  EXPECT_EQ(d.program.insns[1].imm, -1);
  EXPECT_EQ(d.program.insns[2].imm, int64_t{INT32_MIN});
  EXPECT_EQ(d.program.insns[3].offset, 1);
  EXPECT_EQ(d.program.insns[3].imm, -5);
  EXPECT_EQ(d.program.count, 6u);
}

TEST(DecodeFields, Ja32TargetMovesFromImmToOffset) {
  // A target beyond int16: only ja32 can reach it.
  std::vector<S> slots = {S{0x06, 0, 0, 0, 40000}};
  slots.insert(slots.end(), 40000, mov64(0, 0));
  slots.push_back(exit_insn());
  const Decoded d = decode_slots(slots);
  ASSERT_TRUE(d.result.ok()) << decode_error_name(d.result.error);
  EXPECT_EQ(d.program.insns[0].op, Op::ja);
  EXPECT_EQ(d.program.insns[0].offset, 40000);
  EXPECT_EQ(d.program.insns[0].imm, 0);
  EXPECT_EQ(d.program.insns[0].opcode, 0x06);

  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), S{0x06, 0, 0, 0, -1}, exit_insn()}), infinite_loop, 1);
  EXPECT_DECODE_ERROR(decode_slots({S{0x06, 0, 0, 0, 2}, exit_insn()}), jump_out_of_range, 0);
  EXPECT_DECODE_ERROR(decode_slots({S{0x06, 0, 0, 0, -2}, exit_insn()}), jump_out_of_range, 0);
  EXPECT_DECODE_ERROR(decode_slots({S{0x06, 0, 0, 1, 0}, exit_insn()}), reserved_field, 0);
}

TEST(DecodeFields, CallLocalTargetMovesFromImmToOffset) {
  const Decoded d = decode_slots({mov64(1, 1), call_local(1), exit_insn(), mov64(0, 1), exit_insn()});
  ASSERT_TRUE(d.result.ok()) << decode_error_name(d.result.error);
  EXPECT_EQ(d.program.insns[1].op, Op::call_local);
  EXPECT_EQ(d.program.insns[1].offset, 1);  // target = 1 + 1 + 1 = slot 3
  EXPECT_EQ(d.program.insns[1].imm, 0);
  EXPECT_EQ(d.program.insns[1].src, 1);
  // A helper call keeps its id in imm.
  const Decoded h = decode_slots({call_helper(-7), exit_insn()});
  ASSERT_TRUE(h.result.ok());
  EXPECT_EQ(h.program.insns[0].op, Op::call_helper);
  EXPECT_EQ(h.program.insns[0].imm, -7);
  EXPECT_EQ(h.program.insns[0].offset, 0);
}

TEST(DecodeFields, JumpOffsetIsRelative) {
  const Decoded d = decode_slots({ja(1), mov64(0, 0), jeq_imm(0, 0, -3), exit_insn()});
  ASSERT_TRUE(d.result.ok()) << decode_error_name(d.result.error);
  EXPECT_EQ(d.program.insns[0].offset, 1);
  EXPECT_EQ(d.program.insns[2].offset, -3);
}

// ---------------------------------------------------------------------------
// lddw

TEST(DecodeLddw, Imm64TakesBothHalves) {
  // bpf_conformance lddw.data: lddw %r0, 0x1122334455667788.
  const Decoded d = decode_bytes(words({0x5566778800000018, 0x1122334400000000, 0x0000000000000095}));
  ASSERT_TRUE(d.result.ok());
  ASSERT_EQ(d.program.count, 3u);
  EXPECT_EQ(d.program.insns[0].op, Op::lddw_imm64);
  EXPECT_EQ(d.program.insns[0].imm, int64_t{0x1122334455667788});
  EXPECT_EQ(d.program.insns[0].dst, 0);
  EXPECT_EQ(d.program.insns[1].op, Op::lddw_tail);
  EXPECT_EQ(d.program.insns[1].imm, int64_t{0x11223344});
  EXPECT_EQ(d.program.insns[2].op, Op::exit);
  // The low half is not sign-extended into the high half.
  const Decoded n = decode_slots({lddw_head(3, 0, -1), lddw_tail(0), exit_insn()});
  ASSERT_TRUE(n.result.ok());
  EXPECT_EQ(n.program.insns[0].imm, int64_t{0xffffffff});
  const Decoded m = decode_slots({lddw_head(3, 0, 0), lddw_tail(-1), exit_insn()});
  ASSERT_TRUE(m.result.ok());
  EXPECT_EQ(m.program.insns[0].imm, int64_t{-4294967296});
}

TEST(DecodeLddw, PseudoKindsKeepBothImms) {
  const Op kinds[] = {Op::lddw_map_fd, Op::lddw_map_value, Op::lddw_var_addr, Op::lddw_code_addr,
                      Op::lddw_map_idx, Op::lddw_map_idx_value};
  for (uint8_t src = 1; src <= 6; ++src) {
    SCOPED_TRACE(static_cast<int>(src));
    const bool map_ref = src == 1 || src == 5;  // no next_imm for a map itself
    const int32_t next = map_ref ? 0 : 24;
    // code_addr's imm is a function's offset (here the second exit).
    const int32_t imm = src == 4 ? 2 : -3;
    const Decoded d = decode_slots({lddw_head(2, src, imm), lddw_tail(next), exit_insn(), exit_insn()});
    ASSERT_TRUE(d.result.ok()) << decode_error_name(d.result.error);
    EXPECT_EQ(d.program.insns[0].op, kinds[src - 1]);
    EXPECT_EQ(d.program.insns[0].imm, imm);
    EXPECT_EQ(d.program.insns[0].src, src);
    EXPECT_EQ(d.program.insns[1].op, Op::lddw_tail);
    EXPECT_EQ(d.program.insns[1].imm, next);
    if (map_ref)
      EXPECT_DECODE_ERROR(decode_slots({lddw_head(2, src, 3), lddw_tail(8), exit_insn()}), bad_lddw_second_slot, 1);
  }
}

TEST(DecodeLddw, BadSourceKind) {
  EXPECT_DECODE_ERROR(decode_slots({lddw_head(1, 7, 0), lddw_tail(0), exit_insn()}), bad_lddw_src, 0);
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), lddw_head(1, 15, 0), lddw_tail(0), exit_insn()}), bad_lddw_src, 1);
}

TEST(DecodeLddw, Incomplete) {
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), lddw_head(1, 0, 5)}), incomplete_lddw, 1);
  // uBPF err-incomplete-lddw: an exit where the second half should be.
  EXPECT_DECODE_ERROR(decode_bytes(words({0x5566778800000018, 0x0000000000000095})), incomplete_lddw, 0);
}

TEST(DecodeLddw, SecondSlotFields) {
  EXPECT_DECODE_ERROR(decode_slots({lddw_head(1, 0, 0), S{0, 1}, exit_insn()}), bad_lddw_second_slot, 1);
  EXPECT_DECODE_ERROR(decode_slots({lddw_head(1, 0, 0), S{0, 0, 1}, exit_insn()}), bad_lddw_second_slot, 1);
  EXPECT_DECODE_ERROR(decode_slots({lddw_head(1, 0, 0), S{0, 0, 0, 1}, exit_insn()}), bad_lddw_second_slot, 1);
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), exit_insn(), lddw_head(1, 0, 0), S{0, 0, 0, -1}, exit_insn()}),
                      bad_lddw_second_slot, 3);
  // A reserved field in the first slot.
  EXPECT_DECODE_ERROR(decode_slots({S{0x18, 1, 0, 4, 0}, lddw_tail(0), exit_insn()}), reserved_field, 0);
}

TEST(DecodeLddw, WritesItsDst) {
  EXPECT_DECODE_ERROR(decode_slots({lddw_head(10, 0, 0), lddw_tail(0), exit_insn()}), write_to_r10, 0);
  EXPECT_DECODE_ERROR(decode_slots({lddw_head(11, 0, 0), lddw_tail(0), exit_insn()}), bad_register, 0);
}

// uBPF tests/errors/*.data with a `-- raw` program.
TEST(DecodeUbpf, RawErrorCases) {
  struct Case {
    const char* name;
    std::vector<uint8_t> bytes;
    DecodeError error;
    uint32_t pc;
  };
  const std::vector<Case> cases = {
      {"err-endian-size", words({0x00000030000001dc, 0x00000000000010b7, 0x0000000000000095}),
       DecodeError::bad_endian_size, 0},
      {"err-incomplete-lddw", words({0x5566778800000018, 0x0000000000000095}), DecodeError::incomplete_lddw, 0},
      {"err-lddw-second-half-invalid-all", words({0x18, 0x0000000000011100, 0x95}),
       DecodeError::bad_lddw_second_slot, 1},
      {"err-lddw-second-half-invalid-dst-offset", words({0x18, 0x0000000000010100, 0x95}),
       DecodeError::bad_lddw_second_slot, 1},
      {"err-lddw-second-half-invalid-offset", words({0x18, 0x0000000000010000, 0x95}),
       DecodeError::bad_lddw_second_slot, 1},
      {"err-lddw-second-half-invalid-src-offset", words({0x18, 0x0000000000011000, 0x95}),
       DecodeError::bad_lddw_second_slot, 1},
      {"err-lddw-second-half-invalid-src", words({0x18, 0x0000000000001000, 0x95}),
       DecodeError::bad_lddw_second_slot, 1},
      {"err-lddw-second-half-invalid", words({0x18, 0x0000000000000100, 0x95}),
       DecodeError::bad_lddw_second_slot, 1},
      // uBPF expects "invalid source register for LDDW" here: its lddw knows
      // only src 0. RFC 9669 §5.4 defines src 1 (map_fd), so keel decodes
      // the lddw and then finds the program has no exit after it.
      {"err-lddw-invalid-src", words({0x5566778800001118, 0x0}), DecodeError::fall_through_end, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    check_error(decode_bytes(c.bytes), c.error, c.pc);
  }
}

// uBPF err-unknown-opcode uses 0x06, which RFC 9669 §4.3 since defined as
// JMP32 JA ("gotol"): with imm 0 it is a jump to the next slot.
TEST(DecodeUbpf, Opcode06IsJa32) {
  const Decoded d = decode_bytes(words({0x0000000000000006, 0x0000000000000095}));
  EXPECT_DECODE_OK(d);
  EXPECT_EQ(d.program.insns[0].op, Op::ja);
}

// ---------------------------------------------------------------------------
// Reserved fields, per instruction kind

TEST(DecodeReserved, FieldsAnInstructionDoesNotUse) {
  const std::vector<std::pair<const char*, S>> cases = {
      {"alu K src", {0x07, 1, 2, 0, 1}},
      {"alu K offset", {0x07, 1, 0, 1, 1}},
      {"alu X imm", {0x0f, 1, 2, 0, 1}},
      {"alu X offset", {0x0f, 1, 2, 1, 0}},
      {"alu32 K offset", {0x04, 1, 0, -1, 1}},
      {"neg src", {0x87, 1, 2, 0, 0}},
      {"neg imm", {0x87, 1, 0, 0, 1}},
      {"neg offset", {0x84, 1, 0, 1, 0}},
      {"div offset 2", {0x37, 1, 0, 2, 1}},
      {"mod32 X offset -1", {0x9c, 1, 2, -1, 0}},
      {"div X imm", {0x3f, 1, 2, 1, 5}},
      {"mov K with a movsx offset", {0xb7, 1, 0, 8, 1}},
      {"movsx offset 24", {0xbf, 1, 2, 24, 0}},
      {"movsx32 offset 32", {0xbc, 1, 2, 32, 0}},
      {"mov64 X addr_space_cast", {0xbf, 1, 2, 1, 1}},
      {"mov64 X offset 1", {0xbf, 1, 2, 1, 0}},
      {"end src", {0xdc, 1, 1, 0, 16}},
      {"end offset", {0xd4, 1, 0, 1, 16}},
      {"bswap src", {0xd7, 1, 1, 0, 16}},
      {"ja dst", {0x05, 1, 0, 0, 0}},
      {"ja src", {0x05, 0, 1, 0, 0}},
      {"ja imm", {0x05, 0, 0, 0, 1}},
      {"ja32 dst", {0x06, 1, 0, 0, 0}},
      {"ja32 offset", {0x06, 0, 0, 1, 0}},
      {"jeq K src", {0x15, 1, 2, 0, 0}},
      {"jeq X imm", {0x1d, 1, 2, 0, 3}},
      {"jeq32 X imm", {0x1e, 1, 2, 0, 3}},
      {"call dst", {0x85, 1, 0, 0, 1}},
      {"call offset", {0x85, 0, 0, 1, 1}},
      {"call src 3", {0x85, 0, 3, 0, 1}},
      {"call src 15", {0x85, 0, 15, 0, 1}},
      {"callx src", {0x8d, 1, 2, 0, 0}},
      {"callx offset", {0x8d, 1, 0, 1, 0}},
      {"callx imm", {0x8d, 1, 0, 0, 1}},
      {"exit dst", {0x95, 1}},
      {"exit dst 11", {0x95, 11}},
      {"exit src", {0x95, 0, 1}},
      {"exit offset", {0x95, 0, 0, 1}},
      {"exit imm", {0x95, 0, 0, 0, 1}},
      {"ldx imm", {0x79, 1, 2, 0, 1}},
      {"ldxsb imm", {0x91, 1, 2, 0, 1}},
      {"st src", {0x7a, 10, 1, -8, 1}},
      {"stx imm", {0x7b, 10, 1, -8, 1}},
      {"ld_abs dst", {0x20, 1, 0, 0, 1}},
      {"ld_abs src", {0x28, 0, 1, 0, 1}},
      {"ld_abs offset", {0x30, 0, 0, 1, 1}},
      {"ld_ind dst", {0x40, 1, 2, 0, 1}},
      {"ld_ind offset", {0x50, 0, 2, 1, 1}},
  };
  for (const auto& [name, insn] : cases) {
    SCOPED_TRACE(name);
    EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), insn, exit_insn()}), reserved_field, 1);
  }
}

// ---------------------------------------------------------------------------
// Registers

TEST(DecodeRegisters, AboveR10) {
  // uBPF err-invalid-reg-dst / err-invalid-reg-src.
  EXPECT_DECODE_ERROR(decode_slots({{0xb7, 11, 0, 0, 1}, exit_insn()}), bad_register, 0);
  EXPECT_DECODE_ERROR(decode_slots({{0xbf, 0, 11}, exit_insn()}), bad_register, 0);
  const std::vector<std::pair<const char*, S>> cases = {
      {"alu32 dst", {0x04, 15, 0, 0, 1}},
      {"alu X src", {0x0f, 1, 12}},
      {"ldx src", {0x61, 1, 11, 0}},
      {"ldx dst", {0x61, 11, 1, 0}},
      {"st dst", {0x62, 11, 0, 0, 1}},
      {"stx dst", {0x63, 11, 1, 0}},
      {"stx src", {0x63, 1, 11, 0}},
      {"atomic src", {0xdb, 1, 14, 0, 0}},
      {"jeq dst", {0x15, 11, 0, 0, 0}},
      {"jeq32 X src", {0x1e, 1, 11, 0, 0}},
      {"callx dst", {0x8d, 11}},
      {"ld_ind src", {0x40, 0, 11, 0, 0}},
      {"end dst", {0xd4, 13, 0, 0, 16}},
  };
  for (const auto& [name, insn] : cases) {
    SCOPED_TRACE(name);
    EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), insn, exit_insn()}), bad_register, 1);
  }
}

TEST(DecodeRegisters, WritesToR10) {
  const std::vector<std::pair<const char*, S>> writes = {
      {"mov64", {0xb7, 10, 0, 0, 1}},       {"add X", {0x0f, 10, 1}},
      {"mov32", {0xb4, 10, 0, 0, 1}},       {"neg", {0x87, 10}},
      {"movsx", {0xbf, 10, 1, 8}},          {"sdiv", {0x37, 10, 0, 1, 3}},
      {"le", {0xd4, 10, 0, 0, 32}},         {"bswap", {0xd7, 10, 0, 0, 64}},
      {"ldxdw", {0x79, 10, 1, 0}},          {"ldxsb", {0x91, 10, 1, 0}},
      {"atomic fetch add", {0xdb, 1, 10, 0, 0x01}},
      {"atomic32 fetch xor", {0xc3, 1, 10, 0, 0xa1}},
      {"xchg", {0xdb, 1, 10, 0, 0xe1}},
  };
  for (const auto& [name, insn] : writes) {
    SCOPED_TRACE(name);
    EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), insn, exit_insn()}), write_to_r10, 1);
  }
  // Stores through r10 and reads of r10 are fine.
  const std::vector<std::pair<const char*, S>> reads = {
      {"stb", {0x72, 10, 0, -8, 1}},        {"stxdw", {0x7b, 10, 1, -8}},
      {"atomic add", {0xdb, 10, 1, -8, 0x00}},
      {"atomic add of r10", {0xdb, 1, 10, 0, 0x00}},  // no fetch: src only read
      {"cmpxchg of r10", {0xdb, 1, 10, 0, 0xf1}},      // the old value goes to r0
      {"mov from r10", {0xbf, 1, 10}},      {"ldx from r10", {0x79, 1, 10, -8}},
      {"jeq r10", {0x15, 10, 0, 0, 0}},     {"jgt X r10", {0x2d, 1, 10, 0, 0}},
      {"callx r10", {0x8d, 10}},            {"ld_ind r10", {0x40, 0, 10, 0, 0}},
  };
  for (const auto& [name, insn] : reads) {
    SCOPED_TRACE(name);
    EXPECT_DECODE_OK(decode_slots({mov64(0, 0), insn, exit_insn()}));
  }
}

// ---------------------------------------------------------------------------
// END and atomics

TEST(DecodeEndian, SizeOtherThan16_32_64) {
  for (const int32_t imm : {0, 1, 8, 48, 128, -16}) {
    for (const uint8_t opcode : std::initializer_list<uint8_t>{0xd4, 0xdc, 0xd7}) {
      SCOPED_TRACE(std::to_string(opcode) + " imm " + std::to_string(imm));
      EXPECT_DECODE_ERROR(decode_slots({mov64(1, 0), {opcode, 1, 0, 0, imm}, exit_insn()}), bad_endian_size, 1);
    }
  }
}

TEST(DecodeAtomic, UndefinedOperations) {
  for (const int32_t imm : {0x10, 0x11, 0x20, 0x80, 0xe0, 0xf0, 0x02, 0x03, 0x41 | 0x02, 0xe3, 0x100, -1}) {
    for (const uint8_t opcode : std::initializer_list<uint8_t>{0xc3, 0xdb}) {
      SCOPED_TRACE(std::to_string(opcode) + " imm " + std::to_string(imm));
      EXPECT_DECODE_ERROR(decode_slots({mov64(1, 0), {opcode, 10, 1, -8, imm}, exit_insn()}), bad_atomic_op, 1);
    }
  }
}

// ---------------------------------------------------------------------------
// Calls

bool even_helpers(const void* context, int32_t id) {
  ++*static_cast<int*>(const_cast<void*>(context));
  return id % 2 == 0;
}

TEST(DecodeCall, HelperTable) {
  int calls = 0;
  DecodeOptions options;
  options.helper_exists = even_helpers;
  options.helper_context = &calls;
  EXPECT_DECODE_OK(decode_slots({call_helper(4), exit_insn()}, options));
  EXPECT_EQ(calls, 1);
  // uBPF err-call-unreg: `call 63` at pc 5 after five movs.
  std::vector<S> slots;
  for (uint8_t r = 1; r <= 5; ++r) slots.push_back(mov64(r, r));
  slots.push_back(call_helper(63));
  slots.push_back(exit_insn());
  EXPECT_DECODE_ERROR(decode_slots(slots, options), unknown_helper, 5);
  // Without a table every id is accepted.
  EXPECT_DECODE_OK(decode_slots(slots));
}

// Every field of a decoded instruction.
void expect_insn(const Insn& insn, const std::string& op, uint8_t dst, uint8_t src, uint8_t opcode, int32_t offset,
                 int64_t imm) {
  EXPECT_EQ(op_name(insn.op), op);
  EXPECT_EQ(insn.dst, dst);
  EXPECT_EQ(insn.src, src);
  EXPECT_EQ(insn.opcode, opcode);
  EXPECT_EQ(insn.offset, offset);
  EXPECT_EQ(insn.imm, imm);
}

// Every field combination (values around each check) of a helper call and
// of a lddw, against the rules written out here: RFC 9669 §3 (unused fields
// zero, registers r0-r10, r10 never written), §4.3.1 and §5.4. decode.cc
// decodes the valid common ones without its per-row path (decode_common);
// this pins that path and the per-row one to the same results, the table
// asked once per call.
TEST(DecodeCommon, HelperCallFieldsByTheRules) {
  for (uint8_t dst = 0; dst < 16; ++dst) {
    for (uint8_t src = 0; src < 16; ++src) {
      if (src == 1) continue;  // a local call: DecodeCall.LocalCallTargets
      for (const int16_t offset : {int16_t{0}, int16_t{1}, int16_t{-1}, int16_t{0x100}}) {
        for (const int32_t id : {0, 1, 2, 0x10000, -1, INT32_MIN}) {
          SCOPED_TRACE("dst " + std::to_string(dst) + " src " + std::to_string(src) + " offset " +
                       std::to_string(offset) + " id " + std::to_string(id));
          int calls = 0;
          DecodeOptions options;
          options.helper_exists = even_helpers;
          options.helper_context = &calls;
          const Decoded d = decode_slots({mov64(0, 0), {0x85, dst, src, offset, id}, exit_insn()}, options);
          if (dst != 0 || offset != 0 || src > 2) {
            EXPECT_DECODE_ERROR(d, reserved_field, 1);
          } else if (src == 2 || id % 2 != 0) {
            EXPECT_DECODE_ERROR(d, unknown_helper, 1);
          } else {
            ASSERT_TRUE(d.result.ok());
            expect_insn(d.program.insns[1], "call_helper", 0, 0, 0x85, 0, id);
          }
          EXPECT_EQ(calls, dst == 0 && offset == 0 && src == 0 ? 1 : 0);
          // Without a table every id is a helper.
          const Decoded any = decode_slots({mov64(0, 0), {0x85, dst, src, offset, id}, exit_insn()});
          EXPECT_EQ(any.result.ok(), dst == 0 && offset == 0 && src == 0);
        }
      }
    }
  }
}

// MOV X and DIV / MOD pick their op by offset (RFC 9669 §4.1); offset 0
// takes decode.cc's fast path, the others its per-row path. Every
// combination against the rules: unused fields zero, registers r0-r10, r10
// never written, then the offset.
TEST(DecodeCommon, OpByOffsetByTheRules) {
  struct Row {
    uint8_t opcode;
    const char* op;  // offset 0
    const char* other;  // offset 1 (sdiv / smod), or nullptr for MOV X
    bool reg;  // X (src) form, else K (imm)
    bool wide;
  };
  const Row rows[] = {
      {0x34, "div32_imm", "sdiv32_imm", false, false}, {0x3c, "div32_reg", "sdiv32_reg", true, false},
      {0x94, "mod32_imm", "smod32_imm", false, false}, {0x9c, "mod32_reg", "smod32_reg", true, false},
      {0x37, "div64_imm", "sdiv64_imm", false, true},  {0x3f, "div64_reg", "sdiv64_reg", true, true},
      {0x97, "mod64_imm", "smod64_imm", false, true},  {0x9f, "mod64_reg", "smod64_reg", true, true},
      {0xbc, "mov32_reg", nullptr, true, false},       {0xbf, "mov64_reg", nullptr, true, true}};
  for (const Row& row : rows) {
    for (uint8_t dst = 0; dst < 16; ++dst) {
      for (uint8_t src = 0; src < 16; ++src) {
        for (const int16_t offset : {int16_t{0}, int16_t{1}, int16_t{2}, int16_t{8}, int16_t{16}, int16_t{32},
                                     int16_t{-1}, int16_t{0x100}}) {
          for (const int32_t imm : {0, 3}) {
            SCOPED_TRACE(std::string(row.op) + " dst " + std::to_string(dst) + " src " + std::to_string(src) +
                         " offset " + std::to_string(offset) + " imm " + std::to_string(imm));
            const Decoded d = decode_slots({{row.opcode, dst, src, offset, imm}, exit_insn()});
            const bool movsx = row.other == nullptr;
            const bool by_offset = movsx ? offset == 8 || offset == 16 || (offset == 32 && row.wide) : offset == 1;
            if ((row.reg && imm != 0) || (!row.reg && src != 0)) {
              EXPECT_DECODE_ERROR(d, reserved_field, 0);
            } else if (dst > 10 || (row.reg && src > 10)) {
              EXPECT_DECODE_ERROR(d, bad_register, 0);
            } else if (dst == 10) {
              EXPECT_DECODE_ERROR(d, write_to_r10, 0);
            } else if (offset != 0 && !by_offset) {
              EXPECT_DECODE_ERROR(d, reserved_field, 0);
            } else {
              ASSERT_TRUE(d.result.ok()) << decode_error_name(d.result.error);
              const std::string width = row.wide ? "64" : "32";
              const std::string expected = offset == 0 ? row.op
                                           : movsx     ? "movsx" + width + "_" + std::to_string(offset)
                                                       : row.other;
              expect_insn(d.program.insns[0], expected, dst, src, row.opcode, offset, imm);
            }
          }
        }
      }
    }
  }
}

TEST(DecodeCommon, LddwFieldsByTheRules) {
  const char* kinds[] = {"lddw_imm64", "lddw_map_fd", "lddw_map_value", "lddw_var_addr",
                         "lddw_code_addr", "lddw_map_idx", "lddw_map_idx_value"};
  // Second slots: the tail's fields, or none (the lddw is the last slot).
  struct Second {
    bool present;
    S slot;
  };
  const Second seconds[] = {{true, lddw_tail(0)},           {true, lddw_tail(5)},
                            {true, lddw_tail(-1)},          {true, {0x00, 1, 0, 0, 0}},
                            {true, {0x00, 0, 1, 0, 0}},     {true, {0x00, 0, 0, 1, 0}},
                            {true, {0x00, 0, 0, -1, 7}},    {true, exit_insn()},
                            {true, mov64(0, 0)},            {false, {}}};
  for (uint8_t dst = 0; dst < 16; ++dst) {
    for (uint8_t src = 0; src < 16; ++src) {
      for (const int16_t offset : {int16_t{0}, int16_t{1}, int16_t{-1}}) {
        for (const int32_t imm : {0, -1, -2, 1, 7, INT32_MIN}) {
          for (const Second& second : seconds) {
            SCOPED_TRACE("dst " + std::to_string(dst) + " src " + std::to_string(src) + " offset " +
                         std::to_string(offset) + " imm " + std::to_string(imm) + " second " +
                         std::to_string(&second - seconds));
            std::vector<S> slots = {mov64(0, 0), {0x18, dst, src, offset, imm}};
            if (second.present) slots.push_back(second.slot);
            slots.push_back(exit_insn());
            const Decoded d = decode_slots(slots);
            const S& next = second.slot;
            // check_fields, then decode_lddw, in that order.
            if (offset != 0) {
              EXPECT_DECODE_ERROR(d, reserved_field, 1);
            } else if (dst > 10) {
              EXPECT_DECODE_ERROR(d, bad_register, 1);
            } else if (dst == 10) {
              EXPECT_DECODE_ERROR(d, write_to_r10, 1);
            } else if (src > 6) {
              EXPECT_DECODE_ERROR(d, bad_lddw_src, 1);
            } else if (!second.present || next.opcode != 0) {
              EXPECT_DECODE_ERROR(d, incomplete_lddw, 1);
            } else if (next.dst != 0 || next.src != 0 || next.offset != 0 ||
                       ((src == 1 || src == 5) && next.imm != 0)) {
              EXPECT_DECODE_ERROR(d, bad_lddw_second_slot, 2);
            } else if (src == 4 && (imm < -2 || imm > 1)) {
              // code_addr: the callback at 2 + imm (the lddw's next slot + imm) is outside.
              EXPECT_DECODE_ERROR(d, jump_out_of_range, 1);
            } else if (src == 4 && imm == 0) {
              EXPECT_DECODE_ERROR(d, jump_into_lddw, 1);  // its own tail
            } else if (src == 4 && imm == 1) {
              EXPECT_DECODE_ERROR(d, fall_through_end, 1);  // the exit a function: the first ends in the lddw
            } else if (src == 4 && imm == -1) {
              EXPECT_DECODE_ERROR(d, fall_through_end, 0);  // the lddw a function: the first is the mov
            } else {
              ASSERT_TRUE(d.result.ok()) << decode_error_name(d.result.error) << " at " << d.result.pc;
              const uint64_t both = uint64_t{static_cast<uint32_t>(next.imm)} << 32 | static_cast<uint32_t>(imm);
              expect_insn(d.program.insns[1], kinds[src], dst, src, 0x18, 0,
                          src == 0 ? static_cast<int64_t>(both) : int64_t{imm});
              expect_insn(d.program.insns[2], "lddw_tail", 0, 0, 0, 0, next.imm);
            }
          }
        }
      }
    }
  }
}

TEST(DecodeCall, BtfIdCallsAreUnknown) {
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), {0x85, 0, 2, 0, 1234}, exit_insn()}), unknown_helper, 1);
}

TEST(DecodeCall, LocalCallTargets) {
  EXPECT_DECODE_ERROR(decode_slots({call_local(1), exit_insn()}), jump_out_of_range, 0);
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), call_local(-3), exit_insn()}), jump_out_of_range, 1);
  EXPECT_DECODE_ERROR(decode_slots({call_local(2), exit_insn(), lddw_head(0, 0, 1), lddw_tail(0), exit_insn()}),
                      jump_into_lddw, 0);
  // A call to slot 0 starts no new function.
  EXPECT_DECODE_OK(decode_slots({mov64(0, 0), call_local(-2), exit_insn()}));
  // The third function calls the second, backwards.
  EXPECT_DECODE_OK(
      decode_slots({call_local(1), exit_insn(), call_local(1), exit_insn(), call_local(-3), exit_insn()}));
}

// ---------------------------------------------------------------------------
// Jumps

TEST(DecodeJump, Targets) {
  // uBPF err-jmp-out, err-jmp-lddw, err-infinite-loop.
  EXPECT_DECODE_ERROR(decode_slots({ja(2), exit_insn()}), jump_out_of_range, 0);
  EXPECT_DECODE_ERROR(decode_slots({ja(1), lddw_head(0, 0, 0x55667788), lddw_tail(0x11223344), exit_insn()}),
                      jump_into_lddw, 0);
  EXPECT_DECODE_ERROR(decode_slots({ja(-1), exit_insn()}), infinite_loop, 0);
  // Backwards off the start, conditional jumps, the slot just past the end.
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), jeq_imm(0, 1, -3), exit_insn()}), jump_out_of_range, 1);
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), {0x2e, 1, 2, 1}, exit_insn()}), jump_out_of_range, 1);
  EXPECT_DECODE_ERROR(decode_slots({jeq_imm(0, 1, 1), lddw_head(0, 0, 0), lddw_tail(0), exit_insn()}), jump_into_lddw,
                      0);
  EXPECT_DECODE_ERROR(decode_slots({ja(0x7fff), exit_insn()}), jump_out_of_range, 0);
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), S{0x06, 0, 0, 0, INT32_MIN}, exit_insn()}), jump_out_of_range, 1);
  // A conditional jump to itself is left to the analysis.
  EXPECT_DECODE_OK(decode_slots({jeq_imm(1, 0, -1), exit_insn()}));
  // Onto a lddw's first slot, and backwards over one.
  EXPECT_DECODE_OK(decode_slots({ja(0), lddw_head(0, 0, 0), lddw_tail(0), jeq_imm(0, 0, -3), exit_insn()}));
}

// ---------------------------------------------------------------------------
// Functions

TEST(DecodeFunctions, UbpfCall0FallsIntoTheCallee) {
  // mov r0, ..; call local next; next: exit — function 0 ends with the call.
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0x12345678), call_local(0), exit_insn()}), fall_through_end, 1);
}

TEST(DecodeFunctions, UbpfJumpBackIntoTheCaller) {
  // begin: mov; call local next; exit; next: add r1, 1; ja begin; exit.
  EXPECT_DECODE_ERROR(
      decode_slots({mov64(1, 0x12345678), call_local(1), exit_insn(), {0x07, 1, 0, 0, 1}, ja(-5), exit_insn()}),
      jump_out_of_range, 4);
}

TEST(DecodeFunctions, JumpsStayInTheirFunction) {
  // Forward onto the next function's first slot.
  EXPECT_DECODE_ERROR(decode_slots({call_local(2), jeq_imm(0, 0, 1), exit_insn(), mov64(0, 0), exit_insn()}),
                      jump_out_of_range, 1);
  // Jumps inside each function, and a function ending in ja (a loop).
  EXPECT_DECODE_OK(decode_slots({call_local(2), jeq_imm(0, 0, 0), exit_insn(), mov64(0, 0), jeq_imm(0, 1, 1),
                                 ja(-3), exit_insn()}));
  EXPECT_DECODE_OK(decode_slots({call_local(1), exit_insn(), jeq_imm(1, 0, 1), ja(-2), ja(-3)}));
  // Three functions: the jump from the third into the second is caught.
  EXPECT_DECODE_ERROR(decode_slots({call_local(1), exit_insn(), call_local(1), exit_insn(), mov64(0, 0), ja(-3),
                                    exit_insn()}),
                      jump_out_of_range, 5);
}

TEST(DecodeFunctions, EveryFunctionEndsInExitOrJa) {
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0)}), fall_through_end, 0);
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), jeq_imm(0, 0, -2)}), fall_through_end, 1);
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), call_helper(1)}), fall_through_end, 1);
  // A lddw at the end is reported at its first slot.
  EXPECT_DECODE_ERROR(decode_slots({mov64(0, 0), lddw_head(0, 0, 1), lddw_tail(0)}), fall_through_end, 1);
  // The callee's last slot, and a middle function.
  EXPECT_DECODE_ERROR(decode_slots({call_local(1), exit_insn(), mov64(0, 0)}), fall_through_end, 2);
  EXPECT_DECODE_ERROR(
      decode_slots({call_local(1), exit_insn(), mov64(0, 0), call_local(1), mov64(0, 1), exit_insn()}),
      fall_through_end, 4);
  EXPECT_DECODE_ERROR(
      decode_slots({call_local(1), exit_insn(), call_local(2), lddw_head(0, 0, 0), lddw_tail(0), exit_insn()}),
      fall_through_end, 3);
  // The first failing slot in pc order is reported.
  // Function 0 (slots 0..2) falls through at 2 before the callee's jump
  // back into it at 3.
  EXPECT_DECODE_ERROR(decode_slots({call_local(2), mov64(0, 0), mov64(0, 0), ja(-2), mov64(0, 0)}), fall_through_end,
                      2);
}

}  // namespace
}  // namespace keel
