# QEMU `virt` with a Cortex-A76 (the Raspberry Pi 5's core), AArch64 at EL1.
# RAM starts at 0x40000000 (QEMU hw/arm/virt.c memmap, VIRT_MEM); the image
# is linked there by picolibc.ld: code and read-only data in the first
# 4 MiB ("flash" to picolibc, RAM to QEMU), data, .bss and the stack above,
# up to the end of the 256 MiB that -m gives.
set(KEEL_RUNNER_ARCH aarch64)  # runner/arch/aarch64: entry, exception report
set(KEEL_RUNNER_LINK_OPTIONS
    -Wl,-e,keel_runner_entry  # arch/aarch64/entry.S: vectors first, then picolibc's _start
    -Wl,--defsym=__flash=0x40000000 -Wl,--defsym=__flash_size=0x400000
    -Wl,--defsym=__ram=0x40400000 -Wl,--defsym=__ram_size=0x0fc00000
    -Wl,--defsym=__stack_size=0x100000)
set(KEEL_RUNNER_BLOB_KIB 8192)
set(KEEL_RUNNER_ARENA_KIB 65536)         # the host's 64 MiB per case (suite/linux_case.h)
set(KEEL_RUNNER_DECODE_ARENA_KIB 4096)
# One QEMU run per entry: "name=QEMU command" (compare-suites adds the
# semihosting, display and -kernel options).
set(KEEL_RUNNER_MACHINES
    "virt-a76=qemu-system-aarch64 -M virt -cpu cortex-a76 -m 256M")
# The fault test's extra QEMU arguments: 128 MiB of RAM end at 0x48000000,
# below the stack picolibc.ld puts at the end of __ram (0x50000000), so the
# start-up code's first store to the stack aborts (runner/fault-test).
set(KEEL_RUNNER_FAULT_QEMU_ARGS "-m 128M")
set(KEEL_RUNNER_FAULT_EXPECT "keel-runner: exception class=0x[0-9a-f]+ esr=0x[0-9a-f]+ far=0x[0-9a-f]+ elr=0x[0-9a-f]+;5")
