// The guarded-run oracle (oracle.h). Memory as the program sees it: the
// context is a heap copy of the type's context size whose fields become
// regions (adjacent fields of the same writability merged; gaps are no
// region at all); the packet, for types with packet fields, lives in the
// low 2 GiB (MAP_32BIT) because xdp_md and __sk_buff hold 32-bit packet
// pointers; every map value is its own heap block and region.
#include "oracle.h"

#include <sys/mman.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "keel/decode.h"
#include "keel/interp.h"

namespace keel::fuzzgen {

namespace {

constexpr uint64_t kMapHandle = 0xbadc0de00000000ULL;   // lddw map_fd / map_idx resolves to kMapHandle + index
constexpr uint64_t kCodeHandle = 0xc0de000000000000ULL;  // lddw code_addr resolves to kCodeHandle + target slot
constexpr uint32_t kEntries = 4 + 8;                     // map values: array 0..3, hash 4..11
constexpr uint32_t kPacketRoom = 4096;
constexpr uint32_t kPacketStart = 256;  // the packet's offset in its page
constexpr uint32_t kMaxInsns = 4096;
constexpr int32_t kBpfLoop = 181;         // Linux helper id of bpf_loop
constexpr uint64_t kBpfLoopMax = 1u << 23;  // bpf_loop's nr_loops limit (kernel/bpf/bpf_iter.c, BPF_MAX_LOOPS)

uint64_t address_of(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// xorshift64*: the contents of one input.
struct Random {
  uint64_t state;
  uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

// Values where comparisons, sign and width conversions change their mind.
constexpr uint64_t kEdges[] = {
    0, 1, 2, 7, 8, 15, 16, 17, 47, 48, 49, 63, 64, 255, 256, 511, 512, 4095, 0x7fff, 0x8000, 0xffff,
    0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 0x7fffffffffffffff, 0x8000000000000000,
    UINT64_MAX, UINT64_MAX - 1, static_cast<uint64_t>(-48), static_cast<uint64_t>(-512),
};

uint64_t edge_value(Random& random) {
  return random.below(4) == 0 ? random.next() : kEdges[random.below(sizeof kEdges / sizeof kEdges[0])];
}

// Fills `n` bytes: zeros, ones, random bytes, or a run of edge values.
void fill_edge(Random& random, uint8_t* p, size_t n) {
  switch (random.below(4)) {
    case 0: std::memset(p, 0, n); return;
    case 1: std::memset(p, 0xff, n); return;
    case 2:
      for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(random.next() >> 56);
      return;
    default:
      for (size_t i = 0; i < n; i += 8) {
        const uint64_t v = edge_value(random);
        std::memcpy(p + i, &v, n - i < 8 ? n - i : 8);
      }
  }
}

// Packet lengths around the headers programs parse (Ethernet 14, +IPv4 34,
// +UDP 42, +TCP 54) and the page's room.
constexpr uint32_t kPacketLengths[] = {0, 1, 2, 4, 8, 13, 14, 15, 20, 33, 34, 35, 41, 42, 43, 53, 54, 55, 64, 255};

uint8_t* map_packet_page() {
  void* p = mmap(nullptr, 2 * kPacketRoom, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

// The packet's page, and a second one at another address, where a leak is
// confirmed (run_with_packet_in).
uint8_t* packet_page(bool moved = false) {
  thread_local uint8_t* page = map_packet_page();
  thread_local uint8_t* moved_page = map_packet_page();
  return moved ? moved_page : page;
}

bool in_packet_page(uint64_t v, bool moved) {
  return packet_page(moved) != nullptr && v - address_of(packet_page(moved)) <= 2 * kPacketRoom;
}

// Stacks live in mappings of their own, away from the heap blocks of the
// context and the map values, so that a wild access past those does not
// land on a stack (which is always accessible) and go unnoticed.
struct StackUnmap {
  void operator()(RunStack* stack) const { munmap(stack, sizeof(RunStack)); }
};
using MappedStack = std::unique_ptr<RunStack, StackUnmap>;

MappedStack map_stack() {
  void* p = mmap(nullptr, sizeof(RunStack), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "keel fuzz oracle: cannot map a stack\n");
    std::abort();
  }
  return MappedStack(static_cast<RunStack*>(p));
}

// Map values and the context, each in the middle of its own 4 KiB slot of
// one mapping: an access that misses its block by less than 2 KiB lands in
// memory that is no region (heap blocks side by side would let an access
// past one map value land in the next and pass).
constexpr uint32_t kPoolSlot = 4096;
constexpr uint32_t kPoolSlots = kEntries + 1;

uint8_t* pool() {
  thread_local uint8_t* memory = [] {
    void* p = mmap(nullptr, kPoolSlot * kPoolSlots, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "keel fuzz oracle: cannot map the memory pool\n");
      std::abort();
    }
    return static_cast<uint8_t*>(p);
  }();
  return memory;
}
uint8_t* pool_block(uint32_t slot) { return pool() + slot * kPoolSlot + kPoolSlot / 2; }

// Everything the runs of one program may touch, and what they found.
struct World {
  const ProgramType* type = nullptr;
  const Insn* callback_insns = nullptr;  // [call_local target, exit, program...] for bpf_loop callbacks
  uint32_t callback_count = 0;
  const SpecGuard* callback_guards = nullptr;  // the same shift of the hardening table, in a hardened run
  Region regions[kMaxRegions];
  uint32_t region_count = 0;
  uint8_t* entries[kEntries] = {};
  uint8_t* ctx = nullptr;
  uint8_t* packet = nullptr;
  uint32_t packet_length = 0;
  uint64_t stack_base = 0, stack_size = 0;  // the outer run's stack
  uint8_t stack_fill = 0;                   // never-written stack bytes hold this
  Random random{1};
  uint64_t callback_insns_run = 0;          // instructions run in callbacks (trampoline excluded)
  bool callback_budget_hit = false;         // a callback run stopped at kBudgetCap: length unjudged
  // One stack per callback nesting depth, kept across runs so that both
  // runs of the stack differential see the same addresses.
  std::vector<MappedStack> callback_stacks;
  uint32_t callback_depth = 0;
  Finding finding;

  void add(uint64_t base, uint64_t size, bool writable) {
    if (region_count == kMaxRegions) {
      std::fprintf(stderr, "keel fuzz oracle: more than %u regions (a harness limit)\n", kMaxRegions);
      std::abort();
    }
    regions[region_count++] = Region{base, size, writable};
  }
  static bool inside(uint64_t base, uint64_t size, uint64_t region_base, uint64_t region_size) {
    return base >= region_base && size <= region_size && base - region_base <= region_size - size;
  }
  bool holds(uint64_t base, uint64_t size, bool write) const {
    if (inside(base, size, stack_base, stack_size)) return true;
    // The stacks of the bpf_loop callbacks running now.
    for (uint32_t d = 0; d < callback_depth; ++d) {
      if (inside(base, size, address_of(callback_stacks[d]->bytes), sizeof(RunStack::bytes))) return true;
    }
    for (uint32_t i = 0; i < region_count; ++i) {
      const Region& r = regions[i];
      if ((r.writable || !write) && base >= r.base && size <= r.size && base - r.base <= r.size - size) return true;
    }
    return false;
  }
  // What a helper reads steers what the helpers give back from then on, so
  // that a helper reading never-written stack changes the outcome (and the
  // stack differential sees it).
  void absorb(uint64_t address, uint64_t size) {
    const auto* p = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(address));
    uint64_t h = 14695981039346656037ULL;
    for (uint64_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    random.state = (random.state ^ h) | 1;
  }
  void report(FindingKind kind, uint64_t value, const std::string& message) {
    if (finding.found()) return;
    finding.kind = kind;
    finding.value = value;
    finding.message = message;
  }
};

std::string hex(uint64_t v) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%" PRIx64, v);
  return buffer;
}

int32_t map_of(World& w, uint64_t handle) {
  if (handle < kMapHandle || handle - kMapHandle >= kMapCount) {
    w.report(FindingKind::helper_argument, handle, "helper map argument is not a map");
    return -1;
  }
  return static_cast<int32_t>(handle - kMapHandle);
}

// The value block for `key` in map `m`, or nullptr (a miss).
uint8_t* lookup(World& w, uint32_t m, const uint8_t* key) {
  uint64_t k = 0;
  std::memcpy(&k, key, kMaps[m].key_size);
  if (m == 0) return k < 4 ? w.entries[k] : nullptr;
  return (k & 1) == 0 ? w.entries[4 + (k >> 1) % 8] : nullptr;
}

uint64_t call_helper(int32_t id, HelperCall& call);

// HelperCall carries no id: one function per id, all the same.
template <int32_t Id>
uint64_t helper_with_id(HelperCall& call) {
  return call_helper(Id, call);
}
template <int32_t... Id>
constexpr std::array<HelperFn, sizeof...(Id)> make_table(std::integer_sequence<int32_t, Id...>) {
  return {&helper_with_id<Id>...};
}
constexpr auto kHelperFns = make_table(std::make_integer_sequence<int32_t, 256>());

// bpf_loop(nr, callback, ctx, flags): runs the callback as Linux does
// (kernel/bpf/bpf_iter.c), each call a guarded run of its own through a
// two-instruction trampoline, with the caller's stack as a region (ctx
// usually points there).
uint64_t run_bpf_loop(World& w, HelperCall& call) {
  const uint64_t nr = static_cast<uint32_t>(call.args[0]);
  if (call.args[3] != 0) return static_cast<uint64_t>(-22);  // -EINVAL: flags
  if (nr > kBpfLoopMax) return static_cast<uint64_t>(-7);     // -E2BIG
  const uint64_t handle = call.args[1];
  if (handle < kCodeHandle || handle - kCodeHandle >= w.callback_count - 2) {
    w.report(FindingKind::helper_argument, handle, "bpf_loop callback is not a function of the program");
    call.stop = true;
    return 0;
  }
  std::vector<Insn> insns(w.callback_insns, w.callback_insns + w.callback_count);
  insns[0].offset = static_cast<int32_t>(handle - kCodeHandle + 2 - 1);
  const Program program{insns.data(), w.callback_count};

  std::vector<Region> regions(w.regions, w.regions + w.region_count);
  regions.push_back(Region{w.stack_base, w.stack_size, true});
  const HelperTable helpers{kHelperFns.data(), static_cast<uint32_t>(kHelperFns.size()), &w};
  if (w.callback_stacks.size() <= w.callback_depth) w.callback_stacks.push_back(map_stack());
  RunStack* stack = w.callback_stacks[w.callback_depth++].get();
  // Filled once per bpf_loop call, not per iteration: an iteration may see
  // what the one before left, the same in both runs of the differential.
  std::memset(stack->bytes, w.stack_fill, sizeof stack->bytes);
  uint64_t i = 0;
  for (; i < nr; ++i) {
    RunOptions options;
    options.mode = RunMode::guarded;
    options.insn_budget = kBudgetCap;
    options.helpers = &helpers;
    options.regions = regions.data();
    options.region_count = static_cast<uint32_t>(regions.size());
    options.spec_guards = w.callback_guards;
    const RunResult r = run(program, i, call.args[2], options, *stack);
    w.callback_insns_run += r.insns_executed - (r.insns_executed >= 2 ? 2 : r.insns_executed);
    if (w.finding.found()) break;
    if (r.status == RunStatus::budget_exhausted || w.callback_insns_run > kBudgetCap) {
      w.callback_budget_hit = true;
      break;
    }
    if (r.status != RunStatus::ok) {
      w.report(r.status == RunStatus::out_of_bounds || r.status == RunStatus::address_overflow ? FindingKind::trap
                                                                                               : FindingKind::other_status,
               r.address, std::string("bpf_loop callback run stopped: ") + run_status_name(r.status) + " at pc " +
                              std::to_string(r.pc - 2) + " (address " + hex(r.address) + ")");
      w.finding.pc = r.pc - 2;
      break;
    }
    if (r.r0 == 1) {
      ++i;
      break;
    }
  }
  --w.callback_depth;
  if (w.finding.found() || w.callback_budget_hit) call.stop = true;
  return i;
}

// One helper, by id: checks the arguments against the prototype, then
// behaves as a harmless implementation of it that fills what it may write.
uint64_t call_helper(int32_t id, HelperCall& call) {
  World& w = *static_cast<World*>(call.user);
  const HelperSlot* slot = find_helper(*w.type, id);
  if (slot == nullptr || slot->proto == nullptr) {
    w.report(FindingKind::helper_argument, static_cast<uint64_t>(id), "call to a helper the type does not have");
    call.stop = true;
    return 0;
  }
  const HelperProto& proto = *slot->proto;

  int32_t map = -1;
  for (int i = 0; i < 5 && !w.finding.found(); ++i) {
    const uint64_t arg = call.args[i];
    const uint64_t next = i < 4 ? call.args[i + 1] : 0;
    const uint64_t next_size = i < 4 && proto.size_u32[i + 1] ? static_cast<uint32_t>(next) : next;
    const std::string where = std::string(proto.name) + " argument " + std::to_string(i + 1) + " ";
    switch (proto.args[i]) {
      case ArgKind::map_ptr: map = map_of(w, arg); break;
      case ArgKind::map_key:
        if (map < 0 || !w.holds(arg, kMaps[map].key_size, false))
          w.report(FindingKind::helper_argument, arg, where + "(map key) not readable");
        else
          w.absorb(arg, kMaps[map].key_size);
        break;
      case ArgKind::map_value:
        if (map < 0 || !w.holds(arg, kMaps[map].value_size, false))
          w.report(FindingKind::helper_argument, arg, where + "(map value) not readable");
        break;
      case ArgKind::map_value_or_null:
        if (arg != 0 && (map < 0 || !w.holds(arg, kMaps[map].value_size, false)))
          w.report(FindingKind::helper_argument, arg, where + "(map value) not readable");
        break;
      case ArgKind::mem:
      case ArgKind::mem_or_null:
        if (next_size != 0 && !(proto.args[i] == ArgKind::mem_or_null && arg == 0) && !w.holds(arg, next_size, false))
          w.report(FindingKind::helper_argument, arg, where + "(memory) not readable");
        else if (next_size != 0 && arg != 0)
          w.absorb(arg, next_size);
        break;
      case ArgKind::mem_writable:
      case ArgKind::mem_read_write:
        if (next_size != 0 && !w.holds(arg, next_size, true)) {
          w.report(FindingKind::helper_argument, arg, where + "(memory) not writable");
        } else if (next_size != 0) {
          if (proto.args[i] == ArgKind::mem_read_write) w.absorb(arg, next_size);
          fill_edge(w.random, reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(arg)), next_size);
        }
        break;
      case ArgKind::fixed_size_mem:
        if (!w.holds(arg, proto.arg_size[i], false))
          w.report(FindingKind::helper_argument, arg, where + "(fixed-size memory) not readable");
        else
          w.absorb(arg, proto.arg_size[i]);
        break;
      case ArgKind::fixed_size_mem_writable:
      case ArgKind::fixed_size_mem_read_write:
        if (!w.holds(arg, proto.arg_size[i], true)) {
          w.report(FindingKind::helper_argument, arg, where + "(fixed-size memory) not writable");
        } else {
          if (proto.args[i] == ArgKind::fixed_size_mem_read_write) w.absorb(arg, proto.arg_size[i]);
          fill_edge(w.random, reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(arg)), proto.arg_size[i]);
        }
        break;
      case ArgKind::ctx:
        if (arg != address_of(w.ctx)) w.report(FindingKind::helper_argument, arg, where + "is not the context");
        break;
      default:
        break;
    }
  }
  if (w.finding.found()) {
    call.stop = true;
    return 0;
  }

