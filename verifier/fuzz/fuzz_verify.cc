// fuzz_verify: any bytes -> keel::decode -> keel::verify as socket_filter
// and as xdp, with an array map and a hash map, in a large and a small
// arena; every accepted program then runs in guarded mode on random
// context, packet and map contents. Properties: no crash or UB; a defined
// Reason; describe() renders like snprintf; a small arena gives the same
// verdict or out_of_memory. The soundness oracle: an accepted program never
// traps, never runs more instructions than Verdict::max_insns_executed, and
// passes its helpers only what their prototypes allow (each memory argument
// checked against the memory the run granted). Such a failure is a verifier
// finding: the message names the type, the status and the pc.
//
// Memory as the program sees it: the context is a heap copy of the type's
// context size whose fields become regions (adjacent fields of the same
// writability merged; gaps are no region at all); the xdp packet lives in
// the low 2 GiB (MAP_32BIT) because xdp_md holds 32-bit packet pointers;
// every map entry is its own heap block and region.
#include <sys/mman.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "fuzz_check.h"
#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/platform_linux.h"
#include "keel/verify.h"

namespace {

using keel::ArgKind;
using keel::HelperCall;
using keel::Op;
using keel::Reason;
using keel::Region;
using keel::RetKind;
using keel::RunStatus;

constexpr uint32_t kMaxInsns = 4096;
constexpr size_t kLargeArena = 32u << 20;
constexpr size_t kSmallArena = 16u << 10;
constexpr uint64_t kBudgetCap = 1u << 16;       // runs whose bound is larger stop here unjudged
constexpr uint64_t kMapHandle = 0xbadc0de00000000ULL;  // r = kMapHandle + index for lddw map_fd
constexpr uint32_t kPacketRoom = 4096;

// The maps every program may name (lddw imm = index).
constexpr keel::MapDescriptor kMaps[] = {
    {keel::MapType::array, 4, 48, 4, false, false},
    {keel::MapType::hash, 8, 16, 8, false, false},
};
constexpr uint32_t kMapCount = sizeof kMaps / sizeof kMaps[0];
constexpr uint32_t kEntries = 4 + 8;

uint64_t address_of(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// xorshift64*: the contents of one run.
struct Random {
  uint64_t state;
  uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
  }
  void fill(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(next() >> 56);
  }
};

// Everything one guarded run may touch, for the helpers' argument checks.
struct World {
  const keel::ProgramType* type = nullptr;
  const char* type_name = "";
  Region regions[keel::kMaxRegions];
  uint32_t region_count = 0;
  uint8_t* entries[kEntries] = {};        // map values: array 0..3, hash 4..11
  uint8_t* ctx = nullptr;
  uint64_t stack_base = 0, stack_size = 0;
  Random random{1};
  uint32_t pc_hint = 0;

