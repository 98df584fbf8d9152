// The simple example of MLX's custom kernel documentation, with
// fast::vulkan_kernel: exp elementwise as a GLSL kernel, first on a
// row-contiguous array, then on a strided view (a[::2]) read in place through
// elem_to_loc with ensure_row_contiguous=false. Prints both results and
// checks them against exp(); exits with 1 when they differ.
#include <cmath>
#include <iostream>

#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

// The kernel's source: the body of a GLSL compute shader. inp and out are
// the buffers the library declares (out, a GLSL keyword, is renamed for
// GLSL and works as written); T is a template argument.
array exp_elementwise(const array& a) {
  static const auto kernel = fast::vulkan_kernel("myexp", /*input_names=*/{"inp"},
                                                 /*output_names=*/{"out"}, R"(
    uint elem = thread_position_in_grid.x;
    T tmp = T(inp[elem]);
    out[elem] = float16_t(exp(tmp));
  )");
  return kernel({a}, {a.shape()}, {a.dtype()}, /*grid=*/{static_cast<int>(a.size()), 1, 1},
                /*threadgroup=*/{256, 1, 1}, /*template_args=*/{{"T", float32}})[0];
}

// The same for any layout: with ensure_row_contiguous=false the input is
// not copied, and inp_shape, inp_strides and inp_ndim (declared because the
// source uses them) locate each element.
array exp_elementwise_strided(const array& a) {
  static const auto kernel = fast::vulkan_kernel("myexp_strided", {"inp"}, {"out"}, R"(
    uint elem = thread_position_in_grid.x;
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    T tmp = T(inp[loc]);
    // Output arrays are always row contiguous
    out[elem] = float16_t(exp(tmp));
  )",
                                                 /*header=*/"", /*ensure_row_contiguous=*/false);
  return kernel({a}, {a.shape()}, {a.dtype()}, {static_cast<int>(a.size()), 1, 1}, {256, 1, 1},
                {{"T", float32}})[0];
}

// The largest |b - exp(a)|, relative to |exp(a)|, computed in float32.
float max_relative_error(const array& b, const array& a) {
  array expected = exp(astype(a, float32));
  return max(abs(astype(b, float32) - expected) / abs(expected)).item<float>();
}

}  // namespace

int main() {
  if (default_device().type != Device::gpu) {
    std::cout << "custom kernels need the GPU (a Vulkan device); this process has none\n";
    return 0;
  }
  std::cout << "custom exp kernels on "
            << std::get<std::string>(gpu::device_info().at("device_name")) << "\n\n";
  bool ok = true;

  array a = astype(random::normal({4, 16}, float32, random::key(0)), float16);
  array b = exp_elementwise(a);
  const float err = max_relative_error(b, a);
  std::cout << "a (4x16 float16), first row:\n"
            << slice(a, {0, 0}, {1, 16}) << "\nexp_elementwise(a), first row:\n"
            << slice(b, {0, 0}, {1, 16}) << "\nmax relative error vs exp(a): " << err << "\n\n";
  ok &= err < 1e-3f;

  array view = slice(a, {0, 0}, {4, 16}, {2, 1});  // a[::2], not row-contiguous
  array c = exp_elementwise_strided(view);
  const float err_strided = max_relative_error(c, view);
  std::cout << "a[::2] (strides " << view.strides()[0] << ", " << view.strides()[1]
            << "), exp_elementwise_strided(a[::2]):\n"
            << c << "\nmax relative error vs exp(a[::2]): " << err_strided << "\n\n";
  ok &= err_strided < 1e-3f;

  std::cout << (ok ? "OK" : "MISMATCH") << "\n";
  return ok ? 0 : 1;
}
