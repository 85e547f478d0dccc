// The roofline of the seed article's matmul on a TPU v5e, through the
// installed package:
//   x[32,1024,8192] @ W[8192,32768] in bf16 -> 17.59 TFLOPs, 89.3 ms, compute-bound.
#include <cstdio>
#include <string>

#include <roofline/core.hpp>

int main() {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  roofline::Matmul mm{.m = 32768, .k = 8192, .n = 32768};   // bf16 by default
  roofline::Prediction p = roofline::predict(mm, v5e);      // p.t_math_s == 0.0893...
  std::printf("flops %.4g\nt_math_s %.4g\nt_hbm_s %.4g\nbound %s\n", p.flops, p.t_math_s,
              p.t_hbm_s, std::string(roofline::bound_name(p.bound)).c_str());
  return 0;
}
