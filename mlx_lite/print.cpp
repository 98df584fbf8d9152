// Printing arrays in MLX's format: array([[1, 2],
//                                         [3, 4]], dtype=int32)
#include <ostream>

#include "mlx_lite/array.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

// Axes longer than this print their first and last kEdgeItems elements.
constexpr int kEdgeItems = 3;

void print_element(std::ostream& os, const char* p, Dtype dtype) {
  dispatch_dtype(dtype, [&]<typename T>() {
    T v = *reinterpret_cast<const T*>(p);
    if constexpr (std::is_same_v<T, bool>) {
      os << (v ? "true" : "false");
    } else if constexpr (sizeof(T) == 1) {
      os << static_cast<int>(v);
    } else {
      os << static_cast<compute_type_t<T>>(v);
    }
  });
}

void print_subarray(std::ostream& os, const array& a, const char* p, int dim) {
  const int n = a.shape(dim);
  const int64_t step = a.strides()[dim] * static_cast<int64_t>(a.itemsize());
  const bool last = dim == a.ndim() - 1;
  const std::string separator = last ? ", " : ",\n" + std::string(7 + dim, ' ');
  os << "[";
  for (int i = 0; i < n; ++i) {
    if (i > 0) os << separator;
    if (i == kEdgeItems && n > 2 * kEdgeItems) {
      os << "...";
      i = n - kEdgeItems - 1;
      continue;
    }
    const char* q = p + i * step;
    if (last) {
      print_element(os, q, a.dtype());
    } else {
      print_subarray(os, a, q, dim + 1);
    }
  }
  os << "]";
}

}  // namespace

std::ostream& operator<<(std::ostream& os, array a) {
  a.eval();
  os << "array(";
  const char* p = static_cast<const char*>(a.raw_data());
  if (a.ndim() == 0) {
    print_element(os, p, a.dtype());
  } else if (a.size() == 0) {
    os << "[]";
  } else {
    print_subarray(os, a, p, 0);
  }
  return os << ", dtype=" << a.dtype() << ")";
}

std::ostream& operator<<(std::ostream& os, const Shape& shape) {
  return os << shape_string(shape);
}

}  // namespace mlx_lite
