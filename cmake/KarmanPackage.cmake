# Install rules and the exported package: find_package(Karman [COMPONENTS core comm lbm]).
# One export set per component, so a consumer of Karman::core needs neither MPI nor Kokkos
# Kernels, and one of Karman::comm needs MPI only when Karman was built with it
# (cmake/KarmanConfig.cmake.in loads the sets it is asked for). The install components `core`
# and `comm` hold those libraries alone (`cmake --install <build> --component core`, then
# `--component comm`); the package files go with `core`, which every component links. Nothing
# installed names a path of the build machine: dependencies are found where the consumer
# points CMake (CMAKE_PREFIX_PATH, Kokkos_ROOT), so the prefix may be moved or packaged.
include(CMakePackageConfigHelpers)

set(KARMAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Karman)
install(EXPORT KarmanCoreTargets NAMESPACE Karman:: DESTINATION ${KARMAN_INSTALL_CMAKEDIR} COMPONENT core)
install(EXPORT KarmanCommTargets NAMESPACE Karman:: DESTINATION ${KARMAN_INSTALL_CMAKEDIR} COMPONENT comm)
install(EXPORT KarmanLbmTargets NAMESPACE Karman:: DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/KarmanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/KarmanConfig.cmake INSTALL_DESTINATION ${KARMAN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KarmanConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KarmanConfig.cmake ${PROJECT_BINARY_DIR}/KarmanConfigVersion.cmake
        DESTINATION ${KARMAN_INSTALL_CMAKEDIR} COMPONENT core)
