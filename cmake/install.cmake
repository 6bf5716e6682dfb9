# Install rules: libraries, public headers, the allocore command, CMake package files
# (find_package(allocore CONFIG): allocore::kernel, allocore::adapters and its layers
# allocore::config, scenario, report, import and service, allocore::c) and pkg-config files
# (allocore, allocore-adapters, allocore-c).
include(CMakePackageConfigHelpers)

set(ALLOCORE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/allocore)
set(ALLOCORE_INSTALLED_TARGETS allocore_kernel)
if(ALLOCORE_BUILD_ADAPTERS)
  list(APPEND ALLOCORE_INSTALLED_TARGETS ${ALLOCORE_ADAPTER_LIBRARIES} allocore_c)
endif()
install(TARGETS ${ALLOCORE_INSTALLED_TARGETS} EXPORT allocoreTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernel/include/allocore
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/kernel/include/allocore/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/allocore)
if(ALLOCORE_BUILD_ADAPTERS)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/adapters/include/allocore/adapters
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/allocore FILES_MATCHING PATTERN "*.h")
  install(FILES ${PROJECT_SOURCE_DIR}/adapters/include/allocore/c.h
                ${PROJECT_SOURCE_DIR}/adapters/include/allocore/c_service.h
                ${PROJECT_SOURCE_DIR}/adapters/include/allocore/c_scenario.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/allocore)
endif()
if(TARGET allocore)
  install(TARGETS allocore RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # The trace `allocore gen alibaba` reads by default (bin/allocore -> share/allocore).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/alibaba-gpu-v2023
          DESTINATION ${CMAKE_INSTALL_DATADIR}/allocore)
endif()
# The documentation an embedder reads, under share/doc/allocore in the source tree's layout, so
# that the relative links between the files resolve there as in a checkout; the headers and
# the man page name these installed paths.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
              ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/kernel/README.md
              ${PROJECT_SOURCE_DIR}/kernel/preemption-semantics.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/kernel)
install(FILES ${PROJECT_SOURCE_DIR}/docs/scenario-format.md ${PROJECT_SOURCE_DIR}/docs/event-log-format.md
              ${PROJECT_SOURCE_DIR}/docs/snapshot-format.md ${PROJECT_SOURCE_DIR}/docs/report-format.md
              ${PROJECT_SOURCE_DIR}/docs/report.schema.json ${PROJECT_SOURCE_DIR}/docs/durability.md
              ${PROJECT_SOURCE_DIR}/docs/import.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
# The report's pictures as PNG from its JSON (python3-matplotlib).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/report/plot_report.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/allocore)
install(FILES ${PROJECT_SOURCE_DIR}/adapters/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/adapters)
# The Go package's source (a Go program points its go.mod at it: `replace allocore.dev/allocore
# => <prefix>/share/allocore/go`) and both bindings' documents.
if(ALLOCORE_BUILD_ADAPTERS)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/bindings/go/ DESTINATION ${CMAKE_INSTALL_DATADIR}/allocore/go
          PATTERN "run_tests.sh" EXCLUDE)
  install(FILES ${PROJECT_SOURCE_DIR}/bindings/go/README.md
          DESTINATION ${CMAKE_INSTALL_DOCDIR}/bindings/go)
  install(FILES ${PROJECT_SOURCE_DIR}/bindings/python/README.md
          DESTINATION ${CMAKE_INSTALL_DOCDIR}/bindings/python)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/bench/README.md ${PROJECT_SOURCE_DIR}/bench/RESULTS.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/bench)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/bench/plots DESTINATION ${CMAKE_INSTALL_DOCDIR}/bench)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples DESTINATION ${CMAKE_INSTALL_DOCDIR})

install(EXPORT allocoreTargets NAMESPACE allocore:: DESTINATION ${ALLOCORE_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/allocoreConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/allocoreConfig.cmake
                              INSTALL_DESTINATION ${ALLOCORE_CMAKE_INSTALL_DIR})
# 0.x: a minor release may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/allocoreConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/allocoreConfig.cmake
              ${PROJECT_BINARY_DIR}/allocoreConfigVersion.cmake
        DESTINATION ${ALLOCORE_CMAKE_INSTALL_DIR})

# pkg-config files find their prefix from where they lie (${pcfiledir}), so an install that is
# moved or unpacked elsewhere keeps working.
# allocore.pc also names the C++ runtime a static liballocore needs, so that a C program links
# with `cc` (allocore-c.pc is the C ABI's entry point).
set(ALLOCORE_PC_CXX_RUNTIME "")
if(NOT BUILD_SHARED_LIBS)
  foreach(lib ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
    # What the C driver links anyway stays out.
    if(NOT lib MATCHES "^(c|gcc|gcc_s|gcc_eh)$")
      string(APPEND ALLOCORE_PC_CXX_RUNTIME " -l${lib}")
    endif()
  endforeach()
endif()
set(ALLOCORE_PC_FILES allocore)
if(ALLOCORE_BUILD_ADAPTERS)
  list(APPEND ALLOCORE_PC_FILES allocore-adapters allocore-c)
endif()
# lib/pkgconfig -> "../..", lib/x86_64-linux-gnu/pkgconfig -> "../../..".
file(RELATIVE_PATH ALLOCORE_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
foreach(pc ${ALLOCORE_PC_FILES})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
