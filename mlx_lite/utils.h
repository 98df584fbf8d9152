/// \file
/// Shape and axis helpers shared by the ops (mlx/utils.h in MLX). It also
/// teaches fmt to format a Dtype, by its name.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// The shape `s1` and `s2` broadcast to, by numpy's rules; throws
/// std::invalid_argument naming `op` and both shapes when they do not
/// broadcast.
/// @{
Shape broadcast_shapes(const Shape& s1, const Shape& s2);
Shape broadcast_shapes(const Shape& s1, const Shape& s2, const char* op);
/// @}

/// Whether `t` is one of the dtypes of all_dtypes. A Dtype made by casting a
/// value outside Dtype::Val is refused by astype.
bool is_valid_dtype(const Dtype& t);

/// The limits of a floating-point dtype, as MLX's finfo: `min` is the most
/// negative finite value (numpy's finfo.min, -max), `max` the largest finite
/// one, `eps` the gap between 1 and the next value (2^-10 for float16, 2^-7
/// for bfloat16, FLT_EPSILON, DBL_EPSILON).
struct finfo {
  /// Throws std::invalid_argument when `dtype` is not a floating-point dtype.
  explicit finfo(Dtype dtype);
  /// The dtype described.
  Dtype dtype;
  /// The most negative finite value.
  double min;
  /// The largest finite value.
  double max;
  /// The machine epsilon.
  double eps;
};

/// The range of an integer dtype, as MLX's iinfo (`max` is unsigned so
/// that uint64's fits).
struct iinfo {
  /// Throws std::invalid_argument when `dtype` is not an integer dtype
  /// (bool_ included).
  explicit iinfo(Dtype dtype);
  /// The dtype described.
  Dtype dtype;
  /// The smallest value (0 for the unsigned dtypes).
  int64_t min;
  /// The largest value.
  uint64_t max;
};

/// The dtype every array promotes to (promote_types over all of them).
/// Throws std::invalid_argument when there are none.
Dtype result_type(const std::vector<array>& arrays);

/// `axis` in [-ndim, ndim) made non-negative; throws std::invalid_argument
/// naming `op` otherwise.
int normalize_axis(int axis, int ndim, const char* op);

/// Each axis normalized; throws std::invalid_argument on an axis out of
/// range or given twice.
std::vector<int> normalize_axes(const std::vector<int>& axes, int ndim, const char* op);

/// `axis` in [-ndim, ndim) made non-negative; throws std::out_of_range
/// (prefixing its message with `msg_prefix`) otherwise, as MLX's. The ops
/// whose axis errors are std::out_of_range in MLX (reductions, argmax/argmin,
/// softmax, logsumexp, moveaxis, swapaxes, concatenate, stack, repeat) use it.
int normalize_axis_index(int axis, int ndim, const std::string& msg_prefix = "");

/// Each axis normalized by normalize_axis_index (std::out_of_range, every
/// axis checked before repeats are), then std::invalid_argument on an axis
/// given twice, as MLX's reductions check their axes.
std::vector<int> normalize_axes_index(const std::vector<int>& axes, int ndim, const char* op);

/// Python's slicing rules applied to each axis of `shape`: negative bounds
/// count from the end, bounds clamp to what a step in that direction can reach.
/// Rewrites `start` to the first index taken (0 for an empty axis) and returns
/// the extent of each axis. Throws std::invalid_argument naming `op` on a
/// count mismatch or a 0 step.
Shape normalize_slice(const Shape& shape, Shape& start, const Shape& stop, const Shape& strides,
                      const char* op);

/// Checked shape arithmetic (MLX throws std::overflow_error where a size
/// leaves its type). Every op that computes a dimension or an element count
/// goes through these, in 64 bits, before it builds an array.
/// `dim` (a sum or product of dims, computed in int64) as a dimension of a
/// Shape; throws std::overflow_error naming `op` when it does not fit in
/// ShapeElem (int32, as in MLX).
ShapeElem checked_dim(int64_t dim, const char* op);
/// The product of `dims`, checked step by step; throws std::overflow_error
/// naming `op` when it does not fit in int64, or when the product of the
/// nonzero dims does not (a shape's row-major strides must fit, even when it
/// has no elements).
/// @{
int64_t checked_product(const int32_t* begin, const int32_t* end, const char* op);
inline int64_t checked_size(const Shape& shape, const char* op) {
  return checked_product(shape.data(), shape.data() + shape.size(), op);
}
/// @}
/// checked_size, and the bytes of an array of `shape` and `dtype` must fit
/// in int64 too (nbytes() and byte offsets are computed in 64 bits).
int64_t checked_nbytes(const Shape& shape, Dtype dtype, const char* op);

/// "(2,3,4)" (and "(5,)" for one dim), the way messages print shapes.
std::string shape_string(const Shape& shape);

/// Makes a stream (or a device's default stream) the default, and its device
/// the default device, for the context's lifetime; the destructor restores
/// the defaults it found. As MLX's, it changes the default device for every
/// thread and the default stream for the calling thread.
class StreamContext {
 public:
  /// Throws std::runtime_error (as MLX) when `s` names neither a stream nor
  /// a device, std::invalid_argument when it names the GPU where none can be
  /// used.
  explicit StreamContext(StreamOrDevice s);
  /// Restores the default device and stream.
  ~StreamContext();
  StreamContext(const StreamContext&) = delete;
  StreamContext& operator=(const StreamContext&) = delete;

 private:
  Stream saved_;
};

/// Prints the kind letter (b, u, i, f, c, V), as MLX.
std::ostream& operator<<(std::ostream& os, const Dtype::Kind& k);
/// Prints MLX's format: Device(gpu, 0).
std::ostream& operator<<(std::ostream& os, const Device& d);
/// Prints MLX's format: Stream(Device(gpu, 0), 0).
std::ostream& operator<<(std::ostream& os, const Stream& s);

}  // namespace mlx_lite

/// \cond
// fmt formats a Dtype by its name (the file's documentation says so).
template <>
struct fmt::formatter<mlx_lite::Dtype> : fmt::formatter<std::string_view> {
  auto format(const mlx_lite::Dtype& d, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(mlx_lite::dtype_name(d), ctx);
  }
};
/// \endcond
