// Parameters of shaders/arange.comp (Arange; backend/vulkan/creation.cpp).
// Binding 1 is the output (binding 0, the shape block, is unused).
#ifndef MLX_PARAMS_ARANGE_H
#define MLX_PARAMS_ARANGE_H

#include "prelude.h"

MLX_PARAMS_BEGIN

// out[i] = start + i * step in double, as the CPU computes it; the shader
// does the double arithmetic on the bits.
struct ArangeParams {
  int64_t n;
  uint64_t start_bits;
  uint64_t step_bits;
};
MLX_PUSH_CONSTANTS(ArangeParams)

#define MLX_ARANGE_SPEC(X, S)
MLX_SPEC_CONSTANTS(ArangeSpec, MLX_ARANGE_SPEC)

MLX_PARAMS_END

#endif  // MLX_PARAMS_ARANGE_H
