// CPU kernels of Sort and ArgSort: per line, std::stable_sort of the
// positions 0..n-1 by their values (NaN last), then the values or the
// positions written into the row-contiguous output.
#include "mlx_lite/primitives/sort.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "backend/cpu/strided.h"

namespace mlx_lite {

namespace {

// a < b with NaN after every number and equal to every NaN (strict weak
// order, so std::stable_sort is defined on it); -0 == +0 as `<` has it.
template <typename C>
bool nan_last_less(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(b)) return !std::isnan(a);
    if (std::isnan(a)) return false;
  }
  return a < b;
}

// Sorts every line of `in` along `axis`; `write(q, stride, p, src, src_stride,
// order)` stores line results from the sorted positions `order`.
template <typename T, typename Write>
void sort_lines(const array& in, const array& out, int axis, Write write) {
  using C = compute_type_t<T>;
  const int64_t n = in.shape(axis);
  if (n == 0 || in.size() == 0) return;
  const auto out_strides = row_major_strides(out.shape());
  Shape shape;
  Strides in_st, out_st;
  for (int i = 0; i < in.ndim(); ++i) {
    if (i == axis) continue;
    shape.push_back(in.shape(i));
    in_st.push_back(in.strides()[i]);
    out_st.push_back(out_strides[i]);
  }
  const int64_t si = in.strides()[axis], so = out_strides[axis];
  const T* src = static_cast<const T*>(in.raw_data());
  std::vector<uint32_t> order(n);
  cpu::for_each_offset<2>(shape, {&in_st, &out_st}, [&](const auto& off) {
    const T* p = src + off[0];
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t i, uint32_t j) {
      return nan_last_less(static_cast<C>(p[i * si]), static_cast<C>(p[j * si]));
    });
    write(off[1], so, p, si, order);
  });
}

}  // namespace

void Sort::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& in = inputs[0];
  common::allocate(out);
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    T* dst = static_cast<T*>(out.raw_data());
    // Values are copied from their positions, so -0 and NaN payloads survive.
    sort_lines<T>(in, out, axis_,
                  [&](int64_t q, int64_t so, const T* p, int64_t si, const auto& order) {
                    for (size_t k = 0; k < order.size(); ++k) dst[q + k * so] = p[order[k] * si];
                  });
  });
}

void ArgSort::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& in = inputs[0];
  common::allocate(out);
  auto* dst = static_cast<uint32_t*>(out.raw_data());
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    sort_lines<T>(in, out, axis_, [&](int64_t q, int64_t so, const T*, int64_t, const auto& order) {
      for (size_t k = 0; k < order.size(); ++k) dst[q + k * so] = order[k];
    });
  });
}

}  // namespace mlx_lite
