// The shape ops of mlx_lite/ops/shape.h other than the views in mlx_lite/ops/views.cpp.
// flatten, unflatten, moveaxis, swapaxes, expand_dims, squeeze, stack, split,
// unstack, tile, repeat and atleast_nd are composed on the views (so they are
// views too); roll is slices joined by concatenate; concatenate, pad
// and slice_update build primitives that write a new buffer.
#include "mlx_lite/primitives/shape.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

array flatten(const array& a, int start_axis, int end_axis, StreamOrDevice s) {
  if (a.ndim() == 0) return reshape(a, {1}, s);
  const int nd = a.ndim();
  // As MLX: axes count from the end when negative, then clamp to the dims.
  int start = std::max(0, start_axis < 0 ? start_axis + nd : start_axis);
  int end = std::min(nd - 1, end_axis < 0 ? end_axis + nd : end_axis);
  if (start >= nd || end < 0 || end < start) {
    throw std::invalid_argument(fmt::format(
        "[flatten] Got start_axis {} and end_axis {} for an array of shape {}; expected "
        "start_axis <= end_axis, both within the dimensions.",
        start_axis, end_axis, shape_string(a.shape())));
  }
  if (start == end) return a;
  Shape shape(a.shape().begin(), a.shape().begin() + start);
  const ShapeElem* dims = a.shape().data();
  shape.push_back(checked_dim(checked_product(dims + start, dims + end + 1, "flatten"), "flatten"));
  shape.insert(shape.end(), a.shape().begin() + end + 1, a.shape().end());
  return reshape(a, std::move(shape), s);
}

array flatten(const array& a, StreamOrDevice s) {
  return flatten(a, 0, -1, s);
}

array moveaxis(const array& a, int source, int destination, StreamOrDevice s) {
  source = normalize_axis_index(source, a.ndim(), "[moveaxis] ");
  destination = normalize_axis_index(destination, a.ndim(), "[moveaxis] ");
  if (source == destination) return a;
  std::vector<int> axes(a.ndim());
  std::iota(axes.begin(), axes.end(), 0);
  axes.erase(axes.begin() + source);
  axes.insert(axes.begin() + destination, source);
  return transpose(a, std::move(axes), s);
}

array swapaxes(const array& a, int axis1, int axis2, StreamOrDevice s) {
  axis1 = normalize_axis_index(axis1, a.ndim(), "[swapaxes] ");
  axis2 = normalize_axis_index(axis2, a.ndim(), "[swapaxes] ");
  std::vector<int> axes(a.ndim());
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[axis1], axes[axis2]);
  return transpose(a, std::move(axes), s);
}

array expand_dims(const array& a, const std::vector<int>& axes, StreamOrDevice s) {
  // Axes index the output, which has one more dim per axis.
  const int out_ndim = a.ndim() + static_cast<int>(axes.size());
  auto norm = normalize_axes(axes, out_ndim, "expand_dims");
  std::sort(norm.begin(), norm.end());
  Shape shape = a.shape();
  for (int ax : norm) shape.insert(shape.begin() + ax, 1);
  return reshape(a, std::move(shape), s);
}

array expand_dims(const array& a, int axis, StreamOrDevice s) {
  return expand_dims(a, std::vector<int>{axis}, s);
}

array squeeze(const array& a, const std::vector<int>& axes, StreamOrDevice s) {
  auto norm = normalize_axes(axes, a.ndim(), "squeeze");
  for (int ax : norm) {
    if (a.shape(ax) != 1) {
      throw std::invalid_argument(
          fmt::format("[squeeze] Cannot squeeze axis {} of size {} in an array of shape {}; only "
                      "axes of size 1 can be squeezed.",
                      ax, a.shape(ax), shape_string(a.shape())));
    }
  }
  Shape shape;
  for (int i = 0; i < a.ndim(); ++i) {
    if (std::find(norm.begin(), norm.end(), i) == norm.end()) shape.push_back(a.shape(i));
  }
  return reshape(a, std::move(shape), s);
}

array squeeze(const array& a, int axis, StreamOrDevice s) {
  return squeeze(a, std::vector<int>{axis}, s);
}

array squeeze(const array& a, StreamOrDevice s) {
  std::vector<int> axes;
  for (int i = 0; i < a.ndim(); ++i) {
    if (a.shape(i) == 1) axes.push_back(i);
  }
  return squeeze(a, axes, s);
}

