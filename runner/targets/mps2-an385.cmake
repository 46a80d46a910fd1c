# QEMU mps2-an385: Arm's MPS2 board with the AN385 image, a Cortex-M3
# (ARMv7-M). Memory (QEMU hw/arm/mps2.c, AN385 application note): SSRAM1
# at 0x00000000, where VTOR points at reset; PSRAM at 0x21000000.
set(KEEL_MPS2_MACHINE mps2-an385)
set(KEEL_MPS2_CODE 0x00000000)
set(KEEL_MPS2_PSRAM 0x21000000)
include(${CMAKE_CURRENT_LIST_DIR}/mps2-common.cmake)
