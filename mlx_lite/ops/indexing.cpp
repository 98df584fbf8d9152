// Gather and scatter ops, and the numpy-style indexing composed on them (as
// MLX composes them: take and take_along_axis are gathers plus views,
// put_along_axis is a scatter).
#include "mlx_lite/ops/indexing.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/creation.h"
#include "mlx_lite/ops/reduction.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/ternary.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives/indexing.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

std::string shapes_string(const std::vector<array>& arrays) {
  std::vector<std::string> parts;
  for (const auto& a : arrays) parts.push_back(shape_string(a.shape()));
  return fmt::format("{}", fmt::join(parts, ", "));
}

void check_index_dtype(const array& idx, const char* op) {
  if (!is_integral(idx.dtype())) {
    throw std::invalid_argument(
        fmt::format("[{}] Got indices of dtype {}; indices must have an integer dtype (uint8, "
                    "uint16, uint32, uint64, int8, int16, int32 or int64).",
                    op, idx.dtype()));
  }
}

// Checks the index dtypes and broadcasts the index arrays to one shape (views).
std::vector<array> broadcast_indices(const std::vector<array>& indices, const char* op,
                                     StreamOrDevice s) {
  Shape shape;
  for (const auto& idx : indices) {
    check_index_dtype(idx, op);
    try {
      shape = broadcast_shapes(shape, idx.shape(), op);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument(
          fmt::format("[{}] Index arrays of shapes {} cannot be broadcast together.", op,
                      shapes_string(indices)));
    }
  }
  std::vector<array> out;
  for (const auto& idx : indices) {
    out.push_back(idx.shape() == shape ? idx : broadcast_to(idx, shape, s));
  }
  return out;
}

std::vector<int> checked_axes(size_t n_indices, const std::vector<int>& axes, int ndim,
                              const char* op) {
  if (n_indices != axes.size()) {
    throw std::invalid_argument(
        fmt::format("[{}] Got {} index arrays for {} axes ({}); expected one index array per axis.",
                    op, n_indices, axes.size(), fmt::join(axes, ",")));
  }
  // MLX does not count gather/scatter axes from the end: a negative one is
  // out of range, like one past the last dimension.
  for (int axis : axes) {
    if (axis < 0 || axis >= ndim) {
      throw std::invalid_argument(fmt::format(
          "[{}] Axis {} is out of range for an array with {} dimensions (expected 0 <= axis < {}; "
          "gather and scatter do not count negative axes from the end, as in MLX).",
          op, axis, ndim, ndim));
    }
  }
  return normalize_axes(axes, ndim, op);
}

array scatter_impl(const array& a, const std::vector<array>& indices, const array& updates,
                   const std::vector<int>& axes, Scatter::ReduceType reduce, const char* op,
                   StreamOrDevice s) {
  auto ax = checked_axes(indices.size(), axes, a.ndim(), op);
  auto inputs = broadcast_indices(indices, op, s);
  Shape idx_shape = inputs.empty() ? Shape{} : inputs[0].shape();
  const int idx_ndim = static_cast<int>(idx_shape.size());
  if (updates.ndim() != idx_ndim + a.ndim()) {
    throw std::invalid_argument(fmt::format(
        "[{}] Updates of shape {} have {} dimensions; expected {}: the broadcast index shape {} "
        "followed by one slice dimension per dimension of the array of shape {}.",
        op, shape_string(updates.shape()), updates.ndim(), idx_ndim + a.ndim(),
        shape_string(idx_shape), shape_string(a.shape())));
  }
  for (int i = 0; i < idx_ndim; ++i) {
    if (updates.shape(i) != idx_shape[i]) {
      throw std::invalid_argument(
          fmt::format("[{}] Updates of shape {} do not start with the broadcast index shape {}.",
                      op, shape_string(updates.shape()), shape_string(idx_shape)));
    }
  }
  for (int i = 0; i < a.ndim(); ++i) {
    if (updates.shape(idx_ndim + i) > a.shape(i)) {
      throw std::invalid_argument(fmt::format(
          "[{}] Updates of shape {} have slice size {} at array dimension {}, larger than the "
          "array of shape {} (expected at most {}).",
          op, shape_string(updates.shape()), updates.shape(idx_ndim + i), i,
          shape_string(a.shape()), a.shape(i)));
    }
  }
  inputs.insert(inputs.begin(), a);
  inputs.push_back(updates.dtype() == a.dtype() ? updates : astype(updates, a.dtype(), s));
  return array(a.shape(), a.dtype(), std::make_shared<Scatter>(to_stream(s), reduce, std::move(ax)),
               std::move(inputs));
}

