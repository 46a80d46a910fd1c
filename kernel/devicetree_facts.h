// Reads BoardFacts from a flattened device tree: /model (Devicetree
// Specification v0.4 §3.2), the RAM that /memory's reg describes (§3.4),
// and the board revision code the Raspberry Pi firmware writes to
// /system/linux,revision. Each fact is optional; a blob that is damaged,
// or a fact whose value has the wrong form, is a Status, not a guess.
#pragma once

#include "board_facts.h"
#include "fdt.h"

namespace keel::fdt {

/// Fills `out` with what the blob holds (absent facts stay empty). Returns
/// bad_structure for a damaged blob and bad_value for a /model that is not
/// a string, a reg that is not whole (address, size) pairs in the root's
/// #address-cells/#size-cells (1 or 2 each), sizes whose sum exceeds 64
/// bits, or a revision that is not one cell; `out` is then left alone.
[[nodiscard]] Status read_board_facts(const Blob& blob, BoardFacts& out);

}  // namespace keel::fdt
