#include "mlx_lite/utils.h"

#include <algorithm>
#include <limits>
#include <ostream>
#include <stdexcept>

namespace mlx_lite {

Shape broadcast_shapes(const Shape& s1, const Shape& s2) {
  return broadcast_shapes(s1, s2, "broadcast_shapes");
}

bool is_valid_dtype(const Dtype& t) {
  for (const auto& d : all_dtypes) {
    if (d.val == t.val && d.size == t.size) return true;
  }
  return false;
}

finfo::finfo(Dtype dtype) : dtype(dtype) {
  if (!issubdtype(dtype, inexact)) {
    throw std::invalid_argument(
        fmt::format("[finfo] dtype {} is not inexact (expected float16, float32, float64 or "
                    "bfloat16).",
                    dtype));
  }
  dispatch_dtype(dtype, [&]<typename T>() {
    if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
      // The largest finite value is the bit pattern below infinity; eps is
      // 2^-(mantissa bits): 10 for float16, 7 for bfloat16.
      const bool half = std::is_same_v<T, float16_t>;
      max = static_cast<float>(T::from_bits(half ? 0x7bff : 0x7f7f));
      eps = half ? 0x1p-10 : 0x1p-7;
    } else if constexpr (std::is_floating_point_v<T>) {
      max = std::numeric_limits<T>::max();
      eps = std::numeric_limits<T>::epsilon();
    }
  });
  min = -max;
}

iinfo::iinfo(Dtype dtype) : dtype(dtype) {
  if (!is_integral(dtype)) {
    throw std::invalid_argument(fmt::format(
        "[iinfo] dtype {} is not an integer dtype (expected uint8, uint16, uint32, uint64, "
        "int8, int16, int32 or int64).",
        dtype));
  }
  dispatch_dtype(dtype, [&]<typename T>() {
    if constexpr (std::is_integral_v<T>) {
      min = static_cast<int64_t>(std::numeric_limits<T>::min());
      max = static_cast<uint64_t>(std::numeric_limits<T>::max());
    }
  });
}

Shape broadcast_shapes(const Shape& s1, const Shape& s2, const char* op) {
  const auto& big = s1.size() > s2.size() ? s1 : s2;
  const auto& small = s1.size() > s2.size() ? s2 : s1;
  Shape out = big;
  size_t diff = big.size() - small.size();
  for (size_t i = 0; i < small.size(); ++i) {
    auto a = big[diff + i];
    auto b = small[i];
    if (b == a || a == 1) {
      out[diff + i] = b;
    } else if (b != 1) {
      throw std::invalid_argument(fmt::format(
          "[{}] Shapes {} and {} cannot be broadcast together (each dim must be equal or 1).", op,
          shape_string(s1), shape_string(s2)));
    }
  }
  return out;
}

Dtype result_type(const std::vector<array>& arrays) {
  if (arrays.empty()) throw std::invalid_argument("[result_type] No arrays given.");
  Dtype t = arrays[0].dtype();
  for (const auto& a : arrays) t = promote_types(t, a.dtype());
  return t;
}

int normalize_axis(int axis, int ndim, const char* op) {
  if (axis < -ndim || axis >= ndim) {
    throw std::invalid_argument(fmt::format(
        "[{}] Axis {} is out of range for an array with {} dimensions (expected {} <= axis < {}).",
        op, axis, ndim, -ndim, ndim));
  }
  return axis < 0 ? axis + ndim : axis;
}

std::vector<int> normalize_axes(const std::vector<int>& axes, int ndim, const char* op) {
  std::vector<int> out;
  out.reserve(axes.size());
  for (int a : axes) {
    int n = normalize_axis(a, ndim, op);
    if (std::find(out.begin(), out.end(), n) != out.end()) {
      throw std::invalid_argument(
          fmt::format("[{}] Axis {} is repeated in axes ({}).", op, a, fmt::join(axes, ",")));
    }
    out.push_back(n);
  }
  return out;
}

int normalize_axis_index(int axis, int ndim, const std::string& msg_prefix) {
  if (axis < -ndim || axis >= ndim) {
    throw std::out_of_range(fmt::format(
        "{}Axis {} is out of range for an array with {} dimensions (expected {} <= axis < {}).",
        msg_prefix, axis, ndim, -ndim, ndim));
  }
  return axis < 0 ? axis + ndim : axis;
}

std::vector<int> normalize_axes_index(const std::vector<int>& axes, int ndim, const char* op) {
  const std::string prefix = fmt::format("[{}] ", op);
  std::vector<int> out;
  out.reserve(axes.size());
  for (int a : axes) out.push_back(normalize_axis_index(a, ndim, prefix));
  for (size_t i = 0; i < out.size(); ++i) {
    if (std::find(out.begin(), out.begin() + i, out[i]) != out.begin() + i) {
      throw std::invalid_argument(
          fmt::format("[{}] Axis {} is repeated in axes ({}).", op, axes[i], fmt::join(axes, ",")));
    }
  }
  return out;
}

