// Program generators for the verifier benchmarks (bench/bench_verifier.cc)
// and their tests (verifier/tests/shapes_test.cc): each returns the raw
// little-endian bytes keel::decode takes, with the program type and maps to
// verify them under.
//
// Host-only (std::vector, std::string); not part of the freestanding core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "keel/platform.h"

namespace keel::shapes {

// One program to verify.
struct Shape {
  std::vector<uint8_t> bytes;           // 8 bytes per slot (RFC 9669 §3)
  const char* type = "socket_filter";   // Linux program type name (keel::linux_platform())
  std::vector<MapDescriptor> maps;      // VerifyOptions::maps (lddw map_fd imm = index)
  uint32_t slots() const { return static_cast<uint32_t>(bytes.size() / 8); }
};

// ---- Reference shapes ------------------------------------------------------
// Byte for byte the programs of the reference verifier benchmark, all
// socket_filter, no maps.
Shape minimal();        // verifier/small/minimal
Shape arithmetic();     // verifier/small/arithmetic
Shape linear();         // verifier/control_flow/linear
Shape single_branch();  // verifier/control_flow/single_branch
Shape multi_branch();   // verifier/control_flow/multi_branch

// verifier/scaling/instructions/<n>: `mov64 r0, 0`, then for i = 1 .. n-2
// `add64 r0, i % 100`, then `exit` (n slots; n >= 2).
Shape straight_line(uint32_t n);

// ---- Scaling shapes --------------------------------------------------------
// All socket_filter. The branch conditions test r2 = skb->len (a scalar the
// verifier cannot know), so both arms of every branch are live.

// `count` back-to-back if/else diamonds: `if r2 > k goto B; r0 += 1; goto
// join; B: r0 += 2; join:` (4 slots each, 3 more around them).
Shape diamonds(uint32_t count);

// Diamonds nested `depth` deep (each arm of a level is a diamond of the
// level below; level 0 is `r0 += 1`): 3 * 2^depth - 2 slots of body, 2^depth
// paths. depth <= 13 (jump offsets are 16 bits).
Shape nested_diamonds(uint32_t depth);

// `r0 = 0; r1 = trip; loop: r0 += 1; r1 -= 1; if r1 != 0 goto loop; exit`
// (trip >= 1).
Shape bounded_loop(int32_t trip);

// `depth` counted loops nested inside each other (counters r1 .. r_depth,
// `trip` iterations each; the innermost body is `r0 += 1`), depth 1 .. 5.
Shape nested_loops(uint32_t depth, int32_t trip = 10);

// ---- Realistic shapes ------------------------------------------------------
// socket_filter: per-field counters in a hash map (key 4, value 16 bytes):
// key on the stack, lddw map_fd, map_lookup_elem, null check, update in
// place (and an atomic add) or map_update_elem on a miss; repeated over
// several __sk_buff fields.
Shape map_lookup();

// xdp: data/data_end from the context, `if (data + 14 > data_end) return`,
// Ethernet (VLAN tag skipped), IPv4 header checks, TCP/UDP port tests behind
// their own bounds checks, a per-source counter in a hash map.
Shape packet_parse();

// packet_parse with one optional VLAN tag stepped over (`data += 4` on one
// path), so the IPv4 header is reached through a packet pointer whose
// offset is data + 0 or data + 4 where the paths join: what LLVM emits for
// an Ethernet parser that handles 802.1Q. Linux, exploring paths
// separately, accepts it.
Shape packet_parse_vlan();

// socket_filter: the context pointer, scalars and a stack pointer spilled
// to and filled from the stack at every size, across helper calls, over
// the whole 512-byte frame.
Shape stack_spills();

// ---- Encoding --------------------------------------------------------------

// Appends slots to a byte vector; jumps name labels (new_label, bind),
// patched by finish().
class Builder {
 public:
  // One raw slot: opcode, dst | src << 4, offset (LE16), imm (LE32).
  Builder& raw(uint8_t opcode, uint8_t dst, uint8_t src, int16_t offset, int32_t imm);

  Builder& mov(uint8_t dst, int32_t imm);             // mov64 dst, imm
  Builder& mov_reg(uint8_t dst, uint8_t src);         // mov64 dst, src
  Builder& alu(uint8_t op, uint8_t dst, int32_t imm); // 64-bit ALU with immediate; op = opcode (e.g. 0x07)
  Builder& alu_reg(uint8_t op, uint8_t dst, uint8_t src);  // op = the _imm opcode; | 0x08 added
  Builder& load(uint8_t size, uint8_t dst, uint8_t src, int16_t offset);   // ldx; size 1/2/4/8
  Builder& store(uint8_t size, uint8_t dst, uint8_t src, int16_t offset);  // stx
  Builder& store_imm(uint8_t size, uint8_t dst, int16_t offset, int32_t imm);  // st
  Builder& atomic_add64(uint8_t dst, uint8_t src, int16_t offset);  // lock *(u64 *)(dst + off) += src
  Builder& lddw_map_fd(uint8_t dst, int32_t map_index);
  Builder& call(int32_t helper);
  Builder& exit();
  // Conditional jump with immediate (op = the _imm jmp opcode, e.g. 0x15)
  // or register (jump_reg), and ja, to a label resolved by `label`.
  Builder& jump(uint8_t op, uint8_t dst, int32_t imm, int label);
  Builder& jump_reg(uint8_t op, uint8_t dst, uint8_t src, int label);
  Builder& ja(int label);
  // A fresh label; `bind` places it at the next slot.
  int new_label();
  Builder& bind(int label);

  uint32_t pc() const { return static_cast<uint32_t>(bytes_.size() / 8); }
  // The bytes, with every jump patched (every used label must be bound).
  std::vector<uint8_t> finish();

 private:
  struct Fixup {
    uint32_t pc;
    int label;
  };
  std::vector<uint8_t> bytes_;
  std::vector<int64_t> labels_;  // bound pc, -1 while unbound
  std::vector<Fixup> fixups_;
};

// Opcodes used by the generators (RFC 9669 §3, §4, §5).
namespace op {
inline constexpr uint8_t add64 = 0x07, sub64 = 0x17, mul64 = 0x27, or64 = 0x47, and64 = 0x57,
                         lsh64 = 0x67, rsh64 = 0x77, xor64 = 0xa7, mov64 = 0xb7;
inline constexpr uint8_t ja = 0x05, jeq = 0x15, jgt = 0x25, jge = 0x35, jset = 0x45, jne = 0x55,
                         jlt = 0xa5, jle = 0xb5, call = 0x85, exit = 0x95;
inline constexpr uint8_t lddw = 0x18;
}  // namespace op

// Linux helper ids used by the realistic shapes.
namespace helper {
inline constexpr int32_t map_lookup_elem = 1, map_update_elem = 2, get_prandom_u32 = 7,
                         ktime_get_ns = 5;
}  // namespace helper

}  // namespace keel::shapes
