#include "arch/aarch64/semihosting.h"

extern "C" {
uint64_t keel_semihosting_call(uint64_t operation, uint64_t parameter);
extern const char keel_semihosting_trap[];
}

namespace keel::aarch64::semihosting {
namespace {
constexpr uint64_t sys_exit = 0x18;
constexpr uint64_t adp_stopped_application_exit = 0x20026;
}  // namespace

void exit(uint32_t status) {
  const uint64_t block[2] = {adp_stopped_application_exit, status};
  keel_semihosting_call(sys_exit, reinterpret_cast<uintptr_t>(&block[0]));
}

bool is_trap(uint64_t address) {
  return address == reinterpret_cast<uintptr_t>(keel_semihosting_trap);
}

}  // namespace keel::aarch64::semihosting
