// Rendering of an abstract state for describe_state(): registers, then the
// initialized stack slots, one line per frame. Its own tiny formatter (the
// core has no snprintf).
#include "analysis/engine.h"

namespace keel {
namespace {

class Out {
 public:
  Out(char* buffer, size_t size) : buffer_(buffer), size_(size) {}
  Out& str(const char* s) {
    while (*s != '\0') put(*s++);
    return *this;
  }
  Out& num(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    if (v < 0) {
      put('-');
      u = ~u + 1;
    }
    return unum(u);
  }
  Out& unum(uint64_t u) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    while (n > 0) put(digits[--n]);
    return *this;
  }
  void put(char c) {
    if (length_ + 1 < size_) buffer_[length_] = c;
    ++length_;
  }
  size_t finish() {
    if (size_ > 0) buffer_[length_ < size_ ? length_ : size_ - 1] = '\0';
    return length_;
  }

 private:
  char* buffer_;
  size_t size_;
  size_t length_ = 0;
};

void scalar(Out& o, const Scalar& v) {
  if (v.is_const()) {
    o.str("(").num(static_cast<int64_t>(v.bits.value)).str(")");
    return;
  }
  if (v.smin >= 0) {
    o.str("[").unum(v.umin).str(",").unum(v.umax).str("]");
  } else {
    o.str("s[").num(v.smin).str(",").num(v.smax).str("] u[").unum(v.umin).str(",").unum(v.umax).str("]");
  }
}

void reg(Out& o, const RegState& r) {
  o.str(reg_kind_name(r.kind));
  switch (r.kind) {
    case RegKind::uninit:
    case RegKind::mixed:
      return;
    case RegKind::scalar:
      scalar(o, r.value);
      break;
    default:
      if (r.kind == RegKind::stack) o.str("(fp").unum(r.frame).str(")");
      if (r.kind == RegKind::map_ptr || r.kind == RegKind::map_value ||
          r.kind == RegKind::map_value_or_null) {
        o.str("(map ").unum(r.region).str(")");
      }
      if (r.kind == RegKind::mem || r.kind == RegKind::mem_or_null) o.str("(size ").unum(r.region).str(")");
      o.str(r.off < 0 ? "" : "+").num(r.off);
      if (!r.var_is_zero()) {
        o.str("+");
        scalar(o, r.value);
      }
      if (r.kind == RegKind::packet || r.kind == RegKind::packet_meta) o.str(" range=").num(r.range);
      break;
  }
  if (r.id != 0) o.str(" id=").unum(r.id);
}

}  // namespace

size_t render_state(const State* s, char* buffer, size_t size) {
  Out o(buffer, size);
  if (s == nullptr) {
    o.str("unreached");
    return o.finish();
  }
  for (uint32_t f = 0; f < s->frame_count; ++f) {
    const Frame& frame = s->frames()[f];
    if (f > 0) o.put('\n');
    o.str("frame ").unum(f).str(":");
    for (uint32_t i = 0; i < kRegisterCount; ++i) {
      if (frame.regs[i].kind == RegKind::uninit) continue;
      o.str(" r").unum(i).str("=");
      reg(o, frame.regs[i]);
    }
    for (uint32_t slot = kSlotCount; slot-- > 0;) {
      const uint8_t* tags = frame.tags + slot * 8;
      const int64_t offset = int64_t{slot} * 8 - kStackSize;
      if (const Spill* spill = s->find_spill(f, slot)) {
        o.str(" fp").num(offset).str("=spill:");
        reg(o, spill->reg);
        continue;
      }
      bool any = false;
      for (int i = 0; i < 8; ++i) any = any || tags[i] != kTagUninit;
      if (!any) continue;
      o.str(" fp").num(offset).str("=");
      for (int i = 0; i < 8; ++i) {
        static constexpr char kTag[] = {'.', 'm', '0', 's', '?'};  // uninit, data, zero, spill, mixed
        o.put(kTag[tags[i] < 5 ? tags[i] : 4]);
      }
    }
  }
  return o.finish();
}

}  // namespace keel
