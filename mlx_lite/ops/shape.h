/// \file
/// Shape ops and views. Views (slice, transpose, broadcast_to, expand_dims,
/// squeeze, most reshapes) share the input's buffer; copies happen only when a
/// layout cannot be expressed with strides.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// a with the elements of `shape`, in row-major order. A view when the
/// input's strides allow it, else a copy. One dim may be -1, inferred from
/// the size. Throws std::invalid_argument when the sizes differ.
array reshape(const array& a, Shape shape, StreamOrDevice s = {});
/// a with the axes from start_axis to end_axis (all by default) merged into
/// one, through reshape; a scalar becomes shape {1}. Throws
/// std::invalid_argument when start_axis comes after end_axis.
/// @{
array flatten(const array& a, int start_axis, int end_axis = -1, StreamOrDevice s = {});
array flatten(const array& a, StreamOrDevice s = {});
/// @}

/// a with axis `axis` split into the dims of `shape` (one of them may be -1,
/// inferred), as MLX's unflatten: a view through reshape; a itself when
/// `shape` has one dim. Throws std::invalid_argument for an empty `shape`, an
/// axis out of range, two -1 dims or sizes that do not match.
array unflatten(const array& a, int axis, Shape shape, StreamOrDevice s = {});

/// A view with the axes permuted: axis i of the result is axis axes[i] of a.
/// Without axes, reverses them. Throws std::invalid_argument when axes is
/// not a permutation of a's axes.
/// @{
array transpose(const array& a, std::vector<int> axes, StreamOrDevice s = {});
inline array transpose(const array& a, std::initializer_list<int> axes, StreamOrDevice s = {}) {
  return transpose(a, std::vector<int>(axes), s);
}
array transpose(const array& a, StreamOrDevice s = {});
/// @}
/// A view with axis `source` moved to position `destination`.
array moveaxis(const array& a, int source, int destination, StreamOrDevice s = {});
/// A view with two axes exchanged.
array swapaxes(const array& a, int axis1, int axis2, StreamOrDevice s = {});

/// A view with a dim of size 1 inserted at each of `axes`, which index the
/// result.
/// @{
array expand_dims(const array& a, const std::vector<int>& axes, StreamOrDevice s = {});
array expand_dims(const array& a, int axis, StreamOrDevice s = {});
/// @}
/// A view without the given axes of size 1 (without axes, every axis of
/// size 1). Throws std::invalid_argument for an axis of another size.
/// @{
array squeeze(const array& a, const std::vector<int>& axes, StreamOrDevice s = {});
array squeeze(const array& a, int axis, StreamOrDevice s = {});
array squeeze(const array& a, StreamOrDevice s = {});
/// @}

/// A view of a broadcast to `shape`, by numpy's rules (dims of size 1
/// repeat with stride 0). Throws std::invalid_argument when a's shape does
/// not broadcast to `shape`.
array broadcast_to(const array& a, const Shape& shape, StreamOrDevice s = {});
/// The inputs broadcast to their common shape. Throws
/// std::invalid_argument when they do not broadcast together.
std::vector<array> broadcast_arrays(const std::vector<array>& inputs, StreamOrDevice s = {});

/// The arrays joined along `axis`, promoted to their common dtype (without an
/// axis, flattened and joined). Throws std::invalid_argument for no arrays or
/// shapes that differ outside the axis.
/// @{
array concatenate(std::vector<array> arrays, int axis, StreamOrDevice s = {});
array concatenate(std::vector<array> arrays, StreamOrDevice s = {});
/// @}
/// The arrays, all of one shape, joined along a new axis `axis` (0 by
/// default). Throws std::invalid_argument for no arrays or shapes that
/// differ.
/// @{
array stack(const std::vector<array>& arrays, int axis, StreamOrDevice s = {});
array stack(const std::vector<array>& arrays, StreamOrDevice s = {});
/// @}

/// Views of a along `axis` (0 by default): num_splits equal parts, or parts
/// cut before each index (by Python's slicing rules, so parts may be empty).
/// Throws std::invalid_argument when num_splits does not divide the axis.
/// @{
std::vector<array> split(const array& a, int num_splits, int axis, StreamOrDevice s = {});
std::vector<array> split(const array& a, int num_splits, StreamOrDevice s = {});
std::vector<array> split(const array& a, const Shape& indices, int axis, StreamOrDevice s = {});
std::vector<array> split(const array& a, const Shape& indices, StreamOrDevice s = {});
/// @}

