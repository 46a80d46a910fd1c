# Compiler flags shared by every target.

add_library(keel_warnings INTERFACE)
target_compile_options(keel_warnings INTERFACE -Wall -Wextra -Wshadow -Wconversion
                       -Wno-sign-conversion $<$<BOOL:${KEEL_WERROR}>:-Werror>)

# The core's flags are the same on the host and in the kernel: the host
# library is the very code the kernel links, not a sibling (DESIGN.md).
add_library(keel_freestanding INTERFACE)
target_compile_options(keel_freestanding INTERFACE -ffreestanding -fno-exceptions -fno-rtti
                       -fno-threadsafe-statics -fno-stack-protector)

if(KEEL_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Coverage instrumentation for libFuzzer everywhere; only the fuzz targets
# link the fuzzer's main (verifier/fuzz), so the CLI and tests still build.
if(KEEL_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
