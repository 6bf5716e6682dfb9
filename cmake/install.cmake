# Install rules: libraries, public headers, the allocore command, CMake package files
# (find_package(allocore CONFIG): allocore::kernel, allocore::adapters) and pkg-config files
# (allocore, allocore-adapters).
include(CMakePackageConfigHelpers)

set(ALLOCORE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/allocore)
set(ALLOCORE_INSTALLED_TARGETS allocore_kernel)
if(ALLOCORE_BUILD_ADAPTERS)
  list(APPEND ALLOCORE_INSTALLED_TARGETS allocore_adapters)
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
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/allocore)
endif()
if(TARGET allocore)
  install(TARGETS allocore RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # The trace `allocore gen alibaba` reads by default (bin/allocore -> share/allocore).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/alibaba-gpu-v2023
          DESTINATION ${CMAKE_INSTALL_DATADIR}/allocore)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/docs/scenario-format.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

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

# pkg-config files locate the prefix from their own directory, so `cmake --install --prefix`
# anywhere gives working files.
file(RELATIVE_PATH ALLOCORE_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
set(ALLOCORE_PC_FILES allocore)
if(ALLOCORE_BUILD_ADAPTERS)
  list(APPEND ALLOCORE_PC_FILES allocore-adapters)
endif()
foreach(pc ${ALLOCORE_PC_FILES})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
