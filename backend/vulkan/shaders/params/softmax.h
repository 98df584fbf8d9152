// Parameters of shaders/softmax.comp (Softmax and LogSumExp over the last
// axis; backend/vulkan/softmax.cpp). Bindings: 0 the shape block, 1 the
// input, 2 the output (dense: rows x len for softmax, rows for logsumexp).
#ifndef MLX_PARAMS_SOFTMAX_H
#define MLX_PARAMS_SOFTMAX_H

#include "lines.h"
#include "softmax_ops.h"

MLX_PARAMS_BEGIN

// The lines along the last axis.
struct SoftmaxParams {
  Lines lines;
};
MLX_PUSH_CONSTANTS(SoftmaxParams)

// OP: kSoftmax or kLogSumExp (softmax_ops.h). CONTIGUOUS: line r is [offset + r * len,
// offset + (r + 1) * len).
// ROW_THREADS: threads per line, a power of two dividing the workgroup
// size (which is kSoftmaxMaxThreads, or ROW_THREADS for a single line).
// RUNS: the lines are CONTIGUOUS, of 32-bit elements, read once (at most
// ROW_THREADS * kSoftmaxCachedPerThread long), and their runs of 4 whole and
// aligned (len and offset multiples of 4): threads load and store runs of 4
// as vectors.
#define MLX_SOFTMAX_SPEC(X, S)     \
  X(S, 1, uint, OP, 0)             \
  X(S, 2, bool, CONTIGUOUS, false) \
  X(S, 3, uint, ROW_THREADS, 256)  \
  X(S, 4, bool, RUNS, false)
MLX_SPEC_CONSTANTS(SoftmaxSpec, MLX_SOFTMAX_SPEC)

// A thread keeps up to this many elements of its line in registers: lines
// of at most ROW_THREADS times as many are read once instead of twice.
MLX_CONSTANT(uint32_t, kSoftmaxCachedPerThread, 16)

MLX_PARAMS_END

#endif  // MLX_PARAMS_SOFTMAX_H
