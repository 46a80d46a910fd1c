// The device-tree reader (fdt.h) against blobs built here, in the layout of
// the Devicetree Specification v0.4 §5, and against damaged copies of them:
// every damage is a Status, never a read past the blob.
#include "fdt.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdt_builder.h"

namespace keel::fdt {
namespace {

// A tree shaped like QEMU virt's: a root property, a node with a child
// that has a "bootargs" of its own, then /chosen.
std::vector<uint8_t> sample() {
  return Builder()
      .begin("").prop("compatible", "linux,dummy-virt")
      .begin("memory@40000000").prop("device_type", "memory").end()
      .begin("soc").begin("chosen").prop("bootargs", "decoy").end().end()
      .nop()
      .begin("chosen").prop("stdout-path", "/pl011@9000000").prop("bootargs", "keel.test=ud2 quiet").end()
      .end()
      .finish();
}

std::string bootargs(const std::vector<uint8_t>& blob, Status& status) {
  Blob opened;
  status = open(blob.data(), blob.size(), opened);
  if (status != Status::ok) return "";
  Property property;
  status = find_property(opened, "/chosen", "bootargs", property);
  if (status != Status::ok) return "";
  const char* text = as_string(property);
  return text == nullptr ? "<not a string>" : text;
}

TEST(Fdt, FindsChosenBootargsNotTheNestedDecoy) {
  Status status;
  EXPECT_EQ(bootargs(sample(), status), "keel.test=ud2 quiet");
  EXPECT_EQ(status, Status::ok);
}

TEST(Fdt, FindsRootAndUnitAddressedNodes) {
  const std::vector<uint8_t> blob = sample();
  Blob opened;
  ASSERT_EQ(open(blob.data(), blob.size(), opened), Status::ok);
  Property property;
  ASSERT_EQ(find_property(opened, "/", "compatible", property), Status::ok);
  EXPECT_STREQ(as_string(property), "linux,dummy-virt");
  ASSERT_EQ(find_property(opened, "/memory@40000000", "device_type", property), Status::ok);
  EXPECT_STREQ(as_string(property), "memory");
  ASSERT_EQ(find_property(opened, "/soc/chosen", "bootargs", property), Status::ok);
  EXPECT_STREQ(as_string(property), "decoy");
}

// The string value of `path`'s `name`, or the Status's name.
std::string string_at(const std::vector<uint8_t>& blob, const char* path, const char* name) {
  Blob opened;
  Property property;
  Status status = open(blob.data(), blob.size(), opened);
  if (status == Status::ok) status = find_property(opened, path, name, property);
  if (status != Status::ok) return status_name(status);
  const char* text = as_string(property);
  return text == nullptr ? "<not a string>" : text;
}

TEST(Fdt, ComponentWithoutUnitAddressMatchesAnyUnitAddress) {
  EXPECT_EQ(string_at(sample(), "/memory", "device_type"), "memory");
  // The first node that has the property wins: memory@0 has none here.
  const std::vector<uint8_t> two = Builder()
      .begin("").begin("memory@0").prop("other", "x").end()
      .begin("memory@80000000").prop("device_type", "second").end().end().finish();
  EXPECT_EQ(string_at(two, "/memory", "device_type"), "second");
  EXPECT_EQ(string_at(two, "/memory@0", "device_type"), "not-found");
}

TEST(Fdt, ReadsOneAndTwoCellValues) {
  const uint8_t cells[] = {0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x00, 0x02, 0xAB};
  const Property property{cells, sizeof cells};
  uint64_t value = 0;
  ASSERT_TRUE(read_cells(property, 0, 1, value));
  EXPECT_EQ(value, 1u);
  ASSERT_TRUE(read_cells(property, 1, 1, value));
  EXPECT_EQ(value, 0x8000'0002u);
  ASSERT_TRUE(read_cells(property, 0, 2, value));
  EXPECT_EQ(value, 0x1'8000'0002u);
  // The ninth byte is no whole cell; 3 cells do not fit in 64 bits.
  EXPECT_FALSE(read_cells(property, 1, 2, value));
  EXPECT_FALSE(read_cells(property, 2, 1, value));
  EXPECT_FALSE(read_cells(property, 0, 3, value));
  EXPECT_FALSE(read_cells(property, 0, 0, value));
  EXPECT_FALSE(read_cells(Property{}, 0, 1, value));
  EXPECT_EQ(value, 0x1'8000'0002u);  // failures leave it alone
}

TEST(Fdt, AbsentNodeOrPropertyIsNotFound) {
  const std::vector<uint8_t> blob = sample();
  Blob opened;
  ASSERT_EQ(open(blob.data(), blob.size(), opened), Status::ok);
  Property property;
  EXPECT_EQ(find_property(opened, "/chosen", "initrd-start", property), Status::not_found);
  EXPECT_EQ(find_property(opened, "/memory@0", "device_type", property), Status::not_found);
  EXPECT_EQ(find_property(opened, "/mem", "device_type", property), Status::not_found);
  EXPECT_EQ(find_property(opened, "/nothing/chosen", "bootargs", property), Status::not_found);
  const std::vector<uint8_t> bare = Builder().begin("").end().finish();
  ASSERT_EQ(open(bare.data(), bare.size(), opened), Status::ok);
  EXPECT_EQ(find_property(opened, "/chosen", "bootargs", property), Status::not_found);
}

TEST(Fdt, HeaderChecks) {
  std::vector<uint8_t> blob = sample();
  Blob opened;
  EXPECT_EQ(open(nullptr, 100, opened), Status::bad_header);
  EXPECT_EQ(open(blob.data(), 39, opened), Status::bad_header);
  // totalsize beyond what the caller may read.
  EXPECT_EQ(open(blob.data(), blob.size() - 1, opened), Status::bad_header);
  std::vector<uint8_t> damaged = blob;
  damaged[0] = 0;
  EXPECT_EQ(open(damaged.data(), damaged.size(), opened), Status::bad_magic);
  EXPECT_EQ(open(Builder().begin("").end().finish(16).data(), 200, opened), Status::bad_header);
  damaged = blob;
  damaged[8] = 0xFF;  // off_dt_struct far past the end
  EXPECT_EQ(open(damaged.data(), damaged.size(), opened), Status::bad_header);
  damaged = blob;
  damaged[35] = 0xFF; damaged[34] = 0xFF;  // size_dt_strings past the end
  EXPECT_EQ(open(damaged.data(), damaged.size(), opened), Status::bad_header);
}

TEST(Fdt, DamagedStructureIsAnErrorAtEveryTruncation) {
  const std::vector<uint8_t> blob = sample();
  Blob opened;
  ASSERT_EQ(open(blob.data(), blob.size(), opened), Status::ok);
  // Cut the structure block short at every 4-byte step: the walk must stop
  // with an error (or find the property before the cut), never overrun.
  for_each_truncation(opened, [&](const Blob& cut, uint32_t size) {
    Property property;
    const Status status = find_property(cut, "/chosen", "bootargs", property);
    EXPECT_TRUE(status == Status::bad_structure || status == Status::ok) << size;
    if (status == Status::ok) {
      EXPECT_LE(property.value + property.size, blob.data() + opened.struct_offset + size);
    }
  });
}

TEST(Fdt, BadTokensNamesAndDepth) {
  Property property;
  Blob opened;
  std::vector<uint8_t> blob = sample();
  ASSERT_EQ(open(blob.data(), blob.size(), opened), Status::ok);
  blob[opened.struct_offset + 3] = 0x7;  // the first token is no token
  EXPECT_EQ(find_property(opened, "/chosen", "bootargs", property), Status::bad_structure);

  // A property whose name offset points past the strings block.
  blob = sample();
  ASSERT_EQ(open(blob.data(), blob.size(), opened), Status::ok);
  const uint32_t first_prop = opened.struct_offset + 8;  // after BEGIN_NODE ""
  blob[first_prop + 8] = 0x7F;
  EXPECT_EQ(find_property(opened, "/chosen", "bootargs", property), Status::bad_structure);

  // An END_NODE with no node open.
  const std::vector<uint8_t> unbalanced = Builder().end().finish();
  ASSERT_EQ(open(unbalanced.data(), unbalanced.size(), opened), Status::ok);
  EXPECT_EQ(find_property(opened, "/chosen", "bootargs", property), Status::bad_structure);

  // Nesting deeper than the reader tracks.
  Builder deep;
  for (int i = 0; i < 40; ++i) deep.begin("n");
  for (int i = 0; i < 40; ++i) deep.end();
  const std::vector<uint8_t> nested = deep.finish();
  ASSERT_EQ(open(nested.data(), nested.size(), opened), Status::ok);
  EXPECT_EQ(find_property(opened, "/chosen", "bootargs", property), Status::bad_structure);
}

TEST(Fdt, StringValuesMustEndWithTheirOnlyNul) {
  EXPECT_EQ(as_string(Property{}), nullptr);
  const uint8_t unterminated[] = {'a', 'b'};
  EXPECT_EQ(as_string(Property{unterminated, 2}), nullptr);
  const uint8_t list[] = {'a', 0, 'b', 0};
  EXPECT_EQ(as_string(Property{list, 4}), nullptr);
  const std::vector<uint8_t> blob =
      Builder().begin("").begin("chosen").prop("bootargs", "x", false).end().end().finish();
  Status status;
  EXPECT_EQ(bootargs(blob, status), "<not a string>");
  EXPECT_EQ(status, Status::ok);
  EXPECT_STREQ(status_name(Status::bad_magic), "bad-magic");
}

}  // namespace
}  // namespace keel::fdt
