// Parameters of shaders/sort.comp (Sort and ArgSort; backend/vulkan/sort.cpp).
// Bindings: 0 the shape block, 1 the input, 2 and 3 the keys and positions a
// merge pass reads, 4 and 5 the keys and positions a pass writes, 6 the
// output (written by the last pass only).
#ifndef MLX_PARAMS_SORT_H
#define MLX_PARAMS_SORT_H

#include "lines.h"

#ifdef __cplusplus
#include "mlx_lite/primitives/sort.h"
#endif

MLX_PARAMS_BEGIN

// A line of the input is sorted in blocks of at most kSortBlock elements
// (in shared memory), then merged pairwise (one dispatch per doubling of the
// sorted run) in a buffer of keys and positions where line r's element k is
// at r * len + k. The output is row-contiguous in the input's shape: element
// k of line r goes to (r / inner) * len * inner + r % inner + k * inner.
struct SortParams {
  Lines lines;
  int64_t inner;     // the output's extent past the axis
  uint32_t segment;  // kSortBlockPass: the power of two each line's block is padded to
  uint32_t width;    // kSortMergePass: the sorted runs' length, merged in pairs
};
MLX_PUSH_CONSTANTS(SortParams)

// CONTIGUOUS: as scan's. PASS: one of the passes below. FINAL: the pass
// writes the output (else keys and positions). ARG: the output is the
// positions (ArgSort), else the values at them (Sort).
#define MLX_SORT_SPEC(X, S)        \
  X(S, 1, bool, CONTIGUOUS, false) \
  X(S, 2, uint, PASS, 0)           \
  X(S, 3, bool, FINAL, false)      \
  X(S, 4, bool, ARG, false)
MLX_SPEC_CONSTANTS(SortSpec, MLX_SORT_SPEC)

// A workgroup sorts kSortBlock elements in shared memory: one block of a
// long line, or several short lines padded to `segment` each.
MLX_CONSTANT(uint32_t, kSortBlockPass, 0)
// A thread per element moves it to its place in the merge of its run with
// the neighbouring run (a binary search in that run).
MLX_CONSTANT(uint32_t, kSortMergePass, 1)

MLX_CONSTANT(uint32_t, kSortBlock, 2048)
MLX_CONSTANT(uint32_t, kSortThreads, 256)

MLX_PARAMS_END

#endif  // MLX_PARAMS_SORT_H
