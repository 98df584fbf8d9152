// Parameters of shaders/gather.comp and shaders/scatter.comp (Gather and
// Scatter; backend/vulkan/indexing.cpp). Bindings: 0 the shape block, 1 the
// elements read (Gather's source, Scatter's updates), 2 the output, 3 + k
// index array k (read as 32-bit words whatever its integer dtype; the host
// binds something readonly to the unused ones).
//
// Both run one thread per run of RUN consecutive elements of a slice, over
// (index positions) x (slice). Index position i selects, in the indexed
// array (Gather's source, Scatter's output), the slice starting at the sum
// over index arrays k of wrap(idx_k[i]) * axis_stride_k, wrap adding the
// axis' extent to a negative index once, as the CPU does.
#ifndef MLX_PARAMS_INDEXING_H
#define MLX_PARAMS_INDEXING_H

#include "shape_block.h"

MLX_PARAMS_BEGIN

MLX_CONSTANT(int32_t, kMaxIndexArrays, 8)

// How an index array's elements are read.
MLX_CONSTANT(int32_t, kIndexUint8, 0)
MLX_CONSTANT(int32_t, kIndexUint32, 1)
MLX_CONSTANT(int32_t, kIndexInt32, 2)
MLX_CONSTANT(int32_t, kIndexInt64, 3)
MLX_CONSTANT(int32_t, kIndexInt8, 4)
MLX_CONSTANT(int32_t, kIndexUint16, 5)
MLX_CONSTANT(int32_t, kIndexInt16, 6)

// How Scatter combines an update with the element it lands on: its
// REDUCE (a build define per variant, indexing.cmake), the values of
// Scatter::ReduceType (checked by a static_assert in indexing.cpp).
MLX_CONSTANT(int32_t, kScatterNone, 0)
MLX_CONSTANT(int32_t, kScatterSum, 1)
MLX_CONSTANT(int32_t, kScatterProd, 2)
MLX_CONSTANT(int32_t, kScatterMax, 3)
MLX_CONSTANT(int32_t, kScatterMin, 4)

// One index array, and the axis of the indexed array it indexes: the shape
// block's table (IndexingTable) holds one per index array.
struct MLX_STD140 IndexArray {
  int64_t offset;       // the index array's first element
  int64_t kind;         // kIndexUint8 ... kIndexInt16
  int64_t extent;       // of the axis, in the indexed array
  int64_t hi;           // the largest start that keeps the slice inside the axis
  int64_t axis_stride;  // of the axis, in the indexed array
};

struct IndexingTable {
  IndexArray index_arrays[kMaxIndexArrays];
};

struct IndexingParams {
  int64_t n;               // threads
  int64_t n_slice;         // elements per slice
  int64_t indexed_offset;  // the indexed array's first element
  int64_t updates_offset;  // Scatter: the updates' first element
  ShapeRef indices;        // the index positions: operand k is index array k
  ShapeRef slice;          // the slice's shape and strides in the indexed array
  ShapeRef updates;        // Scatter: the updates' shape and strides
};
MLX_PUSH_CONSTANTS(IndexingParams)

// NIDX: the number of index arrays. RUN: elements per thread (the host
// sets 1 where the updates' element index could pass 32 bits).
#define MLX_INDEXING_SPEC(X, S) \
  X(S, 1, int, NIDX, 1)         \
  X(S, 2, uint, RUN, 1)
MLX_SPEC_CONSTANTS(IndexingSpec, MLX_INDEXING_SPEC)

MLX_PARAMS_END

#ifdef __cplusplus
static_assert(sizeof(mlx_lite::vulkan::params::IndexArray) == 48,
              "IndexArray must match its std140 layout: 5 int64 padded to 48 bytes");
#endif

#endif  // MLX_PARAMS_INDEXING_H
