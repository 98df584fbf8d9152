/// \file
/// Elementwise ops of two arrays, broadcast together and promoted with
/// promote_types (MLX names and signatures), and their operators. Shapes
/// that do not broadcast throw std::invalid_argument naming the op.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// Elementwise a + b.
array add(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a - b.
array subtract(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a * b.
array multiply(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a / b. True division: integer inputs give float32, as in MLX.
array divide(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise larger of a and b.
array maximum(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise smaller of a and b.
array minimum(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a raised to the power b, in the promoted dtype.
array power(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a == b, as bool.
array equal(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a != b, as bool.
array not_equal(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a > b, as bool.
array greater(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a >= b, as bool.
array greater_equal(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a < b, as bool.
array less(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a <= b, as bool.
array less_equal(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a && b of the operands as bool (nonzero is true), as bool.
array logical_and(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise a || b of the operands as bool (nonzero is true), as bool.
array logical_or(const array& a, const array& b, StreamOrDevice s = {});
/// Bitwise on integers and bool (for bool, the same as logical_and/or);
/// floating inputs throw std::invalid_argument.
/// @{
array bitwise_and(const array& a, const array& b, StreamOrDevice s = {});
array bitwise_or(const array& a, const array& b, StreamOrDevice s = {});
/// @}

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

/// `a + b` is add(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(+, add)
/// @}

/// `a - b` is subtract(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(-, subtract)
/// @}

/// `a * b` is multiply(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(*, multiply)
/// @}

/// `a / b` is divide(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(/, divide)
/// @}

/// `a == b` is equal(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(==, equal)
/// @}

/// `a != b` is not_equal(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(!=, not_equal)
/// @}

/// `a > b` is greater(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(>, greater)
/// @}

/// `a >= b` is greater_equal(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(>=, greater_equal)
/// @}

/// `a < b` is less(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(<, less)
/// @}

/// `a <= b` is less_equal(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(<=, less_equal)
/// @}

/// `a && b` is logical_and(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(&&, logical_and)
/// @}

/// `a || b` is logical_or(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(||, logical_or)
/// @}

/// `a & b` is bitwise_and(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(&, bitwise_and)
/// @}

/// `a | b` is bitwise_or(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(|, bitwise_or)
/// @}

#undef MLX_LITE_BINARY_OPERATOR

}  // namespace mlx_lite
