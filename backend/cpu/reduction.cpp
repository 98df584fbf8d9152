// CPU kernels of Reduce, ArgReduce, Softmax and LogSumExp.
//
// Reduce reads its input through its own strides. When the reduced elements
// of each output form one contiguous run (the last axes of a row-contiguous
// array, or all axes of any dense array) each output is a tight loop (Eigen for
// floats); otherwise the input is walked once in memory order, accumulating
// into a buffer of outputs.
#include "mlx_lite/primitives/reduction.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "backend/cpu/strided.h"
#include "backend/cpu/wrapping.h"

namespace mlx_lite {

namespace {

template <typename T>
constexpr bool is_float_v = std::is_floating_point_v<compute_type_t<T>>;

// The result type of a reduction of In (MLX: bool and integers narrower than
// 32 bits sum and multiply in 32 bits of their signedness; Reduce::output_dtype).
template <Reduce::ReduceType R, typename In>
using out_t = std::conditional_t<
    R == Reduce::And || R == Reduce::Or, bool,
    std::conditional_t<
        (R == Reduce::Sum || R == Reduce::Prod),
        std::conditional_t<
            std::is_same_v<In, bool>, int32_t,
            std::conditional_t<std::is_integral_v<In> && (sizeof(In) < 4),
                               std::conditional_t<std::is_unsigned_v<In>, uint32_t, int32_t>, In>>,
        In>>;

// The accumulator: double for float sums and products (so 1e5 float32 terms
// stay accurate), 64-bit for integer ones (wrapping to the output as MLX's
// 32-bit accumulators do), the compute type for min/max, bool for all/any.
template <Reduce::ReduceType R, typename In>
using acc_t = std::conditional_t<
    R == Reduce::And || R == Reduce::Or, bool,
    std::conditional_t<R == Reduce::Sum || R == Reduce::Prod,
                       std::conditional_t<is_float_v<In>, double,
                                          std::conditional_t<std::is_unsigned_v<out_t<R, In>> &&
                                                                 !std::is_same_v<In, bool>,
                                                             uint64_t, int64_t>>,
                       compute_type_t<In>>>;

template <Reduce::ReduceType R, typename A>
constexpr A init_value() {
  if constexpr (R == Reduce::Sum || R == Reduce::Or)
    return A(0);
  else if constexpr (R == Reduce::Prod || R == Reduce::And)
    return A(1);
  else if constexpr (R == Reduce::Max) {
    if constexpr (std::is_floating_point_v<A>)
      return -std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::lowest();
  } else {
    if constexpr (std::is_floating_point_v<A>)
      return std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::max();
  }
}

// Combines two partial results; max and min let NaN win, as numpy does.
// Integer sums and products wrap, as numpy's do (cpu/wrapping.h).
template <Reduce::ReduceType R, typename A>
inline A combine(A a, A b) {
  if constexpr (R == Reduce::Sum)
    return cpu::wrapping(a, b, std::plus<>{});
  else if constexpr (R == Reduce::Prod)
    return cpu::wrapping(a, b, std::multiplies<>{});
  else if constexpr (R == Reduce::And)
    return a && b;
  else if constexpr (R == Reduce::Or)
    return a || b;
  else if constexpr (R == Reduce::Max) {
    if constexpr (std::is_floating_point_v<A>)
      return (a > b || std::isnan(a)) ? a : b;
    else
      return a > b ? a : b;
  } else {
    if constexpr (std::is_floating_point_v<A>)
      return (a < b || std::isnan(a)) ? a : b;
    else
      return a < b ? a : b;
  }
}

template <typename A, typename In>
inline A to_acc(In x) {
  return static_cast<A>(static_cast<compute_type_t<In>>(x));
}

template <typename Out, typename A>
inline Out from_acc(A x) {
  return static_cast<Out>(static_cast<compute_type_t<Out>>(x));
}

// Reduces n contiguous elements. Floats go through Eigen (vectorized) in
// blocks, 16-bit ones converted to float first; blocks combine in the accumulator.
template <Reduce::ReduceType R, typename In>
acc_t<R, In> reduce_run(const In* p, int64_t n) {
  using A = acc_t<R, In>;
  A acc = init_value<R, A>();
  if constexpr (is_float_v<In> && R != Reduce::And && R != Reduce::Or) {
    // Blocks in float, or in double for float64.
    using S = std::conditional_t<std::is_same_v<In, double>, double, float>;
    constexpr int64_t kBlock = 256;
    S buf[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      int64_t m = std::min(kBlock, n - i);
      const S* src;
      if constexpr (std::is_same_v<In, S>) {
        src = p + i;
      } else {
        for (int64_t j = 0; j < m; ++j) buf[j] = static_cast<S>(p[i + j]);
        src = buf;
      }
      Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>> v(src, m);
      S part;
      if constexpr (R == Reduce::Sum)
        part = v.sum();
      else if constexpr (R == Reduce::Prod)
        part = v.prod();
      else if constexpr (R == Reduce::Max)
        part = v.template maxCoeff<Eigen::PropagateNaN>();
      else
        part = v.template minCoeff<Eigen::PropagateNaN>();
      acc = combine<R, A>(acc, static_cast<A>(part));
    }
    // A float product of a block can overflow where the double one would not;
    // MLX accumulates products in float too, so this matches it.
  } else {
    for (int64_t i = 0; i < n; ++i) acc = combine<R, A>(acc, to_acc<A>(p[i]));
  }
  return acc;
}

// The input's dims split into kept and reduced ones (size-1 dims dropped).
struct Split {
  Shape kept_shape, red_shape;
  Strides kept_strides, red_strides;
};

Split split_dims(const array& in, const std::vector<int>& axes) {
  Split sp;
  for (int i = 0; i < in.ndim(); ++i) {
    if (in.shape(i) == 1) continue;
    bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    (reduced ? sp.red_shape : sp.kept_shape).push_back(in.shape(i));
    (reduced ? sp.red_strides : sp.kept_strides).push_back(in.strides()[i]);
  }
  return sp;
}

// The length of the run when the reduced dims of each output are one dense
// block of stride 1 (in any order: the reduction does not care), else -1.
int64_t contiguous_run(Split sp) {
  std::vector<int> order(sp.red_shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return sp.red_strides[a] < sp.red_strides[b]; });
  int64_t run = 1;
  for (int i : order) {
    if (sp.red_strides[i] != run) return -1;
    run *= sp.red_shape[i];
  }
  return run;
}

template <Reduce::ReduceType R, typename In>
void reduce(const array& in, array& out, const std::vector<int>& axes) {
  using Out = out_t<R, In>;
  using A = acc_t<R, In>;
  common::allocate(out);
  auto* src = static_cast<const In*>(in.raw_data());
  auto* dst = static_cast<Out*>(out.raw_data());
  if (in.size() == 0) {
    std::fill_n(dst, out.size(), from_acc<Out>(init_value<R, A>()));
    return;
  }
  auto sp = split_dims(in, axes);
  if (int64_t run = contiguous_run(sp); run > 0) {
    cpu::for_each_offset<1>(sp.kept_shape, {&sp.kept_strides}, [&](const auto& off) {
      *dst++ = from_acc<Out>(reduce_run<R>(src + off[0], run));
    });
    return;
  }
  // General layout: walk the input in memory order (dims by falling stride),
  // each element added to its output's accumulator (reduced dims: stride 0).
  std::vector<int> dims;
  for (int i = 0; i < in.ndim(); ++i) {
    if (in.shape(i) != 1) dims.push_back(i);
  }
  Strides acc_strides_full(in.ndim(), 0);
  int64_t st = 1;
  for (int i = in.ndim() - 1; i >= 0; --i) {
    if (std::find(axes.begin(), axes.end(), i) != axes.end()) continue;
    acc_strides_full[i] = st;
    st *= in.shape(i);
  }
  std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) {
    return std::abs(in.strides()[a]) > std::abs(in.strides()[b]);
  });
  Shape shape;
  Strides in_strides, acc_strides;
  for (int d : dims) {
    shape.push_back(in.shape(d));
    in_strides.push_back(in.strides()[d]);
    acc_strides.push_back(acc_strides_full[d]);
  }
  // A reduced innermost dim (a broadcast, a transposed row) is walked here,
  // in a register: one accumulator store per run instead of one per element.
  int64_t run = 1, run_stride = 0;
  if (!shape.empty() && acc_strides.back() == 0) {
    run = shape.back();
    run_stride = in_strides.back();
    shape.pop_back();
    in_strides.pop_back();
    acc_strides.pop_back();
  }
  std::vector<A> acc(out.size(), init_value<R, A>());
  cpu::for_each_offset<2>(shape, {&in_strides, &acc_strides}, [&](const auto& off) {
    A a = acc[off[1]];
    for (int64_t i = 0; i < run; ++i) a = combine<R, A>(a, to_acc<A>(src[off[0] + i * run_stride]));
    acc[off[1]] = a;
  });
  for (size_t i = 0; i < acc.size(); ++i) dst[i] = from_acc<Out>(acc[i]);
}

}  // namespace

