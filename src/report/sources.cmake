list(APPEND ROOFLINE_SOURCES
  src/report/join.cc
  src/report/eager_cost.cc
  src/report/hlo_cost.cc
  src/report/render_json.cc
  src/report/render_csv.cc
  src/report/render_text.cc
  src/report/render_html.cc
  src/report/text_table.cc)
