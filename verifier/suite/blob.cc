#include "blob.h"

namespace keel::suite {

bool BlobReader::u32(uint32_t& value) {
  if (size_ - offset_ < 4) return fail("truncated");
  value = 0;
  for (int i = 3; i >= 0; --i) value = value << 8 | bytes_[offset_ + static_cast<size_t>(i)];
  offset_ += 4;
  return true;
}

bool BlobReader::u64(uint64_t& value) {
  uint32_t low = 0, high = 0;
  if (!u32(low) || !u32(high)) return false;
  value = uint64_t{high} << 32 | low;
  return true;
}

bool BlobReader::bytes(const uint8_t*& data, size_t& size) {
  uint32_t length = 0;
  if (!u32(length)) return false;
  if (size_ - offset_ < length) return fail("truncated");
  data = bytes_ + offset_;
  size = length;
  offset_ += length;
  return true;
}

bool BlobReader::str(const char*& text) {
  const uint8_t* data = nullptr;
  size_t size = 0;
  if (!bytes(data, size)) return false;
  if (size == 0 || data[size - 1] != '\0') return fail("string without its NUL");
  text = reinterpret_cast<const char*>(data);
  return true;
}

bool BlobReader::open() {
  if (size_ < sizeof kBlobMagic) return fail("not a suite blob (too short)");
  for (size_t i = 0; i < sizeof kBlobMagic; ++i)
    if (bytes_[i] != static_cast<uint8_t>(kBlobMagic[i])) return fail("not a suite blob (bad magic)");
  offset_ = sizeof kBlobMagic;
  uint32_t version = 0;
  if (!u32(version)) return false;
  if (version != kBlobVersion) return fail("suite blob of another version");
  return true;
}

bool BlobReader::next(Record& record) {
  record = Record{};
  uint32_t kind = 0, flag = 0;
  if (!u32(kind)) return false;
  record.kind = static_cast<RecordKind>(kind);
  switch (record.kind) {
    case RecordKind::end:
      return false;
    case RecordKind::data_run:
      return str(record.name) && bytes(record.program, record.program_size) && bytes(record.mem, record.mem_size) &&
             u64(record.expected_r0);
    case RecordKind::data_line:
      if (!str(record.name) || !u32(record.outcome) || !str(record.text)) return false;
      return record.outcome <= 2 || fail("bad data_line outcome");
    case RecordKind::case_run: {
      if (!str(record.name) || !str(record.title) || !u32(flag)) return false;
      record.expect_accept = flag != 0;
      if (!str(record.text) || !u32(flag)) return false;
      record.strict_alignment = flag != 0;
      if (!u32(flag)) return false;
      record.privileged = flag != 0;
      if (!u32(record.map_count)) return false;
      if (record.map_count > kMaxCaseMaps) return fail("too many maps in a case");
      for (uint32_t i = 0; i < record.map_count; ++i) {
        MapDescriptor& map = record.maps[i];
        uint32_t type = 0, read_only = 0, write_only = 0;
        if (!u32(type) || !u32(map.key_size) || !u32(map.value_size) || !u32(map.max_entries) || !u32(read_only) ||
            !u32(write_only))
          return false;
        if (type > static_cast<uint32_t>(MapType::xskmap)) return fail("unknown map type");
        map.type = static_cast<MapType>(type);
        map.read_only = read_only != 0;
        map.write_only = write_only != 0;
      }
      return bytes(record.program, record.program_size);
    }
    case RecordKind::case_skip:
      if (!str(record.name) || !str(record.title) || !u32(flag)) return false;
      record.expect_accept = flag != 0;
      return str(record.text);
  }
  return fail("unknown record kind");
}

}  // namespace keel::suite
