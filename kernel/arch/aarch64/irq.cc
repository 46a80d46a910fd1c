#include "arch/aarch64/irq.h"

#include "arch/aarch64/gic_v2.h"

namespace keel::aarch64::irq {
namespace {

struct Entry {
  uint32_t intid;
  Handler handler;  ///< nullptr: a free slot
};

constexpr int kSlots = 4;
Entry entries[kSlots];

}  // namespace

bool attach(uint32_t intid, Handler handler) {
  if (handler == nullptr) return false;
  Entry* free_slot = nullptr;
  for (Entry& entry : entries) {
    if (entry.handler != nullptr && entry.intid == intid) return false;
    if (entry.handler == nullptr && free_slot == nullptr) free_slot = &entry;
  }
  if (free_slot == nullptr) return false;
  *free_slot = Entry{intid, handler};
  return true;
}

void detach(uint32_t intid) {
  for (Entry& entry : entries) {
    if (entry.handler != nullptr && entry.intid == intid) entry = Entry{};
  }
}

bool dispatch(uint32_t& intid) {
  const uint32_t acknowledged = gic::acknowledge();
  intid = gic::intid(acknowledged);
  // IHI 0048B §3.2.4: a spurious INTID is not active and needs no EOI.
  if (gic::is_spurious(intid)) return true;
  Handler handler = nullptr;
  for (const Entry& entry : entries) {
    if (entry.handler != nullptr && entry.intid == intid) handler = entry.handler;
  }
  // The handler first: a level-sensitive source (the timer) must drop its
  // line before the EOI, or the interrupt is taken again at once.
  if (handler != nullptr) handler();
  gic::end_of_interrupt(acknowledged);
  return handler != nullptr;
}

}  // namespace keel::aarch64::irq
