/// \file
/// Elementwise ops of one array (MLX names and signatures). The
/// transcendental ones (exp to erfinv) give a floating result: float32 for
/// integer and bool inputs.
#pragma once

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
/// Elementwise not, as bool: true where a is 0.
array logical_not(const array& a, StreamOrDevice s = {});
/// logical_not(a).
array operator!(const array& a);

/// Converts to `dtype` (float to integer truncates toward zero; to bool is != 0).
/// a itself when it has `dtype` already. Throws std::invalid_argument for a
/// Dtype that is not one of the eight.
array astype(array a, Dtype dtype, StreamOrDevice s = {});

}  // namespace mlx_lite
