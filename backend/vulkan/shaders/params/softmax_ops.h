// What softmax.comp and softmax_split.comp share (params/softmax.h and
// params/softmax_split.h hold their layouts): which op, and the most threads
// a workgroup has (softmax_stats.glsl's shared arrays hold one value each).
#ifndef MLX_PARAMS_SOFTMAX_OPS_H
#define MLX_PARAMS_SOFTMAX_OPS_H

#include "shape_block.h"

MLX_PARAMS_BEGIN

MLX_CONSTANT(uint32_t, kSoftmax, 0)
MLX_CONSTANT(uint32_t, kLogSumExp, 1)
MLX_CONSTANT(uint32_t, kSoftmaxMaxThreads, 256)

MLX_PARAMS_END

#endif  // MLX_PARAMS_SOFTMAX_OPS_H
