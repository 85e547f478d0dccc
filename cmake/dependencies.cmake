# Every dependency comes from a Debian package (scripts/deps.sh installs them).
# roofline::core needs none of them; the compiled library and the build-time
# chip table generator do.
find_package(absl REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)
# Header-only: the robust least squares of roofline calibrate (src/calibrate).
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
if(ROOFLINE_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED)
endif()
if(ROOFLINE_BUILD_BENCH)
  find_package(benchmark REQUIRED)
  # Only bench/trace_bench.cc: it measures libprotobuf against the library's
  # own wire decoder. The library reads every protobuf without it.
  find_package(Protobuf REQUIRED)
endif()
