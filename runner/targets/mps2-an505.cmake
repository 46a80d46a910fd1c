# QEMU mps2-an505: Arm's MPS2+ board with the AN505 image, a Cortex-M33
# (ARMv8-M Mainline with TrustZone), entered in Secure state. Memory (QEMU
# hw/arm/mps2-tz.c, AN505 application note): the Secure alias of SSRAM1 at
# 0x10000000, where the Secure VTOR points at reset; PSRAM at 0x80000000.
# The image is built for the Cortex-M3 like mps2-an385's (ARMv7-M code runs
# unchanged on ARMv8-M Mainline), so that one core build serves both.
set(KEEL_MPS2_MACHINE mps2-an505)
set(KEEL_MPS2_CODE 0x10000000)
set(KEEL_MPS2_PSRAM 0x80000000)
include(${CMAKE_CURRENT_LIST_DIR}/mps2-common.cmake)
