/// \file
/// Elementwise ops of one array (MLX names and signatures). The
/// transcendental ones (exp to erfinv) give a floating result: float32 for
/// integer and bool inputs.
#pragma once

#include <optional>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// Elementwise absolute value; bool and unsigned arrays come back as they are.
array abs(const array& a, StreamOrDevice s = {});
/// Elementwise -a. Throws std::invalid_argument for bool (use logical_not).
array negative(const array& a, StreamOrDevice s = {});
/// negative(a).
array operator-(const array& a);
/// Elementwise floor, in a's dtype.
array floor(const array& a, StreamOrDevice s = {});
/// Elementwise ceiling, in a's dtype.
array ceil(const array& a, StreamOrDevice s = {});
/// Rounds half to even, to `decimals` digits after the point (0 by default),
/// in a's dtype.
/// @{
array round(const array& a, int decimals, StreamOrDevice s = {});
array round(const array& a, StreamOrDevice s = {});
/// @}
/// Elementwise e to the power a.
array exp(const array& a, StreamOrDevice s = {});
/// Elementwise natural logarithm.
array log(const array& a, StreamOrDevice s = {});
/// Elementwise log(1 + a), accurate for small a.
array log1p(const array& a, StreamOrDevice s = {});
/// Elementwise square root.
array sqrt(const array& a, StreamOrDevice s = {});
/// Elementwise 1 / sqrt(a).
array rsqrt(const array& a, StreamOrDevice s = {});
/// Elementwise a * a, in a's dtype.
array square(const array& a, StreamOrDevice s = {});
/// Elementwise sine (radians).
array sin(const array& a, StreamOrDevice s = {});
/// Elementwise cosine (radians).
array cos(const array& a, StreamOrDevice s = {});
/// Elementwise hyperbolic tangent.
array tanh(const array& a, StreamOrDevice s = {});
/// Elementwise logistic sigmoid, 1 / (1 + exp(-a)).
array sigmoid(const array& a, StreamOrDevice s = {});
/// Elementwise error function.
array erf(const array& a, StreamOrDevice s = {});
/// Elementwise inverse of erf, on (-1, 1).
array erfinv(const array& a, StreamOrDevice s = {});
/// Elementwise sign in a's dtype: -1, 0 or 1 (0 or 1 for unsigned and bool).
/// NaN gives 0, as in MLX (numpy gives NaN); -0.0 and 0.0 give 0.
array sign(const array& a, StreamOrDevice s = {});
/// Elementwise 1 / a: divide(1, a) in a's floating dtype (float32 for integer
/// and bool inputs), so 1 / 0 is inf.
array reciprocal(const array& a, StreamOrDevice s = {});
/// Elementwise tangent (radians).
array tan(const array& a, StreamOrDevice s = {});
/// Elementwise inverse sine, on [-1, 1] (NaN outside).
array arcsin(const array& a, StreamOrDevice s = {});
/// Elementwise inverse cosine, on [-1, 1] (NaN outside).
array arccos(const array& a, StreamOrDevice s = {});
/// Elementwise inverse tangent, in (-pi/2, pi/2).
array arctan(const array& a, StreamOrDevice s = {});
/// Elementwise hyperbolic sine.
array sinh(const array& a, StreamOrDevice s = {});
/// Elementwise hyperbolic cosine.
array cosh(const array& a, StreamOrDevice s = {});
/// Elementwise inverse hyperbolic sine.
array arcsinh(const array& a, StreamOrDevice s = {});
/// Elementwise inverse hyperbolic cosine, on [1, inf) (NaN below 1).
array arccosh(const array& a, StreamOrDevice s = {});
/// Elementwise inverse hyperbolic tangent, on [-1, 1] (+-inf at +-1, NaN outside).
array arctanh(const array& a, StreamOrDevice s = {});
/// Radians to degrees: a * (180 / pi), the constant in a's floating dtype, as MLX.
array degrees(const array& a, StreamOrDevice s = {});
/// Degrees to radians: a * (pi / 180), the constant in a's floating dtype, as MLX.
array radians(const array& a, StreamOrDevice s = {});
/// Elementwise e^a - 1, accurate for small a.
array expm1(const array& a, StreamOrDevice s = {});
/// Elementwise base-2 logarithm.
array log2(const array& a, StreamOrDevice s = {});
/// Elementwise base-10 logarithm.
array log10(const array& a, StreamOrDevice s = {});
/// Elementwise bitwise not of an integer array, in its dtype; for bool,
/// logical_not. Floating inputs throw std::invalid_argument.
array bitwise_invert(const array& a, StreamOrDevice s = {});
/// bitwise_invert(a).
array operator~(const array& a);

/// Elementwise tests of floating values, as bool. Integer and bool arrays
/// hold no NaN or infinity: isnan, isinf, isposinf and isneginf give false
/// and isfinite gives true for them, as in MLX.
/// @{
array isnan(const array& a, StreamOrDevice s = {});
array isinf(const array& a, StreamOrDevice s = {});
array isposinf(const array& a, StreamOrDevice s = {});
array isneginf(const array& a, StreamOrDevice s = {});
array isfinite(const array& a, StreamOrDevice s = {});
/// @}

/// Replaces NaN by `nan`, +inf by `posinf` and -inf by `neginf` (by default
/// the largest and lowest finite values of a's dtype), each rounded to a's
/// dtype. Integer and bool arrays come back as they are.
array nan_to_num(const array& a, float nan = 0.0f, std::optional<float> posinf = std::nullopt,
                 std::optional<float> neginf = std::nullopt, StreamOrDevice s = {});

/// Elementwise not, as bool: true where a is 0.
array logical_not(const array& a, StreamOrDevice s = {});
/// logical_not(a).
array operator!(const array& a);

/// Converts to `dtype` (float to integer truncates toward zero; to bool is != 0).
/// a itself when it has `dtype` already. Throws std::invalid_argument for a
/// Dtype that is not one of the eight.
array astype(array a, Dtype dtype, StreamOrDevice s = {});

}  // namespace mlx_lite
