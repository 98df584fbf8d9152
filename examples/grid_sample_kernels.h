// grid_sample with custom GPU kernels (fast::vulkan_kernel), as MLX's custom
// Metal kernel documentation (the seed) builds it: bilinear sampling of an
// NHWC image x (N, H, W, C) at normalized points grid (N, gH, gW, 2) in
// [-1, 1], zero padding, align_corners=false. grid_sample() is a
// custom_function whose forward is the seed's one-thread-per-output-element
// kernel and whose VJP is the seed's atomic kernel (init_value=0,
// atomic_outputs=true, simd_sum for the grid gradient); its JVP is a third
// kernel of the same shape as the forward. The kernels are the seed's naive
// ones, translated to GLSL: the documented starting point, not tuned
// (docs/custom_kernels.md walks through them).
//
// Differences from the seed, each marked where it is:
// - values are computed in float32 whatever the dtypes of x and grid
//   (float32 or float16), so float16 inputs accumulate in float32;
// - the forward reads a corner only where it lies inside x (the seed reads
//   all four and zeros the outside ones afterwards; in Vulkan a read outside
//   a buffer is undefined);
// - the VJP pads C with threads_per_simdgroup (32 on every device, as the
//   seed's hard-coded 32) and scales the grid gradient by W / 2.0 and H / 2.0
//   (the seed's integer W / 2 is wrong for odd sizes).
//
// Custom kernels run on the GPU only: when the default device is the CPU,
// grid_sample() computes the composed reference (grid_sample_ref.h) instead.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "examples/grid_sample_ref.h"
#include "mlx_lite/gpu.h"
#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

// The seed's forward kernel: one thread per output element (n, h, w, c).
// Inputs x (N, H, W, C) and grid (N, gH, gW, 2), row-contiguous; output out
// (N, gH, gW, C); template argument T: the output's type.
inline constexpr const char* kGridSampleForwardSource = R"(
  uint elem = thread_position_in_grid.x;
  int H = x_shape[1];
  int W = x_shape[2];
  int C = x_shape[3];
  int gH = grid_shape[1];
  int gW = grid_shape[2];

  int w_stride = C;
  int h_stride = W * w_stride;
  int b_stride = H * h_stride;

  uint grid_idx = elem / uint(C) * 2u;
  float ix = ((float(grid[grid_idx]) + 1.0) * W - 1.0) / 2.0;
  float iy = ((float(grid[grid_idx + 1u]) + 1.0) * H - 1.0) / 2.0;

  int ix_nw = int(floor(ix));
  int iy_nw = int(floor(iy));

  int ix_ne = ix_nw + 1;
  int iy_ne = iy_nw;

  int ix_sw = ix_nw;
  int iy_sw = iy_nw + 1;

  int ix_se = ix_nw + 1;
  int iy_se = iy_nw + 1;

  float nw = (ix_se - ix) * (iy_se - iy);
  float ne = (ix - ix_sw) * (iy_sw - iy);
  float sw = (ix_ne - ix) * (iy - iy_ne);
  float se = (ix - ix_nw) * (iy - iy_nw);

  int batch_idx = int(elem / uint(C * gH * gW)) * b_stride;
  int channel_idx = int(elem % uint(C));
  int base_idx = batch_idx + channel_idx;

  // Unlike MLX's kernel, a corner is read only where it lies inside x.
  float I_nw = 0.0, I_ne = 0.0, I_sw = 0.0, I_se = 0.0;
  if (iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1)
    I_nw = float(x[base_idx + iy_nw * h_stride + ix_nw * w_stride]);
  if (iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1)
    I_ne = float(x[base_idx + iy_ne * h_stride + ix_ne * w_stride]);
  if (iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1)
    I_sw = float(x[base_idx + iy_sw * h_stride + ix_sw * w_stride]);
  if (iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1)
    I_se = float(x[base_idx + iy_se * h_stride + ix_se * w_stride]);

  out[elem] = T(nw * I_nw + ne * I_ne + sw * I_sw + se * I_se);
)";

