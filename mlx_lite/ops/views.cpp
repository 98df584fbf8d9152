// The view ops of mlx_lite/ops/shape.h: reshape, transpose, broadcast_to, slice,
// as_strided, view (of another dtype), contiguous and copy. The rest of shape.h is in
// mlx_lite/ops/shape.cpp.
#include "mlx_lite/primitives/views.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "mlx_lite/ops/shape.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

array reshape(const array& a, Shape shape, StreamOrDevice s) {
  int infer = -1;
  Shape known;  // the dims given, without the one to infer
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
      known.push_back(shape[i]);
    }
  }
  int64_t size = checked_size(known, "reshape");
  const auto a_size = static_cast<int64_t>(a.size());
  if (infer >= 0 && size > 0 && a_size % size == 0) {
    shape[infer] = checked_dim(a_size / size, "reshape");
    size = a_size;
  }
  if (size != a_size || (infer >= 0 && shape[infer] == -1)) {
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
  checked_size(shape, "broadcast_to");
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

namespace {

// Throws unless every element a strided walk of `shape` from `offset` can
// reach lies in [0, size): as_strided never reads outside its input (MLX
// does not check). Computed in 128 bits, so no stride or shape can wrap it.
void check_strided_bounds(const Shape& shape, const Strides& strides, size_t offset, size_t size) {
  __int128 lo = offset, hi = offset;
  for (size_t i = 0; i < shape.size(); ++i) {
    const __int128 reach = static_cast<__int128>(strides[i]) * (shape[i] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  if (lo < 0 || hi >= static_cast<__int128>(size)) {
    throw std::invalid_argument(fmt::format(
        "[as_strided] Shape {} with strides ({}) from offset {} reads elements {} to {} of an "
        "array of {} elements; every element read must lie within the array.",
        shape_string(shape), fmt::join(strides, ","), offset, static_cast<int64_t>(lo),
        static_cast<int64_t>(hi), size));
  }
}

}  // namespace

array as_strided(array a, Shape shape, Strides strides, size_t offset, StreamOrDevice s) {
  if (strides.size() != shape.size()) {
    throw std::invalid_argument(
        fmt::format("[as_strided] Got {} strides for shape {}; expected one per dimension.",
                    strides.size(), shape_string(shape)));
  }
  for (auto d : shape) {
    if (d < 0) {
      throw std::invalid_argument(
          fmt::format("[as_strided] Shape {} has a negative dimension.", shape_string(shape)));
    }
  }
  if (checked_size(shape, "as_strided") > 0) check_strided_bounds(shape, strides, offset, a.size());
  // Strides count elements of a in row-major order: view a dense flat copy
  // (a itself when it is already dense).
  array flat = contiguous(flatten(a, s), false, s);
  Dtype dtype = a.dtype();
  auto primitive = std::make_shared<AsStrided>(to_stream(s), shape, std::move(strides),
                                               static_cast<int64_t>(offset));
  return array(std::move(shape), dtype, std::move(primitive), {std::move(flat)});
}

array view(const array& a, const Dtype& dtype, StreamOrDevice s) {
  if (!is_valid_dtype(dtype)) {
    throw std::invalid_argument("[view] The dtype is not one of the library's dtypes.");
  }
  if (a.dtype() == dtype) return a;
  const size_t ib = a.itemsize(), ob = size_of(dtype);
  Shape shape = a.shape();
  if (ib != ob && a.ndim() == 0) {
    throw std::invalid_argument(
        fmt::format("[view] Cannot view a scalar of {} ({} bytes) as {} ({} bytes); a scalar "
                    "can only change to a dtype of its size.",
                    a.dtype(), ib, dtype, ob));
  }
  if (ob > ib) {
    // The last axis's bytes regroup into fewer, larger elements.
    if (shape.back() % (ob / ib) != 0) {
      throw std::invalid_argument(fmt::format(
          "[view] Cannot view shape {} of {} as {}: the last axis ({} bytes) must be a multiple "
          "of {} bytes.",
          shape_string(shape), a.dtype(), dtype, int64_t{shape.back()} * ib, ob));
    }
    shape.back() /= static_cast<ShapeElem>(ob / ib);
  } else if (ob < ib) {
    shape.back() = checked_dim(int64_t{shape.back()} * static_cast<int64_t>(ib / ob), "view");
  }
  return array(std::move(shape), dtype, std::make_shared<View>(to_stream(s), dtype), {a});
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
bool AsStrided::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const AsStrided*>(&other);
  return o && o->shape_ == shape_ && o->strides_ == strides_ && o->offset_ == offset_;
}
bool Diagonal::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Diagonal*>(&other);
  return o && o->offset_ == offset_ && o->axis1_ == axis1_ && o->axis2_ == axis2_;
}
bool View::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const View*>(&other);
  return o && o->dtype_ == dtype_;
}
bool Copy::is_equivalent(const Primitive& other) const {
  return dynamic_cast<const Copy*>(&other) != nullptr;
}

}  // namespace mlx_lite
