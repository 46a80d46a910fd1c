// A bounded reader for a flattened device tree (Devicetree Specification
// v0.4 §5: header, structure block, strings block), enough to find one
// property, such as /chosen/bootargs, the kernel command line a loader
// passes on AArch64 (Linux arm64 boot protocol: x0 = the blob's address).
// Every read is checked against the blob's declared size and the caller's
// limit; a malformed blob is a Status, never a read out of bounds or a loop.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel::fdt {

enum class Status : uint8_t {
  ok,
  bad_magic,      ///< not 0xd00dfeed
  bad_header,     ///< version, sizes or offsets out of range
  bad_structure,  ///< an unknown token, a name or property past its block, nesting too deep
  not_found,      ///< a well-formed blob without that node or property
  bad_value,      ///< a property whose value has the wrong size or form for its use
};

const char* status_name(Status status);

/// A blob whose header has been checked: every offset below lies in [0, size).
struct Blob {
  const uint8_t* data = nullptr;
  uint32_t size = 0;          ///< totalsize from the header
  uint32_t struct_offset = 0;
  uint32_t struct_size = 0;
  uint32_t strings_offset = 0;
  uint32_t strings_size = 0;
};

/// Checks the header of the blob at `data`, of which at most `limit` bytes
/// may be read (what the caller knows to be mapped).
[[nodiscard]] Status open(const uint8_t* data, size_t limit, Blob& out);

struct Property {
  const uint8_t* value = nullptr;
  uint32_t size = 0;
};

/// Finds `property` of the node at `path` (absolute, "/chosen"; "/" is the
/// root). A path component with a unit address ("/memory@40000000")
/// matches that node only; one without ("/memory") also matches nodes
/// that have one ("memory@0"), the first in the blob's order that holds
/// the property winning (Devicetree Specification §2.2.1, §2.2.3).
[[nodiscard]] Status find_property(const Blob& blob, const char* path, const char* property,
                                   Property& out);

/// The property's value as a C string: its bytes must end with the one NUL
/// (Devicetree Specification §2.2.4.1 <string>). nullptr otherwise.
const char* as_string(const Property& property);

/// Reads the number of `count` (1 or 2) big-endian 32-bit cells that
/// starts at cell `index` of the value (§2.2.4.1 <u32>, <u64>, <prop-encoded-array>).
/// False when they are not all inside the value, or `count` is not 1 or 2.
[[nodiscard]] bool read_cells(const Property& property, uint32_t index, uint32_t count,
                              uint64_t& out);

}  // namespace keel::fdt
