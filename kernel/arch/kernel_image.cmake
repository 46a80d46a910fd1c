# What every arch's image.cmake shares (included by kernel/arch/<isa>/image.cmake):
#
#   keel_kernel_executable(TARGET SCRIPT OUTPUT_NAME SUFFIX SOURCES...): the
#     kernel linked with the linker script SCRIPT into KEEL_IMAGE_DIR (the
#     board's choice; the build's kernel/ folder by default), freestanding, against the
#     BPF service's platform and the verifier core (libkeel), the very
#     libraries the host tests link (docs/adr/0006, one core built freestanding).
#     keel_kernel's objects are in the sources: a static library would drop
#     members that only the arch entry reaches. Extra link options go in
#     KEEL_IMAGE_LINK_OPTIONS.
#   keel_global_constructor_test(ARCH SCRIPT FLAGS...): SCRIPT's ASSERT must
#     reject a global constructor (it would never run).
function(keel_kernel_executable target script output_name suffix)
  if(NOT KEEL_IMAGE_DIR)
    set(KEEL_IMAGE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  add_executable(${target} ${ARGN})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${output_name} SUFFIX ${suffix}
    RUNTIME_OUTPUT_DIRECTORY ${KEEL_IMAGE_DIR}
    LINK_DEPENDS ${script})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/kernel)
  target_link_libraries(${target} PRIVATE keel_kernel_bpf keel_core keel_kernel_portable
                        keel_warnings keel_freestanding)
  # No unwind tables: nothing unwinds (no exceptions), and the linker
  # scripts discard .eh_frame anyway.
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-asynchronous-unwind-tables>)
  target_link_options(${target} PRIVATE
    -nostdlib -static -no-pie -Wl,-T,${script} -Wl,--build-id=none
    -Wl,-z,max-page-size=0x1000 -Wl,-z,noexecstack ${KEEL_IMAGE_LINK_OPTIONS})
endfunction()

function(keel_global_constructor_test arch script)
  set(work ${CMAKE_CURRENT_BINARY_DIR}/link-rejects-global-constructors)
  file(MAKE_DIRECTORY ${work})
  add_test(NAME ${arch}.link-rejects-global-constructors
           COMMAND ${CMAKE_CXX_COMPILER} ${ARGN} -ffreestanding -fno-pic -fno-pie -nostdlib
                   -static -no-pie -Wl,-T,${script}
                   ${PROJECT_SOURCE_DIR}/kernel/tests/global_constructor.cc
                   -o ${work}/must-not-exist.elf)
  set_tests_properties(${arch}.link-rejects-global-constructors PROPERTIES
    LABELS link PASS_REGULAR_EXPRESSION "global constructors are not supported")
endfunction()
