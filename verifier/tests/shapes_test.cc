// Tests of the verifier benchmark's program generators (bench/shapes.h):
// the reference shapes byte for byte, the straight-line formula, every
// shape decodes and computes what it says when run, and the verifier
// accepts them with a bound no smaller than a real run. The generators come
// from the keel_shapes library (verifier/tests/CMakeLists.txt), so they are
// tested in every preset, not only where benchmarks are built.
#include "shapes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/platform_linux.h"
#include "keel/verify.h"

namespace keel::shapes {
namespace {

// "b700000000000000 9500000000000000": each slot's 8 bytes, in file order.
std::string hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  char digits[3];
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i != 0 && i % 8 == 0) out += ' ';
    std::snprintf(digits, sizeof(digits), "%02x", bytes[i]);
    out += digits;
  }
  return out;
}

TEST(Shapes, ReferenceBytes) {
  EXPECT_EQ(hex(minimal().bytes), "b700000000000000 9500000000000000");
  EXPECT_EQ(hex(arithmetic().bytes),
            "b700000064000000 b701000032000000 0f10000000000000 1700000019000000 9500000000000000");
  EXPECT_EQ(hex(linear().bytes),
            "b700000000000000 b701000001000000 b702000002000000 0f10000000000000 0f20000000000000 "
            "9500000000000000");
  EXPECT_EQ(hex(single_branch().bytes),
            "b70000000a000000 1500020005000000 b700000000000000 0500010000000000 b700000001000000 "
            "9500000000000000");
  EXPECT_EQ(hex(multi_branch().bytes),
            "b70000000a000000 b701000014000000 1d10030000000000 150001000a000000 b700000000000000 "
            "0500010000000000 b700000001000000 9500000000000000");
  for (const Shape& s : {minimal(), arithmetic(), linear(), single_branch(), multi_branch()}) {
    EXPECT_STREQ(s.type, "socket_filter");
    EXPECT_TRUE(s.maps.empty());
  }
}

TEST(Shapes, StraightLineTen) {
  EXPECT_EQ(hex(straight_line(10).bytes),
            "b700000000000000 0700000001000000 0700000002000000 0700000003000000 0700000004000000 "
            "0700000005000000 0700000006000000 0700000007000000 0700000008000000 9500000000000000");
}

