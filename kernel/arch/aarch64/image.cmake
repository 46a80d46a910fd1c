# keel_add_image(NAME SOURCES...): the AArch64 kernel image. Linked as an
# ELF at the board's KEEL_LOAD_ADDRESS with kernel.ld (NAME.elf: symbols,
# objdump), then copied to a flat binary, a Linux arm64 Image (NAME.img),
# which is what QEMU's -kernel and the Raspberry Pi firmware load with the
# device tree's address in x0 (docs/adr/0020). Both files go to the board's
# KEEL_IMAGE_DIR (default: the build's kernel/ folder). Sets KEEL_IMAGE to
# the .img and KEEL_IMAGE_ELF to the .elf.
include(${CMAKE_CURRENT_LIST_DIR}/../kernel_image.cmake)

function(keel_add_image name)
  if(NOT KEEL_LOAD_ADDRESS)
    message(FATAL_ERROR "boards/${KEEL_BOARD}/board.cmake must set KEEL_LOAD_ADDRESS")
  endif()
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/kernel.ld)
  set(load_address -Wl,--defsym=KEEL_LOAD_ADDRESS=${KEEL_LOAD_ADDRESS})
  set(KEEL_IMAGE_LINK_OPTIONS ${load_address})
  set(elf ${name}-elf)
  keel_kernel_executable(${elf} ${script} ${name} .elf ${ARGN})

  if(NOT KEEL_IMAGE_DIR)
    set(KEEL_IMAGE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(image ${KEEL_IMAGE_DIR}/${name}.img)
  add_custom_command(OUTPUT ${image}
    COMMAND ${CMAKE_OBJCOPY} -O binary $<TARGET_FILE:${elf}> ${image}
    DEPENDS ${elf}
    COMMENT "objcopy -O binary: ${name}.img, a Linux arm64 Image for -kernel"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${image})
  set(KEEL_IMAGE ${image} PARENT_SCOPE)
  set(KEEL_IMAGE_ELF ${KEEL_IMAGE_DIR}/${name}.elf PARENT_SCOPE)

  keel_global_constructor_test(aarch64 ${script} ${load_address})
endfunction()
