# cmake -DROOFLINE_SOURCE_DIR=... -DWORK_DIR=... [-DGENERATOR=...] [-DCXX=...] -P configure_options.cmake
# Every combination of ROOFLINE_BUILD_TESTS / BENCH / EXAMPLES / CLI must
# configure (tests that need the CLI are left out without it). One build
# directory is configured from scratch with everything off, then
# reconfigured through the other fifteen combinations.
cmake_minimum_required(VERSION 3.25)
if(NOT GENERATOR)
  set(GENERATOR "Unix Makefiles")
endif()
set(compiler "")
if(CXX)
  set(compiler "-DCMAKE_CXX_COMPILER=${CXX}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
set(failed "")
set(count 0)
foreach(tests OFF ON)
  foreach(cli OFF ON)
    foreach(bench OFF ON)
      foreach(examples OFF ON)
        set(combo "TESTS=${tests} CLI=${cli} BENCH=${bench} EXAMPLES=${examples}")
        execute_process(
          COMMAND ${CMAKE_COMMAND} -S "${ROOFLINE_SOURCE_DIR}" -B "${WORK_DIR}" -G "${GENERATOR}" ${compiler}
                  -DROOFLINE_BUILD_TESTS=${tests} -DROOFLINE_BUILD_CLI=${cli}
                  -DROOFLINE_BUILD_BENCH=${bench} -DROOFLINE_BUILD_EXAMPLES=${examples}
          RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
        math(EXPR count "${count} + 1")
        if(rc EQUAL 0)
          message(STATUS "configures: ${combo}")
        else()
          message("${out}")
          list(APPEND failed "${combo}")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(failed)
  list(JOIN failed "\n  " failed)
  message(FATAL_ERROR "these option combinations do not configure:\n  ${failed}")
endif()
message(STATUS "all ${count} combinations configure")
