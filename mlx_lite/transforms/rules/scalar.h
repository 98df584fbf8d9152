// A constant for the derivative rules' arithmetic.
#pragma once

#include "mlx_lite/array.h"

namespace mlx_lite::rules {

// v as a scalar of x's dtype, so constants never promote float16 to float32.
inline array scalar(double v, const array& x) {
  return array(v, x.dtype());
}

}  // namespace mlx_lite::rules
