#include "fdt.h"

namespace keel::fdt {
namespace {

// Devicetree Specification v0.4 §5.2 (header fields, big-endian 32-bit)
// and §5.4.1 (structure block tokens).
constexpr uint32_t kMagic = 0xd00dfeed;
constexpr uint32_t kHeaderSize = 40;  // through size_dt_struct (version 17)
constexpr uint32_t kTokenBeginNode = 0x1;
constexpr uint32_t kTokenEndNode = 0x2;
constexpr uint32_t kTokenProp = 0x3;
constexpr uint32_t kTokenNop = 0x4;
constexpr uint32_t kTokenEnd = 0x9;
/// Deeper trees than this are refused rather than tracked (a real one has 4-6 levels).
constexpr int kMaxDepth = 32;

uint32_t be32(const uint8_t* bytes) {
  return uint32_t{bytes[0]} << 24 | uint32_t{bytes[1]} << 16 | uint32_t{bytes[2]} << 8 |
         uint32_t{bytes[3]};
}

uint64_t align4(uint64_t offset) { return (offset + 3u) & ~uint64_t{3}; }

// Length of the NUL-terminated string at [begin, end), or -1 without a NUL.
int64_t bounded_length(const uint8_t* begin, const uint8_t* end) {
  for (const uint8_t* c = begin; c < end; ++c) {
    if (*c == 0) return c - begin;
  }
  return -1;
}

bool equal(const uint8_t* name, int64_t length, const char* begin, const char* end) {
  if (length != end - begin) return false;
  for (int64_t i = 0; i < length; ++i) {
    if (name[i] != static_cast<uint8_t>(begin[i])) return false;
  }
  return true;
}

bool equal(const uint8_t* name, int64_t length, const char* text) {
  const char* end = text;
  while (*end != '\0') ++end;
  return equal(name, length, text, end);
}

// A path component names a node when it is the node's whole name, or,
// without an '@' of its own, the node's name up to its '@' (§2.2.1:
// node-name@unit-address).
bool names_node(const uint8_t* name, int64_t length, const char* begin, const char* end) {
  if (equal(name, length, begin, end)) return true;
  for (const char* c = begin; c < end; ++c) {
    if (*c == '@') return false;
  }
  const int64_t prefix = end - begin;
  return length > prefix && name[prefix] == '@' && equal(name, prefix, begin, end);
}

// The path's components, "/a/b" -> "a", "b"; `index` selects one.
bool component(const char* path, int index, const char*& begin, const char*& end) {
  const char* cursor = path;
  for (int i = 0;; ++i) {
    while (*cursor == '/') ++cursor;
    if (*cursor == '\0') return false;
    begin = cursor;
    while (*cursor != '\0' && *cursor != '/') ++cursor;
    end = cursor;
    if (i == index) return true;
  }
}

int component_count(const char* path) {
  int count = 0;
  const char* begin = nullptr;
  const char* end = nullptr;
  while (component(path, count, begin, end)) ++count;
  return count;
}

}  // namespace

const char* status_name(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::bad_magic: return "bad-magic";
    case Status::bad_header: return "bad-header";
    case Status::bad_structure: return "bad-structure";
    case Status::not_found: return "not-found";
    case Status::bad_value: return "bad-value";
  }
  return "unknown";
}

Status open(const uint8_t* data, size_t limit, Blob& out) {
  if (data == nullptr || limit < kHeaderSize) return Status::bad_header;
  if (be32(data) != kMagic) return Status::bad_magic;
  const uint32_t total = be32(data + 4);
  const uint32_t struct_offset = be32(data + 8);
  const uint32_t strings_offset = be32(data + 12);
  const uint32_t version = be32(data + 20);
  const uint32_t last_compatible = be32(data + 24);
  const uint32_t strings_size = be32(data + 32);
  const uint32_t struct_size = be32(data + 36);
  // size_dt_struct exists from version 17; §5.2: last_comp_version 16.
  if (version < 17 || last_compatible > 17) return Status::bad_header;
  if (total < kHeaderSize || total > limit) return Status::bad_header;
  // Both blocks inside the blob; compared without forming offset + size.
  if (struct_offset < kHeaderSize || struct_offset > total || struct_size > total - struct_offset ||
      struct_offset % 4 != 0 || struct_size % 4 != 0) {
    return Status::bad_header;
  }
  if (strings_offset > total || strings_size > total - strings_offset) return Status::bad_header;
  out = Blob{data, total, struct_offset, struct_size, strings_offset, strings_size};
  return Status::ok;
}

