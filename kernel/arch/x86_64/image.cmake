# keel_add_image(NAME SOURCES...): the x86-64 kernel image. Linked as ELF64
# at 1 MiB with kernel.ld, then copied to elf32-i386, the only ELF class
# QEMU's -kernel (multiboot1) accepts (docs/adr/0007). Produces
# ${CMAKE_CURRENT_BINARY_DIR}/NAME.elf (to boot) and NAME.elf64 (to debug:
# symbols, objdump) and sets KEEL_IMAGE to the former.
function(keel_add_image name)
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/kernel.ld)
  set(elf64 ${name}-elf64)
  add_executable(${elf64} ${ARGN})
  set_target_properties(${elf64} PROPERTIES
    OUTPUT_NAME ${name} SUFFIX .elf64
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
    LINK_DEPENDS ${script})
  target_include_directories(${elf64} PRIVATE ${PROJECT_SOURCE_DIR}/kernel)
  # The BPF service's platform and the verifier core (libkeel), the very
  # libraries the host tests link (DESIGN.md "one core built freestanding").
  target_link_libraries(${elf64} PRIVATE keel_kernel_bpf keel_core keel_kernel_portable
                        keel_warnings keel_freestanding)
  # No unwind tables: nothing unwinds (no exceptions), and kernel.ld
  # discards .eh_frame anyway.
  target_compile_options(${elf64} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-asynchronous-unwind-tables>)
  target_link_options(${elf64} PRIVATE
    -nostdlib -static -no-pie -Wl,-T,${script} -Wl,--build-id=none
    -Wl,-z,max-page-size=0x1000 -Wl,-z,noexecstack)
  # keel_kernel's objects are in the sources: a static library would drop
  # members that only the arch entry reaches.

  set(image ${CMAKE_CURRENT_BINARY_DIR}/${name}.elf)
  add_custom_command(OUTPUT ${image}
    COMMAND ${CMAKE_OBJCOPY} -O elf32-i386 $<TARGET_FILE:${elf64}> ${image}
    DEPENDS ${elf64}
    COMMENT "objcopy -O elf32-i386: ${name}.elf for qemu-system-x86_64 -kernel"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${image})
  set(KEEL_IMAGE ${image} PARENT_SCOPE)

  # kernel.ld's ASSERT must reject a global constructor (it would never run).
  set(work ${CMAKE_CURRENT_BINARY_DIR}/link-rejects-global-constructors)
  file(MAKE_DIRECTORY ${work})
  add_test(NAME x86_64.link-rejects-global-constructors
           COMMAND ${CMAKE_CXX_COMPILER} -m64 -ffreestanding -fno-pic -fno-pie -nostdlib
                   -static -no-pie -Wl,-T,${script}
                   ${PROJECT_SOURCE_DIR}/kernel/tests/global_constructor.cc
                   -o ${work}/must-not-exist.elf)
  set_tests_properties(x86_64.link-rejects-global-constructors PROPERTIES
    LABELS link PASS_REGULAR_EXPRESSION "global constructors are not supported")
endfunction()
