# keel_add_image(NAME SOURCES...): the AArch64 kernel image. Linked as an
# ELF at the board's KEEL_LOAD_ADDRESS with kernel.ld (NAME.elf: symbols,
# objdump), then copied to a flat binary, a Linux arm64 Image (NAME.img),
# which is what QEMU's -kernel and the Raspberry Pi firmware load with the
# device tree's address in x0 (docs/adr/0020). Sets KEEL_IMAGE to the .img.
function(keel_add_image name)
  if(NOT KEEL_LOAD_ADDRESS)
    message(FATAL_ERROR "boards/${KEEL_BOARD}/board.cmake must set KEEL_LOAD_ADDRESS")
  endif()
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/kernel.ld)
  set(elf ${name}-elf)
  add_executable(${elf} ${ARGN})
  set_target_properties(${elf} PROPERTIES
    OUTPUT_NAME ${name} SUFFIX .elf
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
    LINK_DEPENDS ${script})
  target_include_directories(${elf} PRIVATE ${PROJECT_SOURCE_DIR}/kernel)
  # The BPF service's platform and the verifier core (libkeel), the very
  # libraries the host tests link (DESIGN.md "one core built freestanding").
  target_link_libraries(${elf} PRIVATE keel_kernel_bpf keel_core keel_kernel_portable
                        keel_warnings keel_freestanding)
  target_compile_options(${elf} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-asynchronous-unwind-tables>)
  target_link_options(${elf} PRIVATE
    -nostdlib -static -no-pie -Wl,-T,${script} -Wl,--build-id=none
    -Wl,--defsym=KEEL_LOAD_ADDRESS=${KEEL_LOAD_ADDRESS}
    -Wl,-z,max-page-size=0x1000 -Wl,-z,noexecstack)

  set(image ${CMAKE_CURRENT_BINARY_DIR}/${name}.img)
  add_custom_command(OUTPUT ${image}
    COMMAND ${CMAKE_OBJCOPY} -O binary $<TARGET_FILE:${elf}> ${image}
    DEPENDS ${elf}
    COMMENT "objcopy -O binary: ${name}.img, a Linux arm64 Image for -kernel"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${image})
  set(KEEL_IMAGE ${image} PARENT_SCOPE)
  set(KEEL_IMAGE_ELF ${CMAKE_CURRENT_BINARY_DIR}/${name}.elf PARENT_SCOPE)

  # kernel.ld's ASSERT must reject a global constructor (it would never run).
  set(work ${CMAKE_CURRENT_BINARY_DIR}/link-rejects-global-constructors)
  file(MAKE_DIRECTORY ${work})
  add_test(NAME aarch64.link-rejects-global-constructors
           COMMAND ${CMAKE_CXX_COMPILER} -ffreestanding -fno-pic -fno-pie -nostdlib
                   -static -no-pie -Wl,-T,${script} -Wl,--defsym=KEEL_LOAD_ADDRESS=${KEEL_LOAD_ADDRESS}
                   ${PROJECT_SOURCE_DIR}/kernel/tests/global_constructor.cc
                   -o ${work}/must-not-exist.elf)
  set_tests_properties(aarch64.link-rejects-global-constructors PROPERTIES
    LABELS link PASS_REGULAR_EXPRESSION "global constructors are not supported")
endfunction()
