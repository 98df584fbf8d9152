// Derivative rules of the copying shape primitives. Each is linear in its
// inputs: the jvp applies the same primitive to the tangents (zeros for the
// inputs that do not depend on the primals) and the vjp cuts each input's
// part back out of the cotangent.
#include "mlx_lite/primitives/shape.h"

#include "mlx_lite/ops/ops.h"
#include "mlx_lite/primitives/views.h"

namespace mlx_lite {

namespace {

// The tangent of every input: the given one for argnums, zeros for the rest.
std::vector<array> all_tangents(const std::vector<array>& primals,
                                const std::vector<array>& tangents, const std::vector<int>& argnums,
                                Stream s) {
  std::vector<array> out;
  for (const auto& p : primals) out.push_back(zeros_like(p, s));
  for (size_t i = 0; i < argnums.size(); ++i) out[argnums[i]] = tangents[i];
  return out;
}

array slice_of(const array& a, Shape start, Shape strides, Shape shape, Stream s) {
  Shape out_shape = shape;
  return array(std::move(out_shape), a.dtype(),
               std::make_shared<Slice>(s, std::move(start), std::move(strides), std::move(shape)),
               {a});
}

}  // namespace

std::vector<array> Concatenate::jvp(const std::vector<array>& primals,
                                    const std::vector<array>& tangents,
                                    const std::vector<int>& argnums) {
  return {concatenate(all_tangents(primals, tangents, argnums, stream()), axis_, stream())};
}

std::vector<array> Concatenate::vjp(const std::vector<array>& primals,
                                    const std::vector<array>& cotangents,
                                    const std::vector<int>& argnums, const std::vector<array>&) {
  // Where each input starts along the axis.
  std::vector<int> offsets = {0};
  for (const auto& p : primals) offsets.push_back(offsets.back() + p.shape(axis_));
  const array& cot = cotangents[0];
  std::vector<array> vjps;
  for (int arg : argnums) {
    Shape start(cot.ndim(), 0);
    start[axis_] = offsets[arg];
    vjps.push_back(
        slice_of(cot, std::move(start), Shape(cot.ndim(), 1), primals[arg].shape(), stream()));
  }
  return vjps;
}

std::vector<array> Pad::jvp(const std::vector<array>& primals, const std::vector<array>& tangents,
                            const std::vector<int>& argnums) {
  // The tangent padded with the pad value's tangent.
  auto t = all_tangents(primals, tangents, argnums, stream());
  Shape shape = t[0].shape();
  for (size_t i = 0; i < axes_.size(); ++i) shape[axes_[i]] += low_pad_size_[i] + high_pad_size_[i];
  return {array(std::move(shape), t[0].dtype(),
                std::make_shared<Pad>(stream(), axes_, low_pad_size_, high_pad_size_),
                {t[0], t[1]})};
}

std::vector<array> Pad::vjp(const std::vector<array>& primals, const std::vector<array>& cotangents,
                            const std::vector<int>& argnums, const std::vector<array>&) {
  const array& a = primals[0];
  const array& cot = cotangents[0];
  Shape start(a.ndim(), 0);
  for (size_t i = 0; i < axes_.size(); ++i) start[axes_[i]] = low_pad_size_[i];
  std::vector<array> vjps;
  for (int arg : argnums) {
    if (arg == 0) {  // the data's region of the cotangent
      vjps.push_back(slice_of(cot, start, Shape(a.ndim(), 1), a.shape(), stream()));
      continue;
    }
    // The pad value fills every other element: the sum of the cotangent with
    // the data's region zeroed (exact, where sum(cot) - sum(region) cancels).
    array outside = array(cot.shape(), cot.dtype(),
                          std::make_shared<SliceUpdate>(stream(), start, Shape(a.ndim(), 1)),
                          {cot, zeros_like(a, stream())});
    vjps.push_back(astype(sum(outside, false, stream()), primals[1].dtype(), stream()));
  }
  return vjps;
}

std::vector<array> SliceUpdate::jvp(const std::vector<array>& primals,
                                    const std::vector<array>& tangents,
                                    const std::vector<int>& argnums) {
  auto t = all_tangents(primals, tangents, argnums, stream());
  return {array(t[0].shape(), t[0].dtype(),
                std::make_shared<SliceUpdate>(stream(), start_, strides_), {t[0], t[1]})};
}

std::vector<array> SliceUpdate::vjp(const std::vector<array>& primals,
                                    const std::vector<array>& cotangents,
                                    const std::vector<int>& argnums, const std::vector<array>&) {
  const array& cot = cotangents[0];
  const array& update = primals[1];
  std::vector<array> vjps;
  for (int arg : argnums) {
    if (arg == 0) {  // src shows through everywhere but the region
      vjps.push_back(array(cot.shape(), cot.dtype(),
                           std::make_shared<SliceUpdate>(stream(), start_, strides_),
                           {cot, zeros_like(update, stream())}));
    } else {  // the region, read as the update was written
      vjps.push_back(slice_of(cot, start_, strides_, update.shape(), stream()));
    }
  }
  return vjps;
}

}  // namespace mlx_lite