/// a padded by low_pad_size before and high_pad_size after each of `axes`:
/// with pad_value (a scalar, 0 by default) in mode "constant", or with the
/// values at each axis's ends in mode "edge". pad_width gives a (low, high)
/// pair per axis, one pair for every axis, or one width for both sides of
/// every axis. Throws std::invalid_argument for a negative size, a pad value
/// that is not a scalar, or another mode.
/// @{
array pad(const array& a, const std::vector<int>& axes, const Shape& low_pad_size,
          const Shape& high_pad_size, const array& pad_value = array(0),
          const std::string& mode = "constant", StreamOrDevice s = {});
array pad(const array& a, const std::vector<std::pair<int, int>>& pad_width,
          const array& pad_value = array(0), const std::string& mode = "constant",
          StreamOrDevice s = {});
array pad(const array& a, const std::pair<int, int>& pad_width, const array& pad_value = array(0),
          const std::string& mode = "constant", StreamOrDevice s = {});
array pad(const array& a, int pad_width, const array& pad_value = array(0),
          const std::string& mode = "constant", StreamOrDevice s = {});
/// @}

/// a repeated reps[i] times along each axis i, as numpy.tile (the shorter of
/// a's shape and reps gains leading ones). Throws std::invalid_argument for
/// a negative repetition.
array tile(const array& arr, std::vector<int> reps, StreamOrDevice s = {});
/// Each element repeated `repeats` times along `axis`, as numpy.repeat
/// (without an axis, of the flattened array). Throws std::invalid_argument
/// for negative repeats.
/// @{
array repeat(const array& arr, int repeats, int axis, StreamOrDevice s = {});
array repeat(const array& arr, int repeats, StreamOrDevice s = {});
/// @}

/// Python slicing a[start:stop:strides] per axis: negative starts and stops
/// count from the end, out-of-range bounds are clamped, negative strides walk
/// backwards. A view: no data is copied. Strides default to 1; a 0 stride
/// or a count of bounds other than a's ndim throws std::invalid_argument.
/// @{
array slice(const array& a, Shape start, Shape stop, Shape strides, StreamOrDevice s = {});
array slice(const array& a, Shape start, Shape stop, StreamOrDevice s = {});
/// Braced starts pick this form, not the dynamic slice's array start (MLX's overload).
inline array slice(const array& a, std::initializer_list<int> start, Shape stop, Shape strides,
                   StreamOrDevice s = {}) {
  return slice(a, Shape(start), std::move(stop), std::move(strides), s);
}
/// @}
/// A copy of src with src[start:stop:strides] replaced by update (broadcast,
/// and converted to src's dtype). Throws std::invalid_argument when update
/// does not broadcast to the slice.
/// @{
array slice_update(const array& src, const array& update, Shape start, Shape stop, Shape strides,
                   StreamOrDevice s = {});
array slice_update(const array& src, const array& update, Shape start, Shape stop,
                   StreamOrDevice s = {});
/// Braced starts pick this form, not the dynamic slice_update's array start.
inline array slice_update(const array& src, const array& update, std::initializer_list<int> start,
                          Shape stop, StreamOrDevice s = {}) {
  return slice_update(src, update, Shape(start), std::move(stop), s);
}
/// @}

/// The slice of a of shape `slice_size` (one size per dim of a) that starts at
/// start[k] on axes[k] and at 0 on the other axes, with start an integer
/// array of shape (axes.size(),) (or a scalar for one axis) whose values are
/// known only when the graph runs (MLX's dynamic slice). A negative start
/// counts from the end once; a start that would run the slice past the axis
/// is clamped so that it fits (MLX leaves it undefined). Throws
/// std::invalid_argument for a bad axis, start shape or dtype, or slice size.
array slice(const array& a, const array& start, std::vector<int> axes, Shape slice_size,
            StreamOrDevice s = {});
/// A copy of src with update written at the dynamic start positions `start`
/// on `axes` (0 on the other axes), clamped as the dynamic slice's are.
/// update is converted to src's dtype; missing leading dims take src's sizes
/// (1 on `axes`), as MLX broadcasts it.
array slice_update(const array& src, const array& update, const array& start, std::vector<int> axes,
                   StreamOrDevice s = {});

/// A copy of src with update (broadcast to the slice, converted to src's
/// dtype) added to (slice_update_add), multiplied into (slice_update_prod),
/// or compared with (slice_update_max, slice_update_min; NaN wins) the slice
/// src[start:stop:strides], as MLX's. Composed of the slice, the elementwise
/// op and slice_update, so gradients flow to both inputs. Throws
/// std::invalid_argument when update does not broadcast to the slice.
/// @{
array slice_update_add(const array& src, const array& update, Shape start, Shape stop,
                       Shape strides, StreamOrDevice s = {});
