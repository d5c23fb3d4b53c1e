# Install rules and the exported package: find_package(Karman) -> Karman::core (Karman::comm,
# Karman::lbm when built).
include(CMakePackageConfigHelpers)

set(KARMAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Karman)
install(EXPORT KarmanTargets NAMESPACE Karman:: DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KarmanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/KarmanConfig.cmake INSTALL_DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KarmanConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KarmanConfig.cmake ${PROJECT_BINARY_DIR}/KarmanConfigVersion.cmake
        DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
