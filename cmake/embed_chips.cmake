# Compiles hardware/*.json into the library so chip("tpu-v5e") needs no file
# at run time. The generated source is rebuilt whenever a spec changes.
function(roofline_embed_chips target)
  file(GLOB specs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/hardware/*.json")
  list(SORT specs)
  set(out "${PROJECT_BINARY_DIR}/generated/embedded_chips.cc")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DSPECS=${specs}"
            -P "${PROJECT_SOURCE_DIR}/cmake/write_embedded_chips.cmake"
    DEPENDS ${specs} "${PROJECT_SOURCE_DIR}/cmake/write_embedded_chips.cmake"
    COMMENT "Embedding chip specs from hardware/"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
