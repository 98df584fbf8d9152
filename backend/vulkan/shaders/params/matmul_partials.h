// Parameters of shaders/matmul_partials.comp (the second pass of a split-K
// Matmul; backend/vulkan/matmul.cpp). Bindings: 1 the float32 partial
// products (splits x n), 2 C (n elements; binding 0, the shape block, is
// unused).
#ifndef MLX_PARAMS_MATMUL_PARTIALS_H
#define MLX_PARAMS_MATMUL_PARTIALS_H

#include "prelude.h"

MLX_PARAMS_BEGIN

// C[i] = partials[i] + partials[n + i] + ... + partials[(splits - 1) * n + i],
// added in float32 in that order.
struct MatmulPartialsParams {
  int64_t n;
  int64_t splits;
};
MLX_PUSH_CONSTANTS(MatmulPartialsParams)

#define MLX_MATMUL_PARTIALS_SPEC(X, S)
MLX_SPEC_CONSTANTS(MatmulPartialsSpec, MLX_MATMUL_PARTIALS_SPEC)

MLX_PARAMS_END

#endif  // MLX_PARAMS_MATMUL_PARTIALS_H
