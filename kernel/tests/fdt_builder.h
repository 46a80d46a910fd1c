// Builds flattened device trees for the tests (Devicetree Specification
// v0.4 §5: header, one empty memory reservation entry, structure block,
// strings block), so that the reader and what reads through it are tested
// against blobs whose every byte the test controls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fdt.h"

namespace keel::fdt {

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
  Builder& prop_cells(const std::string& name, const std::vector<uint32_t>& cells) {
    word(0x3);
    word(static_cast<uint32_t>(cells.size() * 4));
    word(string_offset(name));
    for (const uint32_t cell : cells) word(cell);
    return *this;
  }
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

/// Calls `check(cut, size)` with `opened` cut short at every 4-byte step
/// of its structure block: a reader must stop at each cut with an error
/// (or an answer found before it), never read past it.
template <typename Check>
void for_each_truncation(const Blob& opened, Check check) {
  for (uint32_t size = 0; size < opened.struct_size; size += 4) {
    Blob cut = opened;
    cut.struct_size = size;
    check(cut, size);
  }
}

}  // namespace keel::fdt