array slice_update_add(const array& src, const array& update, Shape start, Shape stop,
                       StreamOrDevice s = {});
array slice_update_prod(const array& src, const array& update, Shape start, Shape stop,
                        Shape strides, StreamOrDevice s = {});
array slice_update_prod(const array& src, const array& update, Shape start, Shape stop,
                        StreamOrDevice s = {});
array slice_update_max(const array& src, const array& update, Shape start, Shape stop,
                       Shape strides, StreamOrDevice s = {});
array slice_update_max(const array& src, const array& update, Shape start, Shape stop,
                       StreamOrDevice s = {});
array slice_update_min(const array& src, const array& update, Shape start, Shape stop,
                       Shape strides, StreamOrDevice s = {});
array slice_update_min(const array& src, const array& update, Shape start, Shape stop,
                       StreamOrDevice s = {});
/// @}

/// The elements rolled by `shift` places along each of `axes` (elements past
/// the end come back at the start; negative shifts roll the other way), as
/// numpy.roll. Without axes the array rolls as if flattened, by the sum of
/// the shifts; one shift with several axes rolls each by it; several shifts
/// with one axis roll it by their sum (MLX's overloads). Composed of slices
/// and concatenate. Throws std::invalid_argument for an axis out of range or
/// fewer shifts than axes.
/// @{
array roll(const array& a, int shift, StreamOrDevice s = {});
array roll(const array& a, const Shape& shift, StreamOrDevice s = {});
array roll(const array& a, int shift, int axis, StreamOrDevice s = {});
array roll(const array& a, int shift, const std::vector<int>& axes, StreamOrDevice s = {});
array roll(const array& a, const Shape& shift, int axis, StreamOrDevice s = {});
array roll(const array& a, const Shape& shift, const std::vector<int>& axes, StreamOrDevice s = {});
/// @}

/// The slices of a along `axis`, each without that axis (views), as MLX
/// Python's mx.unstack (MLX's C++ API has no unstack). An empty axis gives no
/// arrays. Throws std::invalid_argument for a scalar or an axis out of range.
std::vector<array> unstack(const array& a, int axis = 0, StreamOrDevice s = {});

/// a with at least 1, 2 or 3 dims, through reshape (views): a scalar becomes
/// (1), (1,1) or (1,1,1); a vector (n) becomes (1,n) or (1,n,1); a matrix
/// (m,n) becomes (m,n,1). Arrays with enough dims are returned as they are.
/// @{
array atleast_1d(const array& a, StreamOrDevice s = {});
std::vector<array> atleast_1d(const std::vector<array>& a, StreamOrDevice s = {});
array atleast_2d(const array& a, StreamOrDevice s = {});
std::vector<array> atleast_2d(const std::vector<array>& a, StreamOrDevice s = {});
array atleast_3d(const array& a, StreamOrDevice s = {});
std::vector<array> atleast_3d(const std::vector<array>& a, StreamOrDevice s = {});
/// @}

/// A view with `shape` whose element i0, i1, ... is element offset + sum(ik *
/// strides[k]) of a in row-major order (a is made dense first when it is not),
/// as MLX's as_strided. Unlike MLX, throws std::invalid_argument when any
/// element the view can reach lies outside a, so it never reads past the
/// buffer; also for a stride count other than shape's or a negative dim.
/// Gradients add each output's cotangent into the element it read.
array as_strided(array a, Shape shape, Strides strides, size_t offset, StreamOrDevice s = {});

/// a's bytes read as `dtype` (no conversion), as MLX's view. With a larger
/// dtype the last axis shrinks by the ratio of the sizes (its size in bytes
/// must divide), with a smaller one it grows by it. A view of a's buffer
/// when a's layout allows, else of a dense copy. Not differentiable (as in
/// MLX). Throws std::invalid_argument for a scalar changing element size or a
/// last axis that does not divide.
array view(const array& a, const Dtype& dtype, StreamOrDevice s = {});

/// a itself when already row-contiguous (or column-contiguous and allowed),
/// else a row-contiguous copy.
array contiguous(const array& a, bool allow_col_major = false, StreamOrDevice s = {});
/// A copy of a. Always a new buffer.
array copy(array a, StreamOrDevice s = {});

/// a, treated as a constant by vjp, jvp and grad.
array stop_gradient(const array& a, StreamOrDevice s = {});

}  // namespace mlx_lite
