// Stage 1: bytes -> decoded Program. One table-driven pass finds every
// structural error (RFC 9669 encoding rules plus the control-flow shape
// rules every later stage relies on).
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/arena.h"
#include "keel/isa.h"
#include "keel/result.h"

namespace keel {

enum class DecodeError : uint8_t {
  ok,
  empty_program,
  truncated,              // length is not a multiple of 8
  too_many_instructions,  // more slots than DecodeOptions::max_insns
  unknown_opcode,
  reserved_field,         // a field the opcode does not use is non-zero
  bad_register,           // dst or src above r10
  write_to_r10,
  bad_endian_size,        // le/be/bswap imm other than 16, 32, 64
  bad_atomic_op,          // imm of an atomic is not a defined operation
  bad_lddw_src,           // lddw source kind not in RFC 9669 §5.4
  incomplete_lddw,        // lddw in the last slot
  bad_lddw_second_slot,   // second slot opcode/registers/offset not zero
  jump_out_of_range,      // jump or call target outside the program or its function
  jump_into_lddw,         // target is the second slot of a lddw
  infinite_loop,          // an unconditional jump to itself
  fall_through_end,       // the last instruction of a function can fall off it
  unknown_helper,         // call id absent from DecodeOptions::helpers
  out_of_memory,          // the arena cannot hold the decoded program
};

// Stable snake_case name of an error code ("unknown_opcode").
const char* decode_error_name(DecodeError error);

struct DecodeOptions {
  /// Largest accepted program, in slots (Linux: BPF_COMPLEXITY_LIMIT_INSNS is 1M, uBPF 65536).
  uint32_t max_insns = 65536;
  /// Accept the legacy ld_abs/ld_ind packet loads (Linux socket filter family).
  bool allow_legacy_packet_loads = true;
  /// When set, a helper call whose id makes this return false is unknown_helper.
  bool (*helper_exists)(const void* context, int32_t id) = nullptr;
  /// Passed to helper_exists.
  const void* helper_context = nullptr;
};

struct DecodeErrorDetail {
  uint32_t pc = 0;  // slot of the offending instruction
};
using DecodeResult = Result<DecodeError, DecodeErrorDetail>;

// Decodes `size` bytes into `out` (storage taken from `arena`).
[[nodiscard]] DecodeResult decode(const uint8_t* bytes, size_t size, const DecodeOptions& options,
                                  Arena& arena, Program& out);

}  // namespace keel