  if (id == kBpfLoop) return run_bpf_loop(w, call);
  if (proto.tail_call) return static_cast<uint64_t>(-2);  // -ENOENT: no program there, go on
  switch (proto.ret) {
    case RetKind::map_value_or_null:
    case RetKind::map_value: {
      // bpf_map_lookup_elem and its kind: the key is argument 2.
      if (map < 0) return 0;
      uint8_t* value = lookup(w, static_cast<uint32_t>(map), reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(call.args[1])));
      if (value == nullptr && proto.ret == RetKind::map_value) value = w.entries[map == 0 ? 0 : 4];
      return address_of(value);
    }
    case RetKind::alloc_mem_or_null:
    case RetKind::sock_or_null:
    case RetKind::sock_common_or_null:
    case RetKind::tcp_sock_or_null:
    case RetKind::btf_ptr_or_null:
      return 0;  // a ringbuf reservation, socket lookup or cast that fails
    case RetKind::none:
      return 0;
    default:
      // An integer the verifier knows nothing about; one bounded by the
      // size argument (Linux do_refine_retval_range) stays in its range.
      if (proto.ret_bounded_by_size) return w.random.below(2) == 0 ? 0 : static_cast<uint64_t>(-22);
      return edge_value(w.random);
  }
}

// Contiguous fields of the same writability as one region each.
void add_ctx_regions(World& w, const ProgramType& type) {
  uint32_t i = 0;
  while (i < type.field_count) {
    const CtxField& first = type.fields[i];
    const bool writable = first.write_sizes != 0;
    uint32_t end = first.offset + first.size;
    uint32_t j = i + 1;
    while (j < type.field_count && type.fields[j].offset == end && (type.fields[j].write_sizes != 0) == writable) {
      end = type.fields[j].offset + type.fields[j].size;
      ++j;
    }
    if (first.read_sizes != 0 || writable) w.add(address_of(w.ctx) + first.offset, end - first.offset, writable);
    i = j;
  }
}

