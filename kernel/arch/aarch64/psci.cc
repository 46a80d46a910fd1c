#include "arch/aarch64/psci.h"

namespace keel::aarch64::psci {
namespace {
constexpr uint64_t kSystemOffId = 0x8400'0008;
}  // namespace

void system_off(Conduit conduit) {
  // SMCCC: x0-x17 may be clobbered by the callee (SMCCC v1.1+ preserves
  // x4-x17; v1.0 did not), so all are declared.
  register uint64_t x0 asm("x0") = kSystemOffId;
  if (conduit == Conduit::hvc) {
    asm volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
                 "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
  } else {
    asm volatile("smc #0" : "+r"(x0) : : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
                 "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "memory");
  }
}

}  // namespace keel::aarch64::psci
