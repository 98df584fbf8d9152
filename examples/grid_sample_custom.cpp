// grid_sample with custom kernels (examples/grid_sample_kernels.h) against
// the composed reference (examples/grid_sample_ref.h) on the default
// device: the forward, and the gradients of a scalar loss with respect to x
// and grid through the custom VJP kernel and through autodiff of the
// composed ops. Prints the max errors and timings; exits with 1 when they
// are too large.
#include <chrono>
#include <iostream>

#include "examples/grid_sample_kernels.h"

using namespace mlx_lite;

namespace {

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

float max_abs_diff(const array& a, const array& b) {
  return max(abs(astype(a, float32) - astype(b, float32))).item<float>();
}

float max_abs(const array& a) {
  return max(abs(astype(a, float32))).item<float>();
}

}  // namespace

int main() {
  const bool gpu = default_device().type == Device::gpu;
  std::cout << "grid_sample with custom kernels on "
            << (gpu ? std::get<std::string>(gpu::device_info().at("device_name"))
                    : std::string("cpu"))
            << (gpu ? "" : " (custom kernels need the GPU: the composed reference runs instead)")
            << "\n";
  if (gpu) {
    std::cout << "subgroup size " << std::get<size_t>(gpu::device_info().at("subgroup_size"))
              << "\n";
  }

  // Odd H and W, C not a multiple of any subgroup size, and grid points
  // outside [-1, 1] (zero padding).
  auto [k1, k2] = random::split(random::key(0));
  const int N = 2, H = 17, W = 23, C = 35, gH = 9, gW = 11;
  array x = random::normal({N, H, W, C}, float32, k1);
  array grid = random::uniform(-1.2f, 1.2f, {N, gH, gW, 2}, float32, k2);
  eval({x, grid});
  std::cout << "x " << x.shape() << ", grid " << grid.shape() << "\n\n";

  // Forward.
  auto start = std::chrono::steady_clock::now();
  array out = examples::grid_sample(x, grid);
  eval(out);
  const double t_custom = elapsed_ms(start);
  start = std::chrono::steady_clock::now();
  array expected = examples::grid_sample_ref(x, grid);
  eval(expected);
  const double t_ref = elapsed_ms(start);
  const float fwd_err = max_abs_diff(out, expected);
  std::cout << "forward: max |custom - reference| = " << fwd_err << " (max |out| "
            << max_abs(expected) << "); " << t_custom << " ms custom, " << t_ref
            << " ms composed (first calls: compiles included)\n";

  // Gradients of a scalar loss: sum(out * w) for fixed weights w.
  array w = random::normal({N, gH, gW, C}, float32, random::key(1));
  auto loss = [&](auto&& sampler) {
    return [&, sampler](const std::vector<array>& in) { return sum(sampler(in[0], in[1]) * w); };
  };
  auto custom_grad = value_and_grad(
      loss([](const array& a, const array& g) { return examples::grid_sample(a, g); }), {0, 1});
  auto ref_grad = value_and_grad(
      loss([](const array& a, const array& g) { return examples::grid_sample_ref(a, g); }), {0, 1});

  start = std::chrono::steady_clock::now();
  auto [value, grads] = custom_grad({x, grid});
  eval({value, grads[0], grads[1]});
  const double t_custom_grad = elapsed_ms(start);
  start = std::chrono::steady_clock::now();
  auto [ref_value, ref_grads] = ref_grad({x, grid});
  eval({ref_value, ref_grads[0], ref_grads[1]});
  const double t_ref_grad = elapsed_ms(start);

  const float x_err = max_abs_diff(grads[0], ref_grads[0]);
  const float grid_err = max_abs_diff(grads[1], ref_grads[1]);
  std::cout << "loss: custom " << value.item<float>() << ", reference " << ref_value.item<float>()
            << "\n";
  std::cout << "x_grad:    max |custom - autodiff of reference| = " << x_err << " (max |x_grad| "
            << max_abs(ref_grads[0]) << ")\n";
  std::cout << "grid_grad: max |custom - autodiff of reference| = " << grid_err
            << " (max |grid_grad| " << max_abs(ref_grads[1]) << ")\n";
  std::cout << "value_and_grad: " << t_custom_grad << " ms custom, " << t_ref_grad
            << " ms composed\n";

  // float32 atomics add in any order, so allow a few ulps of the largest terms.
  const bool ok = fwd_err < 1e-4f && x_err < 1e-4f * (1 + max_abs(ref_grads[0])) &&
                  grid_err < 1e-3f * (1 + max_abs(ref_grads[1]));
  std::cout << "\n" << (ok ? "OK" : "MISMATCH") << "\n";
  return ok ? 0 : 1;
}
