# cmake --install puts headers, the library, the CLI, the chip specs and a
# CMake package config in place, so another project can
#   find_package(roofline CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE roofline::roofline)
include(CMakePackageConfigHelpers)
set(ROOFLINE_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/roofline")

install(TARGETS roofline EXPORT rooflineTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/roofline DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY hardware/ DESTINATION ${CMAKE_INSTALL_DATADIR}/roofline/hardware
  FILES_MATCHING PATTERN "*.json")
if(ROOFLINE_BUILD_CLI)
  install(TARGETS roofline_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT rooflineTargets NAMESPACE roofline:: DESTINATION ${ROOFLINE_CMAKE_DIR})
configure_package_config_file(cmake/rooflineConfig.cmake.in
  "${PROJECT_BINARY_DIR}/rooflineConfig.cmake"
  INSTALL_DESTINATION ${ROOFLINE_CMAKE_DIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/rooflineConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/rooflineConfig.cmake"
  "${PROJECT_BINARY_DIR}/rooflineConfigVersion.cmake"
  DESTINATION ${ROOFLINE_CMAKE_DIR})
