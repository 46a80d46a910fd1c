// The abstract value of one register (or one spilled 8-byte stack slot):
// a kind, and for pointers the region, a fixed and a variable offset, the
// id shared by copies (null checks and packet range checks refine every
// copy), for packet pointers the proven range, and for pointers to objects
// the program must give back the reference they hold. docs/verifier/design.md.
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
  // Socket pointers (Linux PTR_TO_SOCK_COMMON, PTR_TO_SOCKET, PTR_TO_TCP_SOCK):
  // read-only structures of fixed fields, no arithmetic.
  sock_common,
  sock_common_or_null,
  sock,
  sock_or_null,
  tcp_sock,
  tcp_sock_or_null,
  // A kernel object typed by the kernel's BTF (Linux PTR_TO_BTF_ID; region:
  // the BTF type id): read-only, loads checked against the type's layout
  // (analysis/btf_ptr.cc). Linux does not treat it as non-NULL.
  btf_ptr,
  btf_ptr_or_null,
};

// Stable lower-case name ("map_value_or_null"), for describe().
const char* reg_kind_name(RegKind kind);

// Scalars that share an id are linked: each is a known function of one
// unknown number B common to the class (B is the value of the register the
// first copy was made from), value = f(B + delta) with the delta kept in
// RegState::off. A bound learned on one member then bounds the others
// (propagate_scalar, transfer.cc). The functions are those of the copies
// and of the moves that keep a value recoverable: a 64-bit copy or `+= c`
// (Linux find_equal_scalars; newer Linux's BPF_ADD_CONST links), a 32-bit
// move or `w += c` (the low half), and the two halves of the zero-extension
// idiom `r <<= 32; r >>= 32`, which old clang emits for every u32 -> u64
// conversion: the shift up is a function of B too, so the pair needs no
// peephole and stays sound when a jump lands between the two shifts.
enum class Link : uint8_t {
  same,    // value = B + delta (64-bit, wrapping)
  zext32,  // value = zext32(B + delta): the low half of the sum, upper half zero
  shl32,   // value = (B + delta) << 32
};

struct RegState {
  RegKind kind = RegKind::uninit;
  uint8_t frame = 0;    // stack: the frame the pointer points into
  Link link = Link::same;  // scalars with an id: how the value follows the class (Link)
  uint8_t unused = 0;
  uint32_t id = 0;      // 0 = shares nothing
  int32_t off = 0;      // pointers: the fixed offset; linked scalars: the delta (Link)
  uint32_t region = 0;  // map_*: map index; mem: its size; func: target pc
  int32_t range = 0;    // packet/packet_meta: bytes past (base + var) proven readable
  // The acquired reference (State::refs) this pointer depends on, 0 = none:
  // valid only while the reference is held. On a scalar or uninit register
  // it names the released reference the value came from, for the verdict
  // (use after release). A maybe-NULL pointer whose id equals its ref is the
  // acquiring helper's result itself: when NULL, no reference was taken.
  uint32_t ref = 0;
  Scalar value{Tnum{0, 0}, 0, 0, 0, 0, 0, 0, 0, 0};  // scalar: the value; pointers: the variable offset (0)

  bool is_pointer() const {
    return kind != RegKind::uninit && kind != RegKind::scalar && kind != RegKind::mixed;
  }
  bool is_scalar() const { return kind == RegKind::scalar; }
  bool is_const() const { return kind == RegKind::scalar && value.is_const(); }
  bool is_null() const { return is_const() && value.bits.value == 0; }
  bool maybe_null() const {
    return kind == RegKind::map_value_or_null || kind == RegKind::mem_or_null ||
           kind == RegKind::map_ptr_or_null || kind == RegKind::sock_common_or_null ||
           kind == RegKind::sock_or_null || kind == RegKind::tcp_sock_or_null ||
           kind == RegKind::btf_ptr_or_null;
  }
  bool holds_ref() const { return ref != 0 && is_pointer(); }
  // The helper's own result (or a copy): NULL means no reference was taken
  // (Linux mark_ptr_or_null_regs: ref_obj_id == id).
  bool owns_ref() const { return ref != 0 && id == ref && maybe_null(); }
  bool var_is_zero() const { return value.is_const() && value.bits.value == 0; }
};
// `ref` sits in what was padding before the 8-aligned Scalar: states cost
// no more for it (design.md, "Cost bound").
static_assert(sizeof(RegState) == 88, "RegState grew");

inline bool is_socket_kind(RegKind kind) {
  return kind >= RegKind::sock_common && kind <= RegKind::tcp_sock_or_null;
}

// The kind a successful NULL check leaves (mark_ptr_not_null_reg).
inline RegKind not_null_kind(RegKind kind) {
  switch (kind) {
    case RegKind::map_value_or_null: return RegKind::map_value;
    case RegKind::map_ptr_or_null: return RegKind::map_ptr;
    case RegKind::mem_or_null: return RegKind::mem;
    case RegKind::sock_common_or_null: return RegKind::sock_common;
    case RegKind::sock_or_null: return RegKind::sock;
    case RegKind::tcp_sock_or_null: return RegKind::tcp_sock;
    case RegKind::btf_ptr_or_null: return RegKind::btf_ptr;
    default: return kind;
  }
}

// The maybe-NULL form of a pointer kind (itself when it has none).
inline RegKind or_null_kind(RegKind kind) {
  switch (kind) {
    case RegKind::map_value: return RegKind::map_value_or_null;
    case RegKind::map_ptr: return RegKind::map_ptr_or_null;
    case RegKind::mem: return RegKind::mem_or_null;
    case RegKind::sock_common: return RegKind::sock_common_or_null;
    case RegKind::sock: return RegKind::sock_or_null;
    case RegKind::tcp_sock: return RegKind::tcp_sock_or_null;
    case RegKind::btf_ptr: return RegKind::btf_ptr_or_null;
    default: return kind;
  }
}

// The reduced Scalar of one known value, built inline (the hot path of
// straight-line code is constants).
inline Scalar const_scalar(uint64_t v) {
  const uint32_t low = static_cast<uint32_t>(v);
  return Scalar{Tnum{v, 0}, v, v, static_cast<int64_t>(v), static_cast<int64_t>(v),
                low, low, static_cast<int32_t>(low), static_cast<int32_t>(low)};
}

constexpr RegState make_scalar(const Scalar& value) {
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
