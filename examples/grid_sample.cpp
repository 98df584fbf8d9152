// The main demo: grid_sample (bilinear, zero padding) with composed ops on
// the default device, on a tiny input you can check by eye and then on the
// documentation's shapes scaled down; then the documentation's custom
// kernels (examples/grid_sample_kernels.h), forward and gradient, against it.
#include <chrono>
#include <iostream>

#include "examples/grid_sample_kernels.h"
#include "examples/grid_sample_ref.h"

using namespace mlx_lite;

int main() {
  std::cout << "mlx_lite grid_sample demo on "
            << (default_device().type == Device::gpu ? "gpu" : "cpu") << "\n\n";

  // A 1x2x2x1 image sampled at its pixel centres and half-way between them.
  array x = reshape(array({1.0f, 2.0f, 3.0f, 4.0f}), {1, 2, 2, 1});
  array grid = reshape(array({-0.5f, -0.5f, 0.5f, -0.5f, 0.0f, 0.0f, 0.5f, 0.5f}), {1, 2, 2, 2});
  std::cout << "x[0, :, :, 0] =\n" << reshape(x, {2, 2}) << "\n";
  std::cout << "sampled at (-0.5,-0.5) (0.5,-0.5) (0,0) (0.5,0.5):\n"
            << reshape(examples::grid_sample_ref(x, grid), {2, 2}) << "\n\n";

  // The documentation's shapes, scaled down 16x in each image dimension.
  auto key = random::key(0);
  auto [k1, k2] = random::split(key);
  array big_x = random::normal({8, 64, 64, 64}, float32, k1);
  array big_grid = random::uniform(-1.1f, 1.1f, {8, 16, 16, 2}, float32, k2);
  eval({big_x, big_grid});
  auto start = std::chrono::steady_clock::now();
  array out = examples::grid_sample_ref(big_x, big_grid);
  eval(out);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "x " << big_x.shape() << ", grid " << big_grid.shape() << " -> out " << out.shape()
            << " in " << ms << " ms\n";
  std::cout << "mean |out| = " << mean(abs(out)).item<float>() << "\n";
  if (default_device().type != Device::gpu) return 0;

  // The custom kernels: the forward, and the gradient of a scalar loss
  // through custom_function's VJP kernel, beside autodiff of the composed ops.
  auto loss = [](auto sample) {
    return [sample](const std::vector<array>& in) { return sum(square(sample(in[0], in[1]))); };
  };
  start = std::chrono::steady_clock::now();
  auto [value, grads] = value_and_grad(loss(examples::grid_sample), {0, 1})({big_x, big_grid});
  eval({value, grads[0], grads[1]});
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  auto [ref_value, ref_grads] =
      value_and_grad(loss(examples::grid_sample_ref), {0, 1})({big_x, big_grid});
  auto max_error = [](const array& a, const array& b) { return max(abs(a - b)).item<float>(); };
  std::cout << "custom kernels: loss and gradients in " << ms
            << " ms; |out - composed| <= " << max_error(examples::grid_sample(big_x, big_grid), out)
            << ", |x_grad - composed| <= " << max_error(grads[0], ref_grads[0])
            << ", |grid_grad - composed| <= " << max_error(grads[1], ref_grads[1]) << "\n";
  return 0;
}
