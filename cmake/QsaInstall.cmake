# `cmake --install`: the plugin header, the qsacheck command, a CMake package
# (find_package(qsacheck CONFIG REQUIRED) -> qsacheck::plugin, qsacheck::qsacheck) and qsacheck.pc.
include(CMakePackageConfigHelpers)
set(QSA_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/qsacheck)
install(EXPORT qsacheckTargets NAMESPACE qsacheck:: DESTINATION ${QSA_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/install/qsacheckConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/qsacheckConfig.cmake INSTALL_DESTINATION ${QSA_PACKAGE_DIR})
# find_package(qsacheck 1): the tool's major version is its compatibility line (docs/compatibility.md:
# flags, reports, JUnit ids); the plugin ABI's version is exported beside it (plugin/CMakeLists.txt).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/qsacheckConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/qsacheckConfig.cmake ${PROJECT_BINARY_DIR}/qsacheckConfigVersion.cmake
        DESTINATION ${QSA_PACKAGE_DIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/install/qsacheck.pc.in ${PROJECT_BINARY_DIR}/qsacheck.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/qsacheck.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
