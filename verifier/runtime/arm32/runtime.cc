// The compiler run-time routines GCC calls for 64-bit division and
// count-trailing-zeros on 32-bit Arm (ARMv7-M and ARMv8-M have neither
// instruction), defined by the core itself so that the core needs nothing
// but mem* on Cortex-M as everywhere else (docs/adr/0026). Built only for
// 32-bit Arm targets (verifier/CMakeLists.txt).
//
// Entry points and register use follow the Arm run-time ABI (RTABI,
// "Integer (32/32 -> 32) and (64/64 -> 64) division"): __aeabi_uldivmod and
// __aeabi_ldivmod take the dividend in r0:r1 and the divisor in r2:r3 and
// return the quotient in r0:r1 and the remainder in r2:r3, which no C
// signature expresses, hence the assembly shims around the C++ below.
#include <cstdint>

#include "divide64.h"

extern "C" {

// The shims' C halves: quotient returned, remainder stored through `rem`.
uint64_t keel_udivmod64(uint64_t n, uint64_t d, uint64_t* rem) {
  const keel::DivMod64 r = keel::udivmod64(n, d);
  *rem = r.remainder;
  return r.quotient;
}
int64_t keel_sdivmod64(int64_t n, int64_t d, uint64_t* rem) {
  const keel::DivMod64 r = keel::sdivmod64(n, d);
  *rem = r.remainder;
  return static_cast<int64_t>(r.quotient);
}

// libgcc's __ctzdi2: trailing zeros of a non-zero 64-bit value, from the
// 32-bit count (rbit + clz on these cores).
int __ctzdi2(unsigned long long x) {
  const auto low = static_cast<uint32_t>(x);
  return low != 0 ? __builtin_ctz(low) : 32 + __builtin_ctz(static_cast<uint32_t>(x >> 32));
}

}  // extern "C"

// Each shim keeps the stack 8-byte aligned (AAPCS): push two words, then
// reserve 16 bytes: the fifth argument (the pointer to the remainder slot)
// at [sp], the remainder itself at [sp, #8].
#define KEEL_DIVMOD_SHIM(name, target)      \
  ".global " #name "\n"                     \
  ".type " #name ", %function\n"            \
  ".thumb_func\n"                           \
  #name ":\n"                               \
  "  push {r4, lr}\n"                       \
  "  sub sp, sp, #16\n"                     \
  "  add r4, sp, #8\n"                      \
  "  str r4, [sp]\n"                        \
  "  bl " #target "\n"                      \
  "  ldrd r2, r3, [sp, #8]\n"               \
  "  add sp, sp, #16\n"                     \
  "  pop {r4, pc}\n"                        \
  ".size " #name ", . - " #name "\n"

__asm__(
    ".syntax unified\n"
    ".thumb\n"
    ".text\n"
    ".p2align 2\n"
    KEEL_DIVMOD_SHIM(__aeabi_uldivmod, keel_udivmod64)
    ".p2align 2\n"
    KEEL_DIVMOD_SHIM(__aeabi_ldivmod, keel_sdivmod64));
