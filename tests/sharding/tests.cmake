# One binary for the sharding area: collectives, meshes, sharded matmuls, the
# training-step model, the planner and the CLI commands.
roofline_add_test(sharding_test
  sharding/collective_test.cc
  sharding/mesh_test.cc
  sharding/sharded_matmul_test.cc
  sharding/training_test.cc
  sharding/planner_test.cc
  sharding/cli_test.cc
  LIBS nlohmann_json::nlohmann_json)
add_dependencies(sharding_test roofline_cli)