array concatenate(std::vector<array> arrays, int axis, StreamOrDevice s) {
  if (arrays.empty()) {
    throw std::invalid_argument("[concatenate] No arrays given; expected at least one.");
  }
  const Shape& first = arrays[0].shape();
  const int ax = normalize_axis_index(axis, arrays[0].ndim(), "[concatenate] ");
  Shape shape = first;
  int64_t joined = 0;  // the axis's size, checked once summed
  for (const auto& a : arrays) {
    bool ok = a.ndim() == arrays[0].ndim();
    for (int i = 0; ok && i < a.ndim(); ++i) ok = i == ax || a.shape(i) == first[i];
    if (!ok) {
      std::vector<std::string> shapes;
      for (const auto& b : arrays) shapes.push_back(shape_string(b.shape()));
      throw std::invalid_argument(
          fmt::format("[concatenate] Shapes {} must match in every dimension except axis {}.",
                      fmt::join(shapes, ", "), axis));
    }
    joined += a.shape(ax);
  }
  shape[ax] = checked_dim(joined, "concatenate");
  Dtype dtype = result_type(arrays);
  for (auto& a : arrays) a = astype(a, dtype, s);
  return array(std::move(shape), dtype, std::make_shared<Concatenate>(to_stream(s), ax),
               std::move(arrays));
}

array concatenate(std::vector<array> arrays, StreamOrDevice s) {
  for (auto& a : arrays) a = flatten(a, s);
  return concatenate(std::move(arrays), 0, s);
}

array stack(const std::vector<array>& arrays, int axis, StreamOrDevice s) {
  if (arrays.empty()) {
    throw std::invalid_argument("[stack] No arrays given; expected at least one.");
  }
  for (const auto& a : arrays) {
    if (a.shape() != arrays[0].shape()) {
      throw std::invalid_argument(
          fmt::format("[stack] All arrays must have the same shape, got {} and {}.",
                      shape_string(arrays[0].shape()), shape_string(a.shape())));
    }
  }
  const int ax = normalize_axis_index(axis, arrays[0].ndim() + 1, "[stack] ");
  std::vector<array> expanded;
  expanded.reserve(arrays.size());
  for (const auto& a : arrays) expanded.push_back(expand_dims(a, ax, s));
  return concatenate(std::move(expanded), ax, s);
}

array stack(const std::vector<array>& arrays, StreamOrDevice s) {
  return stack(arrays, 0, s);
}

std::vector<array> split(const array& a, const Shape& indices, int axis, StreamOrDevice s) {
  const int ax = normalize_axis(axis, a.ndim(), "split");
  // Python slicing of each part gives numpy's rules for negative and
  // out-of-range indices (parts may be empty).
  std::vector<array> parts;
  Shape start(a.ndim(), 0);
  Shape stop = a.shape();
  for (size_t i = 0; i <= indices.size(); ++i) {
    stop[ax] = i < indices.size() ? indices[i] : a.shape(ax);
    parts.push_back(slice(a, start, stop, s));
    start[ax] = stop[ax];
  }
  return parts;
}

std::vector<array> split(const array& a, const Shape& indices, StreamOrDevice s) {
  return split(a, indices, 0, s);
}

std::vector<array> split(const array& a, int num_splits, int axis, StreamOrDevice s) {
  const int ax = normalize_axis(axis, a.ndim(), "split");
  if (num_splits <= 0 || a.shape(ax) % num_splits != 0) {
    throw std::invalid_argument(fmt::format(
        "[split] Cannot split axis {} of size {} (shape {}) into {} equal parts; num_splits "
        "must be positive and divide the axis size.",
        axis, a.shape(ax), shape_string(a.shape()), num_splits));
  }
  const int part = a.shape(ax) / num_splits;
  Shape indices;
  for (int i = 1; i < num_splits; ++i) indices.push_back(i * part);
  return split(a, indices, ax, s);
}

std::vector<array> split(const array& a, int num_splits, StreamOrDevice s) {
  return split(a, num_splits, 0, s);
}

namespace {

// numpy's "edge" mode: each padded axis in turn gets its first and last
// slices broadcast to the pad widths and concatenated on either side.
array edge_pad(const array& a, const std::vector<int>& axes, const Shape& low, const Shape& high,
               StreamOrDevice s) {
  array out = a;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int ax = axes[i];
    if (low[i] == 0 && high[i] == 0) continue;
    const int n = out.shape(ax);
    if (n == 0) {
      throw std::invalid_argument(
          fmt::format("[pad] Cannot edge-pad axis {} of an array of shape {}: the axis is empty.",
                      ax, shape_string(a.shape())));
    }
    auto edge = [&](int at, int width) {
      Shape start(out.ndim(), 0), stop = out.shape(), shape = out.shape();
      start[ax] = at;
      stop[ax] = at + 1;
      shape[ax] = width;
      return broadcast_to(slice(out, start, stop, s), shape, s);
    };
    out = concatenate({edge(0, low[i]), out, edge(n - 1, high[i])}, ax, s);
  }
  return out;
}

}  // namespace

