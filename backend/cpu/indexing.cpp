// CPU kernels of Gather and Scatter. Both first turn the index arrays into one
// element offset per index position (read through the index arrays' own
// strides, any integer dtype), then copy or combine whole slices, whose
// element offsets are also computed once.
#include "mlx_lite/primitives/indexing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "backend/cpu/strided.h"
#include "mlx_lite/utils.h"

namespace mlx_lite {

namespace {

using cpu::for_each_offset;

// Calls f(i, v) with the i-th element (row-major) of integer array idx as int64.
template <typename F>
void for_each_index(const char* op, const array& idx, F&& f) {
  dispatch_dtype(idx.dtype(), [&]<typename I>() {
    if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) {
      auto* p = static_cast<const I*>(idx.raw_data());
      if (idx.flags().row_contiguous) {
        for (size_t i = 0; i < idx.size(); ++i) f(i, static_cast<int64_t>(p[i]));
      } else {
        size_t i = 0;
        for_each_offset<1>(idx.shape(), {&idx.strides()},
                           [&](const auto& off) { f(i++, static_cast<int64_t>(p[off[0]])); });
      }
    } else {
      throw std::invalid_argument(fmt::format(
          "[{}] Index arrays must have an integer dtype, got {}.", op, dtype_name(idx.dtype())));
    }
  });
}

// Element offsets (under `strides`) of every element of `shape`, row-major.
std::vector<int64_t> offsets_of(const Shape& shape, const Strides& strides) {
  std::vector<int64_t> offs;
  for_each_offset<1>(shape, {&strides}, [&](const auto& off) { offs.push_back(off[0]); });
  return offs;
}

// The first `n` entries of a shape or strides, and the rest.
template <typename V>
V head(const V& v, size_t n) {
  return V(v.begin(), v.begin() + n);
}
template <typename V>
V tail(const V& v, size_t n) {
  return V(v.begin() + n, v.end());
}

// Wraps a negative index once, as Python does.
inline int64_t wrap(int64_t v, int64_t dim) {
  return v < 0 ? v + dim : v;
}

}  // namespace

void Gather::eval_cpu(const std::vector<array>& inputs, array& out) {
  common::allocate(out);
  if (out.size() == 0) return;
  const array& src = inputs[0];
  const size_t n_idx = inputs.size() > 1 ? inputs[1].size() : 1;

  // Offset in src of the start of each slice; indices are clamped so the
  // whole slice stays inside src.
  std::vector<int64_t> base(n_idx, 0);
  for (size_t k = 0; k < axes_.size(); ++k) {
    const int ax = axes_[k];
    const int64_t dim = src.shape(ax);
    const int64_t hi = std::max<int64_t>(dim - slice_sizes_[ax], 0);
    const int64_t stride = src.strides(ax);
    for_each_index(name(), inputs[k + 1], [&](size_t i, int64_t v) {
      base[i] += std::clamp<int64_t>(wrap(v, dim), 0, hi) * stride;
    });
  }

  const auto slice = offsets_of(slice_sizes_, src.strides());
  const size_t n_slice = slice.size();
  // Whether the slice is one dense run of src (e.g. the trailing channels).
  bool dense = true;
  for (size_t j = 0; j < n_slice && dense; ++j)
    dense = slice[j] == slice[0] + static_cast<int64_t>(j);
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    auto* s = static_cast<const T*>(src.raw_data());
    auto* o = static_cast<T*>(out.raw_data());
    for (size_t i = 0; i < n_idx; ++i, o += n_slice) {
      const T* sb = s + base[i];
      if (dense) {
        std::memcpy(o, sb + slice.front(), n_slice * sizeof(T));
      } else {
        for (size_t j = 0; j < n_slice; ++j) o[j] = sb[slice[j]];
      }
    }
  });
}

namespace {

// Calls f with the function that combines an output element with an update
// under `reduce` (the loop is compiled once per op). Integer sums and
// products wrap, through uint64_t, whose overflow is defined (a signed
// overflow is undefined behaviour; C++20 defines the conversion back as
// modular). Max and min let NaN win, as scatter.comp does.
template <typename T, typename F>
void with_scatter_combine(Scatter::ReduceType reduce, F&& f) {
  using C = compute_type_t<T>;
  auto arith = [](auto op) {
    return [op](T cur, T u) {
      if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(op(static_cast<uint64_t>(cur), static_cast<uint64_t>(u)));
      } else {
        return static_cast<T>(op(static_cast<C>(cur), static_cast<C>(u)));
      }
    };
  };
  auto pick = [](auto better) {
    return [better](T cur, T u) {
      const C a = static_cast<C>(cur), b = static_cast<C>(u);
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(b)) return u;
        if (std::isnan(a)) return cur;
      }
      return better(b, a) ? u : cur;
    };
  };
  switch (reduce) {
    case Scatter::None:
      return f([](T, T u) { return u; });
    case Scatter::Sum:
      return f(arith(std::plus<>{}));
    case Scatter::Prod:
      return f(arith(std::multiplies<>{}));
    case Scatter::Max:
      return f(pick(std::greater<>{}));
    case Scatter::Min:
      return f(pick(std::less<>{}));
  }
}

}  // namespace

void Scatter::eval_cpu(const std::vector<array>& inputs, array& out) {
  const array& src = inputs[0];
  const array& upd = inputs.back();
  cpu::copy_to_row_contiguous(src, out);
  if (upd.size() == 0) return;

  const size_t n_idx_dims = static_cast<size_t>(upd.ndim() - src.ndim());
  const Shape idx_shape = head(upd.shape(), n_idx_dims);
  const Shape slice_shape = tail(upd.shape(), n_idx_dims);
  size_t n_idx = 1;
  for (auto d : idx_shape) n_idx *= d;

  // Offset in out of the start of each update slice, or -1 where the slice
  // would not fit (it is dropped).
  std::vector<int64_t> base(n_idx, 0);
  for (size_t k = 0; k < axes_.size(); ++k) {
    const int ax = axes_[k];
    const int64_t dim = src.shape(ax);
    const int64_t hi = dim - slice_shape[ax];
    const int64_t stride = out.strides(ax);
    for_each_index(name(), inputs[k + 1], [&](size_t i, int64_t v) {
      v = wrap(v, dim);
      if (base[i] < 0) return;
      base[i] = (v < 0 || v > hi) ? -1 : base[i] + v * stride;
    });
  }

  const auto out_slice = offsets_of(slice_shape, out.strides());
  const auto upd_slice = offsets_of(slice_shape, tail(upd.strides(), n_idx_dims));
  const auto upd_base = offsets_of(idx_shape, head(upd.strides(), n_idx_dims));
  const size_t n_slice = out_slice.size();
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    auto* u = static_cast<const T*>(upd.raw_data());
    auto* o = static_cast<T*>(out.raw_data());
    with_scatter_combine<T>(reduce_, [&](auto combine) {
      for (size_t i = 0; i < n_idx; ++i) {
        if (base[i] < 0) continue;
        T* ob = o + base[i];
        const T* ub = u + upd_base[i];
        for (size_t j = 0; j < n_slice; ++j) {
          ob[out_slice[j]] = combine(ob[out_slice[j]], ub[upd_slice[j]]);
        }
      }
    });
  });
}

}  // namespace mlx_lite
