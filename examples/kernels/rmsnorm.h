// RMSNorm as a custom GPU kernel with its VJP, as the kernel guide writes it
// (seed 003: one threadgroup per row, float32 accumulation):
//
//   y = x * rsqrt(mean(x^2, last axis) + eps) * w
//
// rms_norm(x, w, eps) is the forward kernel under custom_vjp, whose VJP is a
// second kernel; mlx_lite::test::check_grads checks it on the GPU in reverse
// mode (tests/test_kernel_examples_rmsnorm.cpp). x (..., D) and w (D) are
// float32 or float16; every sum is taken in float32.
//
// The guide sums a row with simd_sum alone, which is right only where one
// simdgroup spans the threadgroup; the kernels here sum over the whole
// threadgroup with threadgroup_sum, for any threadgroup of 1 to 1024
// threads. Every thread reaches it (it contains barriers), and the grid is
// whole threadgroups (one per row).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

namespace rms_norm_detail {

// The largest threadgroup threadgroup_sum takes.
inline constexpr int kMaxThreadgroup = 1024;

// One threadgroup per row of D = w_shape[0] elements; each thread strides
// over the row. T: the output's type. eps: a one-element input.
inline constexpr const char* kForwardSource = R"(
  uint row = threadgroup_position_in_grid.x;
  uint tid = thread_index_in_threadgroup;
  uint tg = threads_per_threadgroup.x;
  uint D = uint(w_shape[0]);
  uint base = row * D;

  float acc = 0.0;
  for (uint i = tid; i < D; i += tg) {
    float v = float(x[base + i]);
    acc += v * v;
  }
  float r = inversesqrt(threadgroup_sum(acc) / float(D) + eps[0]);
  for (uint i = tid; i < D; i += tg) {
    out[base + i] = T(float(x[base + i]) * r * float(w[i]));
  }
)";

// The VJP for the cotangent g of y, per row (r as above):
//   x_grad = r * w * g - x * r^3 / D * sum(w * g * x)
//   w_grad_rows = g * x * r            (summed over the rows on the host)
// T: x_grad's type; w_grad_rows is float32.
inline constexpr const char* kVjpSource = R"(
  uint row = threadgroup_position_in_grid.x;
  uint tid = thread_index_in_threadgroup;
  uint tg = threads_per_threadgroup.x;
  uint D = uint(w_shape[0]);
  uint base = row * D;

  float sum_xx = 0.0;
  float sum_wgx = 0.0;
  for (uint i = tid; i < D; i += tg) {
    float xv = float(x[base + i]);
    sum_xx += xv * xv;
    sum_wgx += float(w[i]) * float(g[base + i]) * xv;
  }
  float r = inversesqrt(threadgroup_sum(sum_xx) / float(D) + eps[0]);
  float c = threadgroup_sum(sum_wgx) * r * r * r / float(D);
  for (uint i = tid; i < D; i += tg) {
    float xv = float(x[base + i]);
    float gv = float(g[base + i]);
    x_grad[base + i] = T(r * float(w[i]) * gv - c * xv);
    w_grad_rows[base + i] = gv * xv * r;
  }
)";

inline const fast::CustomKernelFunction& forward_kernel() {
  static const auto kernel =
      fast::vulkan_kernel("rms_norm", {"x", "w", "eps"}, {"out"}, kForwardSource);
  return kernel;
}

inline const fast::CustomKernelFunction& vjp_kernel() {
  static const auto kernel = fast::vulkan_kernel("rms_norm_vjp", {"x", "w", "g", "eps"},
                                                 {"x_grad", "w_grad_rows"}, kVjpSource);
  return kernel;
}

inline void check_inputs(const array& x, const array& w) {
  if (x.ndim() < 1 || w.ndim() != 1 || w.shape(0) != x.shape(-1)) {
    std::ostringstream os;
    os << "[rms_norm] x must be (..., D) and w (D,), got x of shape " << x.shape()
       << " and w of shape " << w.shape() << ".";
    throw std::invalid_argument(os.str());
  }
  if (w.shape(0) == 0) throw std::invalid_argument("[rms_norm] The rows of x are empty (D = 0).");
  for (const array* a : {&x, &w}) {
    if (a->dtype() != float32 && a->dtype() != float16) {
      std::ostringstream os;
      os << "[rms_norm] x and w must be float32 or float16, got " << x.dtype() << " and "
         << w.dtype() << ".";
      throw std::invalid_argument(os.str());
    }
  }
}

