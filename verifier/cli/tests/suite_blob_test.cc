// suite/blob.h's reader on hand-made blobs: every record kind read back,
// and every malformed blob refused with a reason instead of read past its end.
#include "blob.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace keel::suite {
namespace {

class Bytes {
 public:
  Bytes() {
    for (const char c : kBlobMagic) data.push_back(static_cast<uint8_t>(c));
    u32(kBlobVersion);
  }
  Bytes& u32(uint32_t value) {
    for (int i = 0; i < 4; ++i) data.push_back(static_cast<uint8_t>(value >> (8 * i)));
    return *this;
  }
  Bytes& u64(uint64_t value) { return u32(static_cast<uint32_t>(value)).u32(static_cast<uint32_t>(value >> 32)); }
  Bytes& raw(const std::vector<uint8_t>& bytes) {
    u32(static_cast<uint32_t>(bytes.size()));
    data.insert(data.end(), bytes.begin(), bytes.end());
    return *this;
  }
  Bytes& str(const std::string& text) {
    std::vector<uint8_t> bytes(text.begin(), text.end());
    bytes.push_back(0);
    return raw(bytes);
  }
  std::vector<uint8_t> data;
};

TEST(SuiteBlob, ReadsEveryRecordKind) {
  Bytes blob;
  blob.u32(1).str("tests/add.data").raw({0x95, 0, 0, 0, 0, 0, 0, 0}).raw({1, 2}).u64(0x1122334455667788);
  blob.u32(2).str("tests/x.data").u32(2).str("not applicable");
  blob.u32(3).str("and/0").str("a case").u32(1).str("xdp").u32(1).u32(0).u32(1);
  blob.u32(static_cast<uint32_t>(MapType::hash)).u32(4).u32(8).u32(16).u32(1).u32(0);
  blob.raw({0x95, 0, 0, 0, 0, 0, 0, 0});
  blob.u32(4).str("and/1").str("skipped").u32(0).str("btf");
  blob.u32(0);
  BlobReader reader(blob.data.data(), blob.data.size());
  ASSERT_TRUE(reader.open());
  Record record;
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.kind, RecordKind::data_run);
  EXPECT_STREQ(record.name, "tests/add.data");
  EXPECT_EQ(record.program_size, 8u);
  EXPECT_EQ(record.mem_size, 2u);
  EXPECT_EQ(record.expected_r0, 0x1122334455667788u);
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.kind, RecordKind::data_line);
  EXPECT_EQ(record.outcome, 2u);
  EXPECT_STREQ(record.text, "not applicable");
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.kind, RecordKind::case_run);
  EXPECT_STREQ(record.title, "a case");
  EXPECT_TRUE(record.expect_accept);
  EXPECT_STREQ(record.text, "xdp");
  EXPECT_TRUE(record.strict_alignment);
  EXPECT_FALSE(record.privileged);
  ASSERT_EQ(record.map_count, 1u);
  EXPECT_EQ(record.maps[0].type, MapType::hash);
  EXPECT_EQ(record.maps[0].value_size, 8u);
  EXPECT_TRUE(record.maps[0].read_only);
  EXPECT_EQ(record.program_size, 8u);
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.kind, RecordKind::case_skip);
  EXPECT_STREQ(record.text, "btf");
  EXPECT_FALSE(reader.next(record));
  EXPECT_EQ(reader.error(), nullptr);
}

// The reader's error after opening `blob` and reading every record.
std::string error_of(const std::vector<uint8_t>& blob) {
  BlobReader reader(blob.data(), blob.size());
  if (!reader.open()) return reader.error();
  Record record;
  while (reader.next(record)) {
  }
  return reader.error() == nullptr ? "" : reader.error();
}

TEST(SuiteBlob, RefusesMalformedBlobs) {
  EXPECT_EQ(error_of({'K', 'E'}), "not a suite blob (too short)");
  std::vector<uint8_t> bad_magic = Bytes().data;
  bad_magic[0] = 'X';
  EXPECT_EQ(error_of(bad_magic), "not a suite blob (bad magic)");
  Bytes other_version;
  other_version.data[8] = 9;
  EXPECT_EQ(error_of(other_version.data), "suite blob of another version");
  EXPECT_EQ(error_of(Bytes().data), "truncated");  // no end record
  Bytes truncated;
  truncated.u32(2).str("x.data").u32(1);
  EXPECT_EQ(error_of(truncated.data), "truncated");
  Bytes long_bytes;
  long_bytes.u32(1).str("x.data").u32(1000);
  EXPECT_EQ(error_of(long_bytes.data), "truncated");
  Bytes no_nul;
  no_nul.u32(2).raw({'a', 'b'});
  EXPECT_EQ(error_of(no_nul.data), "string without its NUL");
  Bytes bad_outcome;
  bad_outcome.u32(2).str("x.data").u32(3).str("why").u32(0);
  EXPECT_EQ(error_of(bad_outcome.data), "bad data_line outcome");
  Bytes many_maps;
  many_maps.u32(3).str("id").str("name").u32(1).str("xdp").u32(0).u32(1).u32(kMaxCaseMaps + 1);
  EXPECT_EQ(error_of(many_maps.data), "too many maps in a case");
  Bytes bad_map;
  bad_map.u32(3).str("id").str("name").u32(1).str("xdp").u32(0).u32(1).u32(1).u32(200).u32(4).u32(4).u32(1).u32(0)
      .u32(0);
  EXPECT_EQ(error_of(bad_map.data), "unknown map type");
  Bytes unknown_kind;
  unknown_kind.u32(7);
  EXPECT_EQ(error_of(unknown_kind.data), "unknown record kind");
  Bytes fine;
  fine.u32(0);
  EXPECT_EQ(error_of(fine.data), "");
}

}  // namespace
}  // namespace keel::suite
