# Link-time optimisation (GCC) of the executables whose speed is measured: ckptsim and
# ckpt_bench, optimised across the libraries they link (the swarm runs about 7% faster on top of
# PGO: docs/performance.md). Every object is built fat (-ffat-lto-objects), with its machine code
# beside the intermediate code, so the other executables (the tests) link it as before, without
# running the optimiser again at each of their links.
#
#   ckpt_link_time_optimised(<target>)   an executable linked with LTO when CKPT_LTO is on
option(CKPT_LTO "Link ckptsim and ckpt_bench with link-time optimisation (GCC)" OFF)

if(CKPT_LTO)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "CKPT_LTO needs GCC (got ${CMAKE_CXX_COMPILER_ID})")
  endif()
  add_compile_options(-flto=auto -ffat-lto-objects)
  # GCC optimises at any link of such objects unless told not to, and -fno-lto anywhere on a link
  # line wins over -flto: so it goes only on the links of the executables not marked below.
  add_link_options("$<IF:$<BOOL:$<TARGET_PROPERTY:CKPT_LINK_TIME_OPTIMISED>>,-flto=auto,-fno-lto>")
endif()

function(ckpt_link_time_optimised target)
  set_target_properties(${target} PROPERTIES CKPT_LINK_TIME_OPTIMISED ON)
endfunction()
