// matmul, with numpy's rules for 1-D operands and batch broadcasting (MLX's op),
// and tensordot, inner and outer composed on it (and on multiply), as MLX composes them.
#include "mlx_lite/ops/linalg.h"

#include <algorithm>
#include <stdexcept>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives/linalg.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

bool Matmul::is_equivalent(const Primitive& other) const {
  return dynamic_cast<const Matmul*>(&other) != nullptr;
}

array matmul(const array& in_a, const array& in_b, StreamOrDevice s) {
  auto a = in_a;
  auto b = in_b;
  if (a.ndim() == 0 || b.ndim() == 0) {
    throw std::invalid_argument(
        fmt::format("[matmul] Got inputs of shapes {} and {}; expected at least one dimension "
                    "each (scalars cannot be matrix-multiplied).",
                    shape_string(a.shape()), shape_string(b.shape())));
  }
  // A 1-D first operand is a row vector, a 1-D second one a column vector.
  if (a.ndim() == 1) a = expand_dims(a, 0, s);
  if (b.ndim() == 1) b = expand_dims(b, -1, s);
  if (a.shape(-1) != b.shape(-2)) {
    throw std::invalid_argument(fmt::format(
        "[matmul] Last dimension of the first input with shape {} must match the second to last "
        "dimension of the second input with shape {}.",
        shape_string(in_a.shape()), shape_string(in_b.shape())));
  }
  auto out_type = promote_types(a.dtype(), b.dtype());
  if (!is_floating_point(out_type)) {
    throw std::invalid_argument(
        fmt::format("[matmul] Only floating point types are supported, but {} and {} were given "
                    "(promoting to {}); expected float32, float16 or bfloat16.",
                    a.dtype(), b.dtype(), out_type));
  }
  if (a.dtype() != out_type) a = astype(a, out_type, s);
  if (b.dtype() != out_type) b = astype(b, out_type, s);

  // Broadcast the batch dims (views: broadcast dims get stride 0).
  Shape batch_a(a.shape().begin(), a.shape().end() - 2);
  Shape batch_b(b.shape().begin(), b.shape().end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(batch_a, batch_b);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(
        fmt::format("[matmul] The batch dims of the inputs with shapes {} and {} cannot be "
                    "broadcast together (each must be equal or 1).",
                    shape_string(in_a.shape()), shape_string(in_b.shape())));
  }
  Shape shape_a = batch, shape_b = batch;
  shape_a.insert(shape_a.end(), {a.shape(-2), a.shape(-1)});
  shape_b.insert(shape_b.end(), {b.shape(-2), b.shape(-1)});
  if (a.shape() != shape_a) a = broadcast_to(a, shape_a, s);
  if (b.shape() != shape_b) b = broadcast_to(b, shape_b, s);

  Shape out_shape = batch;
  out_shape.insert(out_shape.end(), {a.shape(-2), b.shape(-1)});
  auto out = array(out_shape, out_type, std::make_shared<Matmul>(to_stream(s)), {a, b});
  // Drop the dims the 1-D operands gained.
  if (in_a.ndim() == 1) out = squeeze(out, -2, s);
  if (in_b.ndim() == 1) out = squeeze(out, -1, s);
  return out;
}

namespace {

// Axes of an operand of `ndim` dims, normalized: std::out_of_range for one
// out of range (as MLX, whose shape(axis) lookup throws it), invalid_argument
// for one given twice.
std::vector<int> contraction_axes(const std::vector<int>& axes, int ndim, const char* which) {
  std::vector<int> out;
  for (int ax : axes) {
    if (ax < -ndim || ax >= ndim) {
      throw std::out_of_range(fmt::format(
          "[tensordot] Axis {} of {} is out of range for {} dimensions.", ax, which, ndim));
    }
    out.push_back(ax < 0 ? ax + ndim : ax);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (std::count(out.begin(), out.end(), out[i]) > 1) {
      throw std::invalid_argument(fmt::format("[tensordot] Axis {} of {} is repeated in ({}).",
                                              axes[i], which, fmt::join(axes, ",")));
    }
  }
  return out;
}

// The axes of an operand not in `contracted`, in order.
std::vector<int> free_axes(int ndim, const std::vector<int>& contracted) {
  std::vector<int> out;
  for (int i = 0; i < ndim; ++i) {
    if (std::find(contracted.begin(), contracted.end(), i) == contracted.end()) out.push_back(i);
  }
  return out;
}

ShapeElem dims_size(const array& a, const std::vector<int>& axes) {
  Shape dims;
  for (int ax : axes) dims.push_back(a.shape(ax));
  return checked_dim(checked_size(dims, "tensordot"), "tensordot");
}

}  // namespace

