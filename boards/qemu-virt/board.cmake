# QEMU's AArch64 `virt` machine (-cpu cortex-a76): which arch it runs, what
# the image is called, and where it is linked. Read by kernel/CMakeLists.txt
# when KEEL_BOARD=qemu-virt.
set(KEEL_ARCH aarch64)
set(KEEL_IMAGE_NAME keel-virt)
# QEMU loads an arm64 Image at the start of RAM (0x40000000) + its
# text_offset, 0x80000 (hw/arm/boot.c; docs/adr/0020).
set(KEEL_LOAD_ADDRESS 0x40080000)
