// Helpers 0-5 of uBPF's test runner (iovisor/ubpf custom_tests/srcs/test_helpers.h,
// `helper_functions`), which both uBPF's tests/*.data and bpf_conformance's
// tests/*.data are written against (bpf_conformance runs them through the
// same uBPF plugin). Checked against the files that call them: ubpf
// tests/helpers/{call,call-memfrob,call-save}.data, string-stack.data,
// extensions/call_unwind.data; bpf_conformance call_unwind_fail.data and
// callx.data (`call %r2` with r2 = 5).
#include "conformance_helpers.h"

namespace keel::suite {

void HelperMemory::add(uint64_t base, uint64_t size) {
  if (count < kMaxRanges && size > 0) ranges[count++] = Range{base, size};
}

uint64_t HelperMemory::available(uint64_t address) const {
  for (int i = 0; i < count; ++i) {
    const Range& range = ranges[i];
    if (address >= range.base && address - range.base < range.size) return range.size - (address - range.base);
  }
  return 0;
}

namespace {

const HelperMemory& memory_of(const HelperCall& call) { return *static_cast<const HelperMemory*>(call.user); }

// 0: gather_bytes — the low byte of each argument, r1 in bits 32-39 down to r5 in bits 0-7.
uint64_t gather_bytes(HelperCall& call) {
  uint64_t result = 0;
  for (const uint64_t arg : call.args) result = result << 8 | (arg & 0xff);
  return result;
}

// 1: memfrob — XORs r2 bytes at r1 with 42 (glibc's memfrob), returns 0.
// A range outside the program's memory is left alone and returns -1
// (uBPF would fault; the tool must not).
uint64_t memfrob(HelperCall& call) {
  const uint64_t address = call.args[0];
  const uint64_t length = call.args[1];
  if (length == 0) return 0;
  if (memory_of(call).available(address) < length) return ~uint64_t{0};
  auto* bytes = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(address));
  for (uint64_t i = 0; i < length; ++i) bytes[i] ^= 42;
  return 0;
}

// 2: no_op — returns 0.
uint64_t no_op(HelperCall&) { return 0; }

// 3: sqrti — square root of r1, rounded down. uBPF computes it through a
// double (exact below 2^52); this is the exact integer root for every r1.
uint64_t sqrti(HelperCall& call) {
  const uint64_t value = call.args[0];
  uint64_t low = 0, high = uint64_t{1} << 32;  // root < 2^32
  while (high - low > 1) {
    const uint64_t mid = low + (high - low) / 2;
    if (mid * mid <= value) low = mid; else high = mid;
  }
  return low;
}

// 4: strcmp_ext — strcmp of the NUL-terminated strings at r1 and r2, the
// int result sign-extended as uBPF's `uint64_t` return of an int does.
// Strings are read no further than the memory they live in; a pointer
// outside it returns -1.
uint64_t strcmp_ext(HelperCall& call) {
  const HelperMemory& memory = memory_of(call);
  const uint64_t a_limit = memory.available(call.args[0]);
  const uint64_t b_limit = memory.available(call.args[1]);
  if (a_limit == 0 || b_limit == 0) return ~uint64_t{0};
  const auto* a = reinterpret_cast<const unsigned char*>(static_cast<uintptr_t>(call.args[0]));
  const auto* b = reinterpret_cast<const unsigned char*>(static_cast<uintptr_t>(call.args[1]));
  for (uint64_t i = 0;; ++i) {
    const int ca = i < a_limit ? a[i] : 0;
    const int cb = i < b_limit ? b[i] : 0;
    if (ca != cb || ca == 0) return static_cast<uint64_t>(static_cast<int64_t>(ca - cb));
  }
}

// 5: unwind — returns r1; uBPF registers it as the "unwind stack extension"
// (ubpf_set_unwind_function_index), which ends the program with r0 = 0
// when the helper returns 0.
uint64_t unwind(HelperCall& call) {
  if (call.args[0] == 0) call.stop = true;
  return call.args[0];
}

constexpr HelperFn kHelpers[] = {gather_bytes, memfrob, no_op, sqrti, strcmp_ext, unwind};
constexpr int32_t kHelperCount = sizeof(kHelpers) / sizeof(kHelpers[0]);

}  // namespace

HelperTable conformance_helper_table(HelperMemory& memory) {
  return HelperTable{kHelpers, static_cast<uint32_t>(kHelperCount), &memory};
}

bool conformance_helper_exists(const void*, int32_t id) {
  return (id >= 0 && id < kHelperCount) || is_builtin(static_cast<uint64_t>(id));
}

namespace {

// Only the arguments a helper reads are declared, so that a program need
// not initialize r3-r5 to call sqrti.
constexpr HelperProto proto(const char* name, int args) {
  HelperProto p;
  p.name = name;
  p.ret = RetKind::integer;
  for (int i = 0; i < 5; ++i) p.args[i] = i < args ? ArgKind::anything : ArgKind::none;
  return p;
}

// memfrob writes its buffer: declared as memory, so that the verifier
// forgets what the program had stored there (a spilled pointer included).
constexpr HelperProto memfrob_proto() {
  HelperProto p = proto("memfrob", 0);
  p.args[0] = ArgKind::mem_writable;
  p.args[1] = ArgKind::size_or_zero;
  return p;
}

constexpr HelperProto kProtos[] = {
    proto("gather_bytes", 5), memfrob_proto(), proto("no_op", 0),
    proto("sqrti", 1),        proto("strcmp_ext", 2), proto("unwind", 1),
};
static_assert(sizeof(kProtos) / sizeof(kProtos[0]) == kHelperCount);

constexpr HelperSlot kSlots[] = {
    {0, &kProtos[0], HelperGate::anyone}, {1, &kProtos[1], HelperGate::anyone},
    {2, &kProtos[2], HelperGate::anyone}, {3, &kProtos[3], HelperGate::anyone},
    {4, &kProtos[4], HelperGate::anyone}, {5, &kProtos[5], HelperGate::anyone},
};

}  // namespace

namespace {

// strcmp() == 0 without the C library: the runner image's headers are
// picolibc's, the host's glibc's, and this file builds for both.
bool same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

}  // namespace

int32_t conformance_helper_id(const void*, const char* name) {
  for (int32_t id = 0; id < kHelperCount; ++id)
    if (same_name(kProtos[id].name, name)) return id;
  return -1;
}

const HelperSlot* conformance_helper_slots(uint32_t& count) {
  count = static_cast<uint32_t>(kHelperCount);
  return kSlots;
}

}  // namespace keel::suite
