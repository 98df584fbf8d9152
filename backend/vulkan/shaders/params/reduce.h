// Parameters of shaders/reduce.comp (Reduce; backend/vulkan/reduction.cpp).
// Bindings: 0 the shape block, 1 the input, 2 the output.
#ifndef MLX_PARAMS_REDUCE_H
#define MLX_PARAMS_REDUCE_H

#include "shape_block.h"

#ifdef __cplusplus
#include "mlx_lite/primitives/reduction.h"
#endif

MLX_PARAMS_BEGIN

// Output r reduces elements [r * len, (r + 1) * len) of the input viewed as
// [kept dims..., reduced dims...]. Each row is cut into `groups` chunks of
// `chunk` elements; chunk w (chunk w % groups of row w / groups) is
// reduced by ROW_THREADS threads, which write output w. groups is 1 for the one-pass path; with
// more (few long rows) the outputs are partials in the accumulator type, reduced by a second
// dispatch.
struct ReduceParams {
  int64_t n;  // elements of the view (rows * len)
  int64_t rows;
  int64_t len;
  int64_t groups;
  int64_t chunk;
  int64_t offset;  // the view's first element
  ShapeRef view;   // its shape and strides
};
MLX_PUSH_CONSTANTS(ReduceParams)

// OP: a Reduce::ReduceType. CONTIGUOUS: the view is dense row-major.
// ROW_THREADS: threads per chunk, a power of two dividing kReduceThreads
// (the workgroup size); workgroup w reduces chunks w * (kReduceThreads /
// ROW_THREADS) onwards. RUNS (CONTIGUOUS, 32-bit elements): every chunk is
// whole runs of 4 elements that start at multiples of 4 in the buffer, and
// is loaded a run at a time.
#define MLX_REDUCE_SPEC(X, S)      \
  X(S, 1, uint, OP, 0)             \
  X(S, 2, bool, CONTIGUOUS, false) \
  X(S, 3, uint, ROW_THREADS, 256)  \
  X(S, 4, bool, RUNS, false)
MLX_SPEC_CONSTANTS(ReduceSpec, MLX_REDUCE_SPEC)

// reduce.comp's shared array holds one partial per thread.
MLX_CONSTANT(uint32_t, kReduceThreads, 256)

MLX_ENUM_VALUE(Reduce, And, 0)
MLX_ENUM_VALUE(Reduce, Or, 1)
MLX_ENUM_VALUE(Reduce, Sum, 2)
MLX_ENUM_VALUE(Reduce, Prod, 3)
MLX_ENUM_VALUE(Reduce, Min, 4)
MLX_ENUM_VALUE(Reduce, Max, 5)

MLX_PARAMS_END

#endif  // MLX_PARAMS_REDUCE_H
