// kernel/bpf/helpers.cc called directly, as the interpreter calls them:
// Linux's array-map semantics for lookup and update, the clock, the trace.
#include "bpf/helpers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "programs/keel_helpers.h"

namespace keel::bpf {
namespace {

struct Fixture {
  std::vector<uint8_t> pool = std::vector<uint8_t>(64);
  ArrayMap maps[1];
  HelperContext context;
  HelperTable table;
  std::string trace;
  std::vector<Region> granted;

  Fixture() {
    maps[0].name = "m";
    maps[0].descriptor.type = MapType::array;
    maps[0].descriptor.key_size = 4;
    maps[0].descriptor.value_size = 8;
    maps[0].descriptor.max_entries = 4;
    maps[0].values = pool.data();
    maps[0].stride = 8;
    context.program = "p";
    context.maps = maps;
    context.map_count = 1;
    context.user = this;
    context.now_ns = [](void*) -> uint64_t { return 12345; };
    context.trace = [](void* user, const char* program, const char* tag, size_t length, uint64_t value) {
      static_cast<Fixture*>(user)->trace = std::string(program) + ":" + std::string(tag, length) + "=" +
                                           std::to_string(value);
    };
    table = helper_table(context);
  }

  uint64_t call(int id, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0, uint64_t a4 = 0) {
    HelperCall c{{a1, a2, a3, a4, 0}, table.user, &grant, this, false};
    EXPECT_LT(static_cast<uint32_t>(id), table.count);
    return table.fns[id](c);
  }
  static bool grant(HelperCall& c, const Region& region) {
    static_cast<Fixture*>(c.interp_state)->granted.push_back(region);
    return true;
  }
  uint64_t map() const { return reinterpret_cast<uintptr_t>(&maps[0]); }
};

uint64_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(Helpers, LookupReturnsTheValueAndGrantsIt) {
  Fixture f;
  const uint32_t key = 3;
  EXPECT_EQ(f.call(KEEL_HELPER_MAP_LOOKUP_ELEM, f.map(), address(&key)), address(f.pool.data() + 24));
  ASSERT_EQ(f.granted.size(), 1u);
  EXPECT_EQ(f.granted[0].size, 8u);
  EXPECT_TRUE(f.granted[0].writable);
  const uint32_t outside = 4;
  EXPECT_EQ(f.call(KEEL_HELPER_MAP_LOOKUP_ELEM, f.map(), address(&outside)), 0u);
  // Not one of the kernel's maps.
  EXPECT_EQ(f.call(KEEL_HELPER_MAP_LOOKUP_ELEM, address(&key), address(&key)), 0u);
}

TEST(Helpers, UpdateHasArraySemantics) {
  Fixture f;
  const uint32_t key = 1;
  const uint64_t value = 0x1122334455667788;
  EXPECT_EQ(f.call(KEEL_HELPER_MAP_UPDATE_ELEM, f.map(), address(&key), address(&value), 0), 0u);
  EXPECT_EQ(*reinterpret_cast<uint64_t*>(f.pool.data() + 8), value);
  EXPECT_EQ(f.call(KEEL_HELPER_MAP_UPDATE_ELEM, f.map(), address(&key), address(&value), 2), 0u);  // BPF_EXIST
  EXPECT_EQ(f.call(KEEL_HELPER_MAP_UPDATE_ELEM, f.map(), address(&key), address(&value), 1),
            0 - kEexist);  // BPF_NOEXIST: every array key exists
  EXPECT_EQ(f.call(KEEL_HELPER_MAP_UPDATE_ELEM, f.map(), address(&key), address(&value), 3), 0 - kEinval);
  const uint32_t outside = 4;
  EXPECT_EQ(f.call(KEEL_HELPER_MAP_UPDATE_ELEM, f.map(), address(&outside), address(&value), 0), 0 - kE2big);
}

TEST(Helpers, ClockAndTrace) {
  Fixture f;
  EXPECT_EQ(f.call(KEEL_HELPER_KTIME_GET_NS), 12345u);
  const char tag[] = "tagXX";
  EXPECT_EQ(f.call(KEEL_HELPER_TRACE, address(tag), 3, 7), 0u);
  EXPECT_EQ(f.trace, "p:tag=7");
}

TEST(Helpers, OnlyTheKernelsIds) {
  Fixture f;
  EXPECT_EQ(f.table.count, uint32_t{KEEL_HELPER_TRACE} + 1);
  EXPECT_EQ(f.table.fns[0], nullptr);
  EXPECT_EQ(f.table.fns[3], nullptr);
  EXPECT_EQ(f.table.fns[4], nullptr);
}

}  // namespace
}  // namespace keel::bpf
