// Derivative rules of the view and copy primitives: each is linear, so the
// jvp applies the same view to the tangent and the vjp applies its adjoint
// to the cotangent (sum over broadcast dims, inverse permutation, reshape
// back, scatter a slice into zeros).
#include "mlx_lite/primitives/views.h"

#include <functional>
#include <limits>
#include <numeric>

#include "mlx_lite/ops/ops.h"
#include "mlx_lite/primitives/shape.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

std::vector<array> Broadcast::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                                  const std::vector<int>&) {
  return {broadcast_to(tangents[0], shape_, stream())};
}

std::vector<array> Broadcast::vjp(const std::vector<array>& primals,
                                  const std::vector<array>& cotangents, const std::vector<int>&,
                                  const std::vector<array>&) {
  // Sum over the dims the broadcast added or stretched from 1.
  const array& in = primals[0];
  const int added = static_cast<int>(shape_.size()) - in.ndim();
  std::vector<int> axes;
  for (int i = 0; i < static_cast<int>(shape_.size()); ++i) {
    if (i < added || (in.shape(i - added) == 1 && shape_[i] != 1)) axes.push_back(i);
  }
  if (axes.empty()) return {cotangents[0]};
  // sum widens bool and uint8; the gradient keeps the input's dtype.
  array summed = sum(cotangents[0], axes, false, stream());
  if (summed.dtype() != in.dtype()) summed = astype(summed, in.dtype(), stream());
  return {reshape(summed, in.shape(), stream())};
}

std::vector<array> Transpose::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                                  const std::vector<int>&) {
  return {transpose(tangents[0], axes_, stream())};
}

std::vector<array> Transpose::vjp(const std::vector<array>&, const std::vector<array>& cotangents,
                                  const std::vector<int>&, const std::vector<array>&) {
  std::vector<int> inverse(axes_.size());
  for (size_t i = 0; i < axes_.size(); ++i) inverse[axes_[i]] = static_cast<int>(i);
  return {transpose(cotangents[0], inverse, stream())};
}

std::vector<array> Reshape::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                                const std::vector<int>&) {
  return {reshape(tangents[0], shape_, stream())};
}

std::vector<array> Reshape::vjp(const std::vector<array>& primals,
                                const std::vector<array>& cotangents, const std::vector<int>&,
                                const std::vector<array>&) {
  return {reshape(cotangents[0], primals[0].shape(), stream())};
}

std::vector<array> Slice::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                              const std::vector<int>&) {
  const array& t = tangents[0];
  return {
      array(shape_, t.dtype(), std::make_shared<Slice>(stream(), start_, strides_, shape_), {t})};
}

std::vector<array> Slice::vjp(const std::vector<array>& primals,
                              const std::vector<array>& cotangents, const std::vector<int>&,
                              const std::vector<array>&) {
  // The cotangent written into zeros where the slice came from.
  const array& in = primals[0];
  return {array(in.shape(), in.dtype(), std::make_shared<SliceUpdate>(stream(), start_, strides_),
                {zeros_like(in, stream()), cotangents[0]})};
}

std::vector<array> Contiguous::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                                   const std::vector<int>&) {
  return tangents;
}
std::vector<array> Contiguous::vjp(const std::vector<array>&, const std::vector<array>& cotangents,
                                   const std::vector<int>&, const std::vector<array>&) {
  return cotangents;
}

std::vector<array> Copy::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                             const std::vector<int>&) {
  return tangents;
}
std::vector<array> Copy::vjp(const std::vector<array>&, const std::vector<array>& cotangents,
                             const std::vector<int>&, const std::vector<array>&) {
  return cotangents;
}

std::vector<array> StopGradient::jvp(const std::vector<array>& primals, const std::vector<array>&,
                                     const std::vector<int>&) {
  return {zeros_like(primals[0], stream())};
}
std::vector<array> StopGradient::vjp(const std::vector<array>& primals, const std::vector<array>&,
                                     const std::vector<int>&, const std::vector<array>&) {
  return {zeros_like(primals[0], stream())};
}

namespace {

// The adjoint of a view that picks elements of its input, some maybe more
// than once (as_strided can overlap): each cotangent element is added into
// the input element it was read from. Those positions come from applying the
// same view to the input's flat indices.
array picked_adjoint(const array& cotangent, const Shape& in_shape,
                     const std::function<array(const array&)>& same_view, Stream s) {
  const int64_t n = checked_size(in_shape, "vjp");
  const Dtype index_type = n > std::numeric_limits<int32_t>::max() ? int64 : int32;
  array positions = reshape(arange(0.0, static_cast<double>(n), 1.0, index_type, s), in_shape, s);
  array picked = flatten(same_view(positions), s);
  array updates = reshape(cotangent, {static_cast<ShapeElem>(cotangent.size()), 1}, s);
  array flat = zeros({static_cast<ShapeElem>(n)}, cotangent.dtype(), s);
  return reshape(scatter_add(flat, picked, updates, 0, s), in_shape, s);
}

}  // namespace

std::vector<array> AsStrided::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                                  const std::vector<int>&) {
  return {as_strided(tangents[0], shape_, strides_, offset_, stream())};
}

std::vector<array> AsStrided::vjp(const std::vector<array>& primals,
                                  const std::vector<array>& cotangents, const std::vector<int>&,
                                  const std::vector<array>&) {
  auto same_view = [this](const array& x) {
    return as_strided(x, shape_, strides_, offset_, stream());
  };
  return {picked_adjoint(cotangents[0], primals[0].shape(), same_view, stream())};
}

std::vector<array> Diagonal::jvp(const std::vector<array>&, const std::vector<array>& tangents,
                                 const std::vector<int>&) {
  return {diagonal(tangents[0], offset_, axis1_, axis2_, stream())};
}

std::vector<array> Diagonal::vjp(const std::vector<array>& primals,
                                 const std::vector<array>& cotangents, const std::vector<int>&,
                                 const std::vector<array>&) {
  auto same_view = [this](const array& x) {
    return diagonal(x, offset_, axis1_, axis2_, stream());
  };
  return {picked_adjoint(cotangents[0], primals[0].shape(), same_view, stream())};
}

}  // namespace mlx_lite
