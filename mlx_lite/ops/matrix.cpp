// Matrix ops of mlx_lite/ops/matrix.h. tril and triu are where() over a tri()
// mask and trace a sum over diagonal(), as MLX composes them; diagonal is a
// view primitive (MLX gathers a copy), and diag of a vector places it with
// where() and pad() instead of MLX's scatter, so all are differentiable
// through existing rules.
#include "mlx_lite/ops/matrix.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "mlx_lite/ops/creation.h"
#include "mlx_lite/ops/reduction.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/ternary.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives/views.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

void check_matrix(const array& x, const char* op) {
  if (x.ndim() < 2) {
    throw std::invalid_argument(
        fmt::format("[{}] Got an array of shape {}; expected at least two dimensions.", op,
                    shape_string(x.shape())));
  }
}

// axis normalized for an array of ndim dims; std::out_of_range otherwise (as MLX).
int diagonal_axis(int axis, int ndim, const char* op, const char* which) {
  if (axis < -ndim || axis >= ndim) {
    throw std::out_of_range(fmt::format("[{}] {} {} is out of range for an array with {} dims.", op,
                                        which, axis, ndim));
  }
  return axis < 0 ? axis + ndim : axis;
}

}  // namespace

array tril(array x, int k, StreamOrDevice s) {
  check_matrix(x, "tril");
  array mask = tri(x.shape(-2), x.shape(-1), k, bool_, s);
  return where(mask, x, array(0, x.dtype()), s);
}

array triu(array x, int k, StreamOrDevice s) {
  check_matrix(x, "triu");
  // Below diagonal k is at or below diagonal k - 1 (int64: k = INT_MIN must not wrap).
  const int64_t below = int64_t{k} - 1;
  array mask = below < INT32_MIN ? zeros({x.shape(-2), x.shape(-1)}, bool_, s)
                                 : tri(x.shape(-2), x.shape(-1), static_cast<int>(below), bool_, s);
  return where(mask, array(0, x.dtype()), x, s);
}

array diagonal(const array& a, int offset, int axis1, int axis2, StreamOrDevice s) {
  check_matrix(a, "diagonal");
  const int ax1 = diagonal_axis(axis1, a.ndim(), "diagonal", "axis1");
  const int ax2 = diagonal_axis(axis2, a.ndim(), "diagonal", "axis2");
  if (ax1 == ax2) {
    throw std::invalid_argument(fmt::format(
        "[diagonal] axis1 ({}) and axis2 ({}) are the same axis; expected two different axes.",
        axis1, axis2));
  }
  // The diagonal starts at row max(-offset, 0), column max(offset, 0).
  const int64_t rows = a.shape(ax1) - std::max<int64_t>(-int64_t{offset}, 0);
  const int64_t cols = a.shape(ax2) - std::max<int64_t>(offset, 0);
  Shape shape;
  for (int i = 0; i < a.ndim(); ++i) {
    if (i != ax1 && i != ax2) shape.push_back(a.shape(i));
  }
  shape.push_back(static_cast<ShapeElem>(std::max<int64_t>(0, std::min(rows, cols))));
  return array(std::move(shape), a.dtype(),
               std::make_shared<Diagonal>(to_stream(s), offset, ax1, ax2), {a});
}

array diag(const array& a, int k, StreamOrDevice s) {
  if (a.ndim() == 2) return diagonal(a, k, 0, 1, s);
  if (a.ndim() != 1) {
    throw std::invalid_argument(fmt::format(
        "[diag] Got an array of shape {}; expected 1 or 2 dimensions.", shape_string(a.shape())));
  }
  // The vector on the main diagonal of an n x n block, padded by |k| rows
  // below and columns before (k > 0) or the other way round (k < 0).
  const int64_t shift = std::abs(int64_t{k});
  checked_dim(a.size() + shift, "diag");
  const int n = a.shape(0);
  array block = where(eye(n, n, 0, bool_, s), expand_dims(a, 1, s), array(0, a.dtype()), s);
  const int above = k > 0 ? static_cast<int>(shift) : 0;
  const int below = k < 0 ? static_cast<int>(shift) : 0;
  return pad(block, {0, 1}, {below, above}, {above, below}, array(0, a.dtype()), "constant", s);
}

array trace(const array& a, int offset, int axis1, int axis2, Dtype dtype, StreamOrDevice s) {
  return sum(astype(diagonal(a, offset, axis1, axis2, s), dtype, s), -1, false, s);
}

array trace(const array& a, int offset, int axis1, int axis2, StreamOrDevice s) {
  return trace(a, offset, axis1, axis2, a.dtype(), s);
}

array trace(const array& a, StreamOrDevice s) {
  return trace(a, 0, 0, 1, a.dtype(), s);
}

}  // namespace mlx_lite
