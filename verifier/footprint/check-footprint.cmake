# cmake -DSIZE=arm-none-eabi-size -DCPU=cortex-m3 -DBUDGET=budget.cmake
#       -DIMAGES="a.elf|b.elf" [-DBUDGET_OVERRIDE=N] -P check-footprint.cmake
#
# Prints each image's .text, .rodata, .data and .bss as `arm-none-eabi-size
# -A` reports them, and fails when one is larger than its budget
# (budget.cmake, per CPU and image; BUDGET_OVERRIDE replaces every budget,
# to prove the check can fail).
include(${BUDGET})
string(REPLACE "|" ";" IMAGES "${IMAGES}")  # '|': a ';' would split the test's argument
set(failed FALSE)
foreach(image IN LISTS IMAGES)
  get_filename_component(name ${image} NAME_WE)
  string(REPLACE "keel-footprint-" "" name ${name})
  execute_process(COMMAND ${SIZE} -A ${image} OUTPUT_VARIABLE table RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${SIZE} -A ${image} failed (status ${status})")
  endif()
  foreach(section IN ITEMS text rodata data bss)
    set(bytes 0)
    if(table MATCHES "\n\\.${section}[ \t]+([0-9]+)")
      set(bytes ${CMAKE_MATCH_1})
    endif()
    set(key KEEL_FOOTPRINT_BUDGET_${CPU}_${name}_${section})
    if(DEFINED BUDGET_OVERRIDE)
      set(limit ${BUDGET_OVERRIDE})
    elseif(DEFINED ${key})
      set(limit ${${key}})
    else()
      message(FATAL_ERROR "${BUDGET} has no ${key}")
    endif()
    if(bytes GREATER limit)
      message(STATUS "${CPU} ${name} .${section} ${bytes} bytes: OVER its budget of ${limit}")
      set(failed TRUE)
    else()
      message(STATUS "${CPU} ${name} .${section} ${bytes} bytes (budget ${limit})")
    endif()
  endforeach()
endforeach()
if(failed)
  message(FATAL_ERROR "the core's footprint grew past its budget (verifier/footprint/budget.cmake, "
                      "docs/performance/cortex-m.md)")
endif()
