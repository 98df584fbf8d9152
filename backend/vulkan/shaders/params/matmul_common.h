// The push constants of every Matmul shader (shaders/matmul.comp, on any
// device, and shaders/matmul_coop.comp, on matrix units; chosen in
// backend/vulkan/matmul.cpp): C = A (M x K) * B (K x N) for each batch
// matrix. Bindings: 0 the shape block, 1 A, 2 B, 3 C (dense row-major from
// 0), or the split-K partials (params/matmul_partials.h).
#ifndef MLX_PARAMS_MATMUL_COMMON_H
#define MLX_PARAMS_MATMUL_COMMON_H

#include "shape_block.h"

MLX_PARAMS_BEGIN

// K is walked in splits of k_chunk (a multiple of 16): workgroup w computes
// split w / (batches * tiles) over k in [split * k_chunk, min(K, (split + 1)
// * k_chunk)). One split (k_chunk >= K) writes C; more write float32 partial
// products, split s's matrices at s * batches * M * N, which
// matmul_partials.comp adds up into C.
struct MatmulParams {
  int64_t M, N, K;
  int64_t k_chunk;
  int64_t a_row_stride, a_col_stride;
  int64_t b_row_stride, b_col_stride;
  int64_t a_offset, b_offset;
  ShapeRef batch;  // the batch dims: operand 0 is A, operand 1 is B
};
MLX_PUSH_CONSTANTS(MatmulParams)

MLX_PARAMS_END

#endif  // MLX_PARAMS_MATMUL_COMMON_H
