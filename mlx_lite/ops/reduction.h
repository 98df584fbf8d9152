/// \file
/// Reductions, scans, softmax and logsumexp (MLX names and signatures). Each
/// reduction takes a list of axes, one axis, or none (every axis); keepdims
/// keeps the reduced axes as size 1. Negative axes count from the end; an
/// axis out of range or given twice throws std::invalid_argument.
#pragma once

#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

// The four overloads of each reduction: every axis (with or without
// keepdims), a list of axes, one axis.
#define MLX_LITE_REDUCTION(NAME)                                                  \
  array NAME(const array& a, bool keepdims, StreamOrDevice s = {});               \
  array NAME(const array& a, StreamOrDevice s = {});                              \
  array NAME(const array& a, const std::vector<int>& axes, bool keepdims = false, \
             StreamOrDevice s = {});                                              \
  array NAME(const array& a, int axis, bool keepdims = false, StreamOrDevice s = {});

/// Sum over the axes. bool sums to int32 and uint8 to uint32; other dtypes
/// keep theirs.
/// @{
MLX_LITE_REDUCTION(sum)
/// @}

/// Mean over the axes; integer and bool inputs give float32.
/// @{
MLX_LITE_REDUCTION(mean)
/// @}

/// Largest element over the axes. Throws std::invalid_argument for an empty
/// axis.
/// @{
MLX_LITE_REDUCTION(max)
/// @}

/// Smallest element over the axes. Throws std::invalid_argument for an
/// empty axis.
/// @{
MLX_LITE_REDUCTION(min)
/// @}

/// Product over the axes. bool gives int32 and uint8 uint32; other dtypes
/// keep theirs.
/// @{
MLX_LITE_REDUCTION(prod)
/// @}

/// Whether every element over the axes is nonzero, as bool.
/// @{
MLX_LITE_REDUCTION(all)
/// @}

/// Whether any element over the axes is nonzero, as bool.
/// @{
MLX_LITE_REDUCTION(any)
/// @}

/// log(sum(exp(a))) over the axes, shifted by the max so exp cannot
/// overflow; integer and bool inputs give float32. Throws
/// std::invalid_argument for an empty array.
/// @{
MLX_LITE_REDUCTION(logsumexp)
/// @}

#undef MLX_LITE_REDUCTION

/// Variance over the axes, dividing by n - ddof (ddof 0 by default);
/// integer and bool inputs give float32. ddof >= n gives inf or NaN, as in
/// numpy.
/// @{
array var(const array& a, bool keepdims, int ddof = 0, StreamOrDevice s = {});
array var(const array& a, StreamOrDevice s = {});
array var(const array& a, const std::vector<int>& axes, bool keepdims = false, int ddof = 0,
          StreamOrDevice s = {});
array var(const array& a, int axis, bool keepdims = false, int ddof = 0, StreamOrDevice s = {});
/// @}

/// Indices (uint32) of the first largest element along `axis`, or in the
/// flattened array without one. Throws std::invalid_argument for an empty
/// axis.
/// @{
array argmax(const array& a, bool keepdims, StreamOrDevice s = {});
array argmax(const array& a, StreamOrDevice s = {});
array argmax(const array& a, int axis, bool keepdims = false, StreamOrDevice s = {});
/// @}
/// Indices (uint32) of the first smallest element along `axis`, or in the
/// flattened array without one. Throws std::invalid_argument for an empty
/// axis.
/// @{
array argmin(const array& a, bool keepdims, StreamOrDevice s = {});
array argmin(const array& a, StreamOrDevice s = {});
array argmin(const array& a, int axis, bool keepdims = false, StreamOrDevice s = {});
/// @}

/// Cumulative sum along `axis`, or over the flattened array without one.
/// reverse sums from the end; inclusive = false leaves each element out of
/// its own sum. bool gives int32.
/// @{
array cumsum(const array& a, int axis, bool reverse = false, bool inclusive = true,
             StreamOrDevice s = {});
array cumsum(const array& a, bool reverse = false, bool inclusive = true, StreamOrDevice s = {});
/// @}

/// Cumulative product along `axis`, or over the flattened array without
/// one; reverse and inclusive as cumsum's (an exclusive scan starts at 1).
/// Every dtype keeps its own (bool gives the running logical and).
/// @{
array cumprod(const array& a, int axis, bool reverse = false, bool inclusive = true,
              StreamOrDevice s = {});
array cumprod(const array& a, bool reverse = false, bool inclusive = true, StreamOrDevice s = {});
/// @}

/// Running maximum along `axis`, or over the flattened array without one;
/// reverse and inclusive as cumsum's (an exclusive scan starts at the
/// dtype's lowest value, -inf for floats). NaN propagates; dtypes are kept.
/// @{
array cummax(const array& a, int axis, bool reverse = false, bool inclusive = true,
             StreamOrDevice s = {});
array cummax(const array& a, bool reverse = false, bool inclusive = true, StreamOrDevice s = {});
/// @}

/// Running minimum along `axis`, or over the flattened array without one;
/// reverse and inclusive as cumsum's (an exclusive scan starts at the
/// dtype's highest value, +inf for floats). NaN propagates; dtypes are kept.
/// @{
array cummin(const array& a, int axis, bool reverse = false, bool inclusive = true,
             StreamOrDevice s = {});
array cummin(const array& a, bool reverse = false, bool inclusive = true, StreamOrDevice s = {});
/// @}

/// Running log(sum(exp(a))) along `axis`, or over the flattened array
/// without one, computed stably (each step adds max + log1p(exp(-|x - y|)));
/// reverse and inclusive as cumsum's (an exclusive scan starts at -inf).
/// Integer and bool inputs give float32.
/// @{
array logcumsumexp(const array& a, int axis, bool reverse = false, bool inclusive = true,
                   StreamOrDevice s = {});
array logcumsumexp(const array& a, bool reverse = false, bool inclusive = true,
                   StreamOrDevice s = {});
/// @}

/// exp(a) / sum(exp(a)) over `axes` (one `axis`, or every axis), shifted by
/// the max so exp cannot overflow; integer and bool inputs give float32.
/// precise computes 16-bit float inputs in float32.
/// @{
array softmax(const array& a, const std::vector<int>& axes, bool precise = false,
              StreamOrDevice s = {});
array softmax(const array& a, int axis, bool precise = false, StreamOrDevice s = {});
array softmax(const array& a, bool precise = false, StreamOrDevice s = {});
/// @}

}  // namespace mlx_lite