void Reduce::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& in = inputs[0];
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    switch (type_) {
      case And:
        return reduce<And, T>(in, out, axes_);
      case Or:
        return reduce<Or, T>(in, out, axes_);
      case Sum:
        return reduce<Sum, T>(in, out, axes_);
      case Prod:
        return reduce<Prod, T>(in, out, axes_);
      case Min:
        return reduce<Min, T>(in, out, axes_);
      case Max:
        return reduce<Max, T>(in, out, axes_);
    }
  });
}

namespace {

// Calls f(in_offset, out_index) for each line along `axis` (in row-major
// order of the other dims, which is the order of a row-contiguous output).
template <typename F>
void for_each_line(const array& in, int axis, F&& f) {
  const auto [shape, strides] = common::without_axis(in, axis);
  int64_t line = 0;
  cpu::for_each_offset<1>(shape, {&strides}, [&](const auto& off) { f(off[0], line++); });
}

}  // namespace

void ArgReduce::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& in = inputs[0];
  common::allocate(out);
  auto* dst = static_cast<uint32_t*>(out.raw_data());
  const int64_t n = in.shape(axis_);
  const int64_t st = in.strides()[axis_];
  const bool is_max = type_ == ArgMax;
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    using C = compute_type_t<T>;
    auto* src = static_cast<const T*>(in.raw_data());
    for_each_line(in, axis_, [&](int64_t off, int64_t line) {
      const T* p = src + off;
      C best = static_cast<C>(p[0]);
      uint32_t best_i = 0;
      for (int64_t i = 1; i < n; ++i) {
        C v = static_cast<C>(p[i * st]);
        bool better = is_max ? v > best : v < best;
        if constexpr (std::is_floating_point_v<C>) {
          // The first NaN wins and stays (nothing compares better than it).
          if (std::isnan(best)) break;
          better = better || std::isnan(v);
        }
        if (better) {
          best = v;
          best_i = static_cast<uint32_t>(i);
        }
      }
      dst[line] = best_i;
    });
  });
}