// The seed's VJP kernel: one thread per (grid point, channel), the channels
// padded to a multiple of the subgroup size so that each subgroup serves one
// grid point. Inputs x, grid, cotangent (N, gH, gW, C); outputs x_grad and
// grid_grad (float32, atomic, zero-initialized). Each thread adds its
// corners' share of the cotangent into x_grad; the subgroup sums the grid
// gradient across its channels and its first thread adds it into grid_grad.
// The host launches N * gH * gW * C_padded threads.
inline constexpr const char* kGridSampleVjpSource = R"(
  uint elem = thread_position_in_grid.x;
  int H = x_shape[1];
  int W = x_shape[2];
  int C = x_shape[3];
  // Pad C to the nearest larger simdgroup size multiple
  int C_padded = ceildiv(C, int(threads_per_simdgroup)) * int(threads_per_simdgroup);

  int gH = grid_shape[1];
  int gW = grid_shape[2];

  int w_stride = C;
  int h_stride = W * w_stride;
  int b_stride = H * h_stride;

  uint grid_idx = elem / uint(C_padded) * 2u;
  float ix = ((float(grid[grid_idx]) + 1.0) * W - 1.0) / 2.0;
  float iy = ((float(grid[grid_idx + 1u]) + 1.0) * H - 1.0) / 2.0;

  int ix_nw = int(floor(ix));
  int iy_nw = int(floor(iy));

  int ix_ne = ix_nw + 1;
  int iy_ne = iy_nw;

  int ix_sw = ix_nw;
  int iy_sw = iy_nw + 1;

  int ix_se = ix_nw + 1;
  int iy_se = iy_nw + 1;

  float nw = (ix_se - ix) * (iy_se - iy);
  float ne = (ix - ix_sw) * (iy_sw - iy);
  float sw = (ix_ne - ix) * (iy - iy_ne);
  float se = (ix - ix_nw) * (iy - iy_nw);

  int batch_idx = int(elem / uint(C_padded * gH * gW)) * b_stride;
  int channel_idx = int(elem % uint(C_padded));
  int base_idx = batch_idx + channel_idx;

  float gix = 0.0;
  float giy = 0.0;
  if (channel_idx < C) {
    int cot_index = int(elem / uint(C_padded)) * C + channel_idx;
    float cot = float(cotangent[cot_index]);
    if (iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1) {
      int offset = base_idx + iy_nw * h_stride + ix_nw * w_stride;
      atomic_fetch_add_explicit(&x_grad[offset], nw * cot, memory_order_relaxed);

      float I_nw = float(x[offset]);
      gix -= I_nw * (iy_se - iy) * cot;
      giy -= I_nw * (ix_se - ix) * cot;
    }
    if (iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1) {
      int offset = base_idx + iy_ne * h_stride + ix_ne * w_stride;
      atomic_fetch_add_explicit(&x_grad[offset], ne * cot, memory_order_relaxed);

      float I_ne = float(x[offset]);
      gix += I_ne * (iy_sw - iy) * cot;
      giy -= I_ne * (ix - ix_sw) * cot;
    }
    if (iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1) {
      int offset = base_idx + iy_sw * h_stride + ix_sw * w_stride;
      atomic_fetch_add_explicit(&x_grad[offset], sw * cot, memory_order_relaxed);

      float I_sw = float(x[offset]);
      gix -= I_sw * (iy - iy_ne) * cot;
      giy += I_sw * (ix_ne - ix) * cot;
    }
    if (iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1) {
      int offset = base_idx + iy_se * h_stride + ix_se * w_stride;
      atomic_fetch_add_explicit(&x_grad[offset], se * cot, memory_order_relaxed);

      float I_se = float(x[offset]);
      gix += I_se * (iy - iy_nw) * cot;
      giy += I_se * (ix - ix_nw) * cot;
    }
  }

  // Unlike MLX's `T gix_mult = W / 2;`, which divides integers.
  float gix_mult = W / 2.0;
  float giy_mult = H / 2.0;

  // Reduce across each simdgroup first.
  // This is much faster than relying purely on atomics.
  gix = simd_sum(gix);
  giy = simd_sum(giy);

  if (thread_index_in_simdgroup == 0) {
    atomic_fetch_add_explicit(&grid_grad[grid_idx], gix * gix_mult, memory_order_relaxed);
    atomic_fetch_add_explicit(&grid_grad[grid_idx + 1u], giy * giy_mult, memory_order_relaxed);
  }
)";

