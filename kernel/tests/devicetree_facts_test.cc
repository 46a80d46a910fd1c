// The board facts of the boot line (devicetree_facts.h) read from trees
// built here: one shaped like a Raspberry Pi 5's (the model string its
// firmware passes, a revision code, /memory with 2 address cells and 1
// size cell in several ranges), one like QEMU virt's (2 and 2), and
// damaged ones. Nothing here comes from a real board's blob.
#include "devicetree_facts.h"

#include <gtest/gtest.h>

#include <vector>

#include "fdt_builder.h"

namespace keel::fdt {
namespace {

Status facts_of(const std::vector<uint8_t>& blob, BoardFacts& facts) {
  Blob opened;
  const Status status = open(blob.data(), blob.size(), opened);
  if (status != Status::ok) return status;
  return read_board_facts(opened, facts);
}

// 0x3fc00000 below 1 GiB, then 3 GiB, then 4 GiB - 4 KiB above 4 GiB.
const std::vector<uint32_t> pi5_memory = {0x0, 0x0000'0000, 0x3fc0'0000,
                                          0x0, 0x4000'0000, 0xc000'0000,
                                          0x1, 0x0000'0000, 0xffff'f000};
constexpr uint64_t kPi5MemoryBytes = 0x3fc0'0000ull + 0xc000'0000ull + 0xffff'f000ull;

std::vector<uint8_t> pi5_like(const std::vector<uint32_t>& reg = pi5_memory) {
  return Builder()
      .begin("")
      .prop_cells("#address-cells", {2}).prop_cells("#size-cells", {1})
      .prop("compatible", "raspberrypi,5-model-b").prop("model", "Raspberry Pi 5 Model B Rev 1.0")
      .begin("memory@0").prop("device_type", "memory").prop_cells("reg", reg).end()
      .begin("system").prop_cells("linux,revision", {0xd04170}).end()
      .begin("chosen").prop("bootargs", "console=ttyAMA10").end()
      .end()
      .finish();
}

TEST(DevicetreeFacts, RaspberryPi5Shape) {
  const std::vector<uint8_t> blob = pi5_like();  // facts.model points into it
  BoardFacts facts;
  ASSERT_EQ(facts_of(blob, facts), Status::ok);
  EXPECT_STREQ(facts.model, "Raspberry Pi 5 Model B Rev 1.0");
  EXPECT_EQ(facts.memory_bytes, kPi5MemoryBytes);
  EXPECT_TRUE(facts.has_revision);
  EXPECT_EQ(facts.revision, 0xd04170u);
}

TEST(DevicetreeFacts, QemuVirtShapeWithTwoSizeCells) {
  const std::vector<uint8_t> blob = Builder()
      .begin("")
      .prop_cells("#address-cells", {2}).prop_cells("#size-cells", {2})
      .prop("model", "linux,dummy-virt")
      .begin("memory@40000000").prop_cells("reg", {0x0, 0x4000'0000, 0x1, 0x0}).end()
      .end()
      .finish();
  BoardFacts facts;
  ASSERT_EQ(facts_of(blob, facts), Status::ok);
  EXPECT_STREQ(facts.model, "linux,dummy-virt");
  EXPECT_EQ(facts.memory_bytes, uint64_t{1} << 32);
  EXPECT_FALSE(facts.has_revision);
}

TEST(DevicetreeFacts, AbsentFactsStayEmptyAndCellsDefault) {
  BoardFacts facts;
  const std::vector<uint8_t> bare = Builder().begin("").end().finish();
  ASSERT_EQ(facts_of(bare, facts), Status::ok);
  EXPECT_EQ(facts.model, nullptr);
  EXPECT_EQ(facts.memory_bytes, 0u);
  EXPECT_FALSE(facts.has_revision);
  // No #address-cells/#size-cells: 2 and 1 (Devicetree Specification §2.3.5).
  const std::vector<uint8_t> defaults = Builder()
      .begin("").begin("memory").prop_cells("reg", {0x0, 0x0, 0x800'0000}).end().end().finish();
  ASSERT_EQ(facts_of(defaults, facts), Status::ok);
  EXPECT_EQ(facts.memory_bytes, 0x800'0000u);
}

TEST(DevicetreeFacts, MalformedValuesAreErrorsAndLeaveTheFactsAlone) {
  BoardFacts facts;
  facts.memory_bytes = 7;
  // A reg that is not whole (address, size) pairs.
  EXPECT_EQ(facts_of(pi5_like({0x0, 0x0, 0x1000, 0x0}), facts), Status::bad_value);
  EXPECT_EQ(facts_of(pi5_like({}), facts), Status::bad_value);
  // Sizes summing past 64 bits (2 size cells each of 2^64 - 1 and 1).
  const std::vector<uint8_t> huge = Builder()
      .begin("").prop_cells("#size-cells", {2})
      .begin("memory@0").prop_cells("reg", {0, 0, 0xffff'ffff, 0xffff'ffff, 0, 1, 0, 1}).end()
      .end().finish();
  EXPECT_EQ(facts_of(huge, facts), Status::bad_value);
  // Three size cells do not fit in 64 bits.
  const std::vector<uint8_t> wide = Builder()
      .begin("").prop_cells("#size-cells", {3})
      .begin("memory@0").prop_cells("reg", {0, 0, 0, 0, 1}).end().end().finish();
  EXPECT_EQ(facts_of(wide, facts), Status::bad_value);
  // A model that is not one string, a revision that is not one cell.
  const std::vector<uint8_t> model = Builder()
      .begin("").prop("model", "Raspberry Pi 5", false).end().finish();
  EXPECT_EQ(facts_of(model, facts), Status::bad_value);
  const std::vector<uint8_t> revision = Builder()
      .begin("").begin("system").prop_cells("linux,revision", {0, 0xd04170}).end().end().finish();
  EXPECT_EQ(facts_of(revision, facts), Status::bad_value);
  EXPECT_EQ(facts.memory_bytes, 7u);
  EXPECT_EQ(facts.model, nullptr);
}

TEST(DevicetreeFacts, DamagedBlobIsAnErrorAtEveryTruncation) {
  const std::vector<uint8_t> blob = pi5_like();
  Blob opened;
  ASSERT_EQ(open(blob.data(), blob.size(), opened), Status::ok);
  // Cut after the last fact (in /chosen), every fact is found before the
  // walk reaches the cut; anywhere before, the cut is an error.
  for_each_truncation(opened, [](const Blob& cut, uint32_t size) {
    BoardFacts facts;
    const Status status = read_board_facts(cut, facts);
    EXPECT_TRUE(status == Status::bad_structure || status == Status::ok) << size;
    if (status == Status::ok) {
      EXPECT_EQ(facts.memory_bytes, kPi5MemoryBytes);
      EXPECT_EQ(facts.revision, 0xd04170u);
    }
  });
}

}  // namespace
}  // namespace keel::fdt
