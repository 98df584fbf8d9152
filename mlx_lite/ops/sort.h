/// \file
/// Sorting and selection (MLX names and signatures): sort, argsort,
/// partition, argpartition, topk. Without an axis they work on the flattened
/// array. Floats order NaN after every number; sorting is stable (equal
/// elements keep their order). An axis out of range throws
/// std::invalid_argument, as MLX's do.
#pragma once

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// A sorted (ascending) copy of `a` along `axis`, or of the flattened array
/// without one. NaNs go last.
/// @{
array sort(const array& a, StreamOrDevice s = {});
array sort(const array& a, int axis, StreamOrDevice s = {});
/// @}

/// The indices (uint32) that sort `a` along `axis` (or the flattened array):
/// `take_along_axis(a, argsort(a, axis), axis)` is `sort(a, axis)`. Stable:
/// equal elements keep their order, so the result is unique.
/// @{
array argsort(const array& a, StreamOrDevice s = {});
array argsort(const array& a, int axis, StreamOrDevice s = {});
/// @}

/// A copy of `a` partitioned along `axis` (or flattened) around its `kth`
/// smallest element: that element is at position kth, none before it is
/// larger and none after it smaller. A negative kth counts from the end.
/// Which valid partition is returned is unspecified (this one is sorted).
/// Throws std::invalid_argument for kth outside [-n, n) on an axis of n.
/// @{
array partition(const array& a, int kth, StreamOrDevice s = {});
array partition(const array& a, int kth, int axis, StreamOrDevice s = {});
/// @}

/// The indices (uint32) of a partition of `a` around its `kth` smallest
/// element, as partition() describes.
/// @{
array argpartition(const array& a, int kth, StreamOrDevice s = {});
array argpartition(const array& a, int kth, int axis, StreamOrDevice s = {});
/// @}

/// The `k` largest elements of `a` along `axis` (or flattened), in no
/// guaranteed order (as MLX; this implementation gives them ascending).
/// NaNs count as the largest. Throws std::invalid_argument for k outside
/// [0, n] on an axis of n.
/// @{
array topk(const array& a, int k, StreamOrDevice s = {});
array topk(const array& a, int k, int axis, StreamOrDevice s = {});
/// @}

}  // namespace mlx_lite