// Fills every byte the program may read for input `seed`: map values,
// context, packet (and points the context's packet fields at it).
void fill_input(World& w, const ProgramType& type, uint64_t seed) {
  w.random.state = seed | 1;
  for (uint32_t e = 0; e < kEntries; ++e) fill_edge(w.random, w.entries[e], kMaps[e < 4 ? 0 : 1].value_size);
  fill_edge(w.random, w.ctx, type.ctx_size);
  for (uint32_t i = 0; i < type.field_count; ++i) {
    // No socket: the world has none to point to.
    if (type.fields[i].yields == CtxYield::sock_common_or_null) std::memset(w.ctx + type.fields[i].offset, 0, 8);
  }
  if (w.packet == nullptr) return;
  w.packet_length = w.random.below(8) == 0 ? w.random.below(kPacketRoom / 2)
                                           : kPacketLengths[w.random.below(sizeof kPacketLengths / sizeof kPacketLengths[0])];
  fill_edge(w.random, w.packet, w.packet_length);
  const auto data = static_cast<uint32_t>(address_of(w.packet)), end = data + w.packet_length;
  for (uint32_t i = 0; i < type.field_count; ++i) {
    const CtxField& f = type.fields[i];
    const uint64_t value = f.yields == CtxYield::packet_end ? end : data;  // no metadata: data_meta = data
    if (f.yields == CtxYield::packet || f.yields == CtxYield::packet_end || f.yields == CtxYield::packet_meta)
      std::memcpy(w.ctx + f.offset, &value, f.size < 8 ? f.size : 8);
  }
}