// mov64 r0, 0; add64 r0, i % 100 for i = 1 .. n-2; exit — checked slot by
// slot against the encoding written out here, not against the Builder.
TEST(Shapes, StraightLineFormula) {
  for (uint32_t n : {2u, 3u, 10u, 50u, 100u, 500u, 1000u, 4096u, 16384u, 65536u}) {
    const std::vector<uint8_t> bytes = straight_line(n).bytes;
    ASSERT_EQ(bytes.size(), size_t{n} * 8) << n;
    const uint8_t first[8] = {0xb7, 0, 0, 0, 0, 0, 0, 0};
    const uint8_t last[8] = {0x95, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(std::memcmp(bytes.data(), first, 8), 0) << n;
    EXPECT_EQ(std::memcmp(bytes.data() + (n - 1) * 8, last, 8), 0) << n;
    for (uint32_t i = 1; i + 1 < n; ++i) {
      const uint8_t add[8] = {0x07, 0, 0, 0, static_cast<uint8_t>(i % 100), 0, 0, 0};
      ASSERT_EQ(std::memcmp(bytes.data() + size_t{i} * 8, add, 8), 0) << "n " << n << " slot " << i;
    }
  }
}

TEST(Shapes, Sizes) {
  for (uint32_t n : {1u, 10u, 10000u}) EXPECT_EQ(diamonds(n).slots(), 4 * n + 3);
  for (uint32_t d : {0u, 1u, 4u, 12u}) EXPECT_EQ(nested_diamonds(d).slots(), 3u * (1u << d) - 2 + 3);
  EXPECT_EQ(bounded_loop(10).slots(), 6u);
  for (uint32_t d : {1u, 2u, 3u}) EXPECT_EQ(nested_loops(d).slots(), 3 * d + 3);
  EXPECT_STREQ(packet_parse().type, "xdp");
  EXPECT_STREQ(packet_parse_vlan().type, "xdp");
  EXPECT_EQ(packet_parse_vlan().slots(), packet_parse().slots() + 6);
  EXPECT_EQ(map_lookup().maps.size(), 1u);
  EXPECT_EQ(map_lookup().maps[0].type, MapType::hash);
}

struct Named {
  const char* name;
  Shape shape;
};

std::vector<Named> all_shapes() {
  return {
      {"minimal", minimal()},
      {"arithmetic", arithmetic()},
      {"linear", linear()},
      {"single_branch", single_branch()},
      {"multi_branch", multi_branch()},
      {"straight_line/10", straight_line(10)},
      {"straight_line/1000", straight_line(1000)},
      {"straight_line/65536", straight_line(65536)},
      {"diamonds/1", diamonds(1)},
      {"diamonds/100", diamonds(100)},
      {"diamonds/10000", diamonds(10000)},
      {"nested_diamonds/1", nested_diamonds(1)},
      {"nested_diamonds/4", nested_diamonds(4)},
      {"nested_diamonds/12", nested_diamonds(12)},
      {"bounded_loop/10", bounded_loop(10)},
      {"bounded_loop/10000", bounded_loop(10000)},
      {"nested_loops/2", nested_loops(2)},
      {"nested_loops/3", nested_loops(3)},
      {"map_lookup", map_lookup()},
      {"packet_parse", packet_parse()},
      {"packet_parse_vlan", packet_parse_vlan()},
      {"stack_spills", stack_spills()},
  };
}

struct Decoded {
  std::vector<uint8_t> memory = std::vector<uint8_t>(size_t{8} << 20);  // diamonds/10000 peaks near 4 MiB
  Arena arena{memory.data(), memory.size()};
  Program program;
  DecodeResult result;
  explicit Decoded(const Shape& s) {
    result = decode(s.bytes.data(), s.bytes.size(), DecodeOptions{}, arena, program);
  }
};

TEST(Shapes, EveryShapeDecodes) {
  for (const Named& n : all_shapes()) {
    Decoded d(n.shape);
    EXPECT_TRUE(d.result.ok()) << n.name << ": " << decode_error_name(d.result.error) << " at "
                               << d.result.pc;
    EXPECT_EQ(d.program.count, n.shape.slots()) << n.name;
  }
}

uint64_t address_of(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

uint64_t prandom(HelperCall&) { return 12345; }

// Runs a socket_filter shape in guarded mode with a zeroed __sk_buff whose
// len is `len`.
RunResult run_shape(const Shape& s, uint32_t len = 0) {
  Decoded d(s);
  EXPECT_TRUE(d.result.ok());
  std::vector<uint8_t> ctx(192, 0);
  std::memcpy(ctx.data(), &len, sizeof(len));
  const Region region{address_of(ctx.data()), ctx.size(), false};
  static const HelperFn kFns[8] = {nullptr, nullptr, nullptr, nullptr,
                                   nullptr, nullptr, nullptr, prandom};
  static const HelperTable kHelpers{kFns, 8, nullptr};
  RunOptions options;
  options.mode = RunMode::guarded;
  options.regions = &region;
  options.region_count = 1;
  options.helpers = &kHelpers;
  RunStack stack{};
  const RunResult r = run(d.program, address_of(ctx.data()), 0, options, stack);
  EXPECT_EQ(r.status, RunStatus::ok) << run_status_name(r.status) << " at " << r.pc;
  return r;
}

TEST(Shapes, ReferenceResults) {
  EXPECT_EQ(run_shape(minimal()).r0, 0u);
  EXPECT_EQ(run_shape(arithmetic()).r0, 125u);
  EXPECT_EQ(run_shape(linear()).r0, 3u);
  EXPECT_EQ(run_shape(single_branch()).r0, 0u);
  EXPECT_EQ(run_shape(multi_branch()).r0, 10u);
  for (uint32_t n : {2u, 10u, 1000u, 65536u}) {
    uint64_t sum = 0;
    for (uint32_t i = 1; i + 1 < n; ++i) sum += i % 100;
    const RunResult r = run_shape(straight_line(n));
    EXPECT_EQ(r.r0, sum) << n;
    EXPECT_EQ(r.insns_executed, n) << n;
  }
}

TEST(Shapes, ScalingResults) {
  for (uint32_t len : {0u, 700u, 5000u}) {
    for (uint32_t n : {1u, 100u, 10000u}) {
      uint64_t want = 0;
      for (uint32_t i = 0; i < n; ++i) want += len > (i * 37) % 1500 ? 2 : 1;
      const RunResult r = run_shape(diamonds(n), len);
      EXPECT_EQ(r.r0, want) << "diamonds " << n << " len " << len;
      EXPECT_EQ(r.insns_executed, 3 + 3 * uint64_t{n} - (want - n)) << "diamonds " << n;
    }
    for (uint32_t depth : {1u, 4u, 12u}) {
      const RunResult r = run_shape(nested_diamonds(depth), len);
      EXPECT_EQ(r.r0, 1u) << "one leaf per path, depth " << depth;
    }
  }
  for (int32_t trip : {1, 10, 10000}) {
    const RunResult r = run_shape(bounded_loop(trip));
    EXPECT_EQ(r.r0, static_cast<uint64_t>(trip));
    EXPECT_EQ(r.insns_executed, 3 * static_cast<uint64_t>(trip) + 3);
  }
  EXPECT_EQ(run_shape(nested_loops(2)).r0, 100u);
  EXPECT_EQ(run_shape(nested_loops(3)).r0, 1000u);
  EXPECT_EQ(run_shape(nested_loops(2, 7)).r0, 49u);
  run_shape(stack_spills(), 60);  // every access inside the frame and the context
}

// The verifier accepts every shape, and its bound covers a real run.
TEST(Shapes, VerifierAccepts) {
  for (const Named& n : all_shapes()) {
    Decoded d(n.shape);
    ASSERT_TRUE(d.result.ok()) << n.name;
    const ProgramType* type = find_program_type(linux_platform(), n.shape.type);
    ASSERT_NE(type, nullptr) << n.name;
    VerifyOptions options;
    options.maps = n.shape.maps.data();
    options.map_count = static_cast<uint32_t>(n.shape.maps.size());
    const Verdict v = verify(d.program, *type, options, d.arena);
    char text[256];
    describe(v, text, sizeof(text));
    EXPECT_TRUE(v.ok()) << n.name << ": " << text;
    const bool runnable = std::strcmp(n.shape.type, "socket_filter") == 0 && n.shape.maps.empty();
    if (v.ok() && runnable) {
      for (uint32_t len : {0u, 5000u}) {
        EXPECT_GE(v.max_insns_executed, run_shape(n.shape, len).insns_executed) << n.name;
      }
    }
  }
}

}  // namespace
}  // namespace keel::shapes
