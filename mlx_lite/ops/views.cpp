// The view ops of mlx_lite/ops/shape.h: reshape, transpose, broadcast_to, slice,
// contiguous and copy. The rest of shape.h is in mlx_lite/ops/shape.cpp.
#include "mlx_lite/primitives/views.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "mlx_lite/ops/shape.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

array reshape(const array& a, Shape shape, StreamOrDevice s) {
  int infer = -1;
  size_t size = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) {
        throw std::invalid_argument(fmt::format(
            "[reshape] At most one dimension may be -1, got shape {}.", shape_string(shape)));
      }
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw std::invalid_argument(
          fmt::format("[reshape] Negative dimension in shape {}.", shape_string(shape)));
    } else {
      size *= shape[i];
    }
  }
  if (infer >= 0 && size > 0 && a.size() % size == 0) {
    shape[infer] = static_cast<ShapeElem>(a.size() / size);
    size = a.size();
  }
  if (size != a.size() || (infer >= 0 && shape[infer] == -1)) {
    throw std::invalid_argument(
        fmt::format("[reshape] Cannot reshape an array of shape {} ({} elements) to shape {}.",
                    shape_string(a.shape()), a.size(), shape_string(shape)));
  }
  if (shape == a.shape()) return a;
  return array(shape, a.dtype(), std::make_shared<Reshape>(to_stream(s), shape), {a});
}

array transpose(const array& a, std::vector<int> axes, StreamOrDevice s) {
  if (static_cast<int>(axes.size()) != a.ndim()) {
    throw std::invalid_argument(
        fmt::format("[transpose] Got {} axes ({}) for an array with {} dimensions; expected a "
                    "permutation of all of them.",
                    axes.size(), fmt::join(axes, ","), a.ndim()));
  }
  axes = normalize_axes(axes, a.ndim(), "transpose");
  Shape shape(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) shape[i] = a.shape(axes[i]);
  return array(shape, a.dtype(), std::make_shared<Transpose>(to_stream(s), std::move(axes)), {a});
}

array transpose(const array& a, StreamOrDevice s) {
  std::vector<int> axes(a.ndim());
  std::iota(axes.rbegin(), axes.rend(), 0);
  return transpose(a, std::move(axes), s);
}

array broadcast_to(const array& a, const Shape& shape, StreamOrDevice s) {
  if (a.shape() == shape) return a;
  bool ok = shape.size() >= a.shape().size();
  if (ok) {
    try {
      ok = broadcast_shapes(a.shape(), shape) == shape;
    } catch (const std::invalid_argument&) {
      ok = false;
    }
  }
  if (!ok) {
    throw std::invalid_argument(fmt::format("[broadcast_to] Cannot broadcast shape {} to {}.",
                                            shape_string(a.shape()), shape_string(shape)));
  }
  return array(shape, a.dtype(), std::make_shared<Broadcast>(to_stream(s), shape), {a});
}

std::vector<array> broadcast_arrays(const std::vector<array>& inputs, StreamOrDevice s) {
  Shape shape;
  for (const auto& a : inputs) shape = broadcast_shapes(shape, a.shape(), "broadcast_arrays");
  std::vector<array> out;
  out.reserve(inputs.size());
  for (const auto& a : inputs) out.push_back(broadcast_to(a, shape, s));
  return out;
}

array slice(const array& a, Shape start, Shape stop, Shape strides, StreamOrDevice s) {
  Shape shape = normalize_slice(a.shape(), start, stop, strides, "slice");
  if (shape == a.shape() &&
      std::all_of(strides.begin(), strides.end(), [](auto x) { return x == 1; })) {
    return a;
  }
  auto primitive =
      std::make_shared<Slice>(to_stream(s), std::move(start), std::move(strides), shape);
  return array(std::move(shape), a.dtype(), std::move(primitive), {a});
}

array slice(const array& a, Shape start, Shape stop, StreamOrDevice s) {
  Shape strides(a.ndim(), 1);
  return slice(a, std::move(start), std::move(stop), std::move(strides), s);
}

array contiguous(const array& a, bool allow_col_major, StreamOrDevice s) {
  if (a.is_available() &&
      (a.flags().row_contiguous || (allow_col_major && a.flags().col_contiguous))) {
    return a;
  }
  return array(a.shape(), a.dtype(), std::make_shared<Contiguous>(to_stream(s), allow_col_major),
               {a});
}

array copy(array a, StreamOrDevice s) {
  Shape shape = a.shape();
  Dtype dtype = a.dtype();
  return array(std::move(shape), dtype, std::make_shared<Copy>(to_stream(s)), {std::move(a)});
}

array stop_gradient(const array& a, StreamOrDevice s) {
  return array(a.shape(), a.dtype(), std::make_shared<StopGradient>(to_stream(s)), {a});
}

bool StopGradient::is_equivalent(const Primitive& other) const {
  return dynamic_cast<const StopGradient*>(&other) != nullptr;
}

bool Broadcast::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Broadcast*>(&other);
  return o && o->shape_ == shape_;
}
bool Transpose::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Transpose*>(&other);
  return o && o->axes_ == axes_;
}
bool Reshape::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Reshape*>(&other);
  return o && o->shape_ == shape_;
}
bool Slice::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Slice*>(&other);
  return o && o->start_ == start_ && o->strides_ == strides_ && o->shape_ == shape_;
}
bool Contiguous::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Contiguous*>(&other);
  return o && o->allow_col_major_ == allow_col_major_;
}
bool Copy::is_equivalent(const Primitive& other) const {
  return dynamic_cast<const Copy*>(&other) != nullptr;
}

}  // namespace mlx_lite
