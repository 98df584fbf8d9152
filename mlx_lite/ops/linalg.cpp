// matmul, with numpy's rules for 1-D operands and batch broadcasting (MLX's op).
#include "mlx_lite/ops/linalg.h"

#include <stdexcept>

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

}  // namespace mlx_lite