Shape normalize_slice(const Shape& shape, Shape& start, const Shape& stop, const Shape& strides,
                      const char* op) {
  const size_t nd = shape.size();
  if (start.size() != nd || stop.size() != nd || strides.size() != nd) {
    throw std::invalid_argument(fmt::format(
        "[{}] Got {} starts, {} stops and {} strides for an array of shape {}; expected {} of "
        "each.",
        op, start.size(), stop.size(), strides.size(), shape_string(shape), nd));
  }
  Shape extent(nd);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t n = shape[i], step = strides[i];
    if (step == 0) {
      throw std::invalid_argument(
          fmt::format("[{}] Stride of axis {} is 0; strides must be nonzero.", op, i));
    }
    int64_t lo = start[i] < 0 ? start[i] + n : start[i];
    int64_t hi = stop[i] < 0 ? stop[i] + n : stop[i];
    int64_t len;
    if (step > 0) {
      lo = std::clamp<int64_t>(lo, 0, n);
      hi = std::clamp<int64_t>(hi, 0, n);
      len = hi > lo ? (hi - lo + step - 1) / step : 0;
    } else {
      lo = std::clamp<int64_t>(lo, -1, n - 1);
      hi = std::clamp<int64_t>(hi, -1, n - 1);
      len = lo > hi ? (lo - hi - step - 1) / -step : 0;
    }
    start[i] = static_cast<ShapeElem>(len > 0 ? lo : 0);
    extent[i] = static_cast<ShapeElem>(len);
  }
  return extent;
}

ShapeElem checked_dim(int64_t dim, const char* op) {
  if (dim > std::numeric_limits<ShapeElem>::max() || dim < std::numeric_limits<ShapeElem>::min()) {
    throw std::overflow_error(
        fmt::format("[{}] A dimension of size {} does not fit in a shape (at most {}).", op, dim,
                    std::numeric_limits<ShapeElem>::max()));
  }
  return static_cast<ShapeElem>(dim);
}

int64_t checked_product(const int32_t* begin, const int32_t* end, const char* op) {
  // The product of the nonzero dims must fit too: it is the outermost
  // row-major stride of a shape like (0, 2^31-1, 2^31-1, 2^31-1), which has no
  // elements but would still overflow its strides (row_major_strides).
  const bool empty = std::find(begin, end, 0) != end;
  int64_t n = 1;
  for (const int32_t* d = begin; d != end; ++d) {
    if (__builtin_mul_overflow(n, int64_t{*d == 0 ? 1 : *d}, &n)) {
      const std::string shape = fmt::format("{}", fmt::join(begin, end, ","));
      throw std::overflow_error(
          empty ? fmt::format("[{}] Shape ({}) has no elements, but its row-major strides (which "
                              "count a 0 dimension as 1) do not fit in 64 bits.",
                              op, shape)
                : fmt::format("[{}] The number of elements of shape ({}) does not fit in 64 bits.",
                              op, shape));
    }
  }
  return empty ? 0 : n;
}

int64_t checked_nbytes(const Shape& shape, Dtype dtype, const char* op) {
  const int64_t size = checked_size(shape, op);
  const int64_t item = static_cast<int64_t>(size_of(dtype));
  if (size > std::numeric_limits<int64_t>::max() / item) {
    throw std::overflow_error(
        fmt::format("[{}] An array of shape {} and dtype {} has {} elements of {} bytes: its size "
                    "in bytes does not fit in 64 bits.",
                    op, shape_string(shape), dtype_name(dtype), size, item));
  }
  return size * item;
}

std::string shape_string(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ","));
}

StreamContext::StreamContext(StreamOrDevice s) : saved_(default_stream(default_device())) {
  if (std::holds_alternative<std::monostate>(s)) {
    // std::runtime_error, as MLX's.
    throw std::runtime_error("[StreamContext] Give a stream or a device to make the default.");
  }
  const Stream stream = to_stream(s);
  set_default_device(stream.device);
  set_default_stream(stream);
}

StreamContext::~StreamContext() {
  set_default_device(saved_.device);
  set_default_stream(saved_);
}

std::ostream& operator<<(std::ostream& os, const Dtype::Kind& k) {
  static constexpr char letters[] = {'b', 'u', 'i', 'f', 'c', 'V'};
  return os << letters[static_cast<int>(k)];
}

std::ostream& operator<<(std::ostream& os, const Device& d) {
  return os << "Device(" << (d.type == Device::gpu ? "gpu" : "cpu") << ", " << d.index << ")";
}

std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "Stream(" << s.device << ", " << s.index << ")";
}

}  // namespace mlx_lite
