# Cortex-M bare metal with Debian's arm-none-eabi toolchain, freestanding,
# Thumb-2 (docs/adr/0026). KEEL_CORTEX_M_CPU picks the core: cortex-m3
# (ARMv7-M, QEMU mps2-an385) by default, cortex-m33 (ARMv8-M Mainline,
# mps2-an505). No FPU is used (-mfloat-abi=soft): the core has no floating
# point, and ARMv7-M has no FPU at all.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_LINKER arm-none-eabi-ld)
set(CMAKE_NM arm-none-eabi-nm)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy)
set(CMAKE_SIZE arm-none-eabi-size)
# Static libraries only: no executable can link without a runtime here.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(KEEL_CORTEX_M_CPU cortex-m3 CACHE STRING "Cortex-M core to build for (cortex-m3, cortex-m33)")
# arm-none-eabi GCC has no C headers of its own, and libstdc++'s <cstring>
# (which the core includes for the mem* declarations) needs a <string.h>:
# picolibc's, through its specs file (-isystem of its headers). The core
# still links nothing from it (cmake/CheckUndefinedSymbols.cmake). No
# -nostdlib: the core presets link nothing, and the runner
# (runner/CMakeLists.txt) links picolibc itself.
# One section per function and object, so that an image linked with
# --gc-sections keeps only what it reaches: a part's flash holds the stages
# the firmware calls, nothing more (docs/performance/cortex-m.md).
set(CMAKE_CXX_FLAGS_INIT "-mcpu=${KEEL_CORTEX_M_CPU} -mthumb -mfloat-abi=soft -ffunction-sections -fdata-sections --specs=picolibc.specs")
set(CMAKE_C_FLAGS_INIT "-mcpu=${KEEL_CORTEX_M_CPU} -mthumb -mfloat-abi=soft -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=${KEEL_CORTEX_M_CPU} -mthumb")
# No run-time helpers are allowed: ARMv7-M and ARMv8-M have no 64-bit
# divide or count-trailing-zeros instruction, and the core defines the
# routines GCC calls for them itself (verifier/runtime/arm32, docs/adr/0026),
# so cmake/CheckUndefinedSymbols.cmake allows mem* only, as on every target.
set(KEEL_RUNTIME_HELPERS "")
