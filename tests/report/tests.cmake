# The report's renderers, the JSON and CSV writers of every output, the
# HTML in Chromium, and the CLI.
roofline_add_test(report_test
  report/render_test.cc
  report/json_test.cc
  report/csv_test.cc
  report/cli_report_test.cc
  LIBS nlohmann_json::nlohmann_json)
add_dependencies(report_test roofline_cli)
