#include "arch/aarch64/mmu.h"

#include "arch/aarch64/sysreg.h"

// boot.S: DC IVAC over every data cache line of [start, end), then DSB SY.
extern "C" void keel_dcache_invalidate(uintptr_t start, uintptr_t end);

namespace keel::aarch64::mmu {
namespace {

// Arm ARM DDI 0487 D8.3 (translation table descriptor formats, 4 KiB
// granule): bits 1:0 = 0b11 for a table (levels 0-2) or a page (level 3),
// 0b01 for a block (levels 1-2). Lower attributes: AttrIndx 4:2 (into
// MAIR_EL1), AP 7:6 (0b00: EL1 read/write, EL0 none), SH 9:8, AF bit 10
// (set, or the first access faults). Upper: PXN bit 53, UXN bit 54.
constexpr uint64_t kDescriptorTable = 0b11;
constexpr uint64_t kDescriptorPage = 0b11;
constexpr uint64_t kDescriptorBlock = 0b01;
constexpr uint64_t kAttrIndexNormal = 0 << 2;
constexpr uint64_t kAttrIndexDevice = 1 << 2;
constexpr uint64_t kInnerShareable = 0b11 << 8;
constexpr uint64_t kAccessFlag = 1 << 10;
constexpr uint64_t kPxn = uint64_t{1} << 53;
constexpr uint64_t kUxn = uint64_t{1} << 54;
// FIXME: one kind for all RAM: text is writable and data executable at EL1
// (docs/adr/0022); a finer map would split the image by section.
constexpr uint64_t kNormalAttributes = kAttrIndexNormal | kInnerShareable | kAccessFlag | kUxn;
constexpr uint64_t kDeviceAttributes = kAttrIndexDevice | kAccessFlag | kPxn | kUxn;
constexpr uint64_t kAddressMask = 0x0000'FFFF'FFFF'F000;

// MAIR_EL1 (D19.2): Attr0 = 0xFF, normal memory, inner and outer
// write-back non-transient, read and write allocate; Attr1 = 0x04,
// Device-nGnRE.
constexpr uint64_t mair = 0xFF | (0x04 << 8);

// TCR_EL1 (D19.2): T0SZ = 25 (a 39-bit range, walks start at level 1),
// IRGN0/ORGN0 = 0b01 (walks cached write-back), SH0 = 0b11, TG0 = 0b00
// (4 KiB), EPD1 = 1 (no TTBR1 walks: the upper half faults); IPS from the
// CPU's ID_AA64MMFR0_EL1.PARange.
constexpr unsigned kVaBits = 39;
constexpr uint64_t tcr_base = (64 - kVaBits) | (0b01 << 8) | (0b01 << 10) | (0b11 << 12) |
                              (uint64_t{1} << 23);

constexpr uint64_t kPageSize = 4096;
constexpr uint64_t kBlockSize = uint64_t{2} << 20;   // a level-2 block
constexpr uint64_t kL1Span = uint64_t{1} << 30;      // one level-1 entry
constexpr int kEntries = 512;

// Level 1, then level-2 tables (one per 1 GiB area in use), then level-3
// tables (one per 2 MiB block with a hole): 8 cover both boards with room.
constexpr int kTableCount = 8;
alignas(kPageSize) uint64_t tables[kTableCount][kEntries];
int tables_used = 0;

uintptr_t holes[2];  // page 0 and the guard page
const MemoryMap* active_map = nullptr;

uint64_t* new_table() {
  if (tables_used == kTableCount) return nullptr;
  return tables[tables_used++];  // zeroed with .bss: every entry invalid
}

uint64_t* next_level(uint64_t descriptor) {
  return reinterpret_cast<uint64_t*>(static_cast<uintptr_t>(descriptor & kAddressMask));
}

uint64_t attributes(MemoryKind kind) {
  return kind == MemoryKind::normal ? kNormalAttributes : kDeviceAttributes;
}

bool is_hole(uint64_t page) {
  for (const uintptr_t hole : holes) {
    if (page == hole) return true;
  }
  return false;
}

Status map_block(uint64_t block, MemoryKind kind) {
  uint64_t* l1 = tables[0];
  uint64_t& l1_entry = l1[block / kL1Span];
  if (l1_entry == 0) {
    uint64_t* l2 = new_table();
    if (l2 == nullptr) return Status::out_of_tables;
    l1_entry = reinterpret_cast<uintptr_t>(l2) | kDescriptorTable;
  }
  uint64_t& l2_entry = next_level(l1_entry)[(block % kL1Span) / kBlockSize];
  const uint64_t wanted = attributes(kind);
  if (l2_entry != 0) {
    // Already mapped by an earlier region (both rounded to this block).
    const uint64_t existing = (l2_entry & kDescriptorTable) == kDescriptorTable
                                  ? next_level(l2_entry)[1] : l2_entry;
    return (existing & ~kAddressMask & ~uint64_t{0b11}) == wanted ? Status::ok : Status::overlap;
  }
  bool has_hole = false;
  for (uint64_t page = block; page < block + kBlockSize; page += kPageSize) {
    has_hole = has_hole || is_hole(page);
  }
  if (!has_hole) {
    l2_entry = block | wanted | kDescriptorBlock;
    return Status::ok;
  }
  uint64_t* l3 = new_table();
  if (l3 == nullptr) return Status::out_of_tables;
  for (int i = 0; i < kEntries; ++i) {
    const uint64_t page = block + uint64_t(i) * kPageSize;
    if (!is_hole(page)) l3[i] = page | wanted | kDescriptorPage;
  }
  l2_entry = reinterpret_cast<uintptr_t>(l3) | kDescriptorTable;
  return Status::ok;
}

// The output-address size the CPU supports (ID_AA64MMFR0_EL1.PARange,
// D19.2): 0 = 32 bits, 1 = 36, 2 = 40, 3 = 42, 4 = 44, 5 = 48 (6 = 52
// needs FEAT_LPA with another descriptor layout: treated as 48).
uint64_t physical_range(uint64_t& ips) {
  uint64_t features;
  asm volatile("mrs %0, id_aa64mmfr0_el1" : "=r"(features));
  constexpr unsigned kBits[] = {32, 36, 40, 42, 44, 48};
  ips = features & 0xF;
  if (ips > 5) ips = 5;
  return uint64_t{1} << kBits[ips];
}

uint64_t block_floor(uint64_t address) { return address & ~(kBlockSize - 1); }

}  // namespace

const char* status_name(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::out_of_range: return "out-of-range";
    case Status::out_of_tables: return "out-of-tables";
    case Status::overlap: return "overlap";
    case Status::hole_not_normal: return "hole-not-normal";
  }
  return "unknown";
}

