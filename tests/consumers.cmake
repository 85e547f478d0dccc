# Consumer projects: one finds the installed package, one uses
# add_subdirectory. Both build examples/predict_matmul.cc and run it.
set(consumer_dir "${CMAKE_CURRENT_BINARY_DIR}/consumers")
add_test(NAME "package: install"
  COMMAND ${CMAKE_COMMAND} --install ${PROJECT_BINARY_DIR} --prefix ${consumer_dir}/prefix)
add_test(NAME "package: find_package consumer builds"
  COMMAND ${CMAKE_COMMAND} -E env CMAKE_BUILD_PARALLEL_LEVEL=2
    ${CMAKE_CTEST_COMMAND} --build-and-test
      ${PROJECT_SOURCE_DIR}/examples/consumer ${consumer_dir}/find_package
      --build-generator ${CMAKE_GENERATOR}
      --build-options -DCMAKE_PREFIX_PATH=${consumer_dir}/prefix -DCMAKE_BUILD_TYPE=Release
      --test-command app)
set_tests_properties("package: find_package consumer builds" PROPERTIES
  DEPENDS "package: install" FIXTURES_REQUIRED roofline_installed
  PASS_REGULAR_EXPRESSION "t_math_s 0\\.0893")
set_tests_properties("package: install" PROPERTIES FIXTURES_SETUP roofline_installed)
add_test(NAME "package: add_subdirectory consumer builds"
  COMMAND ${CMAKE_CTEST_COMMAND} --build-and-test
      ${PROJECT_SOURCE_DIR}/examples/subdirectory ${consumer_dir}/subdirectory
      --build-generator ${CMAKE_GENERATOR}
      --build-options -DROOFLINE_SOURCE_DIR=${PROJECT_SOURCE_DIR} -DCMAKE_BUILD_TYPE=Release
        -DROOFLINE_BUILD_CLI=OFF
      --test-command app)
set_tests_properties("package: add_subdirectory consumer builds" PROPERTIES
  PASS_REGULAR_EXPRESSION "t_math_s 0\\.0893")
