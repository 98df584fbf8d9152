// Creation ops. arange and eye are primitives; full (and so zeros, ones and
// full_like) is a broadcast view of one value, as in MLX, so no buffer of the
// full size exists until a consumer needs one; linspace, identity, tri and
// meshgrid are composed as MLX composes them.
#include "mlx_lite/ops/creation.h"

#include <climits>
#include <cmath>
#include <stdexcept>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives/creation.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

array arange(double start, double stop, double step, Dtype dtype, StreamOrDevice s) {
  if (dtype == bool_) {
    throw std::invalid_argument(
        "[arange] Cannot make a range of dtype bool; expected a number type.");
  }
  if (step == 0) {
    throw std::invalid_argument(fmt::format(
        "[arange] Step is 0 (start {}, stop {}); the step must be nonzero.", start, stop));
  }
  // numpy's length: ceil((stop - start) / step), never negative.
  const double length = std::ceil((stop - start) / step);
  if (std::isnan(length) || length > INT_MAX) {
    throw std::invalid_argument(fmt::format(
        "[arange] Cannot make a range from {} to {} in steps of {}: its length is not a finite "
        "size up to {}.",
        start, stop, step, INT_MAX));
  }
  const int size = std::max(static_cast<int>(length), 0);
  if (is_integral(dtype)) {
    // numpy and MLX step an integer range by int(start + step) - int(start),
    // so arange(0, 5, 0.5, int32) is ten zeros and arange(0, 5, 1.5, int32) is
    // 0, 1, 2, 3; the length still comes from the fractional step.
    const double first = std::trunc(start);
    step = std::trunc(start + step) - first;
    start = first;
  }
  return array({size}, dtype, std::make_shared<Arange>(to_stream(s), start, step), {});
}

array arange(double start, double stop, double step, StreamOrDevice s) {
  return arange(start, stop, step, float32, s);
}
array arange(double start, double stop, Dtype dtype, StreamOrDevice s) {
  return arange(start, stop, 1.0, dtype, s);
}
array arange(double start, double stop, StreamOrDevice s) {
  return arange(start, stop, 1.0, float32, s);
}
array arange(double stop, Dtype dtype, StreamOrDevice s) {
  return arange(0.0, stop, 1.0, dtype, s);
}
array arange(double stop, StreamOrDevice s) {
  return arange(0.0, stop, 1.0, float32, s);
}
array arange(int start, int stop, int step, StreamOrDevice s) {
  return arange(static_cast<double>(start), static_cast<double>(stop), static_cast<double>(step),
                int32, s);
}
array arange(int start, int stop, StreamOrDevice s) {
  return arange(start, stop, 1, s);
}
array arange(int stop, StreamOrDevice s) {
  return arange(0, stop, 1, s);
}

array linspace(double start, double stop, int num, Dtype dtype, StreamOrDevice s) {
  if (num < 0) {
    throw std::invalid_argument(
        fmt::format("[linspace] The number of samples must be non-negative, got {}.", num));
  }
  if (num == 1) return astype(array({static_cast<float>(start)}), dtype, s);
  // (1 - t) * start + t * stop hits both ends exactly (t = i / (num - 1)).
  array t = divide(arange(0.0, static_cast<double>(num), 1.0, float32, s),
                   array(static_cast<float>(num - 1)), s);
  array t_bar = subtract(array(1.0f), t, s);
  array out = add(multiply(t_bar, array(static_cast<float>(start)), s),
                  multiply(t, array(static_cast<float>(stop)), s), s);
  return astype(out, dtype, s);
}

array full(Shape shape, array vals, Dtype dtype, StreamOrDevice s) {
  for (auto d : shape) {
    if (d < 0) {
      throw std::invalid_argument(
          fmt::format("[full] Shape {} has a negative dimension.", shape_string(shape)));
    }
  }
  checked_nbytes(shape, dtype, "full");
  // A copy of the broadcast, as MLX's Full: evaluated, the result is a dense
  // row-contiguous array of its own (flags, strides and nbytes of the full
  // shape, donatable to the next op), not a stride-0 view of one element.
  return copy(broadcast_to(astype(std::move(vals), dtype, s), shape, s), s);
}

array full(Shape shape, array vals, StreamOrDevice s) {
  Dtype dtype = vals.dtype();
  return full(std::move(shape), std::move(vals), dtype, s);
}

array zeros(const Shape& shape, Dtype dtype, StreamOrDevice s) {
  return full(shape, array(0, dtype), dtype, s);
}
array zeros_like(const array& a, StreamOrDevice s) {
  return zeros(a.shape(), a.dtype(), s);
}
array ones(const Shape& shape, Dtype dtype, StreamOrDevice s) {
  return full(shape, array(1, dtype), dtype, s);
}
array ones_like(const array& a, StreamOrDevice s) {
  return ones(a.shape(), a.dtype(), s);
}

array eye(int n, int m, int k, Dtype dtype, StreamOrDevice s) {
  if (n < 0 || m < 0) {
    throw std::invalid_argument(
        fmt::format("[eye] Got n = {} and m = {}; both must be non-negative.", n, m));
  }
  return array({n, m}, dtype, std::make_shared<Eye>(to_stream(s), k), {});
}

array full_like(const array& a, array vals, Dtype dtype, StreamOrDevice s) {
  Shape shape = broadcast_shapes(a.shape(), vals.shape(), "full_like");
  return full(std::move(shape), std::move(vals), dtype, s);
}

array full_like(const array& a, array vals, StreamOrDevice s) {
  return full_like(a, std::move(vals), a.dtype(), s);
}

array identity(int n, Dtype dtype, StreamOrDevice s) {
  return eye(n, n, 0, dtype, s);
}

array tri(int n, int m, int k, Dtype type, StreamOrDevice s) {
  // Row i keeps column j when j <= i + k: compare a column of i + k with a
  // row of j, in int64 so that no k wraps.
  array rows = add(arange(0.0, static_cast<double>(n), 1.0, int64, s), array(int64_t{k}), s);
  array cols = arange(0.0, static_cast<double>(m), 1.0, int64, s);
  array mask = greater_equal(expand_dims(rows, 1, s), expand_dims(cols, 0, s), s);
  return astype(mask, type, s);
}

std::vector<array> meshgrid(const std::vector<array>& arrays, bool sparse,
                            const std::string& indexing, StreamOrDevice s) {
  if (indexing != "xy" && indexing != "ij") {
    throw std::invalid_argument(
        fmt::format("[meshgrid] Unknown indexing \"{}\"; expected \"xy\" or \"ij\".", indexing));
  }
  // Input i becomes a vector along axis i ("ij"); "xy" swaps the first two
  // axes, so x varies along columns and y along rows.
  const int nd = static_cast<int>(arrays.size());
  std::vector<array> out;
  for (int i = 0; i < nd; ++i) {
    int axis = i;
    if (indexing == "xy" && nd > 1 && i < 2) axis = 1 - i;
    Shape shape(nd, 1);
    shape[axis] = checked_dim(static_cast<int64_t>(arrays[i].size()), "meshgrid");
    out.push_back(reshape(arrays[i], std::move(shape), s));
  }
  return sparse ? out : broadcast_arrays(out, s);
}

bool Arange::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Arange*>(&other);
  return o && o->start_ == start_ && o->step_ == step_;
}
bool Eye::is_equivalent(const Primitive& other) const {
  auto* o = dynamic_cast<const Eye*>(&other);
  return o && o->k_ == k_;
}

}  // namespace mlx_lite
