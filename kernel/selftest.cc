#include "selftest.h"

#include <cstdint>

#include "arch.h"
#include "console.h"

namespace keel {
namespace {

// Each frame writes a 256-byte local through a volatile pointer, so the
// stack really grows (no tail call, no frame elided) until it reaches the
// guard page. The depth limit only exists so that the compiler cannot prove
// the recursion infinite; 2^20 frames are far more than any kernel stack.
[[gnu::noinline]] uint64_t recurse(uint64_t depth) {
  volatile uint8_t frame[256];
  frame[0] = static_cast<uint8_t>(depth);
  frame[sizeof frame - 1] = static_cast<uint8_t>(depth >> 8);
  if (depth >= (uint64_t{1} << 20)) return frame[0];
  return recurse(depth + 1) + frame[sizeof frame - 1];
}

}  // namespace

void run_self_test(SelfTest test) {
  emit(Line("selftest").str("test", self_test_name(test)).str("expect", "fault"));
  switch (test) {
    case SelfTest::invalid_opcode:
      __builtin_trap();  // ud2 on x86-64, brk on AArch64
    case SelfTest::page_fault:
      *reinterpret_cast<volatile uint64_t*>(arch::unmapped_address()) = 0x6b65656c;  // "keel"
      break;
    case SelfTest::null_read: {
      // Through an opaque zero: a visible null dereference is undefined
      // behaviour the compiler may replace with a trap of its own.
      uintptr_t null_address = 0;
      asm("" : "+r"(null_address));
      const volatile uint64_t value = *reinterpret_cast<const volatile uint64_t*>(null_address);
      static_cast<void>(value);
      break;
    }
    case SelfTest::stack_overflow: {
      const volatile uint64_t result = recurse(0);
      static_cast<void>(result);
      break;
    }
    case SelfTest::none:
    case SelfTest::unknown:
      break;
  }
}

}  // namespace keel