// The index arrays of an along-axis op: `indices` for `axis`, aranges over the
// other dims shaped to broadcast against it.
std::vector<array> along_axis_indices(const array& indices, const Shape& shape, int axis,
                                      StreamOrDevice s) {
  std::vector<array> out;
  const int ndim = static_cast<int>(shape.size());
  for (int i = 0; i < ndim; ++i) {
    if (i == axis) {
      out.push_back(indices);
    } else {
      Shape index_shape(ndim, 1);
      index_shape[i] = shape[i];
      out.push_back(reshape(arange(shape[i], s), index_shape, s));
    }
  }
  return out;
}

void check_along_axis(const array& a, const array& indices, const char* op) {
  if (indices.ndim() != a.ndim()) {
    throw std::invalid_argument(fmt::format(
        "[{}] Indices of shape {} have {} dimensions; expected {} to match the array of shape {}.",
        op, shape_string(indices.shape()), indices.ndim(), a.ndim(), shape_string(a.shape())));
  }
  check_index_dtype(indices, op);
}

}  // namespace

array gather(const array& a, const std::vector<array>& indices, const std::vector<int>& axes,
             const Shape& slice_sizes, StreamOrDevice s) {
  auto ax = checked_axes(indices.size(), axes, a.ndim(), "gather");
  auto inputs = broadcast_indices(indices, "gather", s);
  if (static_cast<int>(slice_sizes.size()) != a.ndim()) {
    throw std::invalid_argument(fmt::format(
        "[gather] Got slice_sizes {} for an array of shape {}; expected one slice size per "
        "dimension ({}).",
        shape_string(slice_sizes), shape_string(a.shape()), a.ndim()));
  }
  for (int i = 0; i < a.ndim(); ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > a.shape(i)) {
      throw std::invalid_argument(fmt::format(
          "[gather] Slice size {} at dimension {} is out of range for an array of shape {} "
          "(expected 0 <= slice size <= {}).",
          slice_sizes[i], i, shape_string(a.shape()), a.shape(i)));
    }
  }
  Shape out_shape = inputs.empty() ? Shape{} : inputs[0].shape();
  out_shape.insert(out_shape.end(), slice_sizes.begin(), slice_sizes.end());
  inputs.insert(inputs.begin(), a);
  return array(std::move(out_shape), a.dtype(),
               std::make_shared<Gather>(to_stream(s), std::move(ax), slice_sizes),
               std::move(inputs));
}

array gather(const array& a, const array& indices, int axis, const Shape& slice_sizes,
             StreamOrDevice s) {
  return gather(a, std::vector<array>{indices}, std::vector<int>{axis}, slice_sizes, s);
}

array take(const array& a, const array& indices, int axis, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), "take");
  check_index_dtype(indices, "take");
  if (a.shape(axis) == 0 && indices.size() != 0) {
    throw std::invalid_argument(fmt::format(
        "[take] Cannot take indices of shape {} from axis {} of size 0 (array shape {}).",
        shape_string(indices.shape()), axis, shape_string(a.shape())));
  }
  Shape slice_sizes = a.shape();
  slice_sizes[axis] = indices.size() > 0 ? 1 : 0;
  // Shape: indices' dims, then a's dims with a size-1 (or empty) `axis`.
  auto out = gather(a, indices, axis, slice_sizes, s);
  const int m = indices.ndim();
  if (indices.size() > 0) {
    out = squeeze(out, m + axis, s);
  } else {
    Shape shape = out.shape();
    shape.erase(shape.begin() + m + axis);
    out = reshape(out, std::move(shape), s);
  }
  // Move the indices' dims to where `axis` was: a view.
  if (axis == 0) return out;
  std::vector<int> perm(out.ndim());
  std::iota(perm.begin(), perm.begin() + axis, m);
  std::iota(perm.begin() + axis, perm.begin() + axis + m, 0);
  std::iota(perm.begin() + axis + m, perm.end(), m + axis);
  return transpose(out, std::move(perm), s);
}

