# Mesh collectives, sharded matmuls and the planner.
list(APPEND ROOFLINE_CLI_SOURCES
  src/cli/cmd_predict_collective.cc
  src/cli/cmd_predict_sharded.cc
  src/cli/cmd_plan.cc)
