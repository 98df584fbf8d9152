// Parameters of shaders/softmax_split.comp: Softmax and LogSumExp over the
// last axis of few long lines, each spread over `parts` workgroups
// (backend/vulkan/softmax.cpp). Two dispatches:
//   softmax_split_stats_<t>   workgroup w = row * parts + p gathers the max
//                             and sum of part p of line `row` (elements
//                             [p * part_len, (p + 1) * part_len)) into
//                             stats[w]. Bindings: 0 the shape block, 1 the
//                             input, 2 the stats (float pairs, rows * parts).
//   softmax_split_finish_<t>  combines a line's stats and writes softmax
//                             of part p (workgroup row * parts + p), or the
//                             line's logsumexp (workgroup row). Bindings: 0,
//                             1 and 2 as above, 3 the output (dense: rows x
//                             len for softmax, rows for logsumexp).
#ifndef MLX_PARAMS_SOFTMAX_SPLIT_H
#define MLX_PARAMS_SOFTMAX_SPLIT_H

#include "lines.h"
#include "softmax_ops.h"

MLX_PARAMS_BEGIN

struct SoftmaxSplitParams {
  Lines lines;
  int64_t parts;     // workgroups per line
  int64_t part_len;  // elements per part; the last part of a line may be shorter
};
MLX_PUSH_CONSTANTS(SoftmaxSplitParams)

// OP: kSoftmax or kLogSumExp (softmax_ops.h). CONTIGUOUS: line r is
// [offset + r * len, offset + (r + 1) * len).
#define MLX_SOFTMAX_SPLIT_SPEC(X, S) \
  X(S, 1, uint, OP, 0)               \
  X(S, 2, bool, CONTIGUOUS, false)
MLX_SPEC_CONSTANTS(SoftmaxSplitSpec, MLX_SOFTMAX_SPLIT_SPEC)

// The most parts a line is split into: finish's threads read a line's stats
// in one sweep (its workgroup has kSoftmaxMaxThreads threads).
MLX_CONSTANT(uint32_t, kSoftmaxSplitMaxParts, 256)

MLX_PARAMS_END

#endif  // MLX_PARAMS_SOFTMAX_SPLIT_H
