// What each consumer of scripts/consumers.sh builds: a graph, a custom
// kernel and a gradient on the default device, with only the umbrella
// header, each checked against values worked out by hand. Exits with 1 and
// says what differs on any mismatch.
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>

#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

int failures = 0;

void expect_near(const char* what, float got, float want) {
  if (std::abs(got - want) > 1e-5f * std::max(1.0f, std::abs(want))) {
    std::cerr << what << ": got " << got << ", expected " << want << "\n";
    ++failures;
  }
}

// sum((x + 1) * 2) over x = 0..9 is 2 * (45 + 10) = 110.
void graph() {
  array x = arange(10.0, float32);
  expect_near("graph", sum((x + 1.0f) * 2.0f).item<float>(), 110.0f);
}

// A kernel that writes 3 * inp; on a CPU-only process there is none to run.
void custom_kernel() {
  if (default_device().type != Device::gpu) return;
  auto triple = fast::vulkan_kernel("consumer_triple", {"inp"}, {"out"}, R"(
    uint i = thread_position_in_grid.x;
    out[i] = 3.0 * inp[i];
  )");
  array x = arange(4.0, float32);
  array y = triple({x}, {x.shape()}, {float32}, {4, 1, 1}, {4, 1, 1})[0];
  expect_near("custom kernel", sum(y).item<float>(), 3.0f * 6.0f);
}

// d/dx sum(x^2) = 2x, at x = 3: 6.
void gradient() {
  auto f = [](const array& x) { return sum(square(x)); };
  array g = grad(f)(array({3.0f}));
  expect_near("gradient", g.item<float>(), 6.0f);
}

}  // namespace

int main() {
  const std::string headers = std::to_string(MLX_LITE_VERSION_MAJOR) + "." +
                              std::to_string(MLX_LITE_VERSION_MINOR) + "." +
                              std::to_string(MLX_LITE_VERSION_PATCH);
  if (headers != version()) {
    std::cerr << "headers of " << headers << ", library " << version() << "\n";
    ++failures;
  }
  graph();
  custom_kernel();
  gradient();
  std::cout << "mlx_lite " << version() << " on "
            << (default_device().type == Device::gpu ? "gpu" : "cpu") << ": "
            << (failures ? "FAILED" : "ok") << "\n";
  return failures ? 1 : 0;
}
