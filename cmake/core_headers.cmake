# The headers of roofline::core, the header-only part: everything
# roofline/core.hpp and roofline/sharding.hpp include and nothing that needs
# abseil or a compiled library. Every other header under include/roofline belongs to
# roofline::roofline. tests/core_headers_test.cmake checks that none of
# these includes an abseil header or a header outside this list.
set(ROOFLINE_CORE_HEADERS
  include/roofline/core.hpp
  include/roofline/sharding.hpp
  include/roofline/dtype.hpp
  include/roofline/chip.hpp
  include/roofline/predict.hpp
  include/roofline/calibration.hpp
  include/roofline/expected/gemm.hpp
  include/roofline/expected/memory.hpp
  include/roofline/expected/size_curve.hpp
  include/roofline/ops/elementwise.hpp
  include/roofline/ops/generic.hpp
  include/roofline/ops/matmul.hpp
  include/roofline/collectives/collective.hpp
  include/roofline/collectives/collective_kind.hpp
  include/roofline/collectives/expected.hpp
  include/roofline/collectives/nccl.hpp
  include/roofline/collectives/network_dim.hpp
  include/roofline/sharding/critical_batch.hpp
  include/roofline/sharding/layers.hpp
  include/roofline/sharding/matmul_expression.hpp
  include/roofline/sharding/mesh.hpp
  include/roofline/sharding/mesh_collective.hpp
  include/roofline/sharding/model_config.hpp
  include/roofline/sharding/sharded_matmul.hpp
  include/roofline/sharding/remat.hpp
  include/roofline/sharding/training_step.hpp
  include/roofline/sharding/detail/mesh_layout.hpp
  include/roofline/sharding/detail/sharded_matmul_search.hpp
  include/roofline/sharding/detail/training_step_parts.hpp
  include/roofline/sharding/detail/training_remat.hpp
  include/roofline/sharding/detail/training_expected.hpp
  include/roofline/sharding/detail/training_memory.hpp
  include/roofline/detail/cat.hpp
  include/roofline/detail/embedded_chips.hpp)
