// The abstract value of one register (or one spilled 8-byte stack slot):
// a kind, and for pointers the region, a fixed and a variable offset, the
// id shared by copies (null checks and packet range checks refine every
// copy) and, for packet pointers, the proven range. docs/verifier/design.md.
#pragma once

#include <cstdint>

#include "domain/scalar.h"

namespace keel {

enum class RegKind : uint8_t {
  uninit,
  scalar,
  ctx,
  stack,
  map_ptr,
  map_value,
  map_value_or_null,
  packet,
  packet_end,
  packet_meta,
  mem,
  mem_or_null,
  func,
  mixed,  // initialized, but a pointer on some paths and something else on others
  map_ptr_or_null,  // a map-in-map lookup: the inner map (region) or NULL
};

// Stable lower-case name ("map_value_or_null"), for describe().
const char* reg_kind_name(RegKind kind);

struct RegState {
  RegKind kind = RegKind::uninit;
  uint8_t frame = 0;    // stack: the frame the pointer points into
  uint16_t unused = 0;
  uint32_t id = 0;      // 0 = shares nothing
  int32_t off = 0;      // pointers: the fixed offset
  uint32_t region = 0;  // map_*: map index; mem: its size; func: target pc
  int32_t range = 0;    // packet/packet_meta: bytes past (base + var) proven readable
  Scalar value{Tnum{0, 0}, 0, 0, 0, 0, 0, 0, 0, 0};  // scalar: the value; pointers: the variable offset (0)

  bool is_pointer() const {
    return kind != RegKind::uninit && kind != RegKind::scalar && kind != RegKind::mixed;
  }
  bool is_scalar() const { return kind == RegKind::scalar; }
  bool is_const() const { return kind == RegKind::scalar && value.is_const(); }
  bool is_null() const { return is_const() && value.bits.value == 0; }
  bool maybe_null() const {
    return kind == RegKind::map_value_or_null || kind == RegKind::mem_or_null ||
           kind == RegKind::map_ptr_or_null;
  }
  bool var_is_zero() const { return value.is_const() && value.bits.value == 0; }
};

// The reduced Scalar of one known value, built inline (the hot path of
// straight-line code is constants).
inline Scalar const_scalar(uint64_t v) {
  const uint32_t low = static_cast<uint32_t>(v);
  return Scalar{Tnum{v, 0}, v, v, static_cast<int64_t>(v), static_cast<int64_t>(v),
                low, low, static_cast<int32_t>(low), static_cast<int32_t>(low)};
}

inline RegState make_scalar(const Scalar& value) {
  RegState r;
  r.kind = RegKind::scalar;
  r.value = value;
  return r;
}
inline RegState make_uninit() { return RegState{}; }
inline RegState make_pointer(RegKind kind, uint32_t region = 0, int32_t off = 0) {
  RegState r;
  r.kind = kind;
  r.region = region;
  r.off = off;
  return r;
}

}  // namespace keel