// What a run leaves behind, for the stack differential.
struct Outcome {
  RunResult result;
  uint64_t callback_insns = 0;
  std::vector<uint8_t> memory;  // maps, context, packet after the run
};

Outcome snapshot(const World& w, const ProgramType& type, const RunResult& r) {
  Outcome o;
  o.result = r;
  o.callback_insns = w.callback_insns_run;
  for (uint32_t e = 0; e < kEntries; ++e)
    o.memory.insert(o.memory.end(), w.entries[e], w.entries[e] + kMaps[e < 4 ? 0 : 1].value_size);
  o.memory.insert(o.memory.end(), w.ctx, w.ctx + type.ctx_size);
  if (w.packet != nullptr) o.memory.insert(o.memory.end(), w.packet, w.packet + w.packet_length);
  return o;
}

bool same(const Outcome& a, const Outcome& b) {
  return a.result.status == b.result.status && a.result.r0 == b.result.r0 && a.result.pc == b.result.pc &&
         a.result.insns_executed == b.result.insns_executed && a.callback_insns == b.callback_insns &&
         a.memory == b.memory;
}

// Whether `v` is an address (or a handle standing for one) the program was given.
bool is_address(const World& w, uint64_t v) {
  // Inclusive of the end: r10 points one past its frame.
  const auto in = [v](uint64_t base, uint64_t size) { return v - base <= size; };
  if (in(w.stack_base, w.stack_size) || in(address_of(pool()), uint64_t{kPoolSlot} * kPoolSlots)) return true;
  for (const MappedStack& stack : w.callback_stacks) {
    if (in(address_of(stack->bytes), sizeof stack->bytes)) return true;
  }
  // The page the packet of this run is in (packet_page()).
  if (w.packet != nullptr && in(address_of(w.packet) - kPacketStart, 2 * kPacketRoom)) return true;
  return in(kMapHandle, kMapCount) || in(kCodeHandle, w.callback_count);
}