array pad(const array& a, const std::vector<int>& axes, const Shape& low_pad_size,
          const Shape& high_pad_size, const array& pad_value, const std::string& mode,
          StreamOrDevice s) {
  if (axes.size() != low_pad_size.size() || axes.size() != high_pad_size.size()) {
    throw std::invalid_argument(fmt::format(
        "[pad] Got {} axes, {} low pad sizes and {} high pad sizes; expected one of each per "
        "axis.",
        axes.size(), low_pad_size.size(), high_pad_size.size()));
  }
  auto norm = normalize_axes(axes, a.ndim(), "pad");
  for (size_t i = 0; i < axes.size(); ++i) {
    if (low_pad_size[i] < 0 || high_pad_size[i] < 0) {
      throw std::invalid_argument(fmt::format(
          "[pad] Pad sizes must be non-negative, got low ({}) and high ({}) for "
          "axes ({}).",
          fmt::join(low_pad_size, ","), fmt::join(high_pad_size, ","), fmt::join(axes, ",")));
    }
  }
  if (pad_value.size() != 1) {
    throw std::invalid_argument(
        fmt::format("[pad] The pad value must be a scalar, got an array of shape {}.",
                    shape_string(pad_value.shape())));
  }
  Shape shape = a.shape();
  for (size_t i = 0; i < norm.size(); ++i) {
    const int64_t padded = int64_t{shape[norm[i]]} + low_pad_size[i] + high_pad_size[i];
    shape[norm[i]] = checked_dim(padded, "pad");
  }
  if (mode == "edge") return edge_pad(a, norm, low_pad_size, high_pad_size, s);
  if (mode != "constant") {
    throw std::invalid_argument(
        fmt::format("[pad] Unknown mode \"{}\"; expected \"constant\" or \"edge\".", mode));
  }
  array value = reshape(astype(pad_value, a.dtype(), s), {}, s);
  return array(std::move(shape), a.dtype(),
               std::make_shared<Pad>(to_stream(s), std::move(norm), low_pad_size, high_pad_size),
               {a, value});
}

array pad(const array& a, const std::vector<std::pair<int, int>>& pad_width, const array& pad_value,
          const std::string& mode, StreamOrDevice s) {
  // One pair pads every axis alike, as numpy does; else one pair per axis.
  if (pad_width.size() != 1 && static_cast<int>(pad_width.size()) != a.ndim()) {
    throw std::invalid_argument(
        fmt::format("[pad] Got {} (low, high) pairs for an array of shape {}; expected 1 or {}.",
                    pad_width.size(), shape_string(a.shape()), a.ndim()));
  }
  std::vector<int> axes(a.ndim());
  std::iota(axes.begin(), axes.end(), 0);
  Shape low, high;
  for (int i = 0; i < a.ndim(); ++i) {
    const auto& [lo, hi] = pad_width.size() == 1 ? pad_width[0] : pad_width[i];
    low.push_back(lo);
    high.push_back(hi);
  }
  return pad(a, axes, low, high, pad_value, mode, s);
}

array pad(const array& a, const std::pair<int, int>& pad_width, const array& pad_value,
          const std::string& mode, StreamOrDevice s) {
  return pad(a, std::vector<std::pair<int, int>>{pad_width}, pad_value, mode, s);
}

array pad(const array& a, int pad_width, const array& pad_value, const std::string& mode,
          StreamOrDevice s) {
  return pad(a, std::vector<std::pair<int, int>>{{pad_width, pad_width}}, pad_value, mode, s);
}

array tile(const array& arr, std::vector<int> reps, StreamOrDevice s) {
  for (int r : reps) {
    if (r < 0) {
      throw std::invalid_argument(
          fmt::format("[tile] Repetitions must be non-negative, got ({}).", fmt::join(reps, ",")));
    }
  }
  // numpy: pad the shorter of shape and reps with leading ones, then view
  // each repeated dim d as (r, d) broadcast from (1, d) and merge the pairs.
  Shape shape = arr.shape();
  if (reps.size() < shape.size()) reps.insert(reps.begin(), shape.size() - reps.size(), 1);
  if (shape.size() < reps.size()) shape.insert(shape.begin(), reps.size() - shape.size(), 1);
  Shape expanded, broadcast, final_shape;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (reps[i] != 1) {
      expanded.push_back(1);
      broadcast.push_back(reps[i]);
    }
    expanded.push_back(shape[i]);
    broadcast.push_back(shape[i]);
    final_shape.push_back(checked_dim(int64_t{reps[i]} * shape[i], "tile"));
  }
  array x = broadcast_to(reshape(arr, expanded, s), broadcast, s);
  return reshape(x, final_shape, s);
}

