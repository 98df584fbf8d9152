// The slices of mlx_lite/ops/shape.h whose start is only known when the graph
// runs (MLX's dynamic slice and slice_update), and the slice updates that
// combine with the slice instead of replacing it. All are composed: dynamic
// slices are a gather and a scatter with one scalar index per axis, and the
// combining updates are slice, an elementwise op and slice_update, so every
// one runs on both devices and differentiates with its parts' rules.
#include <algorithm>
#include <stdexcept>

#include "mlx_lite/ops/ops.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

// MLX's checks of a dynamic start: an integer scalar or vector with one
// entry per axis, the axes in range (negative ones count from the end) and
// distinct. Returns the normalized axes.
std::vector<int> checked_dynamic_axes(const array& a, const array& start,
                                      const std::vector<int>& axes, const char* op) {
  if (!is_integral(start.dtype())) {  // bool is not integral
    throw std::invalid_argument(fmt::format(
        "[{}] Start indices have dtype {}; expected an integer dtype.", op, start.dtype()));
  }
  if (start.ndim() > 1 || static_cast<size_t>(start.size()) != axes.size()) {
    throw std::invalid_argument(
        fmt::format("[{}] Start indices of shape {} for {} axes ({}); expected a scalar or a "
                    "vector with one start per axis.",
                    op, shape_string(start.shape()), axes.size(), fmt::join(axes, ",")));
  }
  return normalize_axes(axes, a.ndim(), op);
}

// The start on each axis as a scalar int64 array: wrapped once when negative,
// then clamped so that a slice of `size` fits in the axis. Computed in the
// graph (the values are not known yet).
std::vector<array> clamped_starts(const array& a, const array& start, const std::vector<int>& axes,
                                  const Shape& size, StreamOrDevice s) {
  const array flat = reshape(astype(start, int64, s), {-1}, s);
  std::vector<array> out;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t dim = a.shape(axes[k]);
    array v = reshape(slice(flat, {static_cast<int>(k)}, {static_cast<int>(k) + 1}, s), {}, s);
    v = where(less(v, array(int64_t{0}), s), add(v, array(dim), s), v, s);
    v = clip(v, array(int64_t{0}), array(std::max<int64_t>(dim - size[axes[k]], 0)), s);
    out.push_back(stop_gradient(v, s));
  }
  return out;
}

// src with src[start:stop:strides] replaced by combine(slice, update).
template <typename F>
array combine_slice(const array& src, const array& update, Shape start, Shape stop, Shape strides,
                    const char* op, F combine, StreamOrDevice s) {
  const array region = slice(src, start, stop, strides, s);
  if (broadcast_shapes(update.shape(), region.shape(), op) != region.shape()) {
    throw std::invalid_argument(fmt::format(
        "[{}] Update of shape {} cannot be broadcast to the slice's shape {} (src shape {}).", op,
        shape_string(update.shape()), shape_string(region.shape()), shape_string(src.shape())));
  }
  const array combined = combine(region, astype(update, src.dtype(), s), s);
  return slice_update(src, combined, std::move(start), std::move(stop), std::move(strides), s);
}

}  // namespace

array slice(const array& a, const array& start, std::vector<int> axes, Shape slice_size,
            StreamOrDevice s) {
  axes = checked_dynamic_axes(a, start, axes, "slice");
  if (static_cast<int>(slice_size.size()) != a.ndim()) {
    throw std::invalid_argument(fmt::format(
        "[slice] Got slice size {} for an array of shape {}; expected one size per dimension.",
        shape_string(slice_size), shape_string(a.shape())));
  }
  for (int i = 0; i < a.ndim(); ++i) {
    if (slice_size[i] < 0 || slice_size[i] > a.shape(i)) {
      throw std::invalid_argument(
          fmt::format("[slice] Slice size {} does not fit in the array of shape {}.",
                      shape_string(slice_size), shape_string(a.shape())));
    }
  }
  // A gather with scalar indices has the slice's shape.
  return gather(a, clamped_starts(a, start, axes, slice_size, s), axes, slice_size, s);
}

