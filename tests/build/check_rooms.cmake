# The rooms of src/ keep to themselves (docs/architecture.md, "Rooms").
# A room is a folder directly under src/ (src/trace, src/measure, ...); its
# private headers are the headers under it. Two rules, read from the
# sources:
#  1. A file under src/ROOM/ includes no private header of another room:
#     "src/OTHER/..." only for OTHER = ROOM, or src/wire (the protobuf wire
#     primitives that the XSpace and HloProto readers share). What one room
#     lends another goes through its public header in include/roofline/.
#  2. The pipeline's includes point one way, trace -> measure -> match ->
#     report: a file of one of these rooms (src/ROOM/ or
#     include/roofline/ROOM/) includes nothing of a room after it. The
#     Report value is match's output (roofline/match/report.hpp), which the
#     renderers read: no exception.
# Run: cmake -DROOFLINE_SOURCE_DIR=<repo> -P check_rooms.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT ROOFLINE_SOURCE_DIR)
  message(FATAL_ERROR "check_rooms.cmake: pass -DROOFLINE_SOURCE_DIR=<repository root>")
endif()
set(pipeline trace measure match report)
set(shared wire)

file(GLOB_RECURSE files RELATIVE "${ROOFLINE_SOURCE_DIR}"
  "${ROOFLINE_SOURCE_DIR}/src/*.cc" "${ROOFLINE_SOURCE_DIR}/src/*.hpp" "${ROOFLINE_SOURCE_DIR}/src/*.h"
  "${ROOFLINE_SOURCE_DIR}/include/roofline/*.hpp")
list(SORT files)
set(bad "")
set(checked 0)
foreach(file IN LISTS files)
  if(file MATCHES "^src/([^/]+)/")
    set(room "${CMAKE_MATCH_1}")
    set(private_room TRUE)
  elseif(file MATCHES "^include/roofline/([^/]+)/")
    set(room "${CMAKE_MATCH_1}")
    set(private_room FALSE)
  else()
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  list(FIND pipeline "${room}" rank)
  file(STRINGS "${ROOFLINE_SOURCE_DIR}/${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(included "${CMAKE_MATCH_1}")
    if(included MATCHES "^src/([^/]+)/")
      set(other "${CMAKE_MATCH_1}")
      list(FIND shared "${other}" is_shared)
      if(NOT other STREQUAL room AND is_shared EQUAL -1)
        list(APPEND bad "${file}: includes \"${included}\", a private header of src/${other}")
        continue()
      endif()
    elseif(included MATCHES "^roofline/([^/]+)/")
      set(other "${CMAKE_MATCH_1}")
    else()
      continue()
    endif()
    list(FIND pipeline "${other}" other_rank)
    if(rank GREATER -1 AND other_rank GREATER rank)
      list(APPEND bad "${file}: includes \"${included}\": ${other} comes after ${room} (trace -> measure -> match -> report)")
    endif()
  endforeach()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "check_rooms.cmake: no source under ${ROOFLINE_SOURCE_DIR}/src")
endif()
if(bad)
  list(LENGTH bad n)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "${n} include(s) across rooms:\n  ${text}")
endif()
message(STATUS "${checked} files: no room includes another's private header; trace -> measure -> match -> report")