// Not in the seed: the JVP, one thread per output element as the forward.
// Inputs x, grid and their tangents x_tan, grid_tan; output out (the output's
// tangent); template argument T: the output's type.
inline constexpr const char* kGridSampleJvpSource = R"(
  uint elem = thread_position_in_grid.x;
  int H = x_shape[1];
  int W = x_shape[2];
  int C = x_shape[3];
  int gH = grid_shape[1];
  int gW = grid_shape[2];

  int w_stride = C;
  int h_stride = W * w_stride;
  int b_stride = H * h_stride;

  uint grid_idx = elem / uint(C) * 2u;
  float ix = ((float(grid[grid_idx]) + 1.0) * W - 1.0) / 2.0;
  float iy = ((float(grid[grid_idx + 1u]) + 1.0) * H - 1.0) / 2.0;
  // d ix / d grid[..., 0] = W / 2, d iy / d grid[..., 1] = H / 2.
  float dix = float(grid_tan[grid_idx]) * (W / 2.0);
  float diy = float(grid_tan[grid_idx + 1u]) * (H / 2.0);

  int ix_nw = int(floor(ix));
  int iy_nw = int(floor(iy));
  int ix_ne = ix_nw + 1;
  int iy_ne = iy_nw;
  int ix_sw = ix_nw;
  int iy_sw = iy_nw + 1;
  int ix_se = ix_nw + 1;
  int iy_se = iy_nw + 1;

  float nw = (ix_se - ix) * (iy_se - iy);
  float ne = (ix - ix_sw) * (iy_sw - iy);
  float sw = (ix_ne - ix) * (iy - iy_ne);
  float se = (ix - ix_nw) * (iy - iy_nw);

  int batch_idx = int(elem / uint(C * gH * gW)) * b_stride;
  int channel_idx = int(elem % uint(C));
  int base_idx = batch_idx + channel_idx;

  float I_nw = 0.0, I_ne = 0.0, I_sw = 0.0, I_se = 0.0;
  float t_nw = 0.0, t_ne = 0.0, t_sw = 0.0, t_se = 0.0;
  if (iy_nw >= 0 && iy_nw <= H - 1 && ix_nw >= 0 && ix_nw <= W - 1) {
    int offset = base_idx + iy_nw * h_stride + ix_nw * w_stride;
    I_nw = float(x[offset]);
    t_nw = float(x_tan[offset]);
  }
  if (iy_ne >= 0 && iy_ne <= H - 1 && ix_ne >= 0 && ix_ne <= W - 1) {
    int offset = base_idx + iy_ne * h_stride + ix_ne * w_stride;
    I_ne = float(x[offset]);
    t_ne = float(x_tan[offset]);
  }
  if (iy_sw >= 0 && iy_sw <= H - 1 && ix_sw >= 0 && ix_sw <= W - 1) {
    int offset = base_idx + iy_sw * h_stride + ix_sw * w_stride;
    I_sw = float(x[offset]);
    t_sw = float(x_tan[offset]);
  }
  if (iy_se >= 0 && iy_se <= H - 1 && ix_se >= 0 && ix_se <= W - 1) {
    int offset = base_idx + iy_se * h_stride + ix_se * w_stride;
    I_se = float(x[offset]);
    t_se = float(x_tan[offset]);
  }

  // The derivatives of the output with respect to ix and iy (the same terms
  // as the VJP's gix and giy, without the cotangent).
  float d_ix = -I_nw * (iy_se - iy) + I_ne * (iy_sw - iy) - I_sw * (iy - iy_ne) +
               I_se * (iy - iy_nw);
  float d_iy = -I_nw * (ix_se - ix) - I_ne * (ix - ix_sw) + I_sw * (ix_ne - ix) +
               I_se * (ix - ix_nw);

  out[elem] = T(nw * t_nw + ne * t_ne + sw * t_sw + se * t_se + d_ix * dix + d_iy * diy);
)";

