# The QEMU PC board (q35 or pc): which arch it runs and what the image is
# called. Read by kernel/CMakeLists.txt when KEEL_BOARD=qemu-x86.
set(KEEL_ARCH x86_64)
set(KEEL_IMAGE_NAME keel-x86)
