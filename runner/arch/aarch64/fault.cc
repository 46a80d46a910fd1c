// What the runner does on an exception: one "keel-runner: exception ..."
// line with the syndrome (ESR_EL1, its exception class in bits [31:26]),
// the faulting address (FAR_EL1) and the instruction (ELR_EL1), then exit
// status 5, all through raw semihosting calls: the fault may have come
// before picolibc set up its stdio or its TLS, or from inside them.
#include <cstdint>

namespace {

// Arm semihosting (Arm IHI 0057): operation in w0, parameter block in x1,
// `hlt #0xf000` on AArch64.
uint64_t semihost(uint64_t operation, uint64_t parameter) {
  register uint64_t x0 asm("x0") = operation;
  register uint64_t x1 asm("x1") = parameter;
  asm volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
  return x0;
}

constexpr uint64_t kSysWrite0 = 0x04;              // print a NUL-terminated string
constexpr uint64_t kSysExit = 0x18;                // on AArch64 the block gives the status
constexpr uint64_t kApplicationExit = 0x20026;     // ADP_Stopped_ApplicationExit
constexpr uint64_t kFaultStatus = 5;

char* put(char* at, const char* text) {
  while (*text != '\0') *at++ = *text++;
  return at;
}

char* put_hex(char* at, uint64_t value) {
  at = put(at, "0x");
  for (int shift = 60; shift >= 0; shift -= 4) *at++ = "0123456789abcdef"[(value >> shift) & 0xf];
  return at;
}

}  // namespace

extern "C" [[noreturn]] void keel_runner_fault(uint64_t esr, uint64_t elr, uint64_t far) {
  char line[160];
  char* at = put(line, "keel-runner: exception class=");
  at = put_hex(at, (esr >> 26) & 0x3f);
  at = put(at, " esr=");
  at = put_hex(at, esr);
  at = put(at, " far=");
  at = put_hex(at, far);
  at = put(at, " elr=");
  at = put_hex(at, elr);
  at = put(at, "\n");
  *at = '\0';
  semihost(kSysWrite0, reinterpret_cast<uintptr_t>(line));
  // On the stack, not in .data: start-up code may not have copied .data yet.
  volatile uint64_t block[2] = {kApplicationExit, kFaultStatus};
  semihost(kSysExit, reinterpret_cast<uintptr_t>(&block[0]));
  for (;;) asm volatile("wfi");
}
