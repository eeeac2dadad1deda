# One library per folder, with its dependencies declared, and a configure-time check that
# every #include "a/b/c.hpp" in the folder names its own folder or one it declared. A wrong
# include therefore fails the build, as Abseil's per-folder targets make it fail.
#
#   ckpt_library(<target> [DEPS <ckpt targets>...] [LIBS <external targets>...])
#
# The target's sources are the folder's *.cpp files (none: an INTERFACE library). Folder
# names are recorded per target so that dependents' includes can be checked against them.

function(ckpt_folder_of target out)
  get_property(folder GLOBAL PROPERTY CKPT_FOLDER_${target})
  if(NOT folder)
    message(FATAL_ERROR "ckpt_library: ${target} is not a ckpt library (declare it first)")
  endif()
  set(${out} "${folder}" PARENT_SCOPE)
endfunction()

# The project headers (#include "...") `file` includes, in order.
function(ckpt_quoted_includes file out)
  file(STRINGS "${file}" lines REGEX "^#include \"")
  set(headers)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
    list(APPEND headers "${header}")
  endforeach()
  set(${out} "${headers}" PARENT_SCOPE)
endfunction()

# Fails the configure when a file includes a project header outside `allowed` folders.
function(ckpt_check_includes owner directory allowed)
  file(GLOB files ${directory}/*.cpp ${directory}/*.hpp)
  foreach(file IN LISTS files)
    ckpt_quoted_includes("${file}" headers)
    foreach(header IN LISTS headers)
      get_filename_component(header_folder "${header}" DIRECTORY)
      if(NOT header_folder IN_LIST allowed)
        file(RELATIVE_PATH shown "${PROJECT_SOURCE_DIR}" "${file}")
        message(FATAL_ERROR "layering: ${shown} includes ${header}, but ${owner} does not depend "
                            "on ${header_folder} (allowed: ${allowed})")
      endif()
    endforeach()
  endforeach()
endfunction()

function(ckpt_library target)
  cmake_parse_arguments(ARG "" "" "DEPS;LIBS" ${ARGN})
  file(RELATIVE_PATH folder "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
  set_property(GLOBAL PROPERTY CKPT_FOLDER_${target} "${folder}")
  set(allowed "${folder}")
  foreach(dep IN LISTS ARG_DEPS)
    ckpt_folder_of(${dep} dep_folder)
    list(APPEND allowed "${dep_folder}")
  endforeach()
  ckpt_check_includes(${target} "${CMAKE_CURRENT_SOURCE_DIR}" "${allowed}")

  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                                $<INSTALL_INTERFACE:include>)
    target_link_libraries(${target} PUBLIC ${ARG_DEPS} ${ARG_LIBS})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                                   $<INSTALL_INTERFACE:include>)
    target_link_libraries(${target} INTERFACE ${ARG_DEPS} ${ARG_LIBS})
  endif()
endfunction()

# A folder of tests or tools, and its subfolders: each file's includes are checked against
# the libraries the folder's executable links, plus `FOLDERS` (shared test support).
function(ckpt_check_folder owner)
  cmake_parse_arguments(ARG "" "" "DEPS;FOLDERS" ${ARGN})
  set(allowed ${ARG_FOLDERS})
  foreach(dep IN LISTS ARG_DEPS)
    ckpt_folder_of(${dep} dep_folder)
    list(APPEND allowed "${dep_folder}")
  endforeach()
  file(GLOB_RECURSE files LIST_DIRECTORIES true ${CMAKE_CURRENT_SOURCE_DIR}/*)
  set(directories ${CMAKE_CURRENT_SOURCE_DIR})
  foreach(entry IN LISTS files)
    if(IS_DIRECTORY "${entry}")
      list(APPEND directories "${entry}")
    endif()
  endforeach()
  foreach(directory IN LISTS directories)
    file(RELATIVE_PATH folder "${PROJECT_SOURCE_DIR}" "${directory}")
    ckpt_check_includes(${owner} "${directory}" "${allowed};${folder}")
  endforeach()
endfunction()

# Every folder a target reaches through its dependencies, for umbrella targets' tests.
function(ckpt_folders_of out)
  set(result "")
  foreach(target IN LISTS ARGN)
    ckpt_folder_of(${target} folder)
    list(APPEND result "${folder}")
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# A finer rule for a folder that may use a few headers of a folder it depends on: every
# #include "<prefix>..." in the folder must be one of `HEADERS` or lie in one of `FOLDERS`.
# sim/trainer uses it so the simulated Transformers takes from policy/ only the ports and the
# callback interfaces it drives, never the port's own rules (issue 21).
#
#   ckpt_restrict_includes(<prefix> [HEADERS <header>...] [FOLDERS <folder>...])
function(ckpt_restrict_includes prefix)
  cmake_parse_arguments(ARG "" "" "HEADERS;FOLDERS" ${ARGN})
  file(GLOB files ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/*.hpp)
  foreach(file IN LISTS files)
    ckpt_quoted_includes("${file}" headers)
    list(FILTER headers INCLUDE REGEX "^${prefix}")
    foreach(header IN LISTS headers)
      get_filename_component(header_folder "${header}" DIRECTORY)
      if(NOT header IN_LIST ARG_HEADERS AND NOT header_folder IN_LIST ARG_FOLDERS)
        file(RELATIVE_PATH shown "${PROJECT_SOURCE_DIR}" "${file}")
        message(FATAL_ERROR "layering: ${shown} includes ${header}; this folder may include from "
                            "${prefix} only ${ARG_FOLDERS} and ${ARG_HEADERS}")
      endif()
    endforeach()
  endforeach()
endfunction()
