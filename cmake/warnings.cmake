# Warnings apply to our own targets only and are never exported.
# -Wno-restrict: GCC 12 reports false positives on std::string concatenation
# at -O2 (GCC bug 105651, fixed in GCC 13).
function(roofline_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
    $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>
    $<$<BOOL:${ROOFLINE_WERROR}>:-Werror>)
endfunction()