namespace {

// The type softmax and logsumexp compute in: double for float64, else float.
template <typename T>
using row_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Calls f(row, index) with each last-axis row of `in` copied to a row_t buffer.
template <typename T, typename F>
void for_each_row(const array& in, F&& f) {
  using S = row_t<T>;
  const int axis = in.ndim() - 1;
  const int64_t n = in.shape(axis);
  const int64_t st = in.strides()[axis];
  auto* src = static_cast<const T*>(in.raw_data());
  std::vector<S> buf(n);
  for_each_line(in, axis, [&](int64_t off, int64_t line) {
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<S>(src[off + i * st]);
    f(Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>>(buf.data(), n), line);
  });
}

}  // namespace

void Softmax::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& in = inputs[0];
  common::allocate(out);
  // The CPU computes every dtype in float32 (float64 in double), so `precise`
  // changes nothing here.
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    if constexpr (is_float_v<T>) {
      auto* dst = static_cast<T*>(out.raw_data());
      const int64_t n = in.shape(-1);
      using S = row_t<T>;
      for_each_row<T>(in, [&](Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>> v, int64_t line) {
        S m = v.template maxCoeff<Eigen::PropagateNaN>();
        v = (v - m).exp();
        v *= S(1) / v.sum();
        for (int64_t i = 0; i < n; ++i) dst[line * n + i] = static_cast<T>(v[i]);
      });
    } else {
      throw std::invalid_argument("[Softmax] Expected a floating point input.");
    }
  });
}

void LogSumExp::eval_cpu(const std::vector<array>& inputs, array& out) {
  const auto& in = inputs[0];
  common::allocate(out);
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    if constexpr (is_float_v<T>) {
      auto* dst = static_cast<T*>(out.raw_data());
      using S = row_t<T>;
      for_each_row<T>(in, [&](Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>> v, int64_t line) {
        S m = v.template maxCoeff<Eigen::PropagateNaN>();
        // An infinite max is the answer (and shifting by it would give NaN).
        S r = std::isinf(m) ? m : m + std::log((v - m).exp().sum());
        dst[line] = static_cast<T>(r);
      });
    } else {
      throw std::invalid_argument("[LogSumExp] Expected a floating point input.");
    }
  });
}

}  // namespace mlx_lite
