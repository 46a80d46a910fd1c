#include "arch/aarch64/semihosting.h"

extern "C" {
uint64_t keel_semihosting_call(uint64_t operation, uint64_t parameter);
extern const char keel_semihosting_trap[];
}

namespace keel::aarch64::semihosting {
namespace {
constexpr uint64_t kSysExit = 0x18;
constexpr uint64_t kAdpStoppedApplicationExit = 0x20026;
}  // namespace

void exit(uint32_t status) {
  const uint64_t block[2] = {kAdpStoppedApplicationExit, status};
  keel_semihosting_call(kSysExit, reinterpret_cast<uintptr_t>(&block[0]));
}

bool is_trap(uint64_t address) {
  return address == reinterpret_cast<uintptr_t>(keel_semihosting_trap);
}

}  // namespace keel::aarch64::semihosting
