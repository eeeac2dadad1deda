# Profile-guided optimisation (GCC): the release build is compiled twice, the second time with the
# branch and call counts of a training run of the first. .ci/bootstrap drives it:
#
#   CKPT_PGO=generate   instrumented build; each run of it adds its counts to CKPT_PGO_DIR
#   CKPT_PGO=use        optimised with those counts (the swarm runs 10-13% faster: docs/performance.md)
#   CKPT_PGO=""         neither (the default, and what a plain `cmake --preset release` gives)
#
# Both stages must build in the same directory with the same flags otherwise, since a counts
# file is named after its object file. The counts change no result: the same seeds give the same
# trace hashes either way. A source edited since the training run compiles without counts for
# the functions it changed (-Wno-coverage-mismatch), and the sources the training run never
# compiled (the tests') without any (-Wno-missing-profile), both optimised as without PGO
# (-fprofile-partial-training). Counts that no longer fit a function's code (a reconfigured tree:
# counts taken at -O3 read at -O2 fail the build as "corrupted profile info") are smoothed over
# instead (-fprofile-correction).
set(CKPT_PGO "" CACHE STRING "Profile-guided optimisation stage: generate, use, or empty for none")
set(CKPT_PGO_DIR "${CMAKE_BINARY_DIR}/pgo" CACHE PATH "Where the PGO stages keep the training run's counts")

if(CKPT_PGO STREQUAL "")
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "CKPT_PGO needs GCC (got ${CMAKE_CXX_COMPILER_ID}): configure the release preset")
endif()
if(CKPT_SANITIZE)
  message(FATAL_ERROR "CKPT_PGO is for release builds; the sanitizer build times nothing")
endif()

if(CKPT_PGO STREQUAL "generate")
  # One process writes the counts (explore --jobs 1): no atomic updates needed.
  add_compile_options(-fprofile-generate -fprofile-update=single "-fprofile-dir=${CKPT_PGO_DIR}")
  add_link_options(-fprofile-generate)
elseif(CKPT_PGO STREQUAL "use")
  add_compile_options(-fprofile-use "-fprofile-dir=${CKPT_PGO_DIR}" -fprofile-partial-training
                      -fprofile-correction -Wno-missing-profile -Wno-coverage-mismatch)
else()
  message(FATAL_ERROR "CKPT_PGO must be generate, use or empty, got '${CKPT_PGO}'")
endif()
