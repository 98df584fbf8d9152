// Elementwise ops of two arrays, broadcast together and promoted with
// promote_types (MLX names and signatures), and their operators.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

array add(const array& a, const array& b, StreamOrDevice s = {});
array subtract(const array& a, const array& b, StreamOrDevice s = {});
array multiply(const array& a, const array& b, StreamOrDevice s = {});
// True division: integer inputs give float32, as in MLX.
array divide(const array& a, const array& b, StreamOrDevice s = {});
array maximum(const array& a, const array& b, StreamOrDevice s = {});
array minimum(const array& a, const array& b, StreamOrDevice s = {});
array power(const array& a, const array& b, StreamOrDevice s = {});
array equal(const array& a, const array& b, StreamOrDevice s = {});
array not_equal(const array& a, const array& b, StreamOrDevice s = {});
array greater(const array& a, const array& b, StreamOrDevice s = {});
array greater_equal(const array& a, const array& b, StreamOrDevice s = {});
array less(const array& a, const array& b, StreamOrDevice s = {});
array less_equal(const array& a, const array& b, StreamOrDevice s = {});
array logical_and(const array& a, const array& b, StreamOrDevice s = {});
array logical_or(const array& a, const array& b, StreamOrDevice s = {});
// Bitwise on integers and bool (for bool, the same as logical_and/or).
array bitwise_and(const array& a, const array& b, StreamOrDevice s = {});
array bitwise_or(const array& a, const array& b, StreamOrDevice s = {});

#define MLX_LITE_BINARY_OPERATOR(OP, FN)             \
  array operator OP(const array& a, const array& b); \
  template <typename T>                              \
  array operator OP(T a, const array& b) {           \
    return FN(array(a), b);                          \
  }                                                  \
  template <typename T>                              \
  array operator OP(const array& a, T b) {           \
    return FN(a, array(b));                          \
  }

MLX_LITE_BINARY_OPERATOR(+, add)
MLX_LITE_BINARY_OPERATOR(-, subtract)
MLX_LITE_BINARY_OPERATOR(*, multiply)
MLX_LITE_BINARY_OPERATOR(/, divide)
MLX_LITE_BINARY_OPERATOR(==, equal)
MLX_LITE_BINARY_OPERATOR(!=, not_equal)
MLX_LITE_BINARY_OPERATOR(>, greater)
MLX_LITE_BINARY_OPERATOR(>=, greater_equal)
MLX_LITE_BINARY_OPERATOR(<, less)
MLX_LITE_BINARY_OPERATOR(<=, less_equal)
MLX_LITE_BINARY_OPERATOR(&&, logical_and)
MLX_LITE_BINARY_OPERATOR(||, logical_or)
MLX_LITE_BINARY_OPERATOR(&, bitwise_and)
MLX_LITE_BINARY_OPERATOR(|, bitwise_or)
#undef MLX_LITE_BINARY_OPERATOR

}  // namespace mlx_lite
