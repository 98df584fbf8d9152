// The seed's grid_sample reference, written with mlx_lite's ops: bilinear
// sampling of an NHWC image x at normalized points grid (N, gH, gW, 2) in
// [-1, 1], with zero padding and align_corners=false (PyTorch's convention).
//
// Python (MLX docs)                      C++ (mlx_lite)
//   grid[..., 0]                           last_axis(grid, 0)
//   x[mx.arange(N)[:, None, None], iy, ix, :]
//                                          gather(x, {batch, iy, ix}, {0, 1, 2}, {1, 1, 1, C})
#pragma once

#include "mlx_lite/mlx_lite.h"

namespace mlx_lite::examples {

// a[..., i] as a view.
inline array last_axis(const array& a, int i) {
  Shape start(a.ndim(), 0);
  Shape stop = a.shape();
  start.back() = i;
  stop.back() = i + 1;
  return squeeze(slice(a, start, stop), -1);
}

inline array grid_sample_ref(const array& x, const array& grid) {
  const int N = x.shape(0), H_in = x.shape(1), W_in = x.shape(2), C = x.shape(3);
  const int gH = grid.shape(1), gW = grid.shape(2);

  array ix = ((last_axis(grid, 0) + 1) * W_in - 1) / 2;
  array iy = ((last_axis(grid, 1) + 1) * H_in - 1) / 2;

  // The corner indices are piecewise constant in grid: stop_gradient keeps
  // them off the gradient path, as MLX requires of gather indices (their
  // gradient would be zero anyway; the grid's flows through the weights).
  array ix_nw = stop_gradient(astype(floor(ix), int32));
  array iy_nw = stop_gradient(astype(floor(iy), int32));
  array ix_ne = ix_nw + 1, iy_ne = iy_nw;
  array ix_sw = ix_nw, iy_sw = iy_nw + 1;
  array ix_se = ix_nw + 1, iy_se = iy_nw + 1;

  array nw = (ix_se - ix) * (iy_se - iy);
  array ne = (ix - ix_sw) * (iy_sw - iy);
  array sw = (ix_ne - ix) * (iy - iy_ne);
  array se = (ix - ix_nw) * (iy - iy_nw);

  // Out-of-range indices read a clamped neighbour; the masks zero them below.
  array batch = reshape(arange(N), {N, 1, 1});
  auto sample = [&](const array& iy_, const array& ix_) {
    return reshape(gather(x, {batch, iy_, ix_}, {0, 1, 2}, {1, 1, 1, C}), {N, gH, gW, C});
  };
  auto in_bounds = [&](const array& iy_, const array& ix_) {
    return expand_dims((iy_ >= 0) & (iy_ <= H_in - 1) & (ix_ >= 0) & (ix_ <= W_in - 1), -1);
  };
  array I_nw = sample(iy_nw, ix_nw) * in_bounds(iy_nw, ix_nw);
  array I_ne = sample(iy_ne, ix_ne) * in_bounds(iy_ne, ix_ne);
  array I_sw = sample(iy_sw, ix_sw) * in_bounds(iy_sw, ix_sw);
  array I_se = sample(iy_se, ix_se) * in_bounds(iy_se, ix_se);

  return expand_dims(nw, -1) * I_nw + expand_dims(ne, -1) * I_ne + expand_dims(sw, -1) * I_sw +
         expand_dims(se, -1) * I_se;
}

}  // namespace mlx_lite::examples
