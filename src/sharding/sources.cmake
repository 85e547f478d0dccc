# Meshes, sharded matmuls, the training-step model and the planner.
list(APPEND ROOFLINE_SOURCES
  src/sharding/mesh.cc
  src/sharding/matmul_expression.cc
  src/sharding/sharded_matmul.cc
  src/sharding/model_config.cc
  src/sharding/training_step.cc
  src/sharding/planner.cc)
