# How a GoogleTest executable becomes CTest tests.
#
#   ckpt_gtests(<target> SHARDS <n> DISCOVERY_TIMEOUT <seconds>)
#
# The target's own sources compile at CKPT_TEST_OPTIMIZATION and without libFuzzer's coverage
# instrumentation: code generation was most of their compile time, and the code they exercise,
# in the libraries, keeps the preset's flags (docs/performance.md, "Build time").
#
# A normal build registers one CTest test per GoogleTest test (gtest_discover_tests), so a failure
# names its test and `ctest -R` picks one. A sanitizer build registers <n> shards of the whole
# executable instead (GoogleTest's own GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX): an instrumented
# process takes about a quarter of a second to start and to end (the shadow memory, LeakSanitizer's
# scan at exit), which one process per test paid about a thousand times in CI's sanitizer job
# (docs/performance.md, "CI time"). A failure there still names its test in the shard's output,
# and GTEST_FILTER in the environment narrows the shards (.ci/sanitizers leaves tests out that way).
function(ckpt_gtests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SHARDS;DISCOVERY_TIMEOUT" "")
  if(CKPT_TEST_OPTIMIZATION)
    target_compile_options(${target} PRIVATE ${CKPT_TEST_OPTIMIZATION})  # after the preset's -O, so it wins
  endif()
  if(CKPT_FUZZ)
    # Only the fuzz targets read libFuzzer's coverage counters; the libraries keep them.
    target_compile_options(${target} PRIVATE -fno-sanitize=fuzzer-no-link)
  endif()
  if(NOT CKPT_SANITIZE)
    gtest_discover_tests(${target} DISCOVERY_TIMEOUT ${arg_DISCOVERY_TIMEOUT})
    return()
  endif()
  math(EXPR last "${arg_SHARDS} - 1")
  foreach(index RANGE ${last})
    set(name "${target}.shard-${index}-of-${arg_SHARDS}")
    # With 64 MiB of stack (or the hard limit, if lower): the tests' own sources compile at -O0 here
    # too, and the JSON scanner's and reader's differential tests hand nlohmann 5,000-level
    # documents, whose trees it copies and destroys recursively, in frames that AddressSanitizer's
    # red zones make about ten times larger.
    add_test(NAME ${name} COMMAND sh -c "ulimit -s 65536 2>/dev/null || ulimit -s hard; exec \"$0\""
                                        $<TARGET_FILE:${target}>)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "GTEST_TOTAL_SHARDS=${arg_SHARDS};GTEST_SHARD_INDEX=${index}")
  endforeach()
endfunction()
