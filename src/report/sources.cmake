# The report's renderers, and the JSON and CSV writers of every output.
list(APPEND ROOFLINE_SOURCES
  src/report/render_text.cc
  src/report/render_html.cc
  src/report/render_json.cc
  src/report/json.cc
  src/report/json_stats.cc
  src/report/csv.cc
  src/report/hlo_rows.cc)