// r0 if it holds an address, or the first 8-byte window of `o`'s memory
// that holds one and was written by the run (the context holds packet
// addresses from the start).
bool leaks(const World& w, const Outcome& before, const Outcome& o, uint64_t& address) {
  if (is_address(w, o.result.r0)) {
    address = o.result.r0;
    return true;
  }
  for (size_t i = 0; i + 8 <= o.memory.size(); ++i) {
    if (std::memcmp(before.memory.data() + i, o.memory.data() + i, 8) == 0) continue;
    uint64_t v;
    std::memcpy(&v, o.memory.data() + i, 8);
    if (is_address(w, v)) {
      address = v;
      return true;
    }
  }
  return false;
}

}  // namespace

const char* finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::none: return "none";
    case FindingKind::trap: return "trap";
    case FindingKind::budget_overrun: return "budget_overrun";
    case FindingKind::saturated_bound: return "saturated_bound";
    case FindingKind::uninit_read: return "uninit_read";
    case FindingKind::helper_argument: return "helper_argument";
    case FindingKind::pointer_leak: return "pointer_leak";
    case FindingKind::spec_guard: return "spec_guard";
    case FindingKind::other_status: return "other_status";
  }
  return "invalid";
}

namespace {

// run_accepted() with the packet in its first page or, `moved`, in the second.
Finding run_with_packet_in(const Program& decoded, const ProgramType& type, const Verdict& verdict, uint64_t seed,
                           uint32_t inputs, bool unprivileged, uint32_t* runs, const SpecGuard* spec_guards,
                           bool moved) {
  if (runs != nullptr) *runs = 0;
  Finding none;
  // A saturated bound is reported after the runs, so that a trap in the
  // same program is not hidden behind it.
  if (verdict.max_insns_executed == UINT64_MAX) {
    none.kind = FindingKind::saturated_bound;
    none.value = verdict.max_insns_executed;
    none.message = "accepted with max_insns_executed = UINT64_MAX: the bound saturated";
  }

  // Resolve the map and code references as a loader would; the callback
  // copy starts with a call into the callback and an exit.
  std::vector<Insn> insns(decoded.insns, decoded.insns + decoded.count);
  std::vector<Insn> callback_insns(decoded.count + 2);
  callback_insns[0] = Insn{Op::call_local, 0, 0, 0x85, 0, 0};
  callback_insns[1] = Insn{Op::exit, 0, 0, 0x95, 0, 0};
  World w;
  w.type = &type;
  for (uint32_t e = 0; e < kEntries; ++e) {
    const uint32_t size = kMaps[e < 4 ? 0 : 1].value_size;
    w.entries[e] = pool_block(e);
    w.add(address_of(w.entries[e]), size, true);
  }
  for (uint32_t pc = 0; pc < decoded.count; ++pc) {
    Insn& insn = insns[pc];
    if (insn.op == Op::lddw_map_fd || insn.op == Op::lddw_map_idx) {
      insn.imm = static_cast<int64_t>(kMapHandle + static_cast<uint64_t>(insn.imm));
      insn.op = Op::lddw_imm64;
    } else if (insn.op == Op::lddw_map_value || insn.op == Op::lddw_map_idx_value) {
      if (insn.imm != 0) return none;  // the verifier allows direct values of the array map only
      insn.imm = static_cast<int64_t>(address_of(w.entries[0]) + static_cast<uint64_t>(insns[pc + 1].imm));
      insn.op = Op::lddw_imm64;
    } else if (insn.op == Op::lddw_code_addr) {
      insn.imm = static_cast<int64_t>(kCodeHandle + pc + 1 + static_cast<uint64_t>(insn.imm));
      insn.op = Op::lddw_imm64;
    }
  }
  std::copy(insns.begin(), insns.end(), callback_insns.begin() + 2);
  std::vector<SpecGuard> callback_guards;
  if (spec_guards != nullptr) {
    callback_guards.resize(decoded.count + 2);
    std::copy(spec_guards, spec_guards + decoded.count, callback_guards.begin() + 2);
  }
  w.callback_insns = callback_insns.data();
  w.callback_count = static_cast<uint32_t>(callback_insns.size());

  if (type.ctx_size > kPoolSlot / 2) return none;  // no such Linux type
  w.ctx = pool_block(kEntries);
  add_ctx_regions(w, type);
  bool has_packet = false;
  for (uint32_t i = 0; i < type.field_count; ++i) has_packet |= type.fields[i].yields == CtxYield::packet;
  if (has_packet && type.direct_packet_access) {
    uint8_t* page = packet_page(moved);
    if (page == nullptr) return none;
    w.packet = page + kPacketStart;
  }
  const uint32_t fixed_regions = w.region_count;

  thread_local MappedStack stack = map_stack();
  w.stack_base = address_of(stack->bytes);
  w.stack_size = sizeof stack->bytes;
  const HelperTable helpers{kHelperFns.data(), static_cast<uint32_t>(kHelperFns.size()), &w};
  const bool judged_budget = verdict.max_insns_executed <= kBudgetCap;
  const Program program{insns.data(), decoded.count};
  Random inputs_random{seed | 1};

  for (uint32_t input = 0; input < inputs; ++input) {
    const uint64_t input_seed = inputs_random.next();
    Outcome first;
    // The same input twice, with never-written stack bytes 0x00 then 0xa5:
    // a verified program cannot tell them apart. Then, with a hardening
    // table, once more hardened: masks and barriers must change nothing an
    // architectural run does.
    const uint32_t passes = spec_guards != nullptr ? 3 : 2;
    for (uint32_t pass = 0; pass < passes; ++pass) {
      const uint8_t fill = pass == 1 ? 0xa5 : 0x00;
      const bool hardened = pass == 2;
      w.callback_guards = hardened ? callback_guards.data() : nullptr;
      w.region_count = fixed_regions;
      fill_input(w, type, input_seed);
      if (w.packet != nullptr && w.packet_length != 0) w.add(address_of(w.packet), w.packet_length, type.packet_writable);
      w.stack_fill = fill;
      w.callback_insns_run = 0;
      w.callback_budget_hit = false;
      std::memset(stack->bytes, fill, sizeof stack->bytes);
      const Outcome before = snapshot(w, type, RunResult{});
      RunOptions options;
      options.mode = RunMode::guarded;
      options.insn_budget = judged_budget ? verdict.max_insns_executed : kBudgetCap;
      options.helpers = &helpers;
      options.regions = w.regions;
      options.region_count = w.region_count;
      options.spec_guards = hardened ? spec_guards : nullptr;
      const RunResult r = run(program, address_of(w.ctx), 0, options, *stack);
      if (runs != nullptr) ++*runs;

      if (w.finding.found()) {
        if (w.finding.kind == FindingKind::helper_argument) w.finding.pc = r.pc;
        return w.finding;
      }
      Finding f;
      f.pc = r.pc;
      f.value = r.address;
      const bool unjudged = !judged_budget || w.callback_budget_hit;
      switch (r.status) {
        case RunStatus::ok:
        case RunStatus::legacy_packet_load:  // FIXME in interp.cc: no packet model for ld_abs/ld_ind yet
          break;
        case RunStatus::budget_exhausted:
          if (unjudged) break;
          f.kind = FindingKind::budget_overrun;
          f.value = verdict.max_insns_executed;
          f.message = "ran past Verdict::max_insns_executed = " + std::to_string(verdict.max_insns_executed);
          return f;
        case RunStatus::out_of_bounds:
        case RunStatus::address_overflow:
          f.kind = FindingKind::trap;
          f.message = std::string("guarded run trapped: ") + run_status_name(r.status) + " at pc " +
                      std::to_string(r.pc) + " (address " + hex(r.address) + ")";
          return f;
        default:
          f.kind = FindingKind::other_status;
          f.message = std::string("guarded run stopped: ") + run_status_name(r.status) + " at pc " + std::to_string(r.pc);
          return f;
      }
      if (!unjudged && r.status == RunStatus::ok && r.insns_executed + w.callback_insns_run > verdict.max_insns_executed) {
        f.kind = FindingKind::budget_overrun;
        f.value = verdict.max_insns_executed;
        f.message = "program and bpf_loop callbacks ran " + std::to_string(r.insns_executed + w.callback_insns_run) +
                    " instructions, past Verdict::max_insns_executed = " + std::to_string(verdict.max_insns_executed);
        return f;
      }
      Outcome now = snapshot(w, type, r);
      uint64_t address = 0;
      if (unprivileged && r.status == RunStatus::ok && leaks(w, before, now, address)) {
        if (!moved && in_packet_page(address, false)) {
          // The packet page lies below 4 GiB (its 32-bit context fields hold
          // its addresses), so a 32-bit scalar, e.g. from bpf_get_prandom_u32,
          // can hold the same number as an address in it by chance. A packet
          // pointer, or any number made from one, moves with the packet; such
          // a number does not. So the whole judgement is made again with the
          // packet in a second page at another address, where the same
          // number is no address at all: what that run finds (a leak of the
          // moved packet, or anything else) is the judgement.
          uint32_t moved_runs = 0;
          const Finding again = run_with_packet_in(decoded, type, verdict, seed, inputs, unprivileged, &moved_runs,
                                                   spec_guards, true);
          if (runs != nullptr) *runs += moved_runs;
          return again;
        }
        f.kind = FindingKind::pointer_leak;
        f.value = address;
        f.message = "an unprivileged program let out the address " + hex(address) + " (in r0 or stored in a map, "
                    "the context or the packet)";
        return f;
      }
      if (pass == 0) {
        first = std::move(now);
      } else if (hardened && !unjudged && !same(first, now)) {
        f.kind = FindingKind::spec_guard;
        f.message = "the hardened run differs from the plain one (r0 " + hex(first.result.r0) + " vs " +
                    hex(now.result.r0) + ", stopped at pc " + std::to_string(first.result.pc) + " vs " +
                    std::to_string(now.result.pc) + ")";
        return f;
      } else if (!hardened && !unjudged && !same(first, now)) {
        f.kind = FindingKind::uninit_read;
        f.message = "the outcome depends on never-written stack bytes (r0 " + hex(first.result.r0) + " vs " +
                    hex(now.result.r0) + ", stopped at pc " + std::to_string(first.result.pc) + " vs " +
                    std::to_string(now.result.pc) + ")";
        return f;
      }
    }
  }
  return none;
}

}  // namespace

