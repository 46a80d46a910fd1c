// ACPI 6.5: §5.2.5.1 (finding the RSDP on IA-PC systems), §5.2.5.3 (RSDP
// structure), §5.2.6 (description header), §5.2.7 (RSDT), §5.2.8 (XSDT);
// IA-PC HPET Specification 1.0a §3.2.4 (the HPET description table).
#include "acpi.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"

namespace keel::qemu_x86 {
namespace {

// Only what the identity map covers can be read (boot.S maps 0..4 GiB).
constexpr uint64_t kMappedLimit = uint64_t{1} << 32;
// The uncached window of that map (3..4 GiB): device registers must be
// there, or a read could hit a stale cache line.
constexpr uint64_t kUncachedBegin = uint64_t{3} << 30;
constexpr uint64_t kHpetRegisterBlock = 1024;  // HPET 1.0a §2.3: 1 KiB of registers

constexpr uint64_t kHeaderSize = 36;     // §5.2.6
constexpr uint64_t kHpetTableSize = 56; // HPET 1.0a Table 3 (through page protection)

template <typename T>
T load(uint64_t address) {
  T value;
  __builtin_memcpy(&value, const_cast<const uint8_t*>(x86::physical(address)), sizeof value);
  return value;
}

bool readable(uint64_t address, uint64_t size) {
  return address < kMappedLimit && size <= kMappedLimit - address;
}

bool signature_is(uint64_t address, const char* signature, uint64_t length) {
  for (uint64_t i = 0; i < length; ++i) {
    if (load<char>(address + i) != signature[i]) return false;
  }
  return true;
}

// Every ACPI checksum: the bytes sum to zero modulo 256.
bool checksum_ok(uint64_t address, uint64_t length) {
  uint8_t sum = 0;
  for (uint64_t i = 0; i < length; ++i) sum = static_cast<uint8_t>(sum + load<uint8_t>(address + i));
  return sum == 0;
}

// §5.2.5.3: "RSD PTR ", a checksum over the first 20 bytes (the ACPI 1.0
// structure) and, from revision 2, an extended checksum over `length` bytes.
bool rsdp_at(uint64_t address) {
  if (!signature_is(address, "RSD PTR ", 8) || !checksum_ok(address, 20)) return false;
  if (load<uint8_t>(address + 15) < 2) return true;
  const uint32_t length = load<uint32_t>(address + 20);
  return length >= 36 && readable(address, length) && checksum_ok(address, length);
}

// §5.2.5.1: on a 16-byte boundary in the first KiB of the EBDA (its segment
// is the word at 0x40E, which boot.S saved: page 0 is unmapped) or in the
// BIOS ROM area 0xE0000-0xFFFFF.
uint64_t find_rsdp() {
  const uint64_t ebda = uint64_t{x86::bios_ebda_segment()} << 4;
  if (ebda != 0) {
    for (uint64_t address = ebda; address < ebda + 1024; address += 16) {
      if (rsdp_at(address)) return address;
    }
  }
  for (uint64_t address = 0xE0000; address < 0x100000; address += 16) {
    if (rsdp_at(address)) return address;
  }
  return 0;
}

// A description table's header is sane: signature, a length that covers the
// header and stays in the map, and the checksum.
bool table_ok(uint64_t address, const char* signature, uint64_t min_length) {
  if (!readable(address, kHeaderSize) || !signature_is(address, signature, 4)) return false;
  const uint32_t length = load<uint32_t>(address + 4);
  return length >= min_length && readable(address, length) && checksum_ok(address, length);
}

}  // namespace

HpetLocation find_hpet() {
  HpetLocation result{false, 0, nullptr, nullptr};
  const uint64_t rsdp = find_rsdp();
  if (rsdp == 0) {
    result.problem = "no-rsdp";
    return result;
  }
  // Prefer the XSDT (64-bit entries) when the RSDP has one; QEMU 7.2 gives
  // revision 0, RSDT only (docs/platform.md; the qemu-x86.boot test checks it).
  const uint8_t revision = load<uint8_t>(rsdp + 15);
  const uint64_t xsdt = revision >= 2 ? load<uint64_t>(rsdp + 24) : 0;
  const bool use_xsdt = xsdt != 0;
  const uint64_t root = use_xsdt ? xsdt : load<uint32_t>(rsdp + 16);
  const uint64_t entry_size = use_xsdt ? 8 : 4;
  result.root = use_xsdt ? "xsdt" : "rsdt";
  if (!table_ok(root, use_xsdt ? "XSDT" : "RSDT", kHeaderSize)) {
    result.problem = "bad-root-table";
    return result;
  }
  const uint64_t entries = (load<uint32_t>(root + 4) - kHeaderSize) / entry_size;
  for (uint64_t i = 0; i < entries; ++i) {
    const uint64_t entry = root + kHeaderSize + i * entry_size;
    const uint64_t table = use_xsdt ? load<uint64_t>(entry) : load<uint32_t>(entry);
    if (!readable(table, 4) || !signature_is(table, "HPET", 4)) continue;
    if (!table_ok(table, "HPET", kHpetTableSize)) {
      result.problem = "bad-hpet-table";
      return result;
    }
    // Offset 40: the register block as a Generic Address Structure
    // (ACPI §5.2.3.2); address space 0 is system memory, address at 44.
    if (load<uint8_t>(table + 40) != 0) {
      result.problem = "hpet-not-memory-mapped";
      return result;
    }
    const uint64_t base = load<uint64_t>(table + 44);
    if (base < kUncachedBegin || !readable(base, kHpetRegisterBlock)) {
      result.problem = "hpet-outside-uncached-map";
      return result;
    }
    result.found = true;
    result.base = base;
    return result;
  }
  result.problem = "no-hpet-table";
  return result;
}

}  // namespace keel::qemu_x86