array repeat(const array& arr, int repeats, int axis, StreamOrDevice s) {
  const int ax = normalize_axis_index(axis, arr.ndim(), "[repeat] ");
  if (repeats < 0) {
    throw std::invalid_argument(
        fmt::format("[repeat] The number of repeats must be non-negative, got {}.", repeats));
  }
  if (repeats == 1) return arr;
  // Each element along the axis becomes `repeats` copies: view (.., d, 1, ..)
  // broadcast to (.., d, repeats, ..), then merge the two dims.
  const ShapeElem repeated = checked_dim(int64_t{arr.shape(ax)} * repeats, "repeat");
  Shape shape = arr.shape();
  shape.insert(shape.begin() + ax + 1, repeats);
  array out = broadcast_to(expand_dims(arr, ax + 1, s), shape, s);
  shape.erase(shape.begin() + ax + 1);
  shape[ax] = repeated;
  return reshape(out, std::move(shape), s);
}

array repeat(const array& arr, int repeats, StreamOrDevice s) {
  return repeat(flatten(arr, s), repeats, 0, s);
}

array slice_update(const array& src, const array& update, Shape start, Shape stop, Shape strides,
                   StreamOrDevice s) {
  const int nd = src.ndim();
  // The region slice() would view.
  Shape region = normalize_slice(src.shape(), start, stop, strides, "slice_update");
  bool fits = update.ndim() <= nd;
  for (int i = 1; fits && i <= update.ndim(); ++i) {
    const int u = update.shape(-i), r = region[nd - i];
    fits = u == r || u == 1;
  }
  if (!fits) {
    throw std::invalid_argument(fmt::format(
        "[slice_update] Update of shape {} cannot be broadcast to the slice's shape {} (src "
        "shape {}).",
        shape_string(update.shape()), shape_string(region), shape_string(src.shape())));
  }
  array upd = broadcast_to(astype(update, src.dtype(), s), region, s);
  return array(src.shape(), src.dtype(),
               std::make_shared<SliceUpdate>(to_stream(s), std::move(start), std::move(strides)),
               {src, upd});
}

array slice_update(const array& src, const array& update, Shape start, Shape stop,
                   StreamOrDevice s) {
  Shape strides(src.ndim(), 1);
  return slice_update(src, update, std::move(start), std::move(stop), std::move(strides), s);
}

array unflatten(const array& a, int axis, Shape shape, StreamOrDevice s) {
  if (shape.empty()) {
    throw std::invalid_argument(
        "[unflatten] The shape to unflatten to is empty; expected at least one dim.");
  }
  const int ax = normalize_axis(axis, a.ndim(), "unflatten");
  int infer = -1;
  Shape known;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw std::invalid_argument(fmt::format(
          "[unflatten] Shape {} has a negative dim other than one -1.", shape_string(shape)));
    } else {
      known.push_back(shape[i]);
    }
  }
  const int64_t size = checked_size(known, "unflatten");
  const int64_t n = a.shape(ax);
  if (infer >= 0 && size > 0 && n % size == 0) shape[infer] = static_cast<ShapeElem>(n / size);
  if ((infer >= 0 ? shape[infer] == -1 : size != n)) {
    throw std::invalid_argument(
        fmt::format("[unflatten] Cannot unflatten axis {} of size {} (shape {}) into shape {}.",
                    axis, n, shape_string(a.shape()), shape_string(shape)));
  }
  if (shape.size() == 1) return a;
  Shape out(a.shape().begin(), a.shape().begin() + ax);
  out.insert(out.end(), shape.begin(), shape.end());
  out.insert(out.end(), a.shape().begin() + ax + 1, a.shape().end());
  return reshape(a, std::move(out), s);
}