namespace grid_sample_detail {

inline const fast::CustomKernelFunction& forward_kernel() {
  static const auto kernel =
      fast::vulkan_kernel("grid_sample", {"x", "grid"}, {"out"}, kGridSampleForwardSource);
  return kernel;
}

inline const fast::CustomKernelFunction& vjp_kernel() {
  static const auto kernel = fast::vulkan_kernel(
      "grid_sample_vjp", {"x", "grid", "cotangent"}, {"x_grad", "grid_grad"}, kGridSampleVjpSource,
      /*header=*/"", /*ensure_row_contiguous=*/true, /*atomic_outputs=*/true);
  return kernel;
}

inline const fast::CustomKernelFunction& jvp_kernel() {
  static const auto kernel = fast::vulkan_kernel(
      "grid_sample_jvp", {"x", "grid", "x_tan", "grid_tan"}, {"out"}, kGridSampleJvpSource);
  return kernel;
}

// Simdgroups are 32 threads wide on every device (emulated where subgroups
// are narrower, as on lavapipe's 8).
inline constexpr int kSimdgroupSize = 32;

inline int round_up(int n, int multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

inline void check_inputs(const array& x, const array& grid) {
  if (x.ndim() != 4 || grid.ndim() != 4) {
    throw std::invalid_argument("[grid_sample] x (N, H, W, C) and grid (N, gH, gW, 2) must be 4D.");
  }
  if (grid.shape(3) != 2) {
    throw std::invalid_argument("[grid_sample] The last dim of grid must be size 2.");
  }
  if (grid.shape(0) != x.shape(0)) {
    throw std::invalid_argument("[grid_sample] x and grid must have the same batch size.");
  }
  for (const array* a : {&x, &grid}) {
    if (a->dtype() != float32 && a->dtype() != float16) {
      throw std::invalid_argument("[grid_sample] x and grid must be float32 or float16.");
    }
  }
}

inline int elements(const Shape& shape) {
  int n = 1;
  for (int d : shape) n *= d;
  return n;
}

}  // namespace grid_sample_detail

// The forward kernel alone (GPU only): out (N, gH, gW, C) of x's dtype.
inline array grid_sample_forward(const array& x, const array& grid) {
  grid_sample_detail::check_inputs(x, grid);
  const Shape out_shape = {x.shape(0), grid.shape(1), grid.shape(2), x.shape(3)};
  return grid_sample_detail::forward_kernel()(
      {x, grid}, {out_shape}, {x.dtype()}, {grid_sample_detail::elements(out_shape), 1, 1},
      {256, 1, 1}, {{"T", x.dtype()}}, std::nullopt, false, Device(Device::gpu))[0];
}

// The VJP kernel alone (GPU only): the gradients of <cotangent, out> with
// respect to x and grid, of their dtypes (accumulated in float32).
inline std::pair<array, array> grid_sample_vjp(const array& x, const array& grid,
                                               const array& cotangent) {
  grid_sample_detail::check_inputs(x, grid);
  const int B = x.shape(0), C = x.shape(3);
  const int gN = grid.shape(1), gM = grid.shape(2);
  // Pad the channels to the simdgroup size so that the simd_sums do not
  // overlap. simd_sum needs whole threadgroups: the threadgroup is the
  // largest of 256, 128, 64 and 32 threads that divides the grid (32 always
  // does), so that simdgroups never straddle two grid points either.
  const int C_padded = grid_sample_detail::round_up(C, grid_sample_detail::kSimdgroupSize);
  const int grid_size = B * gN * gM * C_padded;
  int threadgroup = 256;
  while (grid_size % threadgroup != 0) threadgroup /= 2;
  auto outs = grid_sample_detail::vjp_kernel()(
      {x, grid, cotangent}, {x.shape(), grid.shape()}, {float32, float32}, {grid_size, 1, 1},
      {threadgroup, 1, 1}, {}, /*init_value=*/0.0f, false, Device(Device::gpu));
  const Device gpu(Device::gpu);
  return {astype(outs[0], x.dtype(), gpu), astype(outs[1], grid.dtype(), gpu)};
}

// The JVP kernel alone (GPU only): the tangent of out for tangents of x and
// grid.
inline array grid_sample_jvp(const array& x, const array& grid, const array& x_tan,
                             const array& grid_tan) {
  grid_sample_detail::check_inputs(x, grid);
  const Shape out_shape = {x.shape(0), grid.shape(1), grid.shape(2), x.shape(3)};
  return grid_sample_detail::jvp_kernel()({x, grid, x_tan, grid_tan}, {out_shape}, {x.dtype()},
                                          {grid_sample_detail::elements(out_shape), 1, 1},
                                          {256, 1, 1}, {{"T", x.dtype()}}, std::nullopt, false,
                                          Device(Device::gpu))[0];
}

// grid_sample(x, grid): the forward kernel inside a custom_function whose
// VJP and JVP are the kernels above, so grad, vjp, jvp and value_and_grad
// work through it inside larger graphs. On the CPU (default device cpu),
// the composed reference.
inline array grid_sample(const array& x, const array& grid) {
  grid_sample_detail::check_inputs(x, grid);
  if (default_device().type != Device::gpu) return grid_sample_ref(x, grid);
  auto fun = custom_function(
      [](const std::vector<array>& in) {
        return std::vector<array>{grid_sample_forward(in[0], in[1])};
      },
      CustomVjpFn([](const std::vector<array>& primals, const std::vector<array>& cotangents,
                     const std::vector<array>&) {
        auto [x_grad, grid_grad] = grid_sample_vjp(primals[0], primals[1], cotangents[0]);
        return std::vector<array>{x_grad, grid_grad};
      }),
      CustomJvpFn([](const std::vector<array>& primals, const std::vector<array>& tangents,
                     const std::vector<int>& argnums) {
        // Tangents come for the primals listed in argnums; the others are 0.
        std::vector<array> t = {zeros_like(primals[0]), zeros_like(primals[1])};
        for (size_t k = 0; k < argnums.size(); ++k) t[argnums[k]] = tangents[k];
        return std::vector<array>{grid_sample_jvp(primals[0], primals[1], t[0], t[1])};
      }));
  return fun({x, grid})[0];
}

}  // namespace mlx_lite::examples
