// The generator is deterministic, always decodable, reaches every shape it
// promises (types, privilege, loops, calls, callbacks, spills at every
// width, packet checks), produces programs keel accepts as well as rejects,
// and a short campaign through the oracle finds nothing.
#include "program_generator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "keel/decode.h"
#include "keel/platform_linux.h"
#include "oracle.h"

namespace keel::fuzzgen {
namespace {

GeneratedProgram from_seed(uint64_t seed) {
  Choices c(seed);
  return generate(c);
}

TEST(ProgramGenerator, TheSameSeedOrBytesGiveTheSameProgram) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const GeneratedProgram a = from_seed(seed), b = from_seed(seed);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_STREQ(a.type, b.type);
    EXPECT_EQ(a.privileged, b.privileged);
  }
  EXPECT_NE(from_seed(1).bytes, from_seed(2).bytes);
  const uint8_t data[] = {9, 200, 3, 77, 1, 2, 3, 4, 250, 251, 252, 253, 17, 0, 0, 99};
  Choices c1(data, sizeof data), c2(data, sizeof data);
  EXPECT_EQ(generate(c1).bytes, generate(c2).bytes);
}

TEST(ProgramGenerator, ExhaustedBytesGiveAShortProgram) {
  Choices empty(nullptr, 0);
  const GeneratedProgram p = generate(empty);
  EXPECT_GT(p.bytes.size(), 0u);
  EXPECT_LT(p.bytes.size(), 8u * 64);
}

TEST(ProgramGenerator, ProgramsDecodeAndCoverEveryShape) {
  std::set<std::string> types;
  uint32_t unprivileged = 0, loops = 0, local_calls = 0, bpf_loops = 0, accepted = 0, rejected = 0;
  uint32_t store_widths = 0, load_widths = 0, jmp32 = 0;
  std::vector<uint8_t> memory(1u << 16), arena_memory(8u << 20);
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const GeneratedProgram p = from_seed(seed);
    ASSERT_EQ(p.bytes.size() % 8, 0u);
    Arena arena(memory.data(), memory.size());
    Program program;
    const DecodeResult d = decode(p.bytes.data(), p.bytes.size(), DecodeOptions{}, arena, program);
    ASSERT_TRUE(d.ok()) << "seed " << seed << ": decode error at " << d.pc;
    types.insert(p.type);
    unprivileged += !p.privileged;
    for (size_t i = 0; i < p.bytes.size(); i += 8) {
      const uint8_t opcode = p.bytes[i], src = p.bytes[i + 1] >> 4;
      int16_t offset;
      int32_t imm;
      std::memcpy(&offset, &p.bytes[i + 2], 2);
      std::memcpy(&imm, &p.bytes[i + 4], 4);
      const uint8_t cls = opcode & 7;
      if ((cls == 5 || cls == 6) && (opcode & 0xf0) != 0x80 && (opcode & 0xf0) != 0x90 && offset < 0) ++loops;
      if (opcode == 0x85 && src == 1) ++local_calls;
      if (opcode == 0x85 && src == 0 && imm == 181) ++bpf_loops;
      if (cls == 6) ++jmp32;
      if (cls == 3) store_widths |= 1u << ((opcode >> 3) & 3);
      if (cls == 1) load_widths |= 1u << ((opcode >> 3) & 3);
    }
    Arena verify_arena(arena_memory.data(), arena_memory.size());
    const Verdict v = verify(program, *find_program_type(linux_platform(), p.type), verify_options(p.privileged), verify_arena);
    (v.ok() ? accepted : rejected) += 1;
  }
  EXPECT_EQ(types, (std::set<std::string>{"sched_cls", "socket_filter", "xdp"}));
  EXPECT_GT(unprivileged, 200u);
  EXPECT_GT(loops, 100u);
  EXPECT_GT(local_calls, 50u);
  EXPECT_GT(bpf_loops, 50u);
  EXPECT_GT(jmp32, 100u);
  EXPECT_EQ(store_widths, 0xfu);  // spills of 4, 2, 1 and 8 bytes
  EXPECT_EQ(load_widths, 0xfu);
  // Both sides of the verifier's decision are exercised in quantity.
  EXPECT_GT(accepted, 200u);
  EXPECT_GT(rejected, 200u);
}

TEST(ProgramGenerator, AShortCampaignFindsNothing) {
  uint32_t accepted = 0;
  for (uint64_t seed = 0; seed < 1500; ++seed) {
    const GeneratedProgram p = from_seed(seed);
    const Judgement j = judge(p.bytes.data(), p.bytes.size(), *find_program_type(linux_platform(), p.type),
                              verify_options(p.privileged), seed, 2);
    ASSERT_TRUE(j.decoded);
    accepted += j.verdict.ok();
    EXPECT_FALSE(j.finding.found()) << "seed " << seed << ": " << finding_kind_name(j.finding.kind) << " at pc "
                                    << j.finding.pc << ": " << j.finding.message;
  }
  EXPECT_GT(accepted, 100u);
}

}  // namespace
}  // namespace keel::fuzzgen
