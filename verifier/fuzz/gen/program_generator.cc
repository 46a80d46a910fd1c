// The program generator (program_generator.h). A program is one function
// body: r6 = context, r7 = the value being narrowed and used, r8 = a map
// value pointer (after a lookup), r9 = what the uses loaded, r5 = a loop
// counter; then the BPF-to-BPF callees and bpf_loop callbacks it named,
// each a body of its own. Every conditional that proves something bad
// leaves through the function's `bail` block (r0 = 0; exit). Encodings:
// RFC 9669 §3 (classes, sizes, modes) and §4 (operation codes).
#include "program_generator.h"

#include <cstring>

#include "keel/platform.h"
#include "keel/platform_linux.h"
#include "oracle.h"

namespace keel::fuzzgen {

Choices::Choices(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL) {}

Choices::Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}

uint32_t Choices::next32() {
  if (data_ != nullptr) {
    uint32_t v = 0;
    for (int i = 0; i < 4 && used_ < size_; ++i) v |= uint32_t{data_[used_++]} << (8 * i);
    return v;
  }
  // splitmix64: every seed, even 0, gives a well-mixed stream.
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<uint32_t>((z ^ (z >> 31)) >> 32);
}

namespace {

// RFC 9669 §3 / §4 encodings.
constexpr uint8_t kLdx = 0x01, kSt = 0x02, kStx = 0x03, kAlu = 0x04, kJmp = 0x05, kJmp32 = 0x06, kAlu64 = 0x07;
constexpr uint8_t kMem = 0x60, kSrcX = 0x08;
constexpr uint8_t kAdd = 0x00, kSub = 0x10, kMul = 0x20, kDiv = 0x30, kOr = 0x40, kAnd = 0x50, kLsh = 0x60,
                  kRsh = 0x70, kNeg = 0x80, kMod = 0x90, kXor = 0xa0, kMov = 0xb0, kArsh = 0xc0, kEnd = 0xd0;
constexpr uint8_t kJa = 0x00, kCall = 0x80, kExit = 0x90;
constexpr uint8_t kJumpOps[] = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0xa0, 0xb0, 0xc0, 0xd0};  // jeq..jsle
constexpr uint8_t kLddw = 0x18;
constexpr uint8_t kPseudoMapFd = 1, kPseudoCall = 1, kPseudoFunc = 4;
constexpr int32_t kHelperMapLookup = 1, kHelperKtime = 5, kHelperPrandom = 7, kHelperSkbLoadBytes = 26,
                  kHelperProbeReadKernel = 113, kHelperCheckMtu = 163, kHelperLoop = 181, kHelperXdpLoadBytes = 189;

uint8_t size_code(uint32_t bytes) {
  switch (bytes) {
    case 1: return 0x10;
    case 2: return 0x08;
    case 4: return 0x00;
    default: return 0x18;
  }
}

// 32-bit constants where bounds reasoning changes its mind: zero, one,
// minus one, the signed and unsigned limits, map value / stack / packet
// sizes and one either side, shift widths.
constexpr int32_t kEdges32[] = {0, 1, -1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65,
                                127, 128, 255, 256, 511, 512, 513, 4095, 0x7fff, 0x8000, 0xffff, 0x10000,
                                INT32_MAX, INT32_MIN, INT32_MIN + 1, INT32_MAX - 1, -8, -16, -48, -64,
                                -511, -512, -513, -4096};
// 64-bit ones, loaded with lddw.
constexpr uint64_t kEdges64[] = {0x100000000ULL, 0xffffffffULL, 0x80000000ULL, 0x7fffffffffffffffULL,
                                 0x8000000000000000ULL, 0xffffffff00000000ULL, 0x1ffffffffULL,
                                 0xffffffff80000000ULL, 0x00000000ffffffffULL + 1 + 48};

class Emitter {
 public:
  void emit(uint8_t opcode, uint8_t dst, uint8_t src, int16_t offset, int32_t imm) {
    slots_.push_back(Slot{opcode, static_cast<uint8_t>((src << 4) | dst), offset, imm});
  }
  void lddw(uint8_t dst, uint8_t src, uint64_t imm) {
    emit(kLddw, dst, src, 0, static_cast<int32_t>(static_cast<uint32_t>(imm)));
    emit(0, 0, 0, 0, static_cast<int32_t>(static_cast<uint32_t>(imm >> 32)));
  }
  int label() {
    labels_.push_back(-1);
    return static_cast<int>(labels_.size() - 1);
  }
  void bind(int label) { labels_[static_cast<size_t>(label)] = static_cast<int64_t>(slots_.size()); }
  // A jump (offset) or a call / lddw code address (imm) to `label`.
  void jump(uint8_t opcode, uint8_t dst, uint8_t src, int32_t imm, int label) {
    fixups_.push_back(Fixup{slots_.size(), label, false});
    emit(opcode, dst, src, 0, imm);
  }
  void call_local(int label) {
    fixups_.push_back(Fixup{slots_.size(), label, true});
    emit(kJmp | kCall, 0, kPseudoCall, 0, 0);
  }
  void lddw_func(uint8_t dst, int label) {
    fixups_.push_back(Fixup{slots_.size(), label, true});
    lddw(dst, kPseudoFunc, 0);
  }
  size_t size() const { return slots_.size(); }
  bool referenced(int label) const {
    for (const Fixup& f : fixups_) {
      if (f.label == label) return true;
    }
    return false;
  }

