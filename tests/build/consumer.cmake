# cmake -DMODE=find_package|find_package_core|add_subdirectory -DROOFLINE_SOURCE_DIR=...
#       -DWORK_DIR=... [-DPREFIX=<install prefix>] [-DBUILD_TYPE=Release] [-DCXX=...] -P consumer.cmake
#
# Builds examples/consumer (the installed package) or examples/subdirectory
# (the source tree) as another project would, runs what it built, and reads
# the link command of core_app, the program that includes roofline/core.hpp
# alone and links roofline::core: no abseil, protobuf, zlib, nlohmann or
# libroofline may be on it, and ldd must show none of them. app, linked with
# roofline::roofline, must show abseil (or the check above proves nothing).
# The Makefile generator prints each command with --verbose.
#
# add_subdirectory does not build app: that would compile the whole library a
# third time in the test command (about 3 minutes of its 30 on two cores) to
# learn what the find_package consumer already shows by running app. Its link
# command is read from the generated link.txt instead, which is what the build
# would run; the library's own build as a subproject is what configure checks.
cmake_minimum_required(VERSION 3.25)
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()
set(options -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
if(CXX)
  list(APPEND options "-DCMAKE_CXX_COMPILER=${CXX}")
endif()
if(MODE STREQUAL "find_package")
  set(project "${ROOFLINE_SOURCE_DIR}/examples/consumer")
  list(APPEND options "-DCMAKE_PREFIX_PATH=${PREFIX}")
elseif(MODE STREQUAL "find_package_core")
  set(project "${ROOFLINE_SOURCE_DIR}/examples/consumer")
  list(APPEND options "-DCMAKE_PREFIX_PATH=${PREFIX}" -DCORE_ONLY=ON)
elseif(MODE STREQUAL "add_subdirectory")
  set(project "${ROOFLINE_SOURCE_DIR}/examples/subdirectory")
  list(APPEND options "-DROOFLINE_SOURCE_DIR=${ROOFLINE_SOURCE_DIR}")
else()
  message(FATAL_ERROR "MODE must be find_package, find_package_core or add_subdirectory")
endif()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
run("configure" ${CMAKE_COMMAND} -S "${project}" -B "${WORK_DIR}" ${options})
run("build core_app" ${CMAKE_COMMAND} --build "${WORK_DIR}" --target core_app --verbose)
set(core_build "${out}")
if(MODE STREQUAL "find_package")
  run("build app" ${CMAKE_COMMAND} --build "${WORK_DIR}" --target app --verbose -j 2)
  set(app_build "${out}")
endif()

# The link command: the line that writes the executable.
function(link_line build_output exe var)
  string(REPLACE "\n" ";" lines "${build_output}")
  foreach(line IN LISTS lines)
    if(line MATCHES " -o ${exe}( |$)")
      set(${var} "${line}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no link command for ${exe} in:\n${build_output}")
endfunction()

set(forbidden "absl|protobuf|libz\\.|-lz( |$)|ZLIB|nlohmann|libroofline|pthread")
link_line("${core_build}" core_app core_link)
message(STATUS "core_app link command: ${core_link}")
if(core_link MATCHES "${forbidden}")
  message(FATAL_ERROR "core_app (roofline::core) links '${CMAKE_MATCH_0}':\n${core_link}")
endif()
find_program(ldd_program ldd)
if(ldd_program)
  run("ldd core_app" "${ldd_program}" "${WORK_DIR}/core_app")
  if(out MATCHES "absl|protobuf|libz\\.so|libroofline")
    message(FATAL_ERROR "core_app (roofline::core) loads '${CMAKE_MATCH_0}':\n${out}")
  endif()
  string(REGEX REPLACE "[ \t]*\\(0x[0-9a-f]+\\)" "" shown "${out}")
  message(STATUS "core_app loads:\n${shown}")
endif()

run("core_app" "${WORK_DIR}/core_app")
if(NOT out MATCHES "t_math_s 0\\.0893.*bound compute")
  message(FATAL_ERROR "core_app printed:\n${out}")
endif()

if(MODE STREQUAL "find_package")
  link_line("${app_build}" app app_link)
elseif(MODE STREQUAL "add_subdirectory")
  file(READ "${WORK_DIR}/CMakeFiles/app.dir/link.txt" app_link)
endif()
if(NOT MODE STREQUAL "find_package_core")
  if(NOT app_link MATCHES "absl" OR NOT app_link MATCHES "libroofline")
    message(FATAL_ERROR "app (roofline::roofline) should link libroofline and abseil:\n${app_link}")
  endif()
endif()
if(MODE STREQUAL "find_package")
  run("app" "${WORK_DIR}/app")
  if(NOT out MATCHES "AllReduce_X.*t_lower_s 0\\.02088.*bound communication")
    message(FATAL_ERROR "app printed:\n${out}")
  endif()
endif()
message(STATUS "${MODE}: core_app links nothing of roofline's dependencies; what ran printed what it should")