  void add(uint64_t base, uint64_t size, bool writable) {
    KEEL_FUZZ_CHECK(region_count < keel::kMaxRegions);
    regions[region_count++] = Region{base, size, writable};
  }
  bool holds(uint64_t base, uint64_t size, bool write) const {
    if (base >= stack_base && size <= stack_size && base - stack_base <= stack_size - size) return true;
    for (uint32_t i = 0; i < region_count; ++i) {
      const Region& r = regions[i];
      if ((r.writable || !write) && base >= r.base && size <= r.size && base - r.base <= r.size - size) return true;
    }
    return false;
  }
};

[[noreturn]] void finding(const World& w, const char* what, uint64_t value) {
  std::fprintf(stderr, "fuzz_verify: soundness finding (type %s): %s (value 0x%llx)\n", w.type_name, what,
               static_cast<unsigned long long>(value));
  std::abort();
}

uint32_t map_of(const World& w, uint64_t handle) {
  if (handle < kMapHandle || handle - kMapHandle >= kMapCount) finding(w, "helper map argument is not a map", handle);
  return static_cast<uint32_t>(handle - kMapHandle);
}

// The value block for `key` in map `m`, or nullptr (a miss).
uint8_t* lookup(World& w, uint32_t m, const uint8_t* key) {
  uint64_t k = 0;
  std::memcpy(&k, key, kMaps[m].key_size);
  if (m == 0) return k < 4 ? w.entries[k] : nullptr;
  return (k & 1) == 0 ? w.entries[4 + (k >> 1) % 8] : nullptr;  // the hash map holds the even keys
}

// One helper, by id: checks the arguments against the prototype, then
// behaves as a harmless implementation of it.
uint64_t call_helper(int32_t id, HelperCall& call) {
  World& w = *static_cast<World*>(call.user);
  const keel::HelperSlot* slot = keel::find_helper(*w.type, id);
  if (slot == nullptr || slot->proto == nullptr) finding(w, "call to a helper the type does not have", static_cast<uint64_t>(id));
  const keel::HelperProto& proto = *slot->proto;

  int32_t map = -1;
  for (int i = 0; i < 5; ++i) {
    const uint64_t arg = call.args[i];
    const uint64_t next = i < 4 ? call.args[i + 1] : 0;
    switch (proto.args[i]) {
      case ArgKind::map_ptr: map = static_cast<int32_t>(map_of(w, arg)); break;
      case ArgKind::map_key:
        if (map < 0 || !w.holds(arg, kMaps[map].key_size, false)) finding(w, "helper map key not readable", arg);
        break;
      case ArgKind::map_value:
        if (map < 0 || !w.holds(arg, kMaps[map].value_size, false)) finding(w, "helper map value not readable", arg);
        break;
      case ArgKind::map_value_or_null:
        if (arg != 0 && (map < 0 || !w.holds(arg, kMaps[map].value_size, false))) finding(w, "helper map value not readable", arg);
        break;
      case ArgKind::mem:
      case ArgKind::mem_or_null:
        if (next != 0 && !(proto.args[i] == ArgKind::mem_or_null && arg == 0) && !w.holds(arg, next, false))
          finding(w, "helper memory argument not readable", arg);
        break;
      case ArgKind::mem_writable:
      case ArgKind::mem_read_write:
        if (next != 0 && !w.holds(arg, next, true)) finding(w, "helper memory argument not writable", arg);
        break;
      case ArgKind::fixed_size_mem:
        if (!w.holds(arg, proto.arg_size[i], false)) finding(w, "helper fixed-size argument not readable", arg);
        break;
      case ArgKind::fixed_size_mem_writable:
      case ArgKind::fixed_size_mem_read_write:
        if (!w.holds(arg, proto.arg_size[i], true)) finding(w, "helper fixed-size argument not writable", arg);
        break;
      case ArgKind::ctx:
        if (arg != address_of(w.ctx)) finding(w, "helper context argument is not the context", arg);
        break;
      default:
        break;
    }
  }

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
      return 0;  // ringbuf reserve that fails
    case RetKind::sock_or_null:
    case RetKind::sock_common_or_null:
    case RetKind::tcp_sock_or_null:
      return 0;  // a socket lookup that finds none
    case RetKind::none:
      return 0;
    default:
      return w.random.next();  // an integer the verifier knows nothing about
  }
}

// HelperCall carries no id: one function per id, all the same.
template <int32_t Id>
uint64_t helper_with_id(HelperCall& call) {
  return call_helper(Id, call);
}
template <int32_t... Id>
constexpr std::array<keel::HelperFn, sizeof...(Id)> make_table(std::integer_sequence<int32_t, Id...>) {
  return {&helper_with_id<Id>...};
}
constexpr auto kHelperFns = make_table(std::make_integer_sequence<int32_t, 256>());

