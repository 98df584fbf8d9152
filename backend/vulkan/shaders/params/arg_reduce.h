// Parameters of shaders/arg_reduce.comp (ArgReduce; backend/vulkan/arg_reduce.cpp).
// Bindings: 0 the shape block, 1 the input, 2 the chunks' winners (read in
// kPickAmongChunks only; the input is bound there otherwise), 3 the output.
#ifndef MLX_PARAMS_ARG_REDUCE_H
#define MLX_PARAMS_ARG_REDUCE_H

#include "lines.h"

#ifdef __cplusplus
#include "mlx_lite/primitives/reduction.h"
#endif

MLX_PARAMS_BEGIN

struct ArgReduceParams {
  Lines lines;
  int64_t groups;  // chunks per line (kWorkgroupPerChunk, kPickAmongChunks)
  int64_t chunk;   // elements per chunk
};
MLX_PUSH_CONSTANTS(ArgReduceParams)

// OP: an ArgReduce::ReduceType. CONTIGUOUS: line r is [offset + r * len,
// offset + (r + 1) * len). MODE: one of the modes below. RUNS
// (kWorkgroupPerChunk, 32-bit elements): every chunk is whole runs of 4
// elements that start at multiples of 4 in the buffer, loaded as vectors.
#define MLX_ARG_REDUCE_SPEC(X, S)  \
  X(S, 1, uint, OP, 0)             \
  X(S, 2, bool, CONTIGUOUS, false) \
  X(S, 3, uint, MODE, 0)           \
  X(S, 4, bool, RUNS, false)
MLX_SPEC_CONSTANTS(ArgReduceSpec, MLX_ARG_REDUCE_SPEC)

// Workgroup w scans chunk w % groups of line w / groups and writes the
// winner's index in the line to output w.
MLX_CONSTANT(uint32_t, kWorkgroupPerChunk, 0)
// Thread r scans line r alone.
MLX_CONSTANT(uint32_t, kThreadPerLine, 1)
// Workgroup r picks among the winners of line r's chunks.
MLX_CONSTANT(uint32_t, kPickAmongChunks, 2)

// arg_reduce.comp's shared arrays hold one candidate per thread.
MLX_CONSTANT(uint32_t, kArgReduceThreads, 256)

MLX_ENUM_VALUE(ArgReduce, ArgMin, 0)
MLX_ENUM_VALUE(ArgReduce, ArgMax, 1)

MLX_PARAMS_END

#endif  // MLX_PARAMS_ARG_REDUCE_H
