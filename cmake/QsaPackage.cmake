# The packages (`cpack` in a build tree, .ci/package.sh): a .deb, its dependencies computed by
# dpkg-shlibdeps, and a relocatable .tar.gz, both holding what `cmake --install` installs (the
# command and qsacheck-worker-host, the plugin header with DLPack's, the CMake package and
# qsacheck.pc, the Python module, the completion and the man page) and what a user reads or
# replays without a checkout: the recorded traces, the docs and the examples.
# The maintainer field a .deb must have; a placeholder until the project names an address (set
# -DQSA_PACKAGE_CONTACT="Name <address>" when making packages to publish).
set(QSA_PACKAGE_CONTACT "qsacheck maintainers <qsacheck@example.org>" CACHE STRING "the .deb's Maintainer")
set(QSA_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/qsacheck)
install(FILES LICENSE README.md CHANGELOG.md DESTINATION ${QSA_DOC_DIR})
install(DIRECTORY docs/ DESTINATION ${QSA_DOC_DIR}/docs)
install(DIRECTORY examples/ DESTINATION ${QSA_DOC_DIR}/examples PATTERN "__pycache__" EXCLUDE)
install(FILES traces/FORMAT.md DESTINATION ${QSA_DOC_DIR}/traces)
# The GitHub action beside the GitLab template (docs/ci.md): copied into a repository's
# .github/actions/qsacheck/, it runs as `uses: ./.github/actions/qsacheck`.
install(FILES .github/actions/qsacheck/action.yml DESTINATION ${QSA_DOC_DIR}/examples/ci/github-action)
# The JSON schemas of the reports (docs/json-schema.md, "Schemas").
install(DIRECTORY schemas/ DESTINATION ${CMAKE_INSTALL_DATADIR}/qsacheck/schemas FILES_MATCHING PATTERN "*.schema.json")
# `qsacheck replay <prefix>/share/qsacheck/traces/recorded/*.scenario`
install(DIRECTORY traces/recorded DESTINATION ${CMAKE_INSTALL_DATADIR}/qsacheck/traces)
# Debian's place for the licence (copyright) and a changelog (lintian errors without them); the
# DLPack header's notice, since the package carries that header (plugin/CMakeLists.txt).
configure_file(cmake/package/copyright.in ${PROJECT_BINARY_DIR}/package/copyright @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/copyright DESTINATION ${QSA_DOC_DIR})
string(TIMESTAMP QSA_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # SOURCE_DATE_EPOCH when set
configure_file(cmake/package/changelog.Debian.in ${PROJECT_BINARY_DIR}/package/changelog.Debian @ONLY)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/package/changelog.Debian.gz
  COMMAND gzip -9nkf ${PROJECT_BINARY_DIR}/package/changelog.Debian
  DEPENDS ${PROJECT_BINARY_DIR}/package/changelog.Debian)
add_custom_target(qsa_package_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/package/changelog.Debian.gz)
install(FILES ${PROJECT_BINARY_DIR}/package/changelog.Debian.gz DESTINATION ${QSA_DOC_DIR})

set(CPACK_PACKAGE_NAME qsacheck)
set(CPACK_PACKAGE_VENDOR "the qsacheck authors")
set(CPACK_PACKAGE_CONTACT "${QSA_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "checks QSA side-cache kernels against their contract")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "qsacheck holds the executable specification of the side caches of vLLM's QSA\n"
    "sparse-attention indexer and checks any kernel (a plugin, a worker process or a\n"
    "built-in backend) against it bit for bit, with JUnit and JSON reports and\n"
    "Google Benchmark records.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_STRIP_FILES ON)  # lintian: unstripped-binary-or-object is an error
# The .deb installs under /usr (CPackDeb's default prefix); the tarball's top directory is the prefix.
# The tarball is relocatable: one top directory, everything found relative to bin/ (qsacheck finds
# qsacheck-worker-host beside itself; qsacheck.pc and the CMake package relative to themselves).
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # qsacheck_1.0.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The Python module (worker protocol) needs python3 and NumPy only when a worker runs.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, python3-numpy, cmake, pkgconf")
# A Debian revision makes it a non-native package, whose changelog is changelog.Debian.gz (lintian).
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
include(CPack)
