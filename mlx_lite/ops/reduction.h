// Reductions, scans, softmax and logsumexp (MLX names and signatures).
#pragma once

#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

#define MLX_LITE_REDUCTION(NAME)                                                  \
  array NAME(const array& a, bool keepdims, StreamOrDevice s = {});               \
  array NAME(const array& a, StreamOrDevice s = {});                              \
  array NAME(const array& a, const std::vector<int>& axes, bool keepdims = false, \
             StreamOrDevice s = {});                                              \
  array NAME(const array& a, int axis, bool keepdims = false, StreamOrDevice s = {});

MLX_LITE_REDUCTION(sum)
MLX_LITE_REDUCTION(mean)
MLX_LITE_REDUCTION(max)
MLX_LITE_REDUCTION(min)
MLX_LITE_REDUCTION(prod)
MLX_LITE_REDUCTION(all)
MLX_LITE_REDUCTION(any)
MLX_LITE_REDUCTION(logsumexp)
#undef MLX_LITE_REDUCTION

array var(const array& a, bool keepdims, int ddof = 0, StreamOrDevice s = {});
array var(const array& a, StreamOrDevice s = {});
array var(const array& a, const std::vector<int>& axes, bool keepdims = false, int ddof = 0,
          StreamOrDevice s = {});
array var(const array& a, int axis, bool keepdims = false, int ddof = 0, StreamOrDevice s = {});

// Indices (uint32) of the first largest / smallest element.
array argmax(const array& a, bool keepdims, StreamOrDevice s = {});
array argmax(const array& a, StreamOrDevice s = {});
array argmax(const array& a, int axis, bool keepdims = false, StreamOrDevice s = {});
array argmin(const array& a, bool keepdims, StreamOrDevice s = {});
array argmin(const array& a, StreamOrDevice s = {});
array argmin(const array& a, int axis, bool keepdims = false, StreamOrDevice s = {});

array cumsum(const array& a, int axis, bool reverse = false, bool inclusive = true,
             StreamOrDevice s = {});
// Over the flattened array.
array cumsum(const array& a, bool reverse = false, bool inclusive = true, StreamOrDevice s = {});

array softmax(const array& a, const std::vector<int>& axes, bool precise = false,
              StreamOrDevice s = {});
array softmax(const array& a, int axis, bool precise = false, StreamOrDevice s = {});
array softmax(const array& a, bool precise = false, StreamOrDevice s = {});

}  // namespace mlx_lite
