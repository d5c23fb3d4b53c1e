# Install rules and the exported package: find_package(Karman [COMPONENTS core comm lbm]).
# One export set per component, so a consumer of Karman::core needs neither MPI nor Kokkos
# Kernels, and one of Karman::comm needs MPI only when Karman was built with it
# (cmake/KarmanConfig.cmake.in loads the sets it is asked for).
include(CMakePackageConfigHelpers)

set(KARMAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Karman)
install(EXPORT KarmanCoreTargets NAMESPACE Karman:: DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
install(EXPORT KarmanCommTargets NAMESPACE Karman:: DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
install(EXPORT KarmanLbmTargets NAMESPACE Karman:: DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KarmanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/KarmanConfig.cmake INSTALL_DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KarmanConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KarmanConfig.cmake ${PROJECT_BINARY_DIR}/KarmanConfigVersion.cmake
        DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