array take(const array& a, int index, int axis, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), "take");
  const int dim = a.shape(axis);
  if (dim == 0) {
    throw std::invalid_argument(
        fmt::format("[take] Cannot take index {} from axis {} of size 0 (array shape {}).", index,
                    axis, shape_string(a.shape())));
  }
  // As gather does: wrap a negative index once, clamp what is still out of range.
  index = std::clamp(index < 0 ? index + dim : index, 0, dim - 1);
  Shape start(a.ndim(), 0);
  Shape stop = a.shape();
  start[axis] = index;
  stop[axis] = index + 1;
  return squeeze(slice(a, std::move(start), std::move(stop), s), axis, s);
}

array take(const array& a, const array& indices, StreamOrDevice s) {
  return take(flatten(a, s), indices, 0, s);
}

array take(const array& a, int index, StreamOrDevice s) {
  return take(flatten(a, s), index, 0, s);
}

array take_along_axis(const array& a, const array& indices, int axis, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), "take_along_axis");
  check_along_axis(a, indices, "take_along_axis");
  // Broadcast a and indices against each other on every dim but `axis`.
  Shape a_shape = a.shape();
  Shape i_shape = indices.shape();
  a_shape[axis] = i_shape[axis] = 1;
  Shape shape = broadcast_shapes(a_shape, i_shape, "take_along_axis");
  shape[axis] = a.shape(axis);
  array src = shape == a.shape() ? a : broadcast_to(a, shape, s);
  shape[axis] = indices.shape(axis);
  array idx = shape == indices.shape() ? indices : broadcast_to(indices, shape, s);
  // An empty result reads nothing, as in MLX; gather could not even cut its
  // slices of size 1 from a zero-length dim of `a`.
  if (std::ranges::find(shape, 0) != shape.end()) return zeros(shape, a.dtype(), s);
  if (a.shape(axis) == 0) {
    throw std::invalid_argument(fmt::format(
        "[take_along_axis] Cannot take {} elements along axis {} of the array of shape {}, which "
        "has none.",
        indices.shape(axis), axis, shape_string(a.shape())));
  }

  std::vector<int> dims(a.ndim());
  std::iota(dims.begin(), dims.end(), 0);
  auto out =
      gather(src, along_axis_indices(idx, src.shape(), axis, s), dims, Shape(a.ndim(), 1), s);
  // Drop the size-1 slice dims.
  return reshape(out, std::move(shape), s);
}

namespace {

// put_along_axis and scatter_add_axis: values (broadcast to the indexed
// shape) written or added at `indices` along `axis`.
array scatter_along_axis(const array& a, const array& indices, const array& values, int axis,
                         Scatter::ReduceType reduce, const char* op, StreamOrDevice s) {
  axis = normalize_axis(axis, a.ndim(), op);
  check_along_axis(a, indices, op);
  // The positions written: indices broadcast with a's other dims.
  Shape a_shape = a.shape();
  a_shape[axis] = indices.shape(axis);
  Shape shape = broadcast_shapes(indices.shape(), a_shape, op);
  if (broadcast_shapes(values.shape(), shape, op) != shape) {
    throw std::invalid_argument(
        fmt::format("[{}] Values of shape {} cannot be broadcast to the indexed shape {}.", op,
                    shape_string(values.shape()), shape_string(shape)));
  }
  // No position is written: `a` is the result, as in MLX.
  if (std::ranges::find(shape, 0) != shape.end()) return a;
  if (a.shape(axis) == 0) {
    throw std::invalid_argument(fmt::format(
        "[{}] Cannot put {} elements along axis {} of the array of shape {}, which has none.", op,
        indices.shape(axis), axis, shape_string(a.shape())));
  }
  array update = values.shape() == shape ? values : broadcast_to(values, shape, s);
  // Each update is a slice of size 1 in every dim of a.
  Shape update_shape = shape;
  update_shape.resize(shape.size() + a.ndim(), 1);
  update = reshape(update, std::move(update_shape), s);

  std::vector<int> dims(a.ndim());
  std::iota(dims.begin(), dims.end(), 0);
  return scatter_impl(a, along_axis_indices(indices, a.shape(), axis, s), update, dims, reduce, op,
                      s);
}

}  // namespace

array put_along_axis(const array& a, const array& indices, const array& values, int axis,
                     StreamOrDevice s) {
  return scatter_along_axis(a, indices, values, axis, Scatter::None, "put_along_axis", s);
}

