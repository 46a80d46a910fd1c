# keel_add_image(NAME SOURCES...): the x86-64 kernel image. Linked as ELF64
# at 1 MiB with kernel.ld, then copied to elf32-i386, the only ELF class
# QEMU's -kernel (multiboot1) accepts (docs/adr/0007). Produces
# ${CMAKE_CURRENT_BINARY_DIR}/NAME.elf (to boot) and NAME.elf64 (to debug:
# symbols, objdump) and sets KEEL_IMAGE to the former.
include(${CMAKE_CURRENT_LIST_DIR}/../kernel_image.cmake)

function(keel_add_image name)
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/kernel.ld)
  set(elf64 ${name}-elf64)
  keel_kernel_executable(${elf64} ${script} ${name} .elf64 ${ARGN})

  set(image ${CMAKE_CURRENT_BINARY_DIR}/${name}.elf)
  add_custom_command(OUTPUT ${image}
    COMMAND ${CMAKE_OBJCOPY} -O elf32-i386 $<TARGET_FILE:${elf64}> ${image}
    DEPENDS ${elf64}
    COMMENT "objcopy -O elf32-i386: ${name}.elf for qemu-system-x86_64 -kernel"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${image})
  set(KEEL_IMAGE ${image} PARENT_SCOPE)

  keel_global_constructor_test(x86_64 ${script} -m64)
endfunction()