array tensordot(const array& a, const array& b, int axis, StreamOrDevice s) {
  if (axis < 0 || axis > std::min(a.ndim(), b.ndim())) {
    throw std::invalid_argument(fmt::format(
        "[tensordot] Got axis {} for inputs of shapes {} and {}; expected 0 <= axis <= {}.", axis,
        shape_string(a.shape()), shape_string(b.shape()), std::min(a.ndim(), b.ndim())));
  }
  std::vector<int> axes_a, axes_b;
  for (int i = 0; i < axis; ++i) {
    axes_a.push_back(a.ndim() - axis + i);
    axes_b.push_back(i);
  }
  return tensordot(a, b, axes_a, axes_b, s);
}

array tensordot(const array& a, const array& b, const std::vector<int>& axes_a,
                const std::vector<int>& axes_b, StreamOrDevice s) {
  if (axes_a.size() != axes_b.size()) {
    throw std::invalid_argument(
        fmt::format("[tensordot] Got {} axes of a and {} of b; expected the same number.",
                    axes_a.size(), axes_b.size()));
  }
  auto ca = contraction_axes(axes_a, a.ndim(), "a");
  auto cb = contraction_axes(axes_b, b.ndim(), "b");
  for (size_t i = 0; i < ca.size(); ++i) {
    if (a.shape(ca[i]) != b.shape(cb[i])) {
      throw std::invalid_argument(fmt::format(
          "[tensordot] Axis {} of a (shape {}) and axis {} of b (shape {}) differ in size; "
          "contracted axes must match.",
          axes_a[i], shape_string(a.shape()), axes_b[i], shape_string(b.shape())));
    }
  }
  const Dtype dtype = promote_types(a.dtype(), b.dtype());
  if (!is_floating_point(dtype)) {
    throw std::invalid_argument(fmt::format(
        "[tensordot] Got inputs of {} and {}; only floating dtypes are supported (as matmul).",
        a.dtype(), b.dtype()));
  }
  // a as (free, contracted) times b as (contracted, free): one matmul.
  auto fa = free_axes(a.ndim(), ca), fb = free_axes(b.ndim(), cb);
  Shape out_shape;
  for (int ax : fa) out_shape.push_back(a.shape(ax));
  for (int ax : fb) out_shape.push_back(b.shape(ax));
  std::vector<int> perm_a = fa, perm_b = cb;
  perm_a.insert(perm_a.end(), ca.begin(), ca.end());
  perm_b.insert(perm_b.end(), fb.begin(), fb.end());
  const ShapeElem k = dims_size(a, ca);
  array x = reshape(transpose(a, perm_a, s), {dims_size(a, fa), k}, s);
  array y = reshape(transpose(b, perm_b, s), {k, dims_size(b, fb)}, s);
  return reshape(matmul(x, y, s), std::move(out_shape), s);
}

array outer(const array& a, const array& b, StreamOrDevice s) {
  const ShapeElem n = checked_dim(static_cast<int64_t>(a.size()), "outer");
  return multiply(reshape(a, {n, 1}, s), flatten(b, s), s);
}

array inner(const array& a, const array& b, StreamOrDevice s) {
  if (a.ndim() == 0 || b.ndim() == 0) return multiply(a, b, s);
  if (a.shape(-1) != b.shape(-1)) {
    throw std::invalid_argument(
        fmt::format("[inner] Inputs of shapes {} and {} differ in their last dimension.",
                    shape_string(a.shape()), shape_string(b.shape())));
  }
  return tensordot(a, b, {-1}, {-1}, s);
}

}  // namespace mlx_lite