  std::vector<uint8_t> finish() {
    for (const Fixup& f : fixups_) {
      const int64_t relative = labels_[static_cast<size_t>(f.label)] - static_cast<int64_t>(f.slot) - 1;
      if (f.in_imm) slots_[f.slot].imm = static_cast<int32_t>(relative);
      else slots_[f.slot].offset = static_cast<int16_t>(relative);
    }
    std::vector<uint8_t> bytes(slots_.size() * 8);
    for (size_t i = 0; i < slots_.size(); ++i) {
      const Slot& s = slots_[i];
      uint8_t* p = bytes.data() + i * 8;
      p[0] = s.opcode;
      p[1] = s.regs;
      std::memcpy(p + 2, &s.offset, 2);  // little-endian host (x86-64, AArch64)
      std::memcpy(p + 4, &s.imm, 4);
    }
    return bytes;
  }

 private:
  struct Slot {
    uint8_t opcode;
    uint8_t regs;
    int16_t offset;
    int32_t imm;
  };
  struct Fixup {
    size_t slot;
    int label;
    bool in_imm;
  };
  std::vector<Slot> slots_;
  std::vector<int64_t> labels_;
  std::vector<Fixup> fixups_;
};

// What the function being generated has in its registers.
struct Frame {
  bool ctx = false;          // r6 holds the context
  bool map_value = false;    // r8 holds a non-NULL map value pointer
  uint32_t value_size = 0;   // of that map value
  bool callback = false;     // a bpf_loop callback: r0 must be 0 or 1
  bool stack_ctx = false;    // callback: r2 held the caller's stack slot (now in r8 as a stack pointer)
  int bail = 0;
};

// A callee or callback to emit after the main body.
struct Pending {
  int label;
  bool callback;
  bool map_value;   // callee: r2 is a map value pointer
  uint32_t value_size;
  bool stack_ctx;   // callback: r2 is a pointer to the caller's stack
};

class Generator {
 public:
  Generator(Choices& c, const ProgramType& type, bool privileged) : c_(c), type_(type), privileged_(privileged) {
    for (uint32_t i = 0; i < type.field_count; ++i) {
      const CtxField& f = type.fields[i];
      if (f.privileged && !privileged) continue;
      if (f.yields == CtxYield::packet) data_field_ = static_cast<int32_t>(i);
      if (f.yields == CtxYield::packet_end) end_field_ = static_cast<int32_t>(i);
    }
    packet_ = type.direct_packet_access && data_field_ >= 0 && end_field_ >= 0;
  }