Finding run_accepted(const Program& decoded, const ProgramType& type, const Verdict& verdict, uint64_t seed,
                     uint32_t inputs, bool unprivileged, uint32_t* runs, const SpecGuard* spec_guards) {
  return run_with_packet_in(decoded, type, verdict, seed, inputs, unprivileged, runs, spec_guards, false);
}

VerifyOptions verify_options(bool privileged) {
  VerifyOptions options;
  options.maps = kMaps;
  options.map_count = kMapCount;
  options.privileged = privileged;
  // Unprivileged Linux also explores mispredicted branches (Spectre v1).
  options.speculative_paths = !privileged;
  // Bounded so that every generated program verifies in milliseconds under
  // the sanitizers; a program that needs more is rejected as too_complex.
  options.max_iterations = 1u << 16;
  return options;
}

Judgement judge(const uint8_t* bytes, size_t size, const ProgramType& type, const VerifyOptions& options,
                uint64_t seed, uint32_t inputs) {
  Judgement j;
  DecodeOptions decode_options;
  decode_options.max_insns = kMaxInsns;
  thread_local std::vector<uint8_t> decode_memory(kMaxInsns * 20 + 64);
  Arena decode_arena(decode_memory.data(), decode_memory.size());
  Program program;
  if (!decode(bytes, size, decode_options, decode_arena, program).ok()) return j;
  j.decoded = true;
  thread_local std::vector<uint8_t> arena_memory(8u << 20);
  Arena arena(arena_memory.data(), arena_memory.size());
  std::vector<SpecGuard> guards;
  VerifyOptions with_guards = options;
  if (!options.privileged) {
    guards.resize(program.count);
    with_guards.spec_guards = guards.data();
  }
  j.verdict = verify(program, type, with_guards, arena);
  if (!j.verdict.ok()) return j;
  j.finding = run_accepted(program, type, j.verdict, seed, inputs, !options.privileged, &j.runs,
                           options.privileged ? nullptr : guards.data());
  return j;
}

}  // namespace keel::fuzzgen
