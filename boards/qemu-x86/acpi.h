// Finds the HPET through ACPI: the RSDP (BIOS areas), then the RSDT or XSDT,
// then the "HPET" table's base address. Multiboot1 passes no RSDP, so the
// scan is the only route (Multiboot Specification 0.6.96 §3.3; ACPI 6.5
// §5.2.5.1 for the scan).
#pragma once

#include <cstdint>

namespace keel::qemu_x86 {

struct HpetLocation {
  bool found;
  uint64_t base;          ///< physical address of the register block
  const char* problem;    ///< why not found: "no-rsdp", "no-hpet-table", ...
  const char* root;       ///< "rsdt" or "xsdt" (nullptr without an RSDP)
};

[[nodiscard]] HpetLocation find_hpet();

}  // namespace keel::qemu_x86