// Contiguous fields of the same writability as one region each.
void add_ctx_regions(World& w, const keel::ProgramType& type) {
  uint32_t i = 0;
  while (i < type.field_count) {
    const keel::CtxField& first = type.fields[i];
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

uint8_t* packet_page() {
  static uint8_t* page = [] {
    void* p = mmap(nullptr, 2 * kPacketRoom, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
  }();
  return page;
}

// Runs an accepted program once on random contents; any trap is a finding.
void run_accepted(const keel::Program& decoded, const keel::ProgramType& type, const keel::Verdict& verdict,
                  uint64_t seed) {
  // Resolve the map references as a loader would.
  std::unique_ptr<keel::Insn[]> insns(new keel::Insn[decoded.count]);
  std::memcpy(insns.get(), decoded.insns, decoded.count * sizeof(keel::Insn));

  World w;
  w.type = &type;
  w.type_name = type.name;
  w.random.state = seed | 1;
  std::unique_ptr<uint8_t[]> entries[kEntries];
  for (uint32_t e = 0; e < kEntries; ++e) {
    const uint32_t size = kMaps[e < 4 ? 0 : 1].value_size;
    entries[e].reset(new uint8_t[size]);
    w.random.fill(entries[e].get(), size);
    w.entries[e] = entries[e].get();
    w.add(address_of(w.entries[e]), size, true);
  }
  for (uint32_t pc = 0; pc < decoded.count; ++pc) {
    keel::Insn& insn = insns[pc];
    if (insn.op == Op::lddw_map_fd || insn.op == Op::lddw_map_idx) {
      insn.imm = static_cast<int64_t>(kMapHandle + static_cast<uint64_t>(insn.imm));
      insn.op = Op::lddw_imm64;
    } else if (insn.op == Op::lddw_map_value || insn.op == Op::lddw_map_idx_value) {
      KEEL_FUZZ_CHECK(insn.imm == 0);  // the verifier allows direct values of the array map only
      insn.imm = static_cast<int64_t>(address_of(w.entries[0]) + static_cast<uint64_t>(insns[pc + 1].imm));
      insn.op = Op::lddw_imm64;
    }
  }

  std::unique_ptr<uint8_t[]> ctx(new uint8_t[type.ctx_size]);
  w.ctx = ctx.get();
  w.random.fill(w.ctx, type.ctx_size);
  for (uint32_t i = 0; i < type.field_count; ++i) {
    // __sk_buff.sk: no socket (the world has none to point to).
    if (type.fields[i].yields == keel::CtxYield::sock_common_or_null) std::memset(w.ctx + type.fields[i].offset, 0, 8);
  }
  add_ctx_regions(w, type);
  if (type.direct_packet_access) {
    uint8_t* page = packet_page();
    if (page == nullptr) return;
    const uint32_t length = static_cast<uint32_t>(w.random.next() % 256);
    uint8_t* data = page + 256;
    w.random.fill(data, length);
    const auto data32 = static_cast<uint32_t>(address_of(data)), end32 = data32 + length;
    // xdp_md: data, data_end, data_meta (no metadata: = data).
    std::memcpy(w.ctx + 0, &data32, 4);
    std::memcpy(w.ctx + 4, &end32, 4);
    std::memcpy(w.ctx + 8, &data32, 4);
    if (length != 0) w.add(address_of(data), length, type.packet_writable);
  }

  std::unique_ptr<keel::RunStack> stack(new keel::RunStack());
  w.stack_base = address_of(stack->bytes);
  w.stack_size = sizeof stack->bytes;
  const keel::HelperTable helpers{kHelperFns.data(), static_cast<uint32_t>(kHelperFns.size()), &w};
  keel::RunOptions options;
  options.mode = keel::RunMode::guarded;
  const bool judged_budget = verdict.max_insns_executed != 0 && verdict.max_insns_executed <= kBudgetCap;
  options.insn_budget = judged_budget ? verdict.max_insns_executed : kBudgetCap;
  options.helpers = &helpers;
  options.regions = w.regions;
  options.region_count = w.region_count;
  const keel::Program program{insns.get(), decoded.count};
  const keel::RunResult r = keel::run(program, address_of(w.ctx), 0, options, *stack);

  // A callback's address (lddw code_addr): the interpreter runs no
  // callbacks (design.md, "Callbacks"); every other lddw was resolved above.
  if (r.status == RunStatus::unresolved_lddw && insns[r.pc].op == Op::lddw_code_addr) return;
  switch (r.status) {
    case RunStatus::ok: return;
    case RunStatus::legacy_packet_load: return;  // FIXME in interp.cc: no packet model for ld_abs/ld_ind yet
    case RunStatus::budget_exhausted:
      if (!judged_budget) return;
      std::fprintf(stderr, "fuzz_verify: bound %llu instructions exceeded at pc %u\n",
                   static_cast<unsigned long long>(verdict.max_insns_executed), r.pc);
      finding(w, "accepted program ran longer than Verdict::max_insns_executed", verdict.max_insns_executed);
    default:
      std::fprintf(stderr, "fuzz_verify: accepted program trapped: %s at pc %u (address 0x%llx)\n",
                   keel::run_status_name(r.status), r.pc, static_cast<unsigned long long>(r.address));
      finding(w, "accepted program trapped in guarded mode", r.pc);
  }
}

void check_describe(const keel::Verdict& v) {
  char large[512];
  const size_t length = keel::describe(v, large, sizeof large);
  KEEL_FUZZ_CHECK(length < sizeof large && std::strlen(large) == length);
  for (const size_t size : {size_t{0}, size_t{1}, size_t{9}, length, length + 1}) {
    std::unique_ptr<char[]> buffer(new char[size == 0 ? 1 : size]);
    buffer[0] = 'x';
    KEEL_FUZZ_CHECK(keel::describe(v, buffer.get(), size) == length);
    if (size == 0) {
      KEEL_FUZZ_CHECK(buffer[0] == 'x');
      continue;
    }
    const size_t written = std::strlen(buffer.get());
    KEEL_FUZZ_CHECK(written == (length < size ? length : size - 1) && std::memcmp(buffer.get(), large, written) == 0);
  }
}

keel::Verdict verify_checked(const keel::Program& program, const keel::ProgramType& type, uint8_t* memory,
                             size_t bytes) {
  keel::Arena arena(memory, bytes);
  keel::VerifyOptions options;
  options.maps = kMaps;
  options.map_count = kMapCount;
  // A low cap keeps every input fast under the fuzzer's instrumentation, so
  // a future input that needs many visits shows up as too_complex here and
  // as a finding in a longer run rather than as a libFuzzer timeout. (The
  // pointer-loop inputs that once took 2^20 visits now settle in a few:
  // verify_test's VerifyCost.PointerSteppingLoopReachesItsFixpointQuickly.)
  options.max_iterations = 1u << 13;
  const keel::Verdict v = keel::verify(program, type, options, arena);
  KEEL_FUZZ_CHECK(v.reason <= Reason::out_of_memory);
  KEEL_FUZZ_CHECK(std::strcmp(keel::reason_name(v.reason), "invalid") != 0);
  KEEL_FUZZ_CHECK(v.ok() || v.reason == Reason::out_of_memory || v.pc < program.count);
  if (v.ok()) KEEL_FUZZ_CHECK(v.stack_depth <= keel::kStackSize * keel::kMaxCallDepth);
  check_describe(v);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  keel::DecodeOptions decode_options;
  decode_options.max_insns = kMaxInsns;
  std::unique_ptr<uint8_t[]> decode_memory(new uint8_t[kMaxInsns * 20 + 64]);
  keel::Arena decode_arena(decode_memory.get(), kMaxInsns * 20 + 64);
  keel::Program program;
  if (!keel::decode(data, size, decode_options, decode_arena, program).ok()) return 0;

  static uint8_t large_arena[kLargeArena];  // a global: ASan guards its ends
  const keel::Platform& platform = keel::linux_platform();
  for (const char* name : {"socket_filter", "xdp"}) {
    const keel::ProgramType* type = keel::find_program_type(platform, name);
    KEEL_FUZZ_CHECK(type != nullptr);
    const keel::Verdict large = verify_checked(program, *type, large_arena, kLargeArena);
    {
      std::unique_ptr<uint8_t[]> small_arena(new uint8_t[kSmallArena]);
      const keel::Verdict small = verify_checked(program, *type, small_arena.get(), kSmallArena);
      KEEL_FUZZ_CHECK(small.reason == Reason::out_of_memory ||
                      (small.reason == large.reason && small.pc == large.pc));
    }
    if (!large.ok()) continue;
    const uint64_t seed = keel::fuzz::pick(data, size, 0x5eed);
    for (uint64_t run = 0; run < 3; ++run) run_accepted(program, *type, large, seed + run * 0x9e3779b97f4a7c15ULL);
  }
  return 0;
}