array slice_update(const array& src, const array& update, const array& start, std::vector<int> axes,
                   StreamOrDevice s) {
  axes = checked_dynamic_axes(src, start, axes, "slice_update");
  if (update.ndim() > src.ndim()) {
    throw std::invalid_argument(
        fmt::format("[slice_update] Update of shape {} has more dimensions than src of shape {}.",
                    shape_string(update.shape()), shape_string(src.shape())));
  }
  // MLX's broadcast: missing leading dims take src's sizes (1 on the sliced
  // axes); present ones are capped at src's.
  const int missing = src.ndim() - update.ndim();
  Shape shape(src.shape().begin(), src.shape().begin() + missing);
  for (int d : axes) {
    if (d < missing) shape[d] = 1;
  }
  for (int d = missing; d < src.ndim(); ++d) {
    shape.push_back(std::min(update.shape(d - missing), src.shape(d)));
  }
  if (broadcast_shapes(update.shape(), shape, "slice_update") != shape) {
    throw std::invalid_argument(fmt::format(
        "[slice_update] Update of shape {} cannot be broadcast to {} in src of shape {}.",
        shape_string(update.shape()), shape_string(shape), shape_string(src.shape())));
  }
  const array upd = broadcast_to(astype(update, src.dtype(), s), shape, s);
  return scatter(src, clamped_starts(src, start, axes, shape, s), upd, axes, s);
}

array slice_update_add(const array& src, const array& update, Shape start, Shape stop,
                       Shape strides, StreamOrDevice s) {
  return combine_slice(
      src, update, std::move(start), std::move(stop), std::move(strides), "slice_update_add",
      [](const array& x, const array& y, StreamOrDevice t) { return add(x, y, t); }, s);
}

array slice_update_prod(const array& src, const array& update, Shape start, Shape stop,
                        Shape strides, StreamOrDevice s) {
  return combine_slice(
      src, update, std::move(start), std::move(stop), std::move(strides), "slice_update_prod",
      [](const array& x, const array& y, StreamOrDevice t) { return multiply(x, y, t); }, s);
}

array slice_update_max(const array& src, const array& update, Shape start, Shape stop,
                       Shape strides, StreamOrDevice s) {
  return combine_slice(
      src, update, std::move(start), std::move(stop), std::move(strides), "slice_update_max",
      [](const array& x, const array& y, StreamOrDevice t) { return maximum(x, y, t); }, s);
}

array slice_update_min(const array& src, const array& update, Shape start, Shape stop,
                       Shape strides, StreamOrDevice s) {
  return combine_slice(
      src, update, std::move(start), std::move(stop), std::move(strides), "slice_update_min",
      [](const array& x, const array& y, StreamOrDevice t) { return minimum(x, y, t); }, s);
}

array slice_update_add(const array& src, const array& update, Shape start, Shape stop,
                       StreamOrDevice s) {
  Shape strides(src.ndim(), 1);
  return slice_update_add(src, update, std::move(start), std::move(stop), std::move(strides), s);
}

array slice_update_prod(const array& src, const array& update, Shape start, Shape stop,
                        StreamOrDevice s) {
  Shape strides(src.ndim(), 1);
  return slice_update_prod(src, update, std::move(start), std::move(stop), std::move(strides), s);
}

array slice_update_max(const array& src, const array& update, Shape start, Shape stop,
                       StreamOrDevice s) {
  Shape strides(src.ndim(), 1);
  return slice_update_max(src, update, std::move(start), std::move(stop), std::move(strides), s);
}

array slice_update_min(const array& src, const array& update, Shape start, Shape stop,
                       StreamOrDevice s) {
  Shape strides(src.ndim(), 1);
  return slice_update_min(src, update, std::move(start), std::move(stop), std::move(strides), s);
}

}  // namespace mlx_lite
