# The AArch64 bare-metal suite runner (runner/, docs/adr/0025): the
# freestanding AArch64 toolchain (docs/adr/0002), whose core flags it keeps,
# but without -nostdlib: the runner links picolibc's start-up code and C
# library, which runner/CMakeLists.txt asks for with --specs=picolibc.specs
# (docs/adr/0003). Static try-compiles, as for the core.
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-freestanding.cmake)
set(CMAKE_CXX_FLAGS_INIT "-mstrict-align -mgeneral-regs-only")
