# AArch64 bare metal with Debian's aarch64-linux-gnu toolchain used
# freestanding (docs/adr/0002: gcc-arm-none-eabi cannot target AArch64).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LINKER aarch64-linux-gnu-ld)
set(CMAKE_NM aarch64-linux-gnu-nm)
set(CMAKE_AR aarch64-linux-gnu-ar)
set(CMAKE_OBJCOPY aarch64-linux-gnu-objcopy)
# Static libraries only: no executable can link without a runtime here.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# Device memory faults on unaligned accesses, and with the MMU off every data
# access is Device memory (Arm ARM, alignment of data accesses; docs/platform.md).
# No PIC: the kernel runs where it is linked (Debian's compiler defaults to PIE).
set(CMAKE_CXX_FLAGS_INIT "-mstrict-align -mgeneral-regs-only -fno-pic -fno-pie -nostdlib")
# The kernel's boot stub and exception vectors (.S, preprocessed by gcc).
set(CMAKE_ASM_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_ASM_FLAGS_INIT "-fno-pic -fno-pie")
