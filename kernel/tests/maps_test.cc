// kernel/bpf/maps.cc: array maps carved from a fixed pool, and the link
// step that turns map references into addresses.
#include "bpf/maps.h"

#include <gtest/gtest.h>

#include <vector>

namespace keel::bpf {
namespace {

struct Fixture {
  MapDescriptor descriptors[3];
  ElfMap info[3];
  Object object;
  ArrayMap maps[4];
  std::vector<uint8_t> pool = std::vector<uint8_t>(256, 0xee);
  MapStore store{maps, 4, 0, pool.data(), 256, 0};

  Fixture() {
    for (MapDescriptor& d : descriptors) {
      d.type = MapType::array;
      d.key_size = 4;
      d.value_size = 12;  // stride 16
      d.max_entries = 2;
    }
    info[0].name = "a";
    info[1].name = "b";
    info[2].name = ".rodata";
    info[2].kind = ElfMapKind::global_data;
    static const uint8_t initial[12] = {1, 2, 3};
    info[2].initial = initial;
    descriptors[2].max_entries = 1;
    object.maps = descriptors;
    object.map_info = info;
    object.map_count = 3;
  }
};

TEST(Maps, CreatesZeroedArraysAtEightByteStrides) {
  Fixture f;
  uint32_t first = 99;
  ASSERT_EQ(create_maps(f.object, f.store, first), MapError::ok);
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(f.store.map_count, 3u);
  EXPECT_EQ(f.store.pool_used, 32u + 32u + 16u);
  EXPECT_EQ(f.maps[0].stride, 16u);
  EXPECT_EQ(map_value(f.maps[0], 1), f.maps[0].values + 16);
  EXPECT_EQ(map_value(f.maps[0], 2), nullptr);
  EXPECT_EQ(f.maps[1].values[0], 0);   // zeroed, not the pool's 0xee
  EXPECT_EQ(f.maps[2].values[2], 3);   // global data keeps its initial bytes
  EXPECT_STREQ(f.maps[1].name, "b");
}

TEST(Maps, RefusesWhatTheKernelDoesNotOffer) {
  Fixture f;
  uint32_t first = 0;
  f.descriptors[1].type = MapType::hash;
  EXPECT_EQ(create_maps(f.object, f.store, first), MapError::unsupported_type);

  Fixture g;
  g.descriptors[0].max_entries = 100;  // 1600 bytes: more than the pool
  EXPECT_EQ(create_maps(g.object, g.store, first), MapError::pool_exhausted);

  Fixture h;
  h.store.map_capacity = 2;
  EXPECT_EQ(create_maps(h.object, h.store, first), MapError::too_many_maps);
  EXPECT_STREQ(map_error_name(MapError::pool_exhausted), "map_pool_exhausted");
}

TEST(Maps, LinkResolvesMapsAndValues) {
  Fixture f;
  uint32_t first = 0;
  ASSERT_EQ(create_maps(f.object, f.store, first), MapError::ok);
  Insn insns[5] = {};
  insns[0] = Insn{Op::lddw_map_fd, 1, 1, 0x18, 0, 1};
  insns[1] = Insn{Op::lddw_tail, 0, 0, 0, 0, 0};
  insns[2] = Insn{Op::lddw_map_value, 2, 2, 0x18, 0, 2};
  insns[3] = Insn{Op::lddw_tail, 0, 0, 0, 0, 4};
  insns[4] = Insn{Op::exit, 0, 0, 0x95, 0, 0};
  Insn out[5];
  ASSERT_TRUE(link(Program{insns, 5}, f.maps, 3, out));
  EXPECT_EQ(out[0].op, Op::lddw_imm64);
  EXPECT_EQ(static_cast<uint64_t>(out[0].imm), reinterpret_cast<uintptr_t>(&f.maps[1]));
  EXPECT_EQ(out[2].op, Op::lddw_imm64);
  EXPECT_EQ(static_cast<uint64_t>(out[2].imm), reinterpret_cast<uintptr_t>(f.maps[2].values + 4));
  EXPECT_EQ(out[4].op, Op::exit);

  insns[0].imm = 3;  // no such map
  EXPECT_FALSE(link(Program{insns, 5}, f.maps, 3, out));
  insns[0].imm = 1;
  insns[3].imm = 13;  // past the 12-byte value
  EXPECT_FALSE(link(Program{insns, 5}, f.maps, 3, out));
}

}  // namespace
}  // namespace keel::bpf
