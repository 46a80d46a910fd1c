# Writes OUT: `#define KEEL_GIT_COMMIT "<short commit>"` ("" outside a git
# checkout) for `keel --version`. Run at every build (keel_git_commit in
# verifier/cli); the file is rewritten only when the commit changes, so
# only main.cc recompiles, and only then.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed)
  set(commit "")
endif()
set(text "#define KEEL_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