Status find_property(const Blob& blob, const char* path, const char* property, Property& out) {
  const int wanted = component_count(path);
  const uint8_t* const begin = blob.data + blob.struct_offset;
  const uint8_t* const strings = blob.data + blob.strings_offset;
  uint64_t offset = 0;  // 64-bit: offset + a 32-bit length cannot wrap
  int depth = 0;    // nodes open; the root is depth 1
  int matched = 0;  // path components matched by the open nodes (root excluded)
  // Every token moves `offset` forward by at least 4 bytes: the walk ends.
  while (offset + 4 <= blob.struct_size) {
    const uint32_t token = be32(begin + offset);
    offset += 4;
    switch (token) {
      case kTokenBeginNode: {
        const int64_t length = bounded_length(begin + offset, begin + blob.struct_size);
        if (length < 0 || depth == kMaxDepth) return Status::bad_structure;
        const uint8_t* name = begin + offset;
        offset = align4(offset + static_cast<uint64_t>(length) + 1);
        ++depth;
        const char* first = nullptr;
        const char* last = nullptr;
        if (depth >= 2 && matched == depth - 2 && matched < wanted &&
            component(path, matched, first, last) && names_node(name, length, first, last)) {
          ++matched;
        }
        break;
      }
      case kTokenEndNode:
        if (depth == 0) return Status::bad_structure;
        --depth;
        if (matched > depth - 1) matched = depth > 0 ? depth - 1 : 0;
        break;
      case kTokenProp: {
        if (offset + 8 > blob.struct_size) return Status::bad_structure;
        const uint32_t size = be32(begin + offset);
        const uint32_t name_offset = be32(begin + offset + 4);
        offset += 8;
        if (size > blob.struct_size - offset || name_offset >= blob.strings_size) {
          return Status::bad_structure;
        }
        const uint8_t* value = begin + offset;
        offset = align4(offset + size);
        const uint8_t* name = strings + name_offset;
        const int64_t length = bounded_length(name, strings + blob.strings_size);
        if (length < 0 || depth == 0) return Status::bad_structure;
        if (depth - 1 == wanted && matched == wanted && equal(name, length, property)) {
          out = Property{value, size};
          return Status::ok;
        }
        break;
      }
      case kTokenNop:
        break;
      case kTokenEnd:
        return depth == 0 ? Status::not_found : Status::bad_structure;
      default:
        return Status::bad_structure;
    }
  }
  return Status::bad_structure;  // ran off the block without FDT_END
}

const char* as_string(const Property& property) {
  if (property.value == nullptr || property.size == 0) return nullptr;
  for (uint32_t i = 0; i + 1 < property.size; ++i) {
    if (property.value[i] == 0) return nullptr;
  }
  if (property.value[property.size - 1] != 0) return nullptr;
  return reinterpret_cast<const char*>(property.value);
}

bool read_cells(const Property& property, uint32_t index, uint32_t count, uint64_t& out) {
  if (property.value == nullptr || count < 1 || count > 2) return false;
  const uint32_t cells = property.size / 4;
  if (index >= cells || count > cells - index) return false;
  uint64_t value = 0;
  for (uint32_t i = 0; i < count; ++i) {
    value = value << 32 | be32(property.value + 4 * (index + i));
  }
  out = value;
  return true;
}

}  // namespace keel::fdt