array scatter_add_axis(const array& a, const array& indices, const array& values, int axis,
                       StreamOrDevice s) {
  return scatter_along_axis(a, indices, values, axis, Scatter::Sum, "scatter_add_axis", s);
}

array scatter(const array& a, const std::vector<array>& indices, const array& updates,
              const std::vector<int>& axes, StreamOrDevice s) {
  return scatter_impl(a, indices, updates, axes, Scatter::None, "scatter", s);
}

array scatter(const array& a, const array& indices, const array& updates, int axis,
              StreamOrDevice s) {
  return scatter(a, std::vector<array>{indices}, updates, std::vector<int>{axis}, s);
}

array scatter_add(const array& a, const std::vector<array>& indices, const array& updates,
                  const std::vector<int>& axes, StreamOrDevice s) {
  return scatter_impl(a, indices, updates, axes, Scatter::Sum, "scatter_add", s);
}

array scatter_add(const array& a, const array& indices, const array& updates, int axis,
                  StreamOrDevice s) {
  return scatter_add(a, std::vector<array>{indices}, updates, std::vector<int>{axis}, s);
}

array scatter_prod(const array& a, const std::vector<array>& indices, const array& updates,
                   const std::vector<int>& axes, StreamOrDevice s) {
  return scatter_impl(a, indices, updates, axes, Scatter::Prod, "scatter_prod", s);
}

array scatter_prod(const array& a, const array& indices, const array& updates, int axis,
                   StreamOrDevice s) {
  return scatter_prod(a, std::vector<array>{indices}, updates, std::vector<int>{axis}, s);
}

array scatter_max(const array& a, const std::vector<array>& indices, const array& updates,
                  const std::vector<int>& axes, StreamOrDevice s) {
  return scatter_impl(a, indices, updates, axes, Scatter::Max, "scatter_max", s);
}

array scatter_max(const array& a, const array& indices, const array& updates, int axis,
                  StreamOrDevice s) {
  return scatter_max(a, std::vector<array>{indices}, updates, std::vector<int>{axis}, s);
}

array scatter_min(const array& a, const std::vector<array>& indices, const array& updates,
                  const std::vector<int>& axes, StreamOrDevice s) {
  return scatter_impl(a, indices, updates, axes, Scatter::Min, "scatter_min", s);
}

array scatter_min(const array& a, const array& indices, const array& updates, int axis,
                  StreamOrDevice s) {
  return scatter_min(a, std::vector<array>{indices}, updates, std::vector<int>{axis}, s);
}

array masked_scatter(const array& a, const array& mask, const array& src, StreamOrDevice s) {
  if (mask.dtype() != bool_) {
    throw std::invalid_argument(
        fmt::format("[masked_scatter] Mask has dtype {}; expected bool.", mask.dtype()));
  }
  if (broadcast_shapes(mask.shape(), a.shape(), "masked_scatter") != a.shape()) {
    throw std::invalid_argument(
        fmt::format("[masked_scatter] Mask of shape {} does not broadcast to the array's shape {}.",
                    shape_string(mask.shape()), shape_string(a.shape())));
  }
  if (a.size() == 0 || src.size() == 0) return copy(a, s);
  // Mask position i takes src's element (number of true entries up to i) - 1.
  const array flat_mask = reshape(broadcast_to(mask, a.shape(), s), {-1}, s);
  const Dtype count_type = a.size() > std::numeric_limits<int32_t>::max() ? int64 : int32;
  array pos = subtract(cumsum(astype(flat_mask, count_type, s), 0, false, true, s),
                       array(1, count_type), s);
  pos = clip(pos, array(0, count_type), array(static_cast<int64_t>(src.size()) - 1, count_type), s);
  const array values = take(reshape(src, {-1}, s), stop_gradient(pos, s), 0, s);
  const array merged = where(flat_mask, astype(values, a.dtype(), s), reshape(a, {-1}, s), s);
  return reshape(merged, a.shape(), s);
}

bool Gather::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Gather*>(&other);
  return o && o->axes_ == axes_ && o->slice_sizes_ == slice_sizes_;
}

bool Scatter::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Scatter*>(&other);
  return o && o->reduce_ == reduce_ && o->axes_ == axes_ && o->zero_source_ == zero_source_;
}

}  // namespace mlx_lite
