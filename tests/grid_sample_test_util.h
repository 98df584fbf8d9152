// What the grid_sample suites (tests/test_grid_sample_kernels.cpp and
// tests/test_grid_sample_tuned.cpp) share: the shape of a test case and its
// name, a scope that switches the default device, the composed reference as
// a function of a vector of inputs, a random cotangent, the scalar loss that
// the value_and_grad tests put a sampler inside, and their check.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "examples/grid_sample_ref.h"
#include "gpu_test_util.h"
#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"

namespace grid_sample_test {

using namespace mlx_lite;

// x is (N, H, W, C), grid (N, gH, gW, 2).
struct Case {
  int N, H, W, C, gH, gW;
};

// "N1_H5_W7_C3_g4x3": test names and failure messages.
inline std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << "N" << c.N << "_H" << c.H << "_W" << c.W << "_C" << c.C << "_g" << c.gH << "x"
            << c.gW;
}

// Runs ops on `d` by default while alive.
class DeviceScope {
 public:
  explicit DeviceScope(Device d) : saved_(default_device()) { set_default_device(d); }
  ~DeviceScope() { set_default_device(saved_); }

 private:
  Device saved_;
};

// The composed reference (examples/grid_sample_ref.h) of inputs {x, grid},
// for vjp and jvp.
inline std::vector<array> grid_sample_ref_fn(const std::vector<array>& in) {
  return {examples::grid_sample_ref(in[0], in[1])};
}

// A float32 cotangent of grid_sample's output for case `c`, N(0, 1),
// evaluated on the CPU.
inline array cotangent(const Case& c, uint64_t seed) {
  array cot = random::normal({c.N, c.gH, c.gW, c.C}, float32, random::key(seed), gpu_test::kCpu);
  eval(cot);
  return cot;
}

// The scalar loss sum(out^2 + out) of out = sampler(exp(x / 2), 1.2 tanh(grid))
// over inputs {x, grid}: a sampler inside a larger graph, for value_and_grad.
template <typename Sampler>
auto sampled_loss(Sampler sampler) {
  return [sampler](const std::vector<array>& in) {
    array out = sampler(exp(in[0] * 0.5f), tanh(in[1]) * 1.2f);
    return sum(square(out) + out);
  };
}

// value_and_grad of sampled_loss(sampler) at {x, grid} on the default
// device against the same through the composed reference on the CPU.
template <typename Sampler>
void expect_value_and_grad_match_the_reference(Sampler sampler, const array& x, const array& grid) {
  auto [value, grads] = value_and_grad(sampled_loss(sampler), {0, 1})({x, grid});
  DeviceScope cpu(gpu_test::kCpu);
  auto [ref_value, ref_grads] = value_and_grad(
      sampled_loss([](const array& a, const array& g) { return examples::grid_sample_ref(a, g); }),
      {0, 1})({x, grid});
  EXPECT_ALLCLOSE(value, ref_value, 1e-5, 1e-5);
  EXPECT_ALLCLOSE(grads[0], ref_grads[0], 1e-4, 1e-4) << "x";
  EXPECT_ALLCLOSE(grads[1], ref_grads[1], 1e-4, 1e-3) << "grid";
}

}  // namespace grid_sample_test
