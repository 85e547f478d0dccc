# Warnings apply to our own targets only and are never exported.
function(roofline_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
    $<$<BOOL:${ROOFLINE_WERROR}>:-Werror>)
endfunction()
