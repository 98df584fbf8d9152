// Shape ops and views. Views (slice, transpose, broadcast_to, expand_dims,
// squeeze, most reshapes) share the input's buffer; copies happen only when a
// layout cannot be expressed with strides.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

// A view when the input's strides allow it, else a copy. One dim may be -1.
array reshape(const array& a, Shape shape, StreamOrDevice s = {});
array flatten(const array& a, int start_axis, int end_axis = -1, StreamOrDevice s = {});
array flatten(const array& a, StreamOrDevice s = {});

array transpose(const array& a, std::vector<int> axes, StreamOrDevice s = {});
inline array transpose(const array& a, std::initializer_list<int> axes, StreamOrDevice s = {}) {
  return transpose(a, std::vector<int>(axes), s);
}
// Reverses the axes.
array transpose(const array& a, StreamOrDevice s = {});
array moveaxis(const array& a, int source, int destination, StreamOrDevice s = {});
array swapaxes(const array& a, int axis1, int axis2, StreamOrDevice s = {});

array expand_dims(const array& a, const std::vector<int>& axes, StreamOrDevice s = {});
array expand_dims(const array& a, int axis, StreamOrDevice s = {});
array squeeze(const array& a, const std::vector<int>& axes, StreamOrDevice s = {});
array squeeze(const array& a, int axis, StreamOrDevice s = {});
array squeeze(const array& a, StreamOrDevice s = {});

array broadcast_to(const array& a, const Shape& shape, StreamOrDevice s = {});
std::vector<array> broadcast_arrays(const std::vector<array>& inputs, StreamOrDevice s = {});

array concatenate(std::vector<array> arrays, int axis, StreamOrDevice s = {});
array concatenate(std::vector<array> arrays, StreamOrDevice s = {});
array stack(const std::vector<array>& arrays, int axis, StreamOrDevice s = {});
array stack(const std::vector<array>& arrays, StreamOrDevice s = {});

// num_splits equal parts, or parts cut before each index.
std::vector<array> split(const array& a, int num_splits, int axis, StreamOrDevice s = {});
std::vector<array> split(const array& a, int num_splits, StreamOrDevice s = {});
std::vector<array> split(const array& a, const Shape& indices, int axis, StreamOrDevice s = {});
std::vector<array> split(const array& a, const Shape& indices, StreamOrDevice s = {});

// Constant padding ("constant" is the only mode; "edge" is MLX's other).
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

array tile(const array& arr, std::vector<int> reps, StreamOrDevice s = {});
array repeat(const array& arr, int repeats, int axis, StreamOrDevice s = {});
array repeat(const array& arr, int repeats, StreamOrDevice s = {});

// Python slicing a[start:stop:strides] per axis: negative starts and stops
// count from the end, out-of-range bounds are clamped, negative strides walk
// backwards. A view: no data is copied.
array slice(const array& a, Shape start, Shape stop, Shape strides, StreamOrDevice s = {});
array slice(const array& a, Shape start, Shape stop, StreamOrDevice s = {});
// A copy of src with src[start:stop:strides] replaced by update (broadcast).
array slice_update(const array& src, const array& update, Shape start, Shape stop, Shape strides,
                   StreamOrDevice s = {});
array slice_update(const array& src, const array& update, Shape start, Shape stop,
                   StreamOrDevice s = {});

// a itself when already row-contiguous (or column-contiguous and allowed),
// else a row-contiguous copy.
array contiguous(const array& a, bool allow_col_major = false, StreamOrDevice s = {});
// Always a new buffer.
array copy(array a, StreamOrDevice s = {});

// a, treated as a constant by vjp, jvp and grad.
array stop_gradient(const array& a, StreamOrDevice s = {});

}  // namespace mlx_lite
