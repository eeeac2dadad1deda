# Precompiled headers: nlohmann/json (about 25,000 lines) and the standard headers most files use
# were parsed again by every translation unit, and were most of each unit's compile time. Two
# precompiled headers are built once per build tree and every target reuses one of them:
#
#   ckpt_pch       the libraries and the ckptsim executable (nlohmann/json, the standard library);
#   ckpt_test_pch  the test, benchmark and fuzz executables (the above plus GoogleTest, GoogleMock,
#                  RapidCheck and Google Benchmark where those are built).
#
# Reuse needs the same compiler flags in every target, which the project already has (flags are
# global; the few per-target definitions name paths and versions that no precompiled header reads).
# CKPT_PCH=OFF builds without them, to check that every file includes what it uses.
option(CKPT_PCH "Precompile the heavy headers once per build tree" ON)

set(CKPT_PCH_HEADERS
    <algorithm> <array> <cstddef> <cstdint> <cstdio> <filesystem> <fstream> <functional> <map> <memory>
    <optional> <sstream> <stdexcept> <string> <string_view> <utility> <vector> <nlohmann/json.hpp>)

# A target that only owns a precompiled header: one small source so CMake has a unit to build it for.
function(ckpt_pch_target target)
  cmake_parse_arguments(ARG "" "" "HEADERS;LIBS" ${ARGN})
  set(source ${PROJECT_BINARY_DIR}/${target}.cpp)
  file(CONFIGURE OUTPUT ${source} CONTENT "// The unit ${target}'s precompiled header is built for.\n")
  add_library(${target} OBJECT ${source})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  target_precompile_headers(${target} PRIVATE ${ARG_HEADERS})
endfunction()

if(CKPT_PCH)
  ckpt_pch_target(ckpt_pch HEADERS ${CKPT_PCH_HEADERS} LIBS nlohmann_json::nlohmann_json)
endif()

# Gives `target` the precompiled header of its kind: LIBRARY (ckpt_pch) or TEST (ckpt_test_pch).
function(ckpt_use_pch target kind)
  if(NOT CKPT_PCH)
    return()
  endif()
  if(kind STREQUAL "LIBRARY")
    target_precompile_headers(${target} REUSE_FROM ckpt_pch)
    return()
  endif()
  if(NOT TARGET ckpt_test_pch)
    set(headers ${CKPT_PCH_HEADERS})
    set(libs nlohmann_json::nlohmann_json)
    if(CKPTSIM_BUILD_TESTS)
      list(APPEND headers <gtest/gtest.h> <gmock/gmock.h> <rapidcheck.h> <rapidcheck/gtest.h>)
      list(APPEND libs GTest::gtest GTest::gmock rapidcheck_gtest)
    endif()
    ckpt_pch_target(ckpt_test_pch HEADERS ${headers} LIBS ${libs})
  endif()
  target_precompile_headers(${target} REUSE_FROM ckpt_test_pch)
endfunction()