Status enable(const MemoryMap& map, uintptr_t guard_page) {
  holes[0] = 0;
  holes[1] = guard_page;
  tables_used = 1;  // tables[0]: level 1
  uint64_t ips = 0;
  const uint64_t limit = physical_range(ips);
  const uint64_t va_limit = uint64_t{1} << kVaBits;
  bool guard_in_normal = false;
  for (size_t r = 0; r < map.count; ++r) {
    const MemoryRegion& region = map.regions[r];
    if (region.size == 0 || region.base >= va_limit || region.size > va_limit - region.base ||
        region.base + region.size > limit) {
      return Status::out_of_range;
    }
    const uint64_t end = region.base + region.size;
    if (unmapped_address() >= block_floor(region.base) && unmapped_address() < end + kBlockSize) {
      return Status::out_of_range;
    }
    if (region.kind == MemoryKind::normal && guard_page >= region.base && guard_page < end) {
      guard_in_normal = true;
    }
    for (uint64_t block = block_floor(region.base); block < end; block += kBlockSize) {
      const Status status = map_block(block, region.kind);
      if (status != Status::ok) return status;
    }
  }
  if (!guard_in_normal) return Status::hole_not_normal;
  active_map = &map;

  // The tables were written with the MMU off (Device-nGnRnE, uncached):
  // complete the writes, then point the walker at them (D8.14 "enabling
  // the MMU"). SCTLR_EL1 is written last, with M, C and I together. The
  // walker reads through the caches (TCR IRGN0/ORGN0): boot.S invalidated
  // .bss, the pool included, before and after zeroing it, and the pool is
  // invalidated once more now that it is written, so that no line from
  // before can hide a descriptor (docs/adr/0035; QEMU has no caches to
  // show it, only hardware will).
  keel_dcache_invalidate(reinterpret_cast<uintptr_t>(tables),
                         reinterpret_cast<uintptr_t>(tables) + sizeof tables);
  const uint64_t tcr = tcr_base | (ips << 32);
  uint64_t sctlr;
  asm volatile("mrs %0, sctlr_el1" : "=r"(sctlr));
  sctlr |= SCTLR_EL1_M | SCTLR_EL1_C | SCTLR_EL1_I | SCTLR_EL1_SA;
  asm volatile(
      "dsb ish\n"
      "msr mair_el1, %0\n"
      "msr tcr_el1, %1\n"
      "msr ttbr0_el1, %2\n"
      "isb\n"
      "tlbi vmalle1\n"
      "ic iallu\n"
      "dsb ish\n"
      "isb\n"
      "msr sctlr_el1, %3\n"
      "isb\n"
      :
      : "r"(mair), "r"(tcr), "r"(reinterpret_cast<uintptr_t>(tables[0])), "r"(sctlr)
      : "memory");
  return Status::ok;
}

bool mapped(uintptr_t address, uint64_t size, MemoryKind kind) {
  if (active_map == nullptr || size == 0) return false;
  for (size_t r = 0; r < active_map->count; ++r) {
    const MemoryRegion& region = active_map->regions[r];
    if (region.kind != kind || address < region.base || address - region.base > region.size ||
        size > region.size - (address - region.base)) {
      continue;
    }
    for (const uintptr_t hole : holes) {
      if (address < hole + kPageSize && hole < address + size) return false;
    }
    return true;
  }
  return false;
}

uintptr_t unmapped_address() { return uintptr_t{1} << 38; }

}  // namespace keel::aarch64::mmu
