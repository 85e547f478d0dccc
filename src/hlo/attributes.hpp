// Readers (and, for the proto reader, writers) of the attribute text the
// cost model needs: dot dimension numbers, convolution windows and
// dim_labels, integer lists, GPU backend_config JSON. The reader turns their
// results into an instruction's typed attributes once
// (src/hlo/typed_attributes.cc); nothing parses attribute text after that.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/container/inlined_vector.h"

#include "roofline/hlo/module.hpp"

namespace roofline::detail {

// Small lists (dimension numbers, windows) stay off the heap while they are read.
using IntList = absl::InlinedVector<std::int64_t, 8>;
using WindowList = absl::InlinedVector<WindowDimension, 4>;

// "{1,0}" or "{}" -> the integers. On failure `out` keeps those read before it.
bool parse_int_list(std::string_view text, IntList* out);
std::string format_int_list(const IntList& v);

struct DotDims {
  IntList lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
};
// From lhs_batch_dims= / lhs_contracting_dims= / rhs_... (absent lists are empty).
bool dot_dims_from_attributes(const HloInstruction& dot, DotDims* out);
// From a GPU gemm backend_config's "dot_dimension_numbers" object (int64
// values may be JSON strings, as proto3 JSON writes them).
bool dot_dims_from_json(const nlohmann::json& j, DotDims* out);

// "{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x1}";
// "{}" is a window of rank 0. False for anything else (`out` is then unspecified).
bool parse_window(std::string_view text, WindowList* out);
std::string format_window(std::span<const WindowDimension> w);

struct ConvDims {
  std::int64_t input_batch = 0, input_feature = 0;
  IntList input_spatial;
  std::int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  IntList kernel_spatial;
  std::int64_t output_batch = 0, output_feature = 0;
  IntList output_spatial;
};
// "b01f_01io->b01f": position in each group = dimension number.
bool parse_dim_labels(std::string_view text, ConvDims* out);
std::string format_dim_labels(const ConvDims& d, int input_rank, int kernel_rank, int output_rank);

// `{{0,1},{1,2}}` (source_target_pairs) without a list per list: every
// integer in `values`, and where each list starts in it. False where
// parse_int_lists fails (roofline/hlo/replica_groups.hpp).
bool read_int_lists(std::string_view text, IntList* values, IntList* starts);

// replica_groups= read for its sizes only (roofline/hlo/replica_groups.hpp
// lists the devices): nullopt where parse_replica_groups fails.
std::optional<ReplicaGroupSizes> read_replica_group_sizes(std::string_view text);

// A JSON integer that proto3 JSON may have written as a string ("10").
bool json_int(const nlohmann::json& j, std::int64_t* out);

}  // namespace roofline::detail
