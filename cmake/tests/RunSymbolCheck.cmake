# One test case for cmake/CheckUndefinedSymbols.cmake: compiles SOURCES
# (comma-separated) with the core's freestanding flags, archives them, runs
# the check in a child cmake and asserts its outcome:
#   EXPECT=fail  the check exits non-zero and its message names SYMBOL;
#   EXPECT=pass  the check exits zero, and `nm -u` of the linked object does
#                list SYMBOL (so the pass exercised the mem* allowance and
#                was not a vacuous empty object).
# HELPERS (optional, comma-separated) is passed as the check's RUNTIME_HELPERS.
# Asserting the message, not just "it failed", keeps a broken compile or a
# missing tool from passing as an expected failure.
foreach(variable IN ITEMS CXX AR LINKER NM SOURCES EXPECT SYMBOL WORK CHECK)
  if(NOT DEFINED ${variable} OR "${${variable}}" STREQUAL "")
    message(FATAL_ERROR "RunSymbolCheck.cmake: -D${variable}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
string(REPLACE "," ";" sources "${SOURCES}")
set(objects "")
foreach(source IN LISTS sources)
  get_filename_component(stem ${source} NAME_WE)
  set(object ${WORK}/${stem}.o)
  execute_process(COMMAND ${CXX} -std=c++20 -O2 -ffreestanding -fno-exceptions -fno-rtti
                          -fno-pic -fno-pie -c ${source} -o ${object}
                  RESULT_VARIABLE result ERROR_VARIABLE error)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "compiling ${source} failed: ${error}")
  endif()
  list(APPEND objects ${object})
endforeach()

set(archive ${WORK}/libcase.a)
execute_process(COMMAND ${AR} rcs ${archive} ${objects} RESULT_VARIABLE result ERROR_VARIABLE error)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${AR} failed: ${error}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -DARCHIVE=${archive} -DLINKER=${LINKER} -DNM=${NM}
                        -DWORK=${WORK}/check -DRUNTIME_HELPERS=${HELPERS} -P ${CHECK}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
message(STATUS "check exited ${result}:\n${output}")

if(EXPECT STREQUAL "fail")
  if(result EQUAL 0)
    message(FATAL_ERROR "expected the check to fail on ${SYMBOL}, but it passed")
  endif()
  if(NOT output MATCHES "may not use: .*${SYMBOL}")
    message(FATAL_ERROR "the check failed, but not by naming ${SYMBOL}")
  endif()
elseif(EXPECT STREQUAL "pass")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "expected the check to pass, but it failed")
  endif()
  execute_process(COMMAND ${NM} -u -P ${WORK}/check/core.o OUTPUT_VARIABLE undefined)
  if(NOT undefined MATCHES "(^|\n)${SYMBOL} ")
    message(FATAL_ERROR "vacuous pass: the object does not reference ${SYMBOL}:\n${undefined}")
  endif()
else()
  message(FATAL_ERROR "EXPECT must be pass or fail, not '${EXPECT}'")
endif()