// The guide's default: 256 threads, fewer for short rows (a multiple of 32,
// each thread taking at least 4 elements where it can).
inline int default_threadgroup(int D) {
  return std::clamp((D / 4 + 31) / 32 * 32, 32, 256);
}

// The threadgroup size to use (`requested`, or the default when 0) and the
// grid of one threadgroup per row.
inline std::pair<int, int> launch_size(int rows, int D, int requested) {
  const int tg = requested != 0 ? requested : default_threadgroup(D);
  if (tg < 1 || tg > kMaxThreadgroup) {
    throw std::invalid_argument("[rms_norm] threadgroup must be 1 to 1024 (0: the default), got " +
                                std::to_string(requested) + ".");
  }
  if (static_cast<int64_t>(rows) * tg > std::numeric_limits<int>::max()) {
    throw std::overflow_error("[rms_norm] " + std::to_string(rows) + " rows of " +
                              std::to_string(tg) + " threads exceed the grid's int range.");
  }
  return {tg, rows * tg};
}

}  // namespace rms_norm_detail

// The forward kernel alone, on the default device (which must be the GPU):
// y of the dtype x and w promote to. threadgroup 0 picks
// default_threadgroup(D); any size from 1 to 1024 gives the same result.
inline array rms_norm_forward(const array& x, const array& w, float eps, int threadgroup = 0) {
  rms_norm_detail::check_inputs(x, w);
  const int D = w.shape(0);
  const int rows = static_cast<int>(x.size() / D);
  const Dtype out_type = promote_types(x.dtype(), w.dtype());
  if (rows == 0) return zeros(x.shape(), out_type);
  const auto [tg, grid] = rms_norm_detail::launch_size(rows, D, threadgroup);
  return rms_norm_detail::forward_kernel()({x, w, array(eps)}, {x.shape()}, {out_type},
                                           {grid, 1, 1}, {tg, 1, 1}, {{"T", out_type}})[0];
}

// The VJP kernel alone, on the default device: the gradients of <g, y>
// with respect to x and w, of their dtypes.
inline std::pair<array, array> rms_norm_vjp(const array& x, const array& w, const array& g,
                                            float eps, int threadgroup = 0) {
  rms_norm_detail::check_inputs(x, w);
  const int D = w.shape(0);
  const int rows = static_cast<int>(x.size() / D);
  if (rows == 0) return {zeros_like(x), zeros_like(w)};
  const auto [tg, grid] = rms_norm_detail::launch_size(rows, D, threadgroup);
  auto outs = rms_norm_detail::vjp_kernel()({x, w, g, array(eps)}, {x.shape(), {rows, D}},
                                            {x.dtype(), float32}, {grid, 1, 1}, {tg, 1, 1},
                                            {{"T", x.dtype()}});
  return {outs[0], astype(sum(outs[1], 0), w.dtype())};
}

// rms_norm(x, w, eps): the forward kernel under custom_vjp with the VJP
// kernel, so grad, vjp and value_and_grad work through it (jvp does not:
// there is no JVP kernel). On the default device, which must be the GPU.
inline array rms_norm(const array& x, const array& w, float eps, int threadgroup = 0) {
  auto fun = custom_vjp(
      [eps, threadgroup](const std::vector<array>& in) {
        return std::vector<array>{rms_norm_forward(in[0], in[1], eps, threadgroup)};
      },
      [eps, threadgroup](const std::vector<array>& primals, const std::vector<array>& cotangents,
                         const std::vector<array>&) {
        auto [x_grad, w_grad] =
            rms_norm_vjp(primals[0], primals[1], cotangents[0], eps, threadgroup);
        return std::vector<array>{x_grad, w_grad};
      });
  return fun({x, w})[0];
}

}  // namespace mlx_lite::examples