namespace {

// a rolled right by `shift` (any int64, reduced modulo the axis) along `ax`:
// the last k elements move to the front, two slices joined by concatenate.
array roll_axis(const array& a, int64_t shift, int ax, StreamOrDevice s) {
  const int64_t n = a.shape(ax);
  if (n == 0) return a;
  const int64_t k = ((shift % n) + n) % n;
  if (k == 0) return a;
  Shape start(a.ndim(), 0), stop = a.shape();
  stop[ax] = static_cast<ShapeElem>(n - k);
  array head = slice(a, start, stop, s);
  start[ax] = static_cast<ShapeElem>(n - k);
  stop[ax] = static_cast<ShapeElem>(n);
  array tail = slice(a, start, stop, s);
  return concatenate({tail, head}, ax, s);
}

int64_t total(const Shape& shift) {
  int64_t sum = 0;
  for (auto v : shift) sum += v;
  return sum;
}

}  // namespace

array roll(const array& a, const Shape& shift, const std::vector<int>& axes, StreamOrDevice s) {
  if (axes.empty()) return a;
  if (shift.size() < axes.size()) {
    throw std::invalid_argument(
        fmt::format("[roll] Got {} shifts for {} axes ({}); expected at least one per axis.",
                    shift.size(), axes.size(), fmt::join(axes, ",")));
  }
  array out = a;
  for (size_t i = 0; i < axes.size(); ++i) {
    out = roll_axis(out, shift[i], normalize_axis(axes[i], a.ndim(), "roll"), s);
  }
  return out;
}

array roll(const array& a, int shift, StreamOrDevice s) {
  return reshape(roll_axis(flatten(a, s), shift, 0, s), a.shape(), s);
}

array roll(const array& a, const Shape& shift, StreamOrDevice s) {
  return reshape(roll_axis(flatten(a, s), total(shift), 0, s), a.shape(), s);
}

array roll(const array& a, int shift, int axis, StreamOrDevice s) {
  return roll(a, Shape{shift}, std::vector<int>{axis}, s);
}

array roll(const array& a, int shift, const std::vector<int>& axes, StreamOrDevice s) {
  return roll(a, Shape(axes.size(), shift), axes, s);
}

array roll(const array& a, const Shape& shift, int axis, StreamOrDevice s) {
  return roll_axis(a, total(shift), normalize_axis(axis, a.ndim(), "roll"), s);
}

std::vector<array> unstack(const array& a, int axis, StreamOrDevice s) {
  if (a.ndim() == 0) {
    throw std::invalid_argument("[unstack] Cannot unstack a scalar; expected at least one dim.");
  }
  const int ax = normalize_axis(axis, a.ndim(), "unstack");
  std::vector<array> out;
  Shape start(a.ndim(), 0), stop = a.shape();
  for (int i = 0; i < a.shape(ax); ++i) {
    start[ax] = i;
    stop[ax] = i + 1;
    out.push_back(squeeze(slice(a, start, stop, s), ax, s));
  }
  return out;
}

array atleast_1d(const array& a, StreamOrDevice s) {
  return a.ndim() == 0 ? reshape(a, {1}, s) : a;
}

array atleast_2d(const array& a, StreamOrDevice s) {
  if (a.ndim() == 0) return reshape(a, {1, 1}, s);
  if (a.ndim() == 1) return reshape(a, {1, a.shape(0)}, s);
  return a;
}

array atleast_3d(const array& a, StreamOrDevice s) {
  if (a.ndim() == 0) return reshape(a, {1, 1, 1}, s);
  if (a.ndim() == 1) return reshape(a, {1, a.shape(0), 1}, s);
  if (a.ndim() == 2) return reshape(a, {a.shape(0), a.shape(1), 1}, s);
  return a;
}

namespace {

std::vector<array> each(const std::vector<array>& arrays, array (*op)(const array&, StreamOrDevice),
                        StreamOrDevice s) {
  std::vector<array> out;
  out.reserve(arrays.size());
  for (const auto& a : arrays) out.push_back(op(a, s));
  return out;
}

}  // namespace

std::vector<array> atleast_1d(const std::vector<array>& arrays, StreamOrDevice s) {
  return each(arrays, atleast_1d, s);
}
std::vector<array> atleast_2d(const std::vector<array>& arrays, StreamOrDevice s) {
  return each(arrays, atleast_2d, s);
}
std::vector<array> atleast_3d(const std::vector<array>& arrays, StreamOrDevice s) {
  return each(arrays, atleast_3d, s);
}

bool Concatenate::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Concatenate*>(&other);
  return o && o->axis_ == axis_;
}
bool Pad::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Pad*>(&other);
  return o && o->axes_ == axes_ && o->low_pad_size_ == low_pad_size_ &&
         o->high_pad_size_ == high_pad_size_;
}
bool SliceUpdate::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const SliceUpdate*>(&other);
  return o && o->start_ == start_ && o->strides_ == strides_;
}

}  // namespace mlx_lite
