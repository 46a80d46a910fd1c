# QEMU mps2-an505: Arm's MPS2+ board with the AN505 image, a Cortex-M33
# (ARMv8-M Mainline with TrustZone), entered in Secure state. Memory (QEMU
# hw/arm/mps2-tz.c, AN505 application note): the Secure alias of SSRAM1 at
# 0x10000000, where the Secure VTOR points at reset, holds the code; data,
# .bss and the stack live in the 16 MiB of PSRAM at 0x80000000. The image
# is built for the Cortex-M3 (ARMv7-M code runs unchanged on ARMv8-M
# Mainline), like mps2-an385's, so that one core build serves both.
set(KEEL_RUNNER_ARCH "")  # none: picolibc's crt0 has the vector table and fault handlers
set(KEEL_RUNNER_LINK_OPTIONS
    -Wl,--defsym=__flash=0x10000000 -Wl,--defsym=__flash_size=0x400000
    -Wl,--defsym=__ram=0x80000000 -Wl,--defsym=__ram_size=0x1000000
    -Wl,--defsym=__stack_size=0x10000)
set(KEEL_RUNNER_BLOB_KIB 1024)
set(KEEL_RUNNER_ARENA_KIB 12288)
set(KEEL_RUNNER_DECODE_ARENA_KIB 1024)
set(KEEL_RUNNER_MACHINES "mps2-an505=qemu-system-arm -M mps2-an505")
