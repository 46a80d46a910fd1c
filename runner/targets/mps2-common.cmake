# What the two QEMU MPS2 targets share (included by mps2-an385.cmake and
# mps2-an505.cmake, which set KEEL_MPS2_MACHINE, KEEL_MPS2_CODE and
# KEEL_MPS2_PSRAM): code in the 4 MiB SSRAM where the machine reads its
# vector table at reset ("flash" to picolibc.ld), data, .bss and the stack
# in its 16 MiB of PSRAM. picolibc's crt0 supplies the vector table and
# fault handlers that print "ARM fault: ..." over semihosting and exit 1.
set(KEEL_RUNNER_ARCH "")  # none: picolibc's crt0 is enough
set(KEEL_RUNNER_LINK_OPTIONS
    -Wl,--defsym=__flash=${KEEL_MPS2_CODE} -Wl,--defsym=__flash_size=0x400000
    -Wl,--defsym=__ram=${KEEL_MPS2_PSRAM} -Wl,--defsym=__ram_size=0x1000000
    -Wl,--defsym=__stack_size=0x10000)
set(KEEL_RUNNER_BLOB_KIB 1024)
# 12 MiB of the 16: less than the host's 64 MiB per case (docs/adr/0026).
set(KEEL_RUNNER_ARENA_KIB 12288)
set(KEEL_RUNNER_DECODE_ARENA_KIB 1024)
set(KEEL_RUNNER_MACHINES "${KEEL_MPS2_MACHINE}=qemu-system-arm -M ${KEEL_MPS2_MACHINE}")
