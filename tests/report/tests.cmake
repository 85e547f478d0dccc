# The expected-vs-observed report: the join, the renderers, the HTML in
# Chromium, the CLI, and the real traces.
roofline_add_test(report_test
  report/join_test.cc
  report/render_test.cc
  report/real_traces_test.cc
  report/cli_report_test.cc
  LIBS nlohmann_json::nlohmann_json)
add_dependencies(report_test roofline_cli)
