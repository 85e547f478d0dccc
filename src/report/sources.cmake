# The renderers of the report and the machine-readable writers (JSON, CSV)
# of every output.
list(APPEND ROOFLINE_SOURCES
  src/report/render_json.cc
  src/report/render_csv.cc
  src/report/render_text.cc
  src/report/render_html.cc)
