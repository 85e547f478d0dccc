# cmake --install puts the headers, the library, the CLI, the chip specs and
# a CMake package in place, so another project can
#   find_package(roofline CONFIG REQUIRED)                    # both targets
#   find_package(roofline CONFIG REQUIRED COMPONENTS core)    # roofline::core alone: finds no dependency
#   target_link_libraries(app PRIVATE roofline::core)         # or roofline::roofline
include(CMakePackageConfigHelpers)
set(ROOFLINE_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/roofline")

# roofline::core: its headers and the generated chip table.
install(TARGETS roofline_core EXPORT rooflineCoreTargets
  FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES "${ROOFLINE_GENERATED_INCLUDE_DIR}/roofline/generated/chip_table.hpp"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/roofline/generated)
install(EXPORT rooflineCoreTargets NAMESPACE roofline:: DESTINATION ${ROOFLINE_CMAKE_DIR})

# roofline::roofline: the library and the rest of the headers.
install(TARGETS roofline EXPORT rooflineTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT rooflineTargets NAMESPACE roofline:: DESTINATION ${ROOFLINE_CMAKE_DIR})

install(DIRECTORY hardware/ DESTINATION ${CMAKE_INSTALL_DATADIR}/roofline/hardware
  FILES_MATCHING PATTERN "*.json")
if(ROOFLINE_BUILD_CLI)
  install(TARGETS roofline_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

configure_package_config_file(cmake/rooflineConfig.cmake.in
  "${PROJECT_BINARY_DIR}/rooflineConfig.cmake"
  INSTALL_DESTINATION ${ROOFLINE_CMAKE_DIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/rooflineConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/rooflineConfig.cmake"
  "${PROJECT_BINARY_DIR}/rooflineConfigVersion.cmake"
  DESTINATION ${ROOFLINE_CMAKE_DIR})
