# `cmake --install`: the ckptsim executable, the policy library (its per-folder static libraries
# and headers) and a CMake package, so another project's find_package(ckptsim) gives it the
# ckptsim::policy target. The simulator is not installed: it is the tool, not a library.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ckptsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ckpt_policy ${CKPT_POLICY_TARGETS} EXPORT ckptsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/policy/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/policy
        FILES_MATCHING PATTERN "*.hpp" PATTERN "tests" EXCLUDE)

set(CKPT_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ckptsim)
install(EXPORT ckptsimTargets NAMESPACE ckptsim:: DESTINATION ${CKPT_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ckptsimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ckptsimConfig.cmake INSTALL_DESTINATION ${CKPT_PACKAGE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ckptsimConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ckptsimConfig.cmake ${PROJECT_BINARY_DIR}/ckptsimConfigVersion.cmake
        DESTINATION ${CKPT_PACKAGE_DIR})

# The package test: install into a scratch prefix, then build and run a tiny consumer against it.
# Not in sanitizer builds: their libraries need the sanitizer runtimes a plain consumer lacks.
if(CKPTSIM_BUILD_TESTS AND NOT CKPT_SANITIZE)
  add_test(NAME Install.AConsumerProjectBuildsAgainstThePackage
           COMMAND ${CMAKE_COMMAND} -DCKPT_BUILD_DIR=${PROJECT_BINARY_DIR}
                   -DCKPT_CONSUMER_DIR=${PROJECT_SOURCE_DIR}/cmake/consumer
                   -DCKPT_WORK_DIR=${PROJECT_BINARY_DIR}/install-test -P
                   ${PROJECT_SOURCE_DIR}/cmake/consumer/check_install.cmake)
endif()
