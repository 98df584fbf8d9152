// Graph ops of three arrays: where (the Select primitive) and clip (composed
// on maximum and minimum, as MLX does).
#include "mlx_lite/ops/ternary.h"

#include <stdexcept>

#include "mlx_lite/ops/binary.h"
#include "mlx_lite/ops/shape.h"
#include "mlx_lite/ops/unary.h"
#include "mlx_lite/primitives/ternary.h"

namespace mlx_lite {

array where(const array& condition, const array& x, const array& y, StreamOrDevice s) {
  Dtype out_type = promote_types(x.dtype(), y.dtype());
  // broadcast_arrays names all three shapes when they do not broadcast.
  auto inputs = broadcast_arrays(
      {astype(condition, bool_, s), astype(x, out_type, s), astype(y, out_type, s)}, s);
  Shape shape = inputs[0].shape();
  return array(std::move(shape), out_type, std::make_shared<Select>(to_stream(s)),
               std::move(inputs));
}

array clip(const array& a, const std::optional<array>& a_min, const std::optional<array>& a_max,
           StreamOrDevice s) {
  if (!a_min.has_value() && !a_max.has_value()) {
    throw std::invalid_argument(
        "[clip] At least one of a_min and a_max must be given, but both are absent.");
  }
  array result = a;
  if (a_min.has_value()) result = maximum(result, *a_min, s);
  if (a_max.has_value()) result = minimum(result, *a_max, s);
  return result;
}

}  // namespace mlx_lite
