#include "devicetree_facts.h"

namespace keel::fdt {
namespace {

// §2.3.5: without the properties a client assumes 2 address cells and 1
// size cell. keel reads at most 2 of each (64-bit addresses and sizes).
Status root_cells(const Blob& blob, const char* name, uint32_t fallback, uint32_t& out) {
  Property property;
  const Status found = find_property(blob, "/", name, property);
  if (found == Status::not_found) {
    out = fallback;
    return Status::ok;
  }
  if (found != Status::ok) return found;
  uint64_t cells = 0;
  if (property.size != 4 || !read_cells(property, 0, 1, cells) || cells < 1 || cells > 2) {
    return Status::bad_value;
  }
  out = static_cast<uint32_t>(cells);
  return Status::ok;
}

// The sum of the sizes in /memory's reg: (address, size) pairs, §3.4.
Status memory_bytes(const Blob& blob, uint64_t& out) {
  Property reg;
  const Status found = find_property(blob, "/memory", "reg", reg);
  if (found == Status::not_found) {
    out = 0;
    return Status::ok;
  }
  if (found != Status::ok) return found;
  uint32_t address_cells = 0;
  uint32_t size_cells = 0;
  Status status = root_cells(blob, "#address-cells", 2, address_cells);
  if (status != Status::ok) return status;
  status = root_cells(blob, "#size-cells", 1, size_cells);
  if (status != Status::ok) return status;
  const uint32_t pair_bytes = 4 * (address_cells + size_cells);
  if (reg.size == 0 || reg.size % pair_bytes != 0) return Status::bad_value;
  uint64_t total = 0;
  for (uint32_t pair = 0; pair < reg.size / pair_bytes; ++pair) {
    uint64_t size = 0;
    const uint32_t first = pair * (address_cells + size_cells) + address_cells;
    if (!read_cells(reg, first, size_cells, size)) return Status::bad_value;
    if (size > UINT64_MAX - total) return Status::bad_value;
    total += size;
  }
  out = total;
  return Status::ok;
}

}  // namespace

Status read_board_facts(const Blob& blob, BoardFacts& out) {
  BoardFacts facts;
  Property property;
  Status status = find_property(blob, "/", "model", property);
  if (status == Status::ok) {
    facts.model = as_string(property);
    if (facts.model == nullptr) return Status::bad_value;
  } else if (status != Status::not_found) {
    return status;
  }

  status = memory_bytes(blob, facts.memory_bytes);
  if (status != Status::ok) return status;

  status = find_property(blob, "/system", "linux,revision", property);
  if (status == Status::ok) {
    uint64_t revision = 0;
    if (property.size != 4 || !read_cells(property, 0, 1, revision)) return Status::bad_value;
    facts.has_revision = true;
    facts.revision = static_cast<uint32_t>(revision);
  } else if (status != Status::not_found) {
    return status;
  }
  out = facts;
  return Status::ok;
}

}  // namespace keel::fdt
