# Fails when the static library ARCHIVE, linked into one relocatable object
# (so that symbols defined by its own members do not count), still needs a
# symbol other than memcpy/memmove/memset/memcmp.
#
#   cmake -DARCHIVE=libkeel_core.a -DLINKER=ld -DNM=nm -DWORK=dir
#         [-DRUNTIME_HELPERS=name,name] -P CheckUndefinedSymbols.cmake
#
# RUNTIME_HELPERS (comma-separated) are also allowed: the compiler's own
# support routines (libgcc) for operations the target's ISA lacks, which a
# toolchain file names (KEEL_RUNTIME_HELPERS; 64-bit division on 32-bit
# Arm, docs/adr/0026). Empty everywhere else.
#
# Weak undefined references (nm type `w`/`v`) count as needed: in a kernel
# link they silently resolve to address 0. Tested by cmake/tests/.
cmake_minimum_required(VERSION 3.25)  # a -P script: IN_LIST and the other current policies
foreach(variable IN ITEMS ARCHIVE LINKER NM WORK)
  if(NOT ${variable})
    message(FATAL_ERROR "CheckUndefinedSymbols.cmake: -D${variable}=... is required")
  endif()
endforeach()

string(REPLACE "," ";" helpers "${RUNTIME_HELPERS}")

file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${LINKER} -r --whole-archive ${ARCHIVE} -o ${WORK}/core.o
                RESULT_VARIABLE link_result ERROR_VARIABLE link_error)
if(NOT link_result EQUAL 0)
  message(FATAL_ERROR "relocatable link of ${ARCHIVE} failed: ${link_error}")
endif()
# POSIX output format, one "name type [value size]" line per symbol, is the
# same for GNU nm and llvm-nm; the default format's "U"/"w" column is not
# worth parsing.
execute_process(COMMAND ${NM} -u -P ${WORK}/core.o OUTPUT_VARIABLE undefined
                RESULT_VARIABLE nm_result ERROR_VARIABLE nm_error)
if(NOT nm_result EQUAL 0)
  message(FATAL_ERROR "${NM} -u -P failed on ${WORK}/core.o: ${nm_error}")
endif()
string(REPLACE "\n" ";" lines "${undefined}")
set(unexpected "")
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  if(NOT line MATCHES "^([^ ]+) +([A-Za-z])( |$)")
    message(FATAL_ERROR "cannot parse ${NM} output line: '${line}'")
  endif()
  set(name ${CMAKE_MATCH_1})
  set(type ${CMAKE_MATCH_2})
  if(NOT name MATCHES "^(memcpy|memmove|memset|memcmp)$" AND NOT name IN_LIST helpers)
    list(APPEND unexpected "${name} (${type})")
  endif()
endforeach()
if(unexpected)
  list(JOIN unexpected ", " unexpected)
  message(FATAL_ERROR "freestanding core needs symbols it may not use: ${unexpected}")
endif()
if(helpers)
  message(STATUS "freestanding core: undefined symbols limited to mem* and the runtime helpers ${RUNTIME_HELPERS}")
else()
  message(STATUS "freestanding core: undefined symbols limited to mem*")
endif()
