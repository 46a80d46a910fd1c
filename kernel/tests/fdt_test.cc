// The device-tree reader (fdt.h) against blobs built here, in the layout of
// the Devicetree Specification v0.4 §5, and against damaged copies of them:
// every damage is a Status, never a read past the blob.
#include "fdt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace keel::fdt {
namespace {

// Writes a flattened tree: nodes and properties in order, then the header.
class Builder {
 public:
  Builder& begin(const std::string& name) {
    word(0x1);
    bytes(name.c_str(), name.size() + 1);
    pad();
    return *this;
  }
  Builder& end() { word(0x2); return *this; }
  Builder& nop() { word(0x4); return *this; }
  Builder& prop(const std::string& name, const std::string& value, bool terminate = true) {
    word(0x3);
    word(static_cast<uint32_t>(value.size() + (terminate ? 1 : 0)));
    word(string_offset(name));
    bytes(value.c_str(), value.size() + (terminate ? 1 : 0));
    pad();
    return *this;
  }
  std::vector<uint8_t> finish(uint32_t version = 17) {
    word(0x9);
    const uint32_t struct_offset = 40 + 16;  // header, one empty reservation entry
    const uint32_t strings_offset = struct_offset + static_cast<uint32_t>(structure_.size());
    const uint32_t total = strings_offset + static_cast<uint32_t>(strings_.size());
    std::vector<uint8_t> blob;
    auto put = [&blob](uint32_t v) {
      for (int shift = 24; shift >= 0; shift -= 8) blob.push_back(static_cast<uint8_t>(v >> shift));
    };
    put(0xd00dfeed); put(total); put(struct_offset); put(strings_offset);
    put(40);  // off_mem_rsvmap
    put(version); put(16); put(0);
    put(static_cast<uint32_t>(strings_.size())); put(static_cast<uint32_t>(structure_.size()));
    blob.resize(blob.size() + 16, 0);
    blob.insert(blob.end(), structure_.begin(), structure_.end());
    blob.insert(blob.end(), strings_.begin(), strings_.end());
    return blob;
  }

 private:
  void word(uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) structure_.push_back(static_cast<uint8_t>(v >> shift));
  }
  void bytes(const char* data, size_t size) { structure_.insert(structure_.end(), data, data + size); }
  void pad() { while (structure_.size() % 4 != 0) structure_.push_back(0); }
  uint32_t string_offset(const std::string& name) {
    const uint32_t offset = static_cast<uint32_t>(strings_.size());
    strings_.insert(strings_.end(), name.begin(), name.end());
    strings_.push_back(0);
    return offset;
  }
  std::vector<uint8_t> structure_;
  std::vector<uint8_t> strings_;
};

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

TEST(Fdt, AbsentNodeOrPropertyIsNotFound) {
  const std::vector<uint8_t> blob = sample();
  Blob opened;
  ASSERT_EQ(open(blob.data(), blob.size(), opened), Status::ok);
  Property property;
  EXPECT_EQ(find_property(opened, "/chosen", "initrd-start", property), Status::not_found);
  EXPECT_EQ(find_property(opened, "/memory", "device_type", property), Status::not_found);
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
  for (uint32_t size = 0; size < opened.struct_size; size += 4) {
    Blob cut = opened;
    cut.struct_size = size;
    Property property;
    const Status status = find_property(cut, "/chosen", "bootargs", property);
    EXPECT_TRUE(status == Status::bad_structure || status == Status::ok) << size;
    if (status == Status::ok) {
      EXPECT_LE(property.value + property.size, blob.data() + opened.struct_offset + size);
    }
  }
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
