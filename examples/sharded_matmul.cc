// The compiled part, roofline::roofline: text a user typed in, absl::Status
// out. The scaling book's case 3 on a TPU v5e 8x4 mesh: both operands
// sharded alike on the contracting dim, so the local matmul leaves partial
// sums that must be all-reduced over X.
#include <cstdio>
#include <string>

#include <roofline/roofline.hpp>

int main() {
  absl::StatusOr<roofline::Chip> chip = roofline::resolve_chip("tpu-v5e");
  if (!chip.ok()) return std::fprintf(stderr, "%s\n", std::string(chip.status().message()).c_str()), 1;
  absl::StatusOr<roofline::Mesh> mesh = roofline::parse_mesh("X=8,Y=4", *chip);
  absl::StatusOr<roofline::MatmulExpression> expr = roofline::parse_matmul_expression("x[B, D_X] @ w[D_X, F]");
  absl::StatusOr<std::map<std::string, std::int64_t>> dims = roofline::parse_dim_sizes("B=8192,D=8192,F=32768");
  for (const absl::Status& s : {mesh.status(), expr.status(), dims.status()})
    if (!s.ok()) return std::fprintf(stderr, "%s\n", std::string(s.message()).c_str()), 1;

  absl::StatusOr<roofline::ShardedMatmul> r = roofline::predict_sharded_matmul(*expr, *mesh, *chip, *dims);
  if (!r.ok()) return std::fprintf(stderr, "%s\n", std::string(r.status().message()).c_str()), 1;
  const roofline::ShardedMatmulStrategy& s = r->chosen();
  std::printf("chosen %s\nt_math_s %.4g\nt_ici_s %.4g\nt_lower_s %.4g\nbound %s\n", s.name.c_str(), s.whole.t_math_s,
              s.whole.t_ici_s, s.whole.t_lower_s, std::string(roofline::bound_name(s.whole.bound)).c_str());
  return 0;
}
