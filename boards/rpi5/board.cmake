# The Raspberry Pi 5 (BCM2712, Cortex-A76): which arch it runs, what the
# image is called, where it is linked and where it goes. Read by
# kernel/CMakeLists.txt when KEEL_BOARD=rpi5 (docs/adr/0034).
set(KEEL_ARCH aarch64)
# The name the Pi 5 firmware loads by default (and config.txt's kernel=).
set(KEEL_IMAGE_NAME kernel_2712)
# TF-A's BL31 lies below 0x80000; config.txt sets kernel_address=0x80000.
# 0x80000 is also 0 (a 2 MiB boundary) + the Image header's text_offset.
set(KEEL_LOAD_ADDRESS 0x80000)
# build/kernel-rpi5/kernel_2712.img, where scripts/sd-image takes it from.
set(KEEL_IMAGE_DIR ${CMAKE_BINARY_DIR})
