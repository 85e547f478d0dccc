# The match stage: where a measured op meets its prediction (one step per file).
list(APPEND ROOFLINE_SOURCES
  src/match/identify.cc
  src/match/group.cc
  src/match/hlo_index.cc
  src/match/find_source.cc
  src/match/cost_hlo.cc
  src/match/cost_input_dims.cc
  src/match/cost_collective.cc
  src/match/cost_xla_stats.cc
  src/match/attribute.cc
  src/match/op_model.cc
  src/match/peaks.cc
  src/match/match.cc
  src/match/aggregate_op.cc
  src/match/aggregate.cc)
