# `cmake --install`: libkeel_core.a (keel::core), libkeel_c.a (keel::c, the
# C API), the public headers, the `keel` tool, a CMake package
# (find_package(keel)) and keel.pc for pkg-config. Host builds only: the
# freestanding builds link the core into an image and install nothing.
include(CMakePackageConfigHelpers)

set_target_properties(keel_core PROPERTIES EXPORT_NAME core)
set_target_properties(keel_c PROPERTIES EXPORT_NAME c)
install(TARGETS keel_core keel_c EXPORT keelTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS keel RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/verifier/include/keel ${PROJECT_SOURCE_DIR}/capi/include/keel
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

set(KEEL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/keel)
install(EXPORT keelTargets NAMESPACE keel:: DESTINATION ${KEEL_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/keelConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/keelConfig.cmake
                              INSTALL_DESTINATION ${KEEL_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/keelConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/keelConfig.cmake ${PROJECT_BINARY_DIR}/package/keelConfigVersion.cmake
        DESTINATION ${KEEL_CMAKE_DIR})

# keel.pc finds the prefix from its own place, so that an install with
# `--prefix` elsewhere than CMAKE_INSTALL_PREFIX still works.
file(RELATIVE_PATH KEEL_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/keel.pc.in ${PROJECT_BINARY_DIR}/package/keel.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/keel.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The package's test (label `install`): install into a scratch prefix, build
# examples/embed against it with find_package and with pkg-config, link the
# C API's test with the C compiler through pkg-config, and run them all on
# the project's BPF test objects. Run by the host-release test
# preset only: an ASan/UBSan library would need the sanitizer run-times in
# the example too, and one compiler is enough to test the package.
add_test(NAME install_embed
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DEXAMPLE=${PROJECT_SOURCE_DIR}/examples/embed
                 -DWORK=${PROJECT_BINARY_DIR}/install-test -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
                 -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DCXX=${CMAKE_CXX_COMPILER} -DCC=${CMAKE_C_COMPILER}
                 -DGENERATOR=${CMAKE_GENERATOR}
                 -DOBJECTS=${PROJECT_BINARY_DIR}/verifier/tests/bpf
                 -P ${PROJECT_SOURCE_DIR}/examples/embed/check-install.cmake)
set_tests_properties(install_embed PROPERTIES LABELS install SKIP_REGULAR_EXPRESSION "SKIP:" TIMEOUT 120)
