// Matrix multiply on simdgroup matrices (the guide's
// scripts/simdgroup_matmul_kernel.py and references/simdgroup-matrix-guide.md,
// whose 8 x 8 simdgroup_float8x8 tiles are 16 x 16 here):
//   c = a b,  a (m, k) and b (k, n) float16, accumulated in float32,
//   c float32 or float16.
// On a device with matrix units (NVIDIA's tensor cores) the tiles are its
// cooperative matrices; elsewhere (lavapipe, GPUs without them) the library's
// fallback runs the same source (docs/custom_kernels.md, "Matrix units").
//
// A threadgroup of 128 threads (4 simdgroups) computes a 64 x 64 tile of c,
// each simdgroup a 32 x 32 quarter of it as 2 x 2 accumulators. k advances
// 16 at a time: the threads copy a's 64 x 16 and b's 16 x 64 panels into
// shared memory (zeros past m, n or k, so any size works), then each
// simdgroup multiplies its two tiles of a by its two tiles of b. At the end
// the accumulators go through shared memory, so that elements past m or n
// are not written and c is rounded to its dtype once.
//
// The pattern, not a fast GEMM: the built-in matmul (double-buffered panels,
// larger tiles) is several times faster on the same matrix units.
#pragma once

#include <fmt/format.h>

#include <stdexcept>

#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

inline constexpr const char* kSimdgroupMatmulHeader = R"(
shared float16_t a_panel[64 * 16];  // rows of c's tile x 16 of k
shared float16_t b_panel[16 * 64];  // 16 of k x columns of c's tile
shared float c_tile[64 * 64];
)";

inline constexpr const char* kSimdgroupMatmulSource = R"(
  uint m = uint(a_shape[0]), k = uint(a_shape[1]), n = uint(b_shape[1]);
  uint tid = thread_index_in_threadgroup;
  uint row0 = threadgroup_position_in_grid.y * 64u, col0 = threadgroup_position_in_grid.x * 64u;
  uint sg = simdgroup_index_in_threadgroup;
  uint sg_row = (sg / 2u) * 32u, sg_col = (sg % 2u) * 32u;  // its quarter of the tile

  simdgroup_float16x16 acc[4];
  for (uint i = 0u; i < 4u; ++i) simdgroup_fill(acc[i], 0.0);
  for (uint k0 = 0u; k0 < k; k0 += 16u) {
    // A fixed trip count, so that the compiler unrolls it and issues all 16
    // loads before the first store waits for one.
    for (uint i = 0u; i < 8u; ++i) {
      uint e = tid + 128u * i;
      uint ar = row0 + e / 16u, ac = k0 + e % 16u;
      uint br = k0 + e / 64u, bc = col0 + e % 64u;
      a_panel[e] = ar < m && ac < k ? a[ar * k + ac] : float16_t(0.0);
      b_panel[e] = br < k && bc < n ? b[br * n + bc] : float16_t(0.0);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_half16x16 a_tile[2], b_tile[2];
    for (uint i = 0u; i < 2u; ++i) {
      simdgroup_load(a_tile[i], a_panel, (sg_row + 16u * i) * 16u, 16u, false);
      simdgroup_load(b_tile[i], b_panel, sg_col + 16u * i, 64u, false);
    }
    for (uint i = 0u; i < 2u; ++i) {
      for (uint j = 0u; j < 2u; ++j) {
        simdgroup_multiply_accumulate(acc[2u * i + j], a_tile[i], b_tile[j], acc[2u * i + j]);
      }
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);  // before the next panels overwrite these
  }

  for (uint i = 0u; i < 2u; ++i) {
    for (uint j = 0u; j < 2u; ++j) {
      simdgroup_store(acc[2u * i + j], c_tile, (sg_row + 16u * i) * 64u + sg_col + 16u * j, 64u,
                      false);
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint i = 0u; i < 32u; ++i) {
    uint e = tid + 128u * i;
    uint r = row0 + e / 64u, col = col0 + e % 64u;
    if (r < m && col < n) c[r * n + col] = T(c_tile[e]);
  }
)";

// a (m, k) @ b (k, n), both float16, row-contiguous (the kernel copies
// others); `out_dtype` float32 or float16.
inline array simdgroup_matmul(const array& a, const array& b, Dtype out_dtype = float32) {
  const bool ok = a.ndim() == 2 && b.ndim() == 2 && a.shape(1) == b.shape(0) &&
                  a.dtype() == float16 && b.dtype() == float16 &&
                  (out_dtype == float32 || out_dtype == float16);
  if (!ok) {
    throw std::invalid_argument(fmt::format(
        "[examples::simdgroup_matmul] Expected a (m, k) and b (k, n) float16, and a float32 or "
        "float16 result; got a ({}) {}, b ({}) {}, result {}.",
        fmt::join(a.shape(), ", "), dtype_name(a.dtype()), fmt::join(b.shape(), ", "),
        dtype_name(b.dtype()), dtype_name(out_dtype)));
  }
  static const auto kernel = fast::vulkan_kernel("simdgroup_matmul", {"a", "b"}, {"c"},
                                                 kSimdgroupMatmulSource, kSimdgroupMatmulHeader);
  const int m = a.shape(0), n = b.shape(1);
  const int tiles_n = (n + 63) / 64, tiles_m = (m + 63) / 64;
  return kernel({a, b}, {{m, n}}, {out_dtype}, {128 * tiles_n, tiles_m, 1}, {128, 1, 1},
                {{"T", out_dtype}})[0];
}

}  // namespace mlx_lite::examples
