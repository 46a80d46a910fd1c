// Rendering of an abstract state for describe_state(): registers, then the
// initialized stack slots, one line per frame (support/text_writer.h).
#include "analysis/engine.h"
#include "support/text_writer.h"

namespace keel {
namespace {

using Out = TextWriter;

void scalar(Out& o, const Scalar& v) {
  if (v.is_const()) {
    o.put("(").signed_decimal(static_cast<int64_t>(v.bits.value)).put(")");
    return;
  }
  if (v.smin >= 0) {
    o.put("[").decimal(v.umin).put(",").decimal(v.umax).put("]");
  } else {
    o.put("s[").signed_decimal(v.smin).put(",").signed_decimal(v.smax).put("] u[").decimal(v.umin).put(",").decimal(v.umax).put("]");
  }
}

void reg(Out& o, const RegState& r) {
  o.put(reg_kind_name(r.kind));
  switch (r.kind) {
    case RegKind::uninit:
    case RegKind::mixed:
      return;
    case RegKind::scalar:
      scalar(o, r.value);
      break;
    default:
      if (r.kind == RegKind::stack) o.put("(fp").decimal(r.frame).put(")");
      if (r.kind == RegKind::map_ptr || r.kind == RegKind::map_value ||
          r.kind == RegKind::map_value_or_null || r.kind == RegKind::map_ptr_or_null) {
        o.put("(map ").decimal(r.region).put(")");
      }
      if (r.kind == RegKind::mem || r.kind == RegKind::mem_or_null) o.put("(size ").decimal(r.region).put(")");
      if (r.kind == RegKind::btf_ptr || r.kind == RegKind::btf_ptr_or_null) o.put("(type ").decimal(r.region).put(")");
      o.put(r.off < 0 ? "" : "+").signed_decimal(r.off);
      if (!r.var_is_zero()) {
        o.put("+");
        scalar(o, r.value);
      }
      if (r.kind == RegKind::packet || r.kind == RegKind::packet_meta) o.put(" range=").signed_decimal(r.range);
      break;
  }
  if (r.id != 0 && (r.id & kRefBit) == 0) o.put(" id=").decimal(r.id);
  if (r.id != 0 && r.kind == RegKind::scalar && (r.link != Link::same || r.off != 0)) {
    // The link (reg_state.h): "id=3(B+4)", "id=3(zext32 B-1)".
    o.put(r.link == Link::zext32 ? "(zext32 B" : r.link == Link::shl32 ? "(shl32 B" : "(B");
    if (r.off != 0) o.put(r.off < 0 ? "" : "+").signed_decimal(r.off);
    o.put(")");
  }
  if (r.ref != 0) o.put(r.is_pointer() ? " ref=pc" : " released=pc").decimal(pc_of_ref(r.ref));
}

}  // namespace

size_t render_state(const State* s, char* buffer, size_t size) {
  Out o(buffer, size);
  if (s == nullptr) {
    o.put("unreached");
    return o.finish();
  }
  for (uint32_t f = 0; f < s->frame_count; ++f) {
    const Frame& frame = s->frames()[f];
    if (f > 0) o.put('\n');
    o.put("frame ").decimal(f).put(":");
    if (f == 0 && (s->ref_count != 0 || s->refs_lost != 0)) {
      o.put(" refs=[");  // acquiring pcs of the references that may be held
      for (uint32_t i = 0; i < s->ref_count; ++i) o.put(i == 0 ? "" : ",").decimal(pc_of_ref(s->refs[i]));
      o.put(s->refs_lost != 0 ? ",...]" : "]");
    }
    for (uint32_t i = 0; i < kRegisterCount; ++i) {
      if (frame.regs[i].kind == RegKind::uninit) continue;
      o.put(" r").decimal(i).put("=");
      reg(o, frame.regs[i]);
    }
    for (uint32_t slot = kSlotCount; slot-- > 0;) {
      const uint8_t* tags = frame.tags + slot * 8;
      const int64_t offset = int64_t{slot} * 8 - kStackSize;
      if (const Spill* spill = s->find_spill(f, slot)) {
        o.put(" fp").signed_decimal(offset).put("=spill");
        if (spill->narrow != 0) o.signed_decimal(8 * int64_t{spill->narrow});  // spill8, spill16, spill32
        o.put(":");
        reg(o, spill->reg);
        continue;
      }
      bool any = false;
      for (int i = 0; i < 8; ++i) any = any || tags[i] != kTagUninit;
      if (!any) continue;
      o.put(" fp").signed_decimal(offset).put("=");
      for (int i = 0; i < 8; ++i) {
        static constexpr char kTag[] = {'.', 'm', '0', 's', '?'};  // uninit, data, zero, spill, mixed
        o.put(kTag[tags[i] < 5 ? tags[i] : 4]);
      }
    }
  }
  return o.finish();
}

}  // namespace keel
