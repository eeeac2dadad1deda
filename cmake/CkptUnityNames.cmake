# A unity build pastes a target's sources into one unit, so two files' anonymous namespaces become
# one. Two helpers with the same name and the same signature then fail to compile, but with
# different signatures they silently overload each other, and a call may bind to the other file's
# helper. That happened once (two `or_null`s: the trainer-best checker's calls took the sidecar
# writer's text version and judged "null" against null). This configure-time check refuses any
# function name defined at the top of an anonymous namespace, or `static` at file scope, in more
# than one source file of a target, whether or not the two land in the same batch today.
#
#   ckpt_check_unity_names()   checks every target defined so far, directory by directory.

function(ckpt_unity_names_of file out)
  file(STRINGS "${file}" lines REGEX "^(namespace \\{$|}  // namespace$|[A-Za-z_].*\\()")
  set(names "")
  set(inside FALSE)
  foreach(line IN LISTS lines)
    if(line STREQUAL "namespace {")
      set(inside TRUE)
    elseif(line STREQUAL "}  // namespace")
      set(inside FALSE)
    elseif(inside OR line MATCHES "^static ")
      # A definition at column 0: a return type, then the name, then its parameters.
      if(line MATCHES "^[A-Za-z_][A-Za-z0-9_:<>,*& ]*[ *&]([A-Za-z_][A-Za-z0-9_]*)\\(")
        list(APPEND names "${CMAKE_MATCH_1}")
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES names)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

function(ckpt_check_unity_names_of_target target)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(seen_names "")
  foreach(source IN LISTS sources)
    if(NOT source MATCHES "\\.cpp$")
      continue()
    endif()
    if(NOT IS_ABSOLUTE "${source}")
      set(source "${source_dir}/${source}")
    endif()
    ckpt_unity_names_of("${source}" names)
    foreach(name IN LISTS names)
      if(DEFINED first_${name})
        file(RELATIVE_PATH a "${PROJECT_SOURCE_DIR}" "${first_${name}}")
        file(RELATIVE_PATH b "${PROJECT_SOURCE_DIR}" "${source}")
        message(FATAL_ERROR "unity build: ${target} defines `${name}` in the anonymous namespaces of both "
                            "${a} and ${b}; in one unit one would silently overload the other. Rename one, "
                            "or share one definition in a header.")
      endif()
      set(first_${name} "${source}")
    endforeach()
  endforeach()
endfunction()

function(ckpt_check_unity_names)
  set(directories "${PROJECT_SOURCE_DIR}")
  while(directories)
    list(POP_FRONT directories directory)
    get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
    list(APPEND directories ${subdirectories})
    get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        ckpt_check_unity_names_of_target(${target})
      endif()
    endforeach()
  endwhile()
endfunction()
