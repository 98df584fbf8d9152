// Elementwise ops of one array (MLX names and signatures).
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

array abs(const array& a, StreamOrDevice s = {});
array negative(const array& a, StreamOrDevice s = {});
array operator-(const array& a);
array floor(const array& a, StreamOrDevice s = {});
array ceil(const array& a, StreamOrDevice s = {});
// Rounds half to even, to `decimals` digits after the point.
array round(const array& a, int decimals, StreamOrDevice s = {});
array round(const array& a, StreamOrDevice s = {});
array exp(const array& a, StreamOrDevice s = {});
array log(const array& a, StreamOrDevice s = {});
array log1p(const array& a, StreamOrDevice s = {});
array sqrt(const array& a, StreamOrDevice s = {});
array rsqrt(const array& a, StreamOrDevice s = {});
array square(const array& a, StreamOrDevice s = {});
array sin(const array& a, StreamOrDevice s = {});
array cos(const array& a, StreamOrDevice s = {});
array tanh(const array& a, StreamOrDevice s = {});
array sigmoid(const array& a, StreamOrDevice s = {});
array erf(const array& a, StreamOrDevice s = {});
array erfinv(const array& a, StreamOrDevice s = {});
array logical_not(const array& a, StreamOrDevice s = {});
array operator!(const array& a);

// Converts to `dtype` (float to integer truncates toward zero; to bool is != 0).
array astype(array a, Dtype dtype, StreamOrDevice s = {});

}  // namespace mlx_lite
