/// \file
/// Arrays made from nothing but a shape and values.
#pragma once

#include <string>
#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// [start, stop) in steps of `step`, as numpy.arange. start defaults to 0
/// and step to 1; the dtype, unless given, is float32 for double bounds and
/// int32 for int ones. An integer dtype steps by int(start + step) -
/// int(start) from int(start), as numpy and MLX do (the length still comes
/// from `step`). Throws std::invalid_argument for a 0 step, a bool dtype, or a
/// length past INT_MAX.
/// @{
array arange(double start, double stop, double step, Dtype dtype, StreamOrDevice s = {});
array arange(double start, double stop, double step, StreamOrDevice s = {});
array arange(double start, double stop, Dtype dtype, StreamOrDevice s = {});
array arange(double start, double stop, StreamOrDevice s = {});
array arange(double stop, Dtype dtype, StreamOrDevice s = {});
array arange(double stop, StreamOrDevice s = {});
array arange(int start, int stop, int step, StreamOrDevice s = {});
array arange(int start, int stop, StreamOrDevice s = {});
array arange(int stop, StreamOrDevice s = {});
/// @}

/// `num` evenly spaced values from start to stop inclusive, computed in
/// float32 and converted to `dtype`. Throws std::invalid_argument for a
/// negative num.
array linspace(double start, double stop, int num = 50, Dtype dtype = float32,
               StreamOrDevice s = {});

/// `vals` broadcast to `shape`, converted to `dtype` when one is given (a
/// scalar `val` becomes array(val) first). As in MLX, the result is a dense
/// row-contiguous array once evaluated (a copy of the broadcast values).
/// Throws std::invalid_argument for a negative dim or values that do not
/// broadcast to `shape`.
/// @{
array full(Shape shape, array vals, Dtype dtype, StreamOrDevice s = {});
array full(Shape shape, array vals, StreamOrDevice s = {});
template <typename T>
array full(Shape shape, T val, Dtype dtype, StreamOrDevice s = {}) {
  return full(std::move(shape), array(val, dtype), s);
}
template <typename T>
array full(Shape shape, T val, StreamOrDevice s = {}) {
  return full(std::move(shape), array(val), s);
}
/// @}

/// `vals` broadcast against a's shape (both ways, as MLX: the result has
/// the broadcast of the two shapes), as `dtype`, a's dtype when none is
/// given; a scalar `val` becomes array(val, dtype) first. A broadcast view of
/// the values, as full(). Throws std::invalid_argument when the shapes do not
/// broadcast.
/// @{
array full_like(const array& a, array vals, Dtype dtype, StreamOrDevice s = {});
array full_like(const array& a, array vals, StreamOrDevice s = {});
template <typename T>
array full_like(const array& a, T val, Dtype dtype, StreamOrDevice s = {}) {
  return full_like(a, array(val, dtype), dtype, s);
}
template <typename T>
array full_like(const array& a, T val, StreamOrDevice s = {}) {
  return full_like(a, array(val, a.dtype()), s);
}
/// @}

/// Zeros of `shape` and `dtype` (float32 by default): full() of 0.
/// @{
array zeros(const Shape& shape, Dtype dtype, StreamOrDevice s = {});
inline array zeros(const Shape& shape, StreamOrDevice s = {}) {
  return zeros(shape, float32, s);
}
/// @}
/// Zeros of a's shape and dtype.
array zeros_like(const array& a, StreamOrDevice s = {});
/// Ones of `shape` and `dtype` (float32 by default): full() of 1.
/// @{
array ones(const Shape& shape, Dtype dtype, StreamOrDevice s = {});
inline array ones(const Shape& shape, StreamOrDevice s = {}) {
  return ones(shape, float32, s);
}
/// @}
/// Ones of a's shape and dtype.
array ones_like(const array& a, StreamOrDevice s = {});

/// n x m with ones on diagonal k. m defaults to n, k to 0 (the main
/// diagonal; k > 0 is above it), the dtype to float32. Throws
/// std::invalid_argument for a negative n or m.
/// @{
array eye(int n, int m, int k, Dtype dtype, StreamOrDevice s = {});
inline array eye(int n, Dtype dtype, StreamOrDevice s = {}) {
  return eye(n, n, 0, dtype, s);
}
inline array eye(int n, int m, StreamOrDevice s = {}) {
  return eye(n, m, 0, float32, s);
}
inline array eye(int n, int m, int k, StreamOrDevice s = {}) {
  return eye(n, m, k, float32, s);
}
inline array eye(int n, StreamOrDevice s = {}) {
  return eye(n, n, 0, float32, s);
}
/// @}

/// The n x n identity of `dtype` (float32 by default): eye(n, n, 0, dtype).
/// @{
array identity(int n, Dtype dtype, StreamOrDevice s = {});
inline array identity(int n, StreamOrDevice s = {}) {
  return identity(n, float32, s);
}
/// @}

/// n x m of `type`, 1 where column j <= row i + k (at and below diagonal k)
/// and 0 elsewhere, as numpy.tri; tri(n, type) is n x n with k = 0. A
/// comparison of two aranges, as MLX: a negative n or m gives an empty
/// dimension (numpy's behaviour), not an error.
/// @{
array tri(int n, int m, int k, Dtype type, StreamOrDevice s = {});
inline array tri(int n, Dtype type, StreamOrDevice s = {}) {
  return tri(n, n, 0, type, s);
}
/// @}

/// Coordinate arrays from 1-D coordinate vectors (each input is flattened),
/// as numpy.meshgrid: with indexing "xy" (the default) the first two outputs
/// vary along axes 1 and 0, with "ij" output i varies along axis i. sparse
/// keeps each output's size-1 axes, else all are broadcast views of the full
/// grid. Throws std::invalid_argument for another indexing.
std::vector<array> meshgrid(const std::vector<array>& arrays, bool sparse = false,
                            const std::string& indexing = "xy", StreamOrDevice s = {});

}  // namespace mlx_lite
