# Builds keel-kernel-check (kernel_check.cc) for the host from a board
# build, whose own compiler flags are freestanding: a sub-build of this
# project with the host compiler and no toolchain file, KEEL_HOST=OFF (no
# GoogleTest needed) and only that tool as its target. Sets KEEL_KERNEL_CHECK
# to the tool's path; the board's semantic-consistency test runs it.
include(ExternalProject)
# The host's compiler, not the board's: a cross compiler (aarch64-linux-gnu-g++)
# would build a tool the host cannot run.
set(KEEL_HOST_CXX_COMPILER g++ CACHE STRING "Host C++ compiler for keel-kernel-check")
set(keel_host_check_dir ${CMAKE_BINARY_DIR}/host-check)
ExternalProject_Add(keel_host_check
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${keel_host_check_dir}
  CMAKE_ARGS -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${KEEL_HOST_CXX_COMPILER}
             -DKEEL_HOST=OFF -DKEEL_KERNEL_CHECK_TOOL=ON -DKEEL_WERROR=${KEEL_WERROR}
  BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --target keel-kernel-check --parallel 2
  BUILD_ALWAYS ON  # the sub-build's own dependency scan decides what to rebuild
  BUILD_BYPRODUCTS ${keel_host_check_dir}/bin/keel-kernel-check
  INSTALL_COMMAND ""
  USES_TERMINAL_BUILD OFF)
set(KEEL_KERNEL_CHECK ${keel_host_check_dir}/bin/keel-kernel-check)