  std::vector<uint8_t> program() {
    Frame main;
    main.ctx = true;
    e_.emit(kAlu64 | kMov | kSrcX, 6, 1, 0, 0);
    e_.emit(kAlu64 | kMov, 9, 0, 0, 0);
    // Most programs initialise their stack scratch; some read it unwritten.
    if (c_.chance(80)) {
      for (int16_t off = -16; off >= -64; off -= 8) e_.emit(kSt | kMem | size_code(8), 10, 0, off, 0);
    }
    body(main, 0);
    // Callees and callbacks, each after everything before it.
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Pending p = pending_[i];
      e_.bind(p.label);
      Frame f;
      f.callback = p.callback;
      e_.emit(kAlu64 | kMov | kSrcX, 7, 1, 0, 0);
      e_.emit(kAlu64 | kMov, 9, 0, 0, 0);
      if (p.callback) {
        f.stack_ctx = p.stack_ctx;
        if (p.stack_ctx) e_.emit(kAlu64 | kMov | kSrcX, 8, 2, 0, 0);
      } else {
        e_.emit(kAlu64 | kMov | kSrcX, 6, 3, 0, 0);
        f.ctx = true;
        if (p.map_value) {
          e_.emit(kAlu64 | kMov | kSrcX, 8, 2, 0, 0);
          f.map_value = true;
          f.value_size = p.value_size;
        }
      }
      if (c_.chance(70)) {
        for (int16_t off = -16; off >= -64; off -= 8) e_.emit(kSt | kMem | size_code(8), 10, 0, off, 0);
      }
      body(f, 1);
    }
    return e_.finish();
  }

 private:
  int32_t edge32() { return c_.chance(85) ? kEdges32[c_.below(sizeof kEdges32 / sizeof kEdges32[0])] : static_cast<int32_t>(c_.next32()); }
  uint32_t width() { return 1u << c_.below(4); }

  void body(Frame& f, int depth) {
    f.bail = e_.label();
    if (f.ctx && c_.chance(45)) map_lookup(f);
    if (f.stack_ctx && c_.chance(50)) e_.emit(kLdx | kMem | size_code(8), 7, 8, 0, 0);
    else source(f);
    const uint32_t steps = c_.below(8);
    for (uint32_t i = 0; i < steps; ++i) narrow(f);
    if (c_.chance(20)) loop(f);
    if (depth == 0 && c_.chance(privileged_ ? 15 : 3)) call(f);
    if (depth == 0 && c_.chance(privileged_ ? 12 : 3)) bpf_loop(f);
    const uint32_t uses = 1 + c_.below(2);
    for (uint32_t i = 0; i < uses; ++i) use(f);
    finish(f);
  }

  void finish(Frame& f) {
    if (f.callback) {
      if (c_.chance(30)) {
        e_.emit(kAlu64 | kMov | kSrcX, 0, 7, 0, 0);
        e_.emit(kAlu64 | kAnd, 0, 0, 0, 1);
      } else {
        e_.emit(kAlu64 | kMov, 0, 0, 0, static_cast<int32_t>(c_.below(2)));
      }
    } else {
      switch (c_.below(4)) {
        case 0: e_.emit(kAlu64 | kMov | kSrcX, 0, 7, 0, 0); break;
        case 1: e_.emit(kAlu64 | kMov | kSrcX, 0, 9, 0, 0); break;
        default: e_.emit(kAlu64 | kMov, 0, 0, 0, static_cast<int32_t>(c_.below(3))); break;
      }
    }
    e_.emit(kJmp | kExit, 0, 0, 0, 0);
    // Only when some branch leaves here: keel, like Linux, rejects code no path reaches.
    if (!e_.referenced(f.bail)) return;
    e_.bind(f.bail);
    e_.emit(kAlu64 | kMov, 0, 0, 0, 0);
    e_.emit(kJmp | kExit, 0, 0, 0, 0);
  }

  // r8 = bpf_map_lookup_elem(map, &key): key at fp-8, a NULL check (mostly).
  void map_lookup(Frame& f) {
    const uint32_t m = c_.below(kMapCount);
    const int32_t key = c_.chance(70) ? static_cast<int32_t>(c_.below(6)) : edge32();
    if (kMaps[m].key_size == 4 || c_.chance(10)) e_.emit(kSt | kMem | size_code(4), 10, 0, -8, key);
    if (kMaps[m].key_size == 8) e_.emit(kSt | kMem | size_code(8), 10, 0, -8, key);
    e_.lddw(1, kPseudoMapFd, m);
    e_.emit(kAlu64 | kMov | kSrcX, 2, 10, 0, 0);
    e_.emit(kAlu64 | kAdd, 2, 0, 0, -8);
    e_.emit(kJmp | kCall, 0, 0, 0, kHelperMapLookup);
    if (c_.chance(20)) {  // the NULL check on a copy: both must be refined
      e_.emit(kAlu64 | kMov | kSrcX, 8, 0, 0, 0);
      if (c_.chance(95)) e_.jump(kJmp | (c_.chance(50) ? 0x10 : 0x50), 8, 0, 0, f.bail);  // jeq / jne r8, 0
      if (c_.chance(50)) e_.emit(kAlu64 | kMov | kSrcX, 8, 0, 0, 0);
    } else {
      if (c_.chance(95)) e_.jump(kJmp | 0x10, 0, 0, 0, f.bail);  // jeq r0, 0, bail
      e_.emit(kAlu64 | kMov | kSrcX, 8, 0, 0, 0);
    }
    if (c_.chance(15)) e_.emit(kAlu64 | (c_.chance(50) ? kAdd : kSub), 8, 0, 0, edge32() & 63);  // a moved base
    f.map_value = true;
    f.value_size = kMaps[m].value_size;
  }

  // An offset near the ends of an object of `size` bytes for an access of `w`.
  int16_t offset_near(uint32_t size, uint32_t w) {
    switch (c_.below(6)) {
      case 0: return 0;
      case 1: return static_cast<int16_t>(size - w);
      case 2: return static_cast<int16_t>(size - w + 1);
      case 3: return -1;
      case 4: return static_cast<int16_t>(c_.below(size));
      default: return static_cast<int16_t>(w * c_.below(size / w + 1));
    }
  }

  // A stack offset in [-64, -9], mostly aligned to `w`.
  int16_t stack_slot(uint32_t w) {
    const int base = -16 - 8 * static_cast<int>(c_.below(7));
    return static_cast<int16_t>(base + static_cast<int>(c_.chance(95) ? w * c_.below(8 / w) : c_.below(8)));
  }

  // A scalar context field: r7 = *(ctx + offset), at a size it allows.
  bool ctx_load(uint8_t dst) {
    for (int attempt = 0; attempt < 4; ++attempt) {
      const CtxField& f = type_.fields[c_.below(type_.field_count)];
      if (f.yields != CtxYield::scalar || f.read_sizes == 0 || (f.privileged && !privileged_)) continue;
      uint32_t w = width();
      while ((f.read_sizes & w) == 0) w = w == 8 ? 1 : w * 2;
      const uint32_t into = f.narrow_at_start ? 0 : w * c_.below(f.size / w > 0 ? f.size / w : 1);
      e_.emit(kLdx | kMem | size_code(w), dst, 6, static_cast<int16_t>(f.offset + into), 0);
      return true;
    }
    return false;
  }

  // r2 = data, r3 = data_end, r2 += r7 (when `offset`), then a bounds check
  // for an access of `w` at r2 + `off`: right, one byte short, or none.
  void packet_check(Frame& f, bool offset, uint32_t w, int16_t off) {
    const CtxField& data = type_.fields[data_field_];
    const CtxField& end = type_.fields[end_field_];
    e_.emit(kLdx | kMem | size_code(data.size), 2, 6, static_cast<int16_t>(data.offset), 0);
    e_.emit(kLdx | kMem | size_code(end.size), 3, 6, static_cast<int16_t>(end.offset), 0);
    if (offset) e_.emit((c_.chance(90) ? kAlu64 : kAlu) | kAdd | kSrcX, 2, 7, 0, 0);
    if (c_.chance(5)) return;  // no check at all
    e_.emit(kAlu64 | kMov | kSrcX, 4, 2, 0, 0);
    int32_t reach = off + static_cast<int32_t>(w);
    if (c_.chance(10)) reach -= 1;  // one byte short
    e_.emit(kAlu64 | kAdd, 4, 0, 0, reach);
    switch (c_.below(4)) {
      case 0: e_.jump(kJmp | 0x20 | kSrcX, 4, 3, 0, f.bail); break;  // jgt r4, r3, bail
      case 1: e_.jump(kJmp | 0xa0 | kSrcX, 3, 4, 0, f.bail); break;  // jlt r3, r4, bail
      case 2: e_.jump(kJmp | 0x30 | kSrcX, 4, 3, 0, f.bail); break;  // jge r4, r3, bail (one too strict)
      default: {  // jle r4, r3, ok; ja bail
        const int ok = e_.label();
        e_.jump(kJmp | 0xb0 | kSrcX, 4, 3, 0, ok);
        e_.jump(kJmp | kJa, 0, 0, 0, f.bail);
        e_.bind(ok);
      }
    }
  }

  // r7 = a value from a helper, a map value, the context, the packet, the
  // stack or a constant.
  void source(Frame& f) {
    switch (c_.below(9)) {
      case 0:
        e_.emit(kJmp | kCall, 0, 0, 0, kHelperPrandom);
        e_.emit(kAlu64 | kMov | kSrcX, 7, 0, 0, 0);
        return;
      case 1:
        e_.emit(kJmp | kCall, 0, 0, 0, kHelperKtime);
        e_.emit(kAlu64 | kMov | kSrcX, 7, 0, 0, 0);
        return;
      case 2:
        if (f.map_value) {
          const uint32_t w = width();
          e_.emit(kLdx | kMem | size_code(w), 7, 8, c_.chance(90) ? static_cast<int16_t>(w * c_.below(f.value_size / w)) : offset_near(f.value_size, w), 0);
          return;
        }
        break;
      case 3:
        if (f.ctx && ctx_load(7)) return;
        break;
      case 4:
        if (f.ctx && packet_) {
          const uint32_t w = width();
          const int16_t off = static_cast<int16_t>(c_.below(16));
          packet_check(f, false, w, off);
          e_.emit(kLdx | kMem | size_code(w), 7, 2, off, 0);
          return;
        }
        break;
      case 5: {
        const uint32_t w = width();
        e_.emit(kLdx | kMem | size_code(w), 7, 10, stack_slot(w), 0);
        return;
      }
      case 6:
        if (f.ctx && packet_) {  // the packet's length: data_end - data
          const CtxField& data = type_.fields[data_field_];
          const CtxField& end = type_.fields[end_field_];
          e_.emit(kLdx | kMem | size_code(data.size), 2, 6, static_cast<int16_t>(data.offset), 0);
          e_.emit(kLdx | kMem | size_code(end.size), 7, 6, static_cast<int16_t>(end.offset), 0);
          e_.emit(kAlu64 | kSub | kSrcX, 7, 2, 0, 0);
          return;
        }
        break;
      default:
        break;
    }
    if (c_.chance(80)) e_.emit((c_.chance(70) ? kAlu64 : kAlu) | kMov, 7, 0, 0, edge32());
    else e_.lddw(7, 0, kEdges64[c_.below(sizeof kEdges64 / sizeof kEdges64[0])]);
  }

  uint8_t jump_op() { return kJumpOps[c_.below(sizeof kJumpOps)]; }

  // One step that changes what is known about r7.
  void narrow(Frame& f) {
    const uint8_t cls = c_.chance(60) ? kAlu64 : kAlu;
    switch (c_.below(16)) {
      case 12: {  // a copy of r7 is compared; r7 is used (linked scalars)
        e_.emit((c_.chance(75) ? kAlu64 : kAlu) | kMov | kSrcX, 1, 7, 0, 0);
        if (c_.chance(30)) e_.emit(kAlu64 | kAdd, 1, 0, 0, edge32());
        e_.jump((c_.chance(60) ? kJmp : kJmp32) | jump_op(), 1, 0, edge32(), f.bail);
        return;
      }
      case 13: {  // if (r7 op r1) bail, r1 another unknown value
        e_.emit(kJmp | kCall, 0, 0, 0, kHelperPrandom);
        e_.emit(kAlu64 | kMov | kSrcX, 1, 0, 0, 0);
        if (c_.chance(50)) e_.emit(kAlu64 | kAnd, 1, 0, 0, edge32());
        e_.jump((c_.chance(60) ? kJmp : kJmp32) | jump_op() | kSrcX, 7, 1, 0, f.bail);
        return;
      }
      case 14: {  // an atomic operation on a stack slot holding r7 (RFC 9669 §5.3)
        static constexpr int32_t kAtomics[] = {0x00, 0x40, 0x50, 0xa0, 0x01, 0x41, 0x51, 0xa1, 0xe1, 0xf1};
        const uint32_t w = c_.chance(50) ? 8 : 4;
        const int16_t slot = static_cast<int16_t>(-16 - 8 * static_cast<int>(c_.below(7)));
        e_.emit(kStx | kMem | size_code(w), 10, 7, slot, 0);
        const int32_t op = kAtomics[c_.below(sizeof kAtomics / sizeof kAtomics[0])];
        if (op == 0xf1) e_.emit(kAlu64 | kMov, 0, 0, 0, edge32());  // cmpxchg compares with r0
        e_.emit(kAlu64 | kMov, 1, 0, 0, edge32());
        e_.emit(kStx | 0xc0 | size_code(w), 10, 1, slot, op);
        // fetch variants return the old value in the source register (r0 for cmpxchg)
        if (op == 0xf1) e_.emit(kAlu64 | kMov | kSrcX, 7, 0, 0, 0);
        else if ((op & 1) != 0) e_.emit(kAlu64 | kMov | kSrcX, 7, 1, 0, 0);
        else e_.emit(kLdx | kMem | size_code(w), 7, 10, slot, 0);
        return;
      }
      case 15:  // a sign-extending load of what r7 spilled (ldxs, RFC 9669 §5.2)
        if (c_.chance(50)) {
          const uint32_t w = 1u << c_.below(3);
          const int16_t slot = static_cast<int16_t>(-16 - 8 * static_cast<int>(c_.below(7)));
          e_.emit(kStx | kMem | size_code(8), 10, 7, slot, 0);
          e_.emit(kLdx | 0x80 | size_code(w), 7, 10, slot, 0);
          return;
        }
        e_.emit(kAlu64 | kMov, 1, 0, 0, edge32() | 1);
        e_.emit(cls | (c_.chance(50) ? kDiv : kMod) | kSrcX, 7, 1, 1, 0);  // sdiv / smod by a register
        return;
      case 0: case 1: case 2: {  // r7 op= imm
        static constexpr uint8_t kOps[] = {kAdd, kSub, kMul, kDiv, kOr, kAnd, kAnd, kAnd, kLsh, kRsh, kRsh, kMod, kXor, kArsh};
        const uint8_t op = kOps[c_.below(sizeof kOps)];
        int32_t imm = edge32();
        if ((op == kLsh || op == kRsh || op == kArsh) && c_.chance(85)) imm = static_cast<int32_t>(c_.below(cls == kAlu64 ? 64 : 32));
        // sdiv / smod (offset 1) now and then; a division by an immediate 0 is rejected by the decoder.
        const int16_t offset = (op == kDiv || op == kMod) && c_.chance(30) ? 1 : 0;
        if ((op == kDiv || op == kMod) && imm == 0) imm = 1;
        e_.emit(cls | op, 7, 0, offset, imm);
        return;
      }
      case 3: {  // r7 op= r1 (a constant or another helper's value)
        static constexpr uint8_t kOps[] = {kAdd, kSub, kAnd, kOr, kLsh, kRsh, kArsh, kXor, kMul, kMod, kDiv};
        if (c_.chance(70)) e_.emit(kAlu64 | kMov, 1, 0, 0, edge32());
        else {
          e_.emit(kJmp | kCall, 0, 0, 0, kHelperPrandom);
          e_.emit(kAlu64 | kMov | kSrcX, 1, 0, 0, 0);
          e_.emit(kAlu64 | kAnd, 1, 0, 0, edge32());
        }
        // Now and then the register with itself (r7 -= r7, r7 ^= r7, ...).
        e_.emit(cls | kOps[c_.below(sizeof kOps)] | kSrcX, 7, c_.chance(15) ? 7 : 1, 0, 0);
        return;
      }
      case 4:  // width changes: mov32 (zero-extends), movsx, neg, byte swaps
        switch (c_.below(4)) {
          case 0: e_.emit(kAlu | kMov | kSrcX, 7, 7, 0, 0); return;
          case 1: e_.emit(cls | kMov | kSrcX, 7, 7, static_cast<int16_t>(8 << c_.below(cls == kAlu64 ? 3 : 2)), 0); return;
          case 2: e_.emit(cls | kNeg, 7, 0, 0, 0); return;
          default: e_.emit(kAlu | kEnd | (c_.chance(50) ? kSrcX : 0), 7, 0, 0, 16 << c_.below(3)); return;
        }
      case 5: case 6: case 7:  // if (r7 op K) bail
        e_.jump((c_.chance(60) ? kJmp : kJmp32) | jump_op(), 7, 0, edge32(), f.bail);
        return;
      case 8: {  // if (r7 op r1) bail, r1 a constant
        e_.emit(kAlu64 | kMov, 1, 0, 0, edge32());
        e_.jump((c_.chance(60) ? kJmp : kJmp32) | jump_op() | kSrcX, 7, 1, 0, f.bail);
        return;
      }
      case 9: {  // a diamond: the branch skips a step, the paths join
        const int join = e_.label();
        e_.jump((c_.chance(60) ? kJmp : kJmp32) | jump_op(), 7, 0, edge32(), join);
        e_.emit(cls | (c_.chance(50) ? kAnd : kAdd), 7, 0, 0, edge32());
        e_.bind(join);
        return;
      }
      default:
        spill_fill(f);
        return;
    }
  }

  // r7 (or the map value pointer) to the stack and back, at every width,
  // sometimes at another width or offset than it was written.
  void spill_fill(Frame& f) {
    if (f.map_value && c_.chance(25)) {
      const int16_t slot = stack_slot(8);
      e_.emit(kStx | kMem | size_code(8), 10, 8, slot, 0);
      if (c_.chance(50)) e_.emit(kAlu64 | kMov, 8, 0, 0, 0);
      const uint32_t w = c_.chance(85) ? 8 : width();
      e_.emit(kLdx | kMem | size_code(w), 8, 10, slot, 0);
      return;
    }
    const uint32_t w = width();
    const int16_t slot = stack_slot(w);
    if (c_.chance(15)) e_.emit(kSt | kMem | size_code(w), 10, 0, slot, edge32());
    else e_.emit(kStx | kMem | size_code(w), 10, 7, slot, 0);
    if (c_.chance(50)) e_.emit(kAlu64 | kMov, 7, 0, 0, 0);
    const uint32_t w2 = c_.chance(60) ? w : width();
    // Mostly the slot itself; else a neighbouring offset, usually aligned to the fill's width.
    const int shift = c_.chance(75) ? static_cast<int>(w2) * (static_cast<int>(c_.below(3)) - 1) : static_cast<int>(c_.below(8)) - 4;
    const int16_t slot2 = c_.chance(80) ? slot : static_cast<int16_t>(slot + shift);
    e_.emit(kLdx | kMem | size_code(w2), 7, 10, slot2, 0);
  }

  // for (r5 = start; r5 op bound; r5 += step) { a step on r7 }: counters
  // that count the wrong way wrap through 2^32 or 2^64.
  void loop(Frame& f) {
    static constexpr int32_t kStarts[] = {0, 1, -1, 5, 16, 100, INT32_MAX, INT32_MIN, -16};
    static constexpr int32_t kSteps[] = {1, 1, -1, -1, 2, 3, 7, 16, -16, INT32_MAX, INT32_MIN};
    const uint8_t counter_cls = c_.chance(70) ? kAlu64 : kAlu;
    e_.emit(counter_cls | kMov, 5, 0, 0, kStarts[c_.below(sizeof kStarts / sizeof kStarts[0])]);
    const int head = e_.label();
    e_.bind(head);
    if (c_.chance(70)) e_.emit(kAlu64 | (c_.chance(50) ? kAdd : kXor), 7, 0, 0, c_.chance(50) ? 1 : edge32());
    if (c_.chance(30)) use(f);
    if (f.map_value && c_.chance(30)) {  // value[counter]
      e_.emit(kAlu64 | kMov | kSrcX, 1, 8, 0, 0);
      e_.emit(kAlu64 | kAdd | kSrcX, 1, 5, 0, 0);
      e_.emit(kLdx | kMem | size_code(1), 9, 1, 0, 0);
    }
    e_.emit(counter_cls | (c_.chance(50) ? kAdd : kSub), 5, 0, 0, kSteps[c_.below(sizeof kSteps / sizeof kSteps[0])]);
    const int32_t bound = c_.chance(70) ? static_cast<int32_t>(c_.below(20)) : edge32();
    e_.jump((c_.chance(70) ? kJmp : kJmp32) | jump_op(), 5, 0, bound, head);
  }

  // r7 = callee(r7, r8 or 0, ctx): a BPF-to-BPF call (RFC 9669 §4.3.2).
  void call(Frame& f) {
    Pending p{e_.label(), false, f.map_value, f.value_size, false};
    e_.emit(kAlu64 | kMov | kSrcX, 1, 7, 0, 0);
    if (f.map_value) e_.emit(kAlu64 | kMov | kSrcX, 2, 8, 0, 0);
    else e_.emit(kAlu64 | kMov, 2, 0, 0, 0);
    e_.emit(kAlu64 | kMov | kSrcX, 3, 6, 0, 0);
    e_.call_local(p.label);
    if (c_.chance(70)) e_.emit(kAlu64 | kMov | kSrcX, 7, 0, 0, 0);
    pending_.push_back(p);
  }

  // bpf_loop(nr, callback, &fp[-16] or NULL, flags).
  void bpf_loop(Frame&) {
    static constexpr int32_t kCounts[] = {0, 1, 2, 3, 8, 64, 1 << 23, (1 << 23) + 1, -1};
    Pending p{e_.label(), true, false, 0, c_.chance(70)};
    if (c_.chance(25)) e_.emit(kAlu64 | kMov | kSrcX, 1, 7, 0, 0);
    else e_.emit(kAlu64 | kMov, 1, 0, 0, kCounts[c_.below(sizeof kCounts / sizeof kCounts[0])]);
    e_.lddw_func(2, p.label);
    if (p.stack_ctx) {
      e_.emit(kAlu64 | kMov | kSrcX, 3, 10, 0, 0);
      e_.emit(kAlu64 | kAdd, 3, 0, 0, -16);
    } else {
      e_.emit(kAlu64 | kMov, 3, 0, 0, 0);
    }
    e_.emit(kAlu64 | kMov, 4, 0, 0, c_.chance(95) ? 0 : 1);
    e_.emit(kJmp | kCall, 0, 0, 0, kHelperLoop);
    if (c_.chance(50)) e_.emit(kAlu64 | kMov | kSrcX, 7, 0, 0, 0);
    pending_.push_back(p);
  }

  // r7 as an offset: into the map value, the stack, the packet, or the
  // callback's stack context; or r7 stored into the map value.
  void use(Frame& f) {
    const uint32_t w = width();
    const bool store = c_.chance(30);
    switch (c_.below(6)) {
      case 5:
        if (helper_memory(f)) return;
        break;
      case 0:
        if (f.map_value) {
          e_.emit(kAlu64 | kMov | kSrcX, 1, 8, 0, 0);
          e_.emit((c_.chance(90) ? kAlu64 : kAlu) | kAdd | kSrcX, 1, 7, 0, 0);
          const int16_t off = c_.chance(70) ? 0 : offset_near(f.value_size, w);
          if (store) e_.emit(kStx | kMem | size_code(w), 1, 9, off, 0);
          else e_.emit(kLdx | kMem | size_code(w), 9, 1, off, 0);
          return;
        }
        break;
      case 1: {
        e_.emit(kAlu64 | kMov | kSrcX, 1, 10, 0, 0);
        e_.emit(kAlu64 | kAdd | kSrcX, 1, 7, 0, 0);
        const int16_t off = c_.chance(70) ? static_cast<int16_t>(-64) : static_cast<int16_t>(-8 * static_cast<int>(1 + c_.below(64)));
        if (store) e_.emit(kStx | kMem | size_code(w), 1, 9, off, 0);
        else e_.emit(kLdx | kMem | size_code(w), 9, 1, off, 0);
        return;
      }
      case 2:
        if (f.ctx && packet_) {
          const int16_t off = static_cast<int16_t>(c_.chance(70) ? 0 : c_.below(16));
          packet_check(f, true, w, off);
          if (store) e_.emit(kStx | kMem | size_code(w), 2, 9, off, 0);
          else e_.emit(kLdx | kMem | size_code(w), 9, 2, off, 0);
          return;
        }
        break;
      case 3:
        if (f.stack_ctx) {
          e_.emit(kAlu64 | kMov | kSrcX, 1, 8, 0, 0);
          e_.emit(kAlu64 | kAdd | kSrcX, 1, 7, 0, 0);
          e_.emit(kLdx | kMem | size_code(w), 9, 1, 0, 0);
          return;
        }
        break;
      default:
        if (f.map_value) {
          e_.emit(kStx | kMem | size_code(w), 8, 7, offset_near(f.value_size, w), 0);
          return;
        }
        break;
    }
    e_.emit(kStx | kMem | size_code(w), 10, 7, stack_slot(w), 0);
  }

  // r7 as the size of a helper's memory argument: the helper writes r7
  // bytes at fp-64 (or into the map value), read back afterwards.
  bool helper_memory(Frame& f) {
    const bool into_map = f.map_value && c_.chance(30);
    const auto destination = [&](uint8_t reg) {
      if (into_map) {
        e_.emit(kAlu64 | kMov | kSrcX, reg, 8, 0, 0);
      } else {
        e_.emit(kAlu64 | kMov | kSrcX, reg, 10, 0, 0);
        e_.emit(kAlu64 | kAdd, reg, 0, 0, c_.chance(80) ? -64 : -8 * static_cast<int32_t>(1 + c_.below(8)));
      }
    };
    if (f.ctx && find_helper(type_, kHelperCheckMtu) != nullptr && c_.chance(15)) {
      // bpf_check_mtu(ctx, ifindex, &mtu_len, len_diff, flags): mtu_len is
      // read, then written (issue 11 item 2); sometimes never initialised.
      const int16_t slot = stack_slot(4);
      if (c_.chance(70)) e_.emit(kSt | kMem | size_code(4), 10, 0, slot, edge32());
      e_.emit(kAlu64 | kMov | kSrcX, 1, 6, 0, 0);
      e_.emit(kAlu64 | kMov, 2, 0, 0, 0);
      e_.emit(kAlu64 | kMov | kSrcX, 3, 10, 0, 0);
      e_.emit(kAlu64 | kAdd, 3, 0, 0, slot);
      if (c_.chance(50)) e_.emit(kAlu64 | kMov | kSrcX, 4, 7, 0, 0);
      else e_.emit(kAlu64 | kMov, 4, 0, 0, edge32());
      e_.emit(kAlu64 | kMov, 5, 0, 0, 0);
      e_.emit(kJmp | kCall, 0, 0, 0, kHelperCheckMtu);
      e_.emit(kLdx | kMem | size_code(4), 9, 10, slot, 0);
      return true;
    }
    if (f.ctx && std::strcmp(type_.name, "xdp") != 0 && c_.chance(50)) {
      e_.emit(kAlu64 | kMov | kSrcX, 1, 6, 0, 0);  // bpf_skb_load_bytes(ctx, offset, to, len)
      e_.emit(kAlu64 | kMov, 2, 0, 0, static_cast<int32_t>(c_.below(16)));
      destination(3);
      e_.emit(kAlu64 | kMov | kSrcX, 4, 7, 0, 0);
      e_.emit(kJmp | kCall, 0, 0, 0, kHelperSkbLoadBytes);
    } else if (f.ctx && std::strcmp(type_.name, "xdp") == 0 && c_.chance(50)) {
      e_.emit(kAlu64 | kMov | kSrcX, 1, 6, 0, 0);  // bpf_xdp_load_bytes(ctx, offset, buf, len)
      e_.emit(kAlu64 | kMov, 2, 0, 0, static_cast<int32_t>(c_.below(16)));
      destination(3);
      e_.emit(kAlu64 | kMov | kSrcX, 4, 7, 0, 0);
      e_.emit(kJmp | kCall, 0, 0, 0, kHelperXdpLoadBytes);
    } else if (privileged_) {
      destination(1);  // bpf_probe_read_kernel(dst, size, unsafe_ptr)
      e_.emit(kAlu64 | kMov | kSrcX, 2, 7, 0, 0);
      e_.emit(kAlu64 | kMov, 3, 0, 0, 0);
      e_.emit(kJmp | kCall, 0, 0, 0, kHelperProbeReadKernel);
    } else {
      return false;
    }
    const uint32_t w = width();
    if (into_map) e_.emit(kLdx | kMem | size_code(w), 9, 8, 0, 0);
    else e_.emit(kLdx | kMem | size_code(w), 9, 10, static_cast<int16_t>(-64), 0);
    return true;
  }

  Choices& c_;
  const ProgramType& type_;
  bool privileged_;
  Emitter e_;
  std::vector<Pending> pending_;
  int32_t data_field_ = -1, end_field_ = -1;
  bool packet_ = false;
};

}  // namespace

GeneratedProgram generate(Choices& choices) {
  static constexpr const char* kTypes[] = {"xdp", "sched_cls", "socket_filter"};
  GeneratedProgram out;
  out.privileged = !choices.chance(25);
  out.type = out.privileged ? kTypes[choices.below(3)] : (choices.chance(70) ? "socket_filter" : kTypes[choices.below(3)]);
  const ProgramType* type = find_program_type(linux_platform(), out.type);
  Generator generator(choices, *type, out.privileged);
  out.bytes = generator.program();
  return out;
}

}  // namespace keel::fuzzgen
