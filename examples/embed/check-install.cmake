# The installed package's test (ctest label `install`, registered by
# cmake/KeelInstall.cmake): installs BUILD_DIR into WORK/prefix, builds this
# example against it twice (find_package(keel), then `pkg-config --cflags
# --libs keel`), links the C API's test with the C compiler through
# pkg-config, and runs them on the project's BPF test objects (OBJECTS;
# built only when clang is there, else SKIP after the build checks).
foreach(variable BUILD_DIR SOURCE_DIR EXAMPLE WORK LIBDIR CXX CC GENERATOR OBJECTS)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "check-install.cmake: -D${variable}= is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${status}): ${command}\n${out}")
  endif()
endfunction()

# Runs `program object`, expecting exit status `status` and every regex in ARGN.
function(expect_run program object status)
  execute_process(COMMAND ${program} ${object} RESULT_VARIABLE got OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT got EQUAL status)
    message(FATAL_ERROR "${program} ${object}: exit status ${got}, expected ${status}\n${out}")
  endif()
  foreach(pattern IN LISTS ARGN)
    if(NOT out MATCHES "${pattern}")
      message(FATAL_ERROR "${program} ${object}: output lacks '${pattern}':\n${out}")
    endif()
  endforeach()
  message(STATUS "${program} ${object}: exit ${got}\n${out}")
endfunction()

set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file bin/keel ${LIBDIR}/libkeel_core.a ${LIBDIR}/libkeel_c.a include/keel/keel.h include/keel/keel_c.h
        ${LIBDIR}/cmake/keel/keelConfig.cmake ${LIBDIR}/cmake/keel/keelConfigVersion.cmake
        ${LIBDIR}/cmake/keel/keelTargets.cmake ${LIBDIR}/pkgconfig/keel.pc)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "cmake --install did not install ${file}")
  endif()
endforeach()
if(EXISTS ${prefix}/bin/keel-corpus)
  message(FATAL_ERROR "cmake --install installed keel-corpus, the project's test tool (docs/adr/0046)")
endif()
run(${prefix}/bin/keel --version)

# find_package(keel) and keel::core.
run(${CMAKE_COMMAND} -S ${EXAMPLE} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK}/build)

# pkg-config: the flags keel.pc gives, relocated into the scratch prefix.
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config not found (scripts/bootstrap installs pkgconf)")
endif()
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs keel RESULT_VARIABLE status OUTPUT_VARIABLE flags
                ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT status EQUAL 0 OR NOT flags MATCHES "-lkeel_core")
  message(FATAL_ERROR "pkg-config --cflags --libs keel: ${flags}${error}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
# -Werror: the public headers must be warning-clean in users' builds too.
run(${CXX} -std=c++20 -O1 -Wall -Wextra -Werror ${EXAMPLE}/main.cc ${flags} -o ${WORK}/keel-embed-pkg-config)

# A C host: the C API's own test, linked by the C compiler (keel_c needs no
# C++ run-time), with the same flags.
run(${CC} -std=c11 -Wall -Wextra -Werror -pedantic "-DKEEL_BPF_OBJECT_DIR=\"${OBJECTS}\""
    ${SOURCE_DIR}/capi/tests/keel_c_test.c ${flags} -o ${WORK}/keel-c-pkg-config)
execute_process(COMMAND ${WORK}/keel-c-pkg-config RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0 AND NOT status EQUAL 77)
  message(FATAL_ERROR "the C API test linked through pkg-config failed (${status}):\n${out}")
endif()

if(NOT EXISTS ${OBJECTS}/maps.bpf.o OR NOT EXISTS ${OBJECTS}/unsafe.bpf.o)
  message("SKIP: the examples built, but no BPF test objects in ${OBJECTS} to run them on (clang not found)")
  return()
endif()
foreach(program ${WORK}/build/keel-embed ${WORK}/keel-embed-pkg-config)
  expect_run(${program} ${OBJECTS}/maps.bpf.o 0 "use_maps: accept" "tail_caller: accept" "tail_callee: accept")
  expect_run(${program} ${OBJECTS}/unsafe.bpf.o 1 "no_null_check: reject: pc [0-9]+: [^\n]*NULL"
             "no_bounds_check: reject: pc [0-9]+" "uninitialized_read: accept")
  expect_run(${program} ${EXAMPLE}/main.cc 2 "bad_header")
endforeach()
