# Compiler flags shared by every target.

add_library(keel_warnings INTERFACE)
target_compile_options(keel_warnings INTERFACE -Wall -Wextra -Wshadow -Wconversion
                       -Wno-sign-conversion $<$<BOOL:${KEEL_WERROR}>:-Werror>)

# The core's flags are the same on the host and in the kernel: the host
# library is the very code the kernel links, not a sibling (docs/adr/0006).
add_library(keel_freestanding INTERFACE)
target_compile_options(keel_freestanding INTERFACE -ffreestanding -fno-exceptions -fno-rtti
                       -fno-threadsafe-statics -fno-stack-protector)

# Code generation only, the same source: g++'s generic x86-64 tuning clears
# and copies fixed-size structs of 64-512 bytes (a value-initialized Cfg,
# Engine, Run or RegState) with `rep stos`/`rep movs`, whose start-up cost
# of tens of cycles each was a tenth of verifying a 2-instruction program;
# a loop of SSE stores does it in a few. Host builds only: the kernel's
# -mgeneral-regs-only would turn the vector loops into memset calls.
#
# Every function starts on a cache line (docs/adr/0056): the time of the
# small branchy shapes moved by up to 1.2x at an unchanged or lower
# instruction count when unrelated code shifted the hot functions by 16
# bytes, which made timed A/B runs measure the layout, not the change.
if(KEEL_HOST AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
  target_compile_options(keel_freestanding INTERFACE
                         -mmemset-strategy=vector_loop:512:noalign,libcall:-1:noalign
                         -mmemcpy-strategy=vector_loop:512:noalign,libcall:-1:noalign
                         -falign-functions=64)
endif()

if(KEEL_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Coverage instrumentation for libFuzzer everywhere; only the fuzz targets
# link the fuzzer's main (verifier/fuzz), so the CLI and tests still build.
if(KEEL_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
