// Kernel command-line options (`-append` under QEMU: the multiboot command
// line on x86, the device tree's /chosen/bootargs on AArch64),
// space-separated `key=value` words. Only the self-tests read it today:
//   keel.test=ud2             execute a trapping instruction  (#UD on x86, brk on AArch64)
//   keel.test=page-fault      write to an unmapped address    (#PF; a data abort)
//   keel.test=null-read       read through a null pointer     (#PF at address 0; a data abort)
//   keel.test=stack-overflow  recurse into the stack's guard page
//                             (#PF on the IST stack; a data abort on SP_EL1)
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
