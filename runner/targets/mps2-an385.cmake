# QEMU mps2-an385: Arm's MPS2 board with the AN385 image, a Cortex-M3
# (ARMv7-M). Memory (QEMU hw/arm/mps2.c, AN385 application note): 4 MiB of
# SSRAM1 at 0x00000000, where the vector table must be (VTOR resets to 0),
# holds the code ("flash" to picolibc.ld); data, .bss and the stack live in
# the 16 MiB of PSRAM at 0x21000000. picolibc's crt0 supplies the vector
# table, and its fault handlers print "ARM fault: ..." and exit 1.
set(KEEL_RUNNER_ARCH "")  # none: picolibc's crt0 has the vector table and fault handlers
set(KEEL_RUNNER_LINK_OPTIONS
    -Wl,--defsym=__flash=0x00000000 -Wl,--defsym=__flash_size=0x400000
    -Wl,--defsym=__ram=0x21000000 -Wl,--defsym=__ram_size=0x1000000
    -Wl,--defsym=__stack_size=0x10000)
set(KEEL_RUNNER_BLOB_KIB 1024)
set(KEEL_RUNNER_ARENA_KIB 12288)
set(KEEL_RUNNER_DECODE_ARENA_KIB 1024)
set(KEEL_RUNNER_MACHINES "mps2-an385=qemu-system-arm -M mps2-an385")
