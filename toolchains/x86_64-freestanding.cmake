# x86-64 bare metal with the host g++ used freestanding: no red zone
# (interrupts would clobber it), no SSE state to save, no PIC.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
# The kernel's boot stub and exception entries (.S, preprocessed by gcc).
set(CMAKE_ASM_COMPILER gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_CXX_FLAGS_INIT "-m64 -mno-red-zone -mgeneral-regs-only -fno-pic -fno-pie -nostdlib")
set(CMAKE_ASM_FLAGS_INIT "-m64 -fno-pic -fno-pie")
