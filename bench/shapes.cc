// Program generators for the verifier benchmarks; see shapes.h.
#include "shapes.h"

#include <cstdlib>

namespace keel::shapes {

namespace {

// The reference shapes, byte for byte: opcode, dst | src << 4, offset
// (LE16), imm (LE32).
constexpr uint8_t kMinimal[] = {
    0xb7, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // mov64 r0, 0
    0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // exit
};

constexpr uint8_t kArithmetic[] = {
    0xb7, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00,  // mov64 r0, 100
    0xb7, 0x01, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00,  // mov64 r1, 50
    0x0f, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // add64 r0, r1
    0x17, 0x00, 0x00, 0x00, 0x19, 0x00, 0x00, 0x00,  // sub64 r0, 25
    0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // exit
};

constexpr uint8_t kLinear[] = {
    0xb7, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // mov64 r0, 0
    0xb7, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // mov64 r1, 1
    0xb7, 0x02, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,  // mov64 r2, 2
    0x0f, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // add64 r0, r1
    0x0f, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // add64 r0, r2
    0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // exit
};

constexpr uint8_t kSingleBranch[] = {
    0xb7, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,  // mov64 r0, 10
    0x15, 0x00, 0x02, 0x00, 0x05, 0x00, 0x00, 0x00,  // if r0 == 5 goto +2
    0xb7, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // mov64 r0, 0
    0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,  // goto +1
    0xb7, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // mov64 r0, 1
    0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // exit
};

constexpr uint8_t kMultiBranch[] = {
    0xb7, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,  // mov64 r0, 10
    0xb7, 0x01, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,  // mov64 r1, 20
    0x1d, 0x10, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,  // if r0 == r1 goto +3
    0x15, 0x00, 0x01, 0x00, 0x0a, 0x00, 0x00, 0x00,  // if r0 == 10 goto +1
    0xb7, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // mov64 r0, 0
    0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,  // goto +1
    0xb7, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // mov64 r0, 1
    0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // exit
};

template <size_t N>
Shape from_bytes(const uint8_t (&bytes)[N]) {
  Shape s;
  s.bytes.assign(bytes, bytes + N);
  return s;
}

// Load/store size bits (RFC 9669 §5.1) of a size in bytes.
uint8_t size_bits(uint8_t size) {
  switch (size) {
    case 1: return 0x10;
    case 2: return 0x08;
    case 4: return 0x00;
    default: return 0x18;
  }
}

constexpr uint8_t kLdx = 0x61, kSt = 0x62, kStx = 0x63, kAtomic64 = 0xdb;

MapDescriptor hash_map(uint32_t key_size, uint32_t value_size) {
  MapDescriptor m;
  m.type = MapType::hash;
  m.key_size = key_size;
  m.value_size = value_size;
  m.max_entries = 1024;
  return m;
}

// __sk_buff and xdp_md offsets (uapi linux/bpf.h).
namespace skb {
constexpr int16_t len = 0, pkt_type = 4, mark = 8, protocol = 16, priority = 32, ifindex = 40,
                  hash = 68;
}  // namespace skb
namespace xdp {
constexpr int16_t data = 0, data_end = 4;
}  // namespace xdp

}  // namespace

// ---- Builder ---------------------------------------------------------------

Builder& Builder::raw(uint8_t opcode, uint8_t dst, uint8_t src, int16_t offset, int32_t imm) {
  const auto off = static_cast<uint16_t>(offset);
  const auto im = static_cast<uint32_t>(imm);
  const uint8_t slot[8] = {opcode,
                           static_cast<uint8_t>((dst & 0x0f) | (src << 4)),
                           static_cast<uint8_t>(off & 0xff),
                           static_cast<uint8_t>(off >> 8),
                           static_cast<uint8_t>(im & 0xff),
                           static_cast<uint8_t>((im >> 8) & 0xff),
                           static_cast<uint8_t>((im >> 16) & 0xff),
                           static_cast<uint8_t>(im >> 24)};
  bytes_.insert(bytes_.end(), slot, slot + 8);
  return *this;
}

Builder& Builder::mov(uint8_t dst, int32_t imm) { return raw(op::mov64, dst, 0, 0, imm); }
Builder& Builder::mov_reg(uint8_t dst, uint8_t src) { return raw(op::mov64 | 0x08, dst, src, 0, 0); }
Builder& Builder::alu(uint8_t opcode, uint8_t dst, int32_t imm) { return raw(opcode, dst, 0, 0, imm); }
Builder& Builder::alu_reg(uint8_t opcode, uint8_t dst, uint8_t src) {
  return raw(static_cast<uint8_t>(opcode | 0x08), dst, src, 0, 0);
}
Builder& Builder::load(uint8_t size, uint8_t dst, uint8_t src, int16_t offset) {
  return raw(static_cast<uint8_t>(kLdx | size_bits(size)), dst, src, offset, 0);
}
Builder& Builder::store(uint8_t size, uint8_t dst, uint8_t src, int16_t offset) {
  return raw(static_cast<uint8_t>(kStx | size_bits(size)), dst, src, offset, 0);
}
Builder& Builder::store_imm(uint8_t size, uint8_t dst, int16_t offset, int32_t imm) {
  return raw(static_cast<uint8_t>(kSt | size_bits(size)), dst, 0, offset, imm);
}
Builder& Builder::atomic_add64(uint8_t dst, uint8_t src, int16_t offset) {
  return raw(kAtomic64, dst, src, offset, 0);  // imm 0x00 = BPF_ADD
}
Builder& Builder::lddw_map_fd(uint8_t dst, int32_t map_index) {
  raw(op::lddw, dst, 1, 0, map_index);  // src 1 = BPF_PSEUDO_MAP_FD
  return raw(0, 0, 0, 0, 0);
}
Builder& Builder::call(int32_t id) { return raw(op::call, 0, 0, 0, id); }
Builder& Builder::exit() { return raw(op::exit, 0, 0, 0, 0); }

Builder& Builder::jump(uint8_t opcode, uint8_t dst, int32_t imm, int label) {
  fixups_.push_back({pc(), label});
  return raw(opcode, dst, 0, 0, imm);
}
Builder& Builder::jump_reg(uint8_t opcode, uint8_t dst, uint8_t src, int label) {
  fixups_.push_back({pc(), label});
  return raw(static_cast<uint8_t>(opcode | 0x08), dst, src, 0, 0);
}
Builder& Builder::ja(int label) { return jump(op::ja, 0, 0, label); }

int Builder::new_label() {
  labels_.push_back(-1);
  return static_cast<int>(labels_.size() - 1);
}
Builder& Builder::bind(int label) {
  labels_[static_cast<size_t>(label)] = pc();
  return *this;
}

std::vector<uint8_t> Builder::finish() {
  for (const Fixup& f : fixups_) {
    const int64_t target = labels_[static_cast<size_t>(f.label)];
    const int64_t offset = target - (static_cast<int64_t>(f.pc) + 1);
    if (target < 0 || offset < INT16_MIN || offset > INT16_MAX) std::abort();  // a generator bug
    const auto off = static_cast<uint16_t>(static_cast<int16_t>(offset));
    bytes_[f.pc * 8 + 2] = static_cast<uint8_t>(off & 0xff);
    bytes_[f.pc * 8 + 3] = static_cast<uint8_t>(off >> 8);
  }
  fixups_.clear();
  return bytes_;
}

// ---- Reference shapes ------------------------------------------------------

Shape minimal() { return from_bytes(kMinimal); }
Shape arithmetic() { return from_bytes(kArithmetic); }
Shape linear() { return from_bytes(kLinear); }
Shape single_branch() { return from_bytes(kSingleBranch); }
Shape multi_branch() { return from_bytes(kMultiBranch); }

Shape straight_line(uint32_t n) {
  Builder b;
  b.mov(0, 0);
  for (uint32_t i = 1; i + 1 < n; ++i) b.alu(op::add64, 0, static_cast<int32_t>(i % 100));
  b.exit();
  Shape s;
  s.bytes = b.finish();
  return s;
}

// ---- Scaling shapes --------------------------------------------------------

Shape diamonds(uint32_t count) {
  Builder b;
  b.mov(0, 0);
  b.load(4, 2, 1, skb::len);
  for (uint32_t i = 0; i < count; ++i) {
    b.raw(op::jgt, 2, 0, 2, static_cast<int32_t>((i * 37) % 1500));  // if r2 > k goto B
    b.alu(op::add64, 0, 1);
    b.raw(op::ja, 0, 0, 1, 0);  // goto join
    b.alu(op::add64, 0, 2);     // B:
  }
  b.exit();
  Shape s;
  s.bytes = b.finish();
  return s;
}

namespace {

int32_t nest_length(uint32_t level) { return 3 * (int32_t{1} << level) - 2; }

void nest(Builder& b, uint32_t level) {
  if (level == 0) {
    b.alu(op::add64, 0, 1);
    return;
  }
  const int32_t inner = nest_length(level - 1);
  b.raw(op::jgt, 2, 0, static_cast<int16_t>(inner + 1), static_cast<int32_t>(level * 100));
  nest(b, level - 1);
  b.raw(op::ja, 0, 0, static_cast<int16_t>(inner), 0);
  nest(b, level - 1);
}

void loop_level(Builder& b, uint32_t level, uint32_t depth, int32_t trip) {
  const auto counter = static_cast<uint8_t>(level);
  b.mov(counter, trip);
  const uint32_t head = b.pc();
  if (level < depth) {
    loop_level(b, level + 1, depth, trip);
  } else {
    b.alu(op::add64, 0, 1);
  }
  b.alu(op::sub64, counter, 1);
  const auto back = static_cast<int16_t>(static_cast<int64_t>(head) - (static_cast<int64_t>(b.pc()) + 1));
  b.raw(op::jne, counter, 0, back, 0);
}

}  // namespace

Shape nested_diamonds(uint32_t depth) {
  if (depth > 13) std::abort();
  Builder b;
  b.mov(0, 0);
  b.load(4, 2, 1, skb::len);
  nest(b, depth);
  b.exit();
  Shape s;
  s.bytes = b.finish();
  return s;
}

Shape bounded_loop(int32_t trip) {
  Builder b;
  b.mov(0, 0);
  b.mov(1, trip);
  b.alu(op::add64, 0, 1);  // loop:
  b.alu(op::sub64, 1, 1);
  b.raw(op::jne, 1, 0, -3, 0);
  b.exit();
  Shape s;
  s.bytes = b.finish();
  return s;
}

Shape nested_loops(uint32_t depth, int32_t trip) {
  if (depth < 1 || depth > 5) std::abort();
  Builder b;
  b.mov(0, 0);
  loop_level(b, 1, depth, trip);
  b.exit();
  Shape s;
  s.bytes = b.finish();
  return s;
}

// ---- Realistic shapes ------------------------------------------------------

Shape map_lookup() {
  // struct value { u64 packets; u64 bytes; }, keyed by a u32 field value.
  Builder b;
  b.mov_reg(6, 1);  // r6 = ctx (r1-r5 do not survive calls)
  b.mov(9, 0);      // r9 = running sum of the byte counters
  const int16_t fields[] = {skb::len,      skb::pkt_type, skb::mark, skb::protocol,
                            skb::priority, skb::ifindex,  skb::hash};
  bool hit_first = true;
  for (const int16_t field : fields) {
    const int hit = b.new_label(), miss = b.new_label(), done = b.new_label();
    b.load(4, 7, 6, field);  // r7 = skb->field
    b.store(4, 10, 7, -4);   // key
    b.mov_reg(2, 10).alu(op::add64, 2, -4);
    b.lddw_map_fd(1, 0);
    b.call(helper::map_lookup_elem);
    // Both null-check shapes LLVM emits: `if (!v) goto miss` and `if (v) goto hit`.
    if (hit_first) {
      b.jump(op::jeq, 0, 0, miss);
    } else {
      b.jump(op::jne, 0, 0, hit);
      b.ja(miss);
    }
    b.bind(hit);
    b.load(8, 1, 0, 0).alu(op::add64, 1, 1).store(8, 0, 1, 0);  // v->packets++
    b.atomic_add64(0, 7, 8);                                     // __sync_fetch_and_add(&v->bytes, f)
    b.load(8, 3, 0, 8);
    b.alu_reg(op::add64, 9, 3);
    b.ja(done);
    b.bind(miss);  // struct value init = {1, f}; bpf_map_update_elem(&map, &key, &init, BPF_ANY)
    b.store_imm(8, 10, -24, 1);
    b.store(8, 10, 7, -16);
    b.mov_reg(2, 10).alu(op::add64, 2, -4);
    b.mov_reg(3, 10).alu(op::add64, 3, -24);
    b.lddw_map_fd(1, 0);
    b.mov(4, 0);
    b.call(helper::map_update_elem);
    b.bind(done);
    hit_first = !hit_first;
  }
  b.mov_reg(0, 9);
  b.exit();
  Shape s;
  s.bytes = b.finish();
  s.maps = {hash_map(4, 16)};
  return s;
}

namespace {

Shape parse_packet(bool vlan) {
  // Constants as a little-endian load of network-order bytes sees them.
  constexpr int32_t kEthP8021Q = 0x0081, kEthPIp = 0x0008, kPort22 = 0x1600, kPort53 = 0x3500;
  constexpr int32_t kXdpDrop = 1, kXdpPass = 2;
  Builder b;
  const int out = b.new_label(), no_vlan = b.new_label(), tcp = b.new_label(), udp = b.new_label(),
            drop = b.new_label(), count = b.new_label();
  b.mov(9, kXdpPass);              // r9 = verdict
  b.load(4, 2, 1, xdp::data);      // r2 = data
  b.load(4, 3, 1, xdp::data_end);  // r3 = data_end
  // if (data + sizeof(struct ethhdr) > data_end) return XDP_PASS;
  b.mov_reg(4, 2).alu(op::add64, 4, 14).jump_reg(op::jgt, 4, 3, out);
  b.load(2, 5, 2, 12);  // h_proto
  if (vlan) {
    b.jump(op::jne, 5, kEthP8021Q, no_vlan);
    // One VLAN tag: the encapsulated protocol, then step over the tag.
    b.mov_reg(4, 2).alu(op::add64, 4, 18).jump_reg(op::jgt, 4, 3, out);
    b.load(2, 5, 2, 16);
    b.alu(op::add64, 2, 4);
  }
  b.bind(no_vlan);
  b.jump(op::jne, 5, kEthPIp, out);
  // struct iphdr at data + 14 (with a VLAN tag, r2 is data or data + 4).
  b.mov_reg(4, 2).alu(op::add64, 4, 34).jump_reg(op::jgt, 4, 3, out);
  b.load(1, 5, 2, 14);
  b.mov_reg(6, 5).alu(op::and64, 6, 0x0f).jump(op::jne, 6, 5, out);  // ihl == 5 (no options)
  b.alu(op::rsh64, 5, 4).jump(op::jne, 5, 4, out);                     // version == 4
  b.load(2, 5, 2, 20).alu(op::and64, 5, 0xff3f).jump(op::jne, 5, 0, out);  // fragments pass
  b.load(4, 6, 2, 26);  // saddr (kept in r6 across the helper call)
  b.load(4, 7, 2, 30);  // daddr
  b.load(1, 8, 2, 22).jump(op::jle, 8, 1, drop);  // ttl <= 1
  b.alu_reg(op::xor64, 7, 6).jump(op::jeq, 7, 0, drop);  // saddr == daddr
  b.load(1, 5, 2, 23);  // protocol
  b.jump(op::jeq, 5, 6, tcp);
  b.jump(op::jeq, 5, 17, udp);
  b.ja(count);
  b.bind(tcp);  // struct tcphdr at data + 34
  b.mov_reg(4, 2).alu(op::add64, 4, 54).jump_reg(op::jgt, 4, 3, out);
  b.load(2, 5, 2, 36);                      // dest port
  b.load(1, 8, 2, 47);                      // flags
  b.jump(op::jset, 8, 0x04, drop);          // RST
  b.jump(op::jeq, 5, kPort22, count);
  b.load(2, 8, 2, 48).jump(op::jeq, 8, 0, drop);  // zero window
  b.ja(count);
  b.bind(udp);  // struct udphdr at data + 34
  b.mov_reg(4, 2).alu(op::add64, 4, 42).jump_reg(op::jgt, 4, 3, out);
  b.load(2, 5, 2, 36);
  b.jump(op::jne, 5, kPort53, count);
  b.load(2, 8, 2, 38).jump(op::jne, 8, 0x0800, count);  // an empty query (udp len 8) is dropped
  b.bind(drop);
  b.mov(9, kXdpDrop);
  b.bind(count);  // per-source packet counter
  b.store(4, 10, 6, -4);
  b.mov_reg(2, 10).alu(op::add64, 2, -4);
  b.lddw_map_fd(1, 0);
  b.call(helper::map_lookup_elem);
  b.jump(op::jeq, 0, 0, out);
  b.load(8, 1, 0, 0).alu(op::add64, 1, 1).store(8, 0, 1, 0);
  b.bind(out);
  b.mov_reg(0, 9);
  b.exit();
  Shape s;
  s.bytes = b.finish();
  s.type = "xdp";
  s.maps = {hash_map(4, 8)};
  return s;
}

}  // namespace

Shape packet_parse() { return parse_packet(false); }
Shape packet_parse_vlan() { return parse_packet(true); }

Shape stack_spills() {
  Builder b;
  b.store(8, 10, 1, -8);                    // spill ctx
  b.load(4, 2, 1, skb::len).store(8, 10, 2, -16);
  b.load(4, 3, 1, skb::mark).store(4, 10, 3, -20);
  b.store_imm(2, 10, -22, 7);
  b.store_imm(1, 10, -23, 1);
  b.store_imm(1, 10, -24, 2);
  b.mov_reg(4, 10).alu(op::add64, 4, -64).store(8, 10, 4, -32);  // spill a stack pointer
  b.store_imm(8, 10, -64, 0);
  b.call(helper::get_prandom_u32);          // clobbers r1-r5
  b.store(8, 10, 0, -40);
  b.load(8, 1, 10, -8);                     // fill ctx
  b.load(4, 6, 1, skb::pkt_type);           // through the filled pointer
  b.load(8, 7, 10, -16);
  b.load(4, 8, 10, -20);
  b.load(2, 2, 10, -22);
  b.load(1, 3, 10, -23);
  b.alu_reg(op::add64, 7, 8).alu_reg(op::add64, 7, 2).alu_reg(op::add64, 7, 3);
  b.alu_reg(op::add64, 7, 6);
  b.load(8, 4, 10, -32);                    // fill the stack pointer
  b.store(8, 4, 7, 0);                      // store through it (r10 - 64)
  b.load(8, 9, 10, -64);
  // Spill/fill pairs over the rest of the frame, a helper call every fourth.
  int block = 0;
  for (int16_t off = -72; off - 8 >= -512; off = static_cast<int16_t>(off - 16), ++block) {
    b.store(8, 10, 9, off);                               // spill a scalar
    b.store(8, 10, 1, static_cast<int16_t>(off - 8));     // spill ctx
    b.load(8, 5, 10, off).alu_reg(op::add64, 9, 5);
    b.load(8, 1, 10, static_cast<int16_t>(off - 8));      // fill ctx
    b.load(4, 5, 1, skb::len).alu_reg(op::add64, 9, 5);
    if (block % 4 == 3) {
      b.call(helper::get_prandom_u32).alu_reg(op::xor64, 9, 0);
      b.load(8, 1, 10, -8);                               // ctx again
      b.load(4, 0, 10, static_cast<int16_t>(off + 4));    // a 4-byte fill of a spilled scalar
      b.alu_reg(op::add64, 9, 0);
    }
  }
  b.load(8, 0, 10, -40);
  b.alu_reg(op::add64, 0, 9);
  b.exit();
  Shape s;
  s.bytes = b.finish();
  return s;
}

}  // namespace keel::shapes
