# cmake -DKEEL=<keel CLI> -DCORPUS=<corpus dir> -DOUT=<seed dir> -P make_seeds.cmake
#
# Writes OUT/asm/<name>.s (the `-- asm` section of every bpf_conformance and
# uBPF .data file), OUT/bin/<name>.bin (the same assembled by `keel asm`;
# texts it refuses are kept as asm seeds only) and OUT/elf/ (the ebpf-samples
# objects up to 64 KiB). A missing corpus gives empty folders. OUT/stamp
# records the counts.
foreach(variable KEEL CORPUS OUT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "make_seeds.cmake: -D${variable}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${OUT}/asm ${OUT}/bin ${OUT}/elf)
file(MAKE_DIRECTORY ${OUT}/asm ${OUT}/bin ${OUT}/elf)

file(GLOB_RECURSE sources ${CORPUS}/bpf_conformance/tests/*.data ${CORPUS}/ubpf/*.data)
set(texts 0)
set(programs 0)
foreach(source IN LISTS sources)
  file(READ ${source} content)
  # The section runs from its `-- asm` line to the next `-- ` line.
  string(FIND "${content}" "-- asm\n" start)
  if(start EQUAL -1)
    continue()
  endif()
  math(EXPR start "${start} + 7")
  string(SUBSTRING "${content}" ${start} -1 asm)
  string(FIND "${asm}" "\n-- " end)
  if(NOT end EQUAL -1)
    math(EXPR end "${end} + 1")
    string(SUBSTRING "${asm}" 0 ${end} asm)
  endif()

  # Names unique across the two suites: <suite>_<path below tests/>.
  file(RELATIVE_PATH relative ${CORPUS} ${source})
  string(REGEX REPLACE "[/.]" "_" name "${relative}")
  string(REGEX REPLACE "_data$" "" name "${name}")
  file(WRITE ${OUT}/asm/${name}.s "${asm}")
  math(EXPR texts "${texts} + 1")

  execute_process(COMMAND ${KEEL} asm ${OUT}/asm/${name}.s -o ${OUT}/bin/${name}.bin
                  RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
  if(status EQUAL 0)
    math(EXPR programs "${programs} + 1")
  else()
    file(REMOVE ${OUT}/bin/${name}.bin)
  endif()
endforeach()

# ELF objects for fuzz_elf: the small ones (libFuzzer's -max_len is 64 KiB).
set(objects 0)
file(GLOB_RECURSE elf_sources ${CORPUS}/ebpf-samples/*.o)
foreach(source IN LISTS elf_sources)
  file(SIZE ${source} size)
  if(size GREATER 65536)
    continue()
  endif()
  file(RELATIVE_PATH relative ${CORPUS}/ebpf-samples ${source})
  string(REGEX REPLACE "[/.]" "_" name "${relative}")
  file(COPY_FILE ${source} ${OUT}/elf/${name})
  math(EXPR objects "${objects} + 1")
endforeach()

file(WRITE ${OUT}/stamp "${texts} asm seeds, ${programs} program seeds, ${objects} objects from ${CORPUS}\n")
message(STATUS "fuzz seeds: ${texts} asm, ${programs} programs, ${objects} objects (corpus ${CORPUS})")
