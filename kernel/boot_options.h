// Kernel command-line options (`-append` under QEMU), space-separated
// `key=value` words. Only the self-tests read it today:
//   keel.test=ud2             execute an invalid opcode       (#UD on x86)
//   keel.test=page-fault      write to an unmapped address    (#PF)
//   keel.test=null-read       read through a null pointer     (#PF at address 0)
//   keel.test=stack-overflow  recurse into the stack's guard page (#PF on the IST stack)
#pragma once

#include <cstdint>

namespace keel {

enum class SelfTest : uint8_t {
  none, invalid_opcode, page_fault, null_read, stack_overflow, unknown
};

struct BootOptions {
  SelfTest self_test = SelfTest::none;  ///< keel.test=; unknown values are reported, not ignored
};

[[nodiscard]] BootOptions parse_boot_options(const char* cmdline);

const char* self_test_name(SelfTest test);  ///< the keel.test= spelling

}  // namespace keel
