// The main demo: grid_sample (bilinear, zero padding) with composed ops on
// the default device, on a tiny input you can check by eye and then on the
// documentation's shapes scaled down.
#include <chrono>
#include <iostream>

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
  return 0;
}
