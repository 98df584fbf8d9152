/// \file
/// Elementwise ops of two arrays, broadcast together and promoted with
/// promote_types (MLX names and signatures), and their operators. Shapes
/// that do not broadcast throw std::invalid_argument naming the op.
#pragma once

#include <vector>

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
/// floating inputs throw std::runtime_error (as MLX).
/// @{
array bitwise_and(const array& a, const array& b, StreamOrDevice s = {});
array bitwise_or(const array& a, const array& b, StreamOrDevice s = {});
array bitwise_xor(const array& a, const array& b, StreamOrDevice s = {});
/// @}
/// Shifts the bits of a by b, on integers (bool operands become uint8, as in
/// MLX); floating inputs throw std::runtime_error (as MLX). Shift counts that are
/// negative or at least the dtype's width in bits give 0, or for right_shift
/// of a negative signed value -1 (numpy's results; C++ leaves them undefined).
/// right_shift of signed values is arithmetic.
/// @{
array left_shift(const array& a, const array& b, StreamOrDevice s = {});
array right_shift(const array& a, const array& b, StreamOrDevice s = {});
/// @}
/// Elementwise arctangent of a / b in [-pi, pi], the quadrant from both signs
/// (std::atan2, with its zero and infinity cases); floating result (float32
/// for integer and bool inputs).
array arctan2(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise log(exp(a) + exp(b)) without overflow or underflow; floating
/// result. Equal infinities give themselves (-inf with -inf is -inf).
array logaddexp(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise floor(a / b), in the promoted dtype. Integers floor toward
/// minus infinity as Python's // does (-7 // 2 == -4); integer division by
/// zero gives 0 and the minimum value // -1 wraps to itself, on both devices.
array floor_divide(const array& a, const array& b, StreamOrDevice s = {});
/// Elementwise remainder of floor division, in the promoted dtype, with the
/// sign of b as Python's % (remainder(-7, 2) == 1, remainder(7.5, -2) ==
/// -0.5; a zero float result is +-0 as b); a == floor_divide(a, b) * b +
/// remainder(a, b). Floats use the exact fmod; x % 0 is NaN for floats and 0
/// for integers.
array remainder(const array& a, const array& b, StreamOrDevice s = {});
/// {floor_divide(a, b), remainder(a, b)}, both in the promoted dtype.
std::vector<array> divmod(const array& a, const array& b, StreamOrDevice s = {});

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

/// `a ^ b` is bitwise_xor(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(^, bitwise_xor)
/// @}

/// `a % b` is remainder(a, b). Either may be a scalar, made an array first.
/// @{
MLX_LITE_BINARY_OPERATOR(%, remainder)
/// @}

/// `a << b` is left_shift(a, b) and `a >> b` right_shift(a, b). Arrays only,
/// as in MLX: scalar overloads would capture `stream << array`.
/// @{
array operator<<(const array& a, const array& b);
array operator>>(const array& a, const array& b);
/// @}

#undef MLX_LITE_BINARY_OPERATOR

}  // namespace mlx_lite
