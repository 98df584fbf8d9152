// Reductions, arg reductions, cumsum, mean/var, softmax and logsumexp, each
// checked against a double-precision scalar loop over the input's values.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/primitives/reduction.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::accumulation_tolerance;
using test_util::values;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Random values exactly representable in every dtype: small integers
// (non-negative for unsigned), 0/1 for bool, multiples of 1/64 in [-2, 2) for floats.
// With `for_prod`, mostly +-1 with a 2 every 16 elements, so that products
// of a hundred elements neither overflow nor underflow.
array random_array(const Shape& shape, Dtype dtype, unsigned seed = 0, bool for_prod = false) {
  std::mt19937 gen(seed);
  size_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    auto& x = v[i];
    if (dtype == bool_)
      x = gen() % 4 != 0;
    else if (for_prod)
      x = i % 16 == 0 ? 2 : (gen() % 3 == 0 && !is_unsigned(dtype) ? -1 : 1);
    else if (is_unsigned(dtype))
      x = gen() % 10;
    else if (is_integral(dtype))
      x = static_cast<int>(gen() % 11) - 5;
    else
      x = (static_cast<int>(gen() % 256) - 128) / 64.0f;
  }
  return array(v.begin(), shape, dtype);
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                  double atol = 0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rtol * std::abs(want[i]) + atol + rtol) << "at " << i;
    }
  }
}

// For each element of an array of `shape` (row-major), the row-major index
// of its slot in the result of reducing `axes`.
std::vector<size_t> slots(const Shape& shape, std::vector<int> axes) {
  const int nd = static_cast<int>(shape.size());
  for (auto& ax : axes) ax = ax < 0 ? ax + nd : ax;
  size_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    size_t rem = i, o = 0, ostride = 1;
    for (int d = nd - 1; d >= 0; --d) {
      size_t idx = rem % shape[d];
      rem /= shape[d];
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) {
        o += idx * ostride;
        ostride *= shape[d];
      }
    }
    out[i] = o;
  }
  return out;
}

// Reference reduction: folds each input element into its output slot.
std::vector<double> ref_reduce(const std::vector<double>& x, const Shape& shape,
                               const std::vector<int>& axes, double init,
                               const std::function<double(double, double)>& f) {
  auto slot = slots(shape, axes);
  size_t out_size = x.empty() ? 0 : *std::max_element(slot.begin(), slot.end()) + 1;
  std::vector<double> out(out_size, init);
  for (size_t i = 0; i < x.size(); ++i) out[slot[i]] = f(out[slot[i]], x[i]);
  return out;
}

double nan_max(double a, double b) {
  return std::isnan(a) || a > b ? a : b;
}
double nan_min(double a, double b) {
  return std::isnan(a) || a < b ? a : b;
}

struct OpCase {
  const char* name;
  std::function<array(const array&, const std::vector<int>&, bool)> op;
  double init;
  std::function<double(double, double)> f;
};

std::vector<OpCase> op_cases() {
  return {
      {"sum", [](auto& a, auto& ax, bool k) { return sum(a, ax, k); }, 0,
       [](double a, double b) { return a + b; }},
      {"prod", [](auto& a, auto& ax, bool k) { return prod(a, ax, k); }, 1,
       [](double a, double b) { return a * b; }},
      {"max", [](auto& a, auto& ax, bool k) { return max(a, ax, k); }, -kInf, nan_max},
      {"min", [](auto& a, auto& ax, bool k) { return min(a, ax, k); }, kInf, nan_min},
      {"all", [](auto& a, auto& ax, bool k) { return all(a, ax, k); }, 1,
       [](double a, double b) { return double(a != 0 && b != 0); }},
      {"any", [](auto& a, auto& ax, bool k) { return any(a, ax, k); }, 0,
       [](double a, double b) { return double(a != 0 || b != 0); }},
  };
}

Dtype expected_dtype(const std::string& op, Dtype in) {
  if (op == "all" || op == "any") return bool_;
  if (op == "sum" || op == "prod") {
    // MLX widens bool and the integers narrower than 32 bits.
    if (in == bool_ || in == int8 || in == int16) return int32;
    if (in == uint8 || in == uint16) return uint32;
  }
  return in;
}

Shape expected_shape(const Shape& shape, std::vector<int> axes, bool keepdims) {
  const int nd = static_cast<int>(shape.size());
  for (auto& ax : axes) ax = ax < 0 ? ax + nd : ax;
  Shape out;
  for (int d = 0; d < nd; ++d) {
    bool r = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!r)
      out.push_back(shape[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

using View = std::function<array(const array&)>;
array unchanged(const array& a) {
  return a;
}

// Checks every reduction over `axes` of view(random base of base_shape)
// against the reference (prod gets its own overflow-free data).
void check_all_ops(const View& view, const Shape& base_shape, Dtype dtype,
                   const std::vector<int>& axes) {
  for (const auto& c : op_cases()) {
    auto a = view(random_array(base_shape, dtype, 1, std::string(c.name) == "prod"));
    auto x = values(a);
    for (bool keepdims : {false, true}) {
      SCOPED_TRACE(fmt::format("{} of {} {} over ({}) keepdims={}", c.name, a.dtype(),
                               shape_string(a.shape()), fmt::join(axes, ","), keepdims));
      auto out = c.op(a, axes, keepdims);
      EXPECT_EQ(out.dtype(), expected_dtype(c.name, a.dtype()));
      EXPECT_EQ(out.shape(), expected_shape(a.shape(), axes, keepdims));
      auto want = ref_reduce(x, a.shape(), axes, c.init, c.f);
      expect_close(values(out), want, accumulation_tolerance(out.dtype()));
    }
  }
}

}  // namespace

TEST(Reduce, EveryOpDtypeAndAxes) {
  const std::vector<std::vector<int>> axes_sets = {{0},    {1},    {2},    {-1},     {0, 2},
                                                   {2, 0}, {1, 2}, {0, 1}, {0, 1, 2}};
  for (auto dtype : all_dtypes) {
    if (!test_util::runs_on(dtype, default_device())) continue;
    for (const auto& axes : axes_sets) check_all_ops(unchanged, {3, 5, 7}, dtype, axes);
  }
}

TEST(Reduce, DefaultOverloadsReduceEverything) {
  auto a = random_array({4, 6}, float32, 2);
  auto x = values(a);
  double s = 0;
  for (double v : x) s += v;
  EXPECT_EQ(sum(a).shape(), Shape{});
  EXPECT_NEAR(sum(a).item<float>(), s, 1e-4);
  EXPECT_EQ(sum(a, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(sum(a, 1).shape(), Shape{4});
  EXPECT_EQ(max(a).item<float>(), *std::max_element(x.begin(), x.end()));
  EXPECT_EQ(min(a, 0, true).shape(), (Shape{1, 6}));
  // A scalar reduces to itself.
  EXPECT_EQ(sum(array(3)).item<int>(), 3);
}

TEST(Reduce, PrimitivesRecordKeepdims) {
  // Reduce, ArgReduce and LogSumExp record whether the output keeps the
  // reduced dims, and nodes that differ in it are not equivalent.
  auto a = random_array({2, 3}, float32, 5);
  for (bool keep : {false, true}) {
    const std::vector<std::pair<array, array>> pairs = {
        {sum(a, 1, keep), sum(a, 1, !keep)},
        {argmax(a, 1, keep), argmax(a, 1, !keep)},
        {logsumexp(a, -1, keep), logsumexp(a, -1, !keep)}};
    for (const auto& [out, other] : pairs) {
      EXPECT_EQ(out.shape(), keep ? (Shape{2, 1}) : (Shape{2})) << out.primitive().name();
      EXPECT_FALSE(out.primitive().is_equivalent(other.primitive())) << out.primitive().name();
    }
    EXPECT_EQ(static_cast<const Reduce&>(pairs[0].first.primitive()).keepdims(), keep);
    EXPECT_EQ(static_cast<const ArgReduce&>(pairs[1].first.primitive()).keepdims(), keep);
    EXPECT_EQ(static_cast<const LogSumExp&>(pairs[2].first.primitive()).keepdims(), keep);
    EXPECT_TRUE(sum(a, 1, keep).primitive().is_equivalent(pairs[0].first.primitive()));
  }
}

TEST(Reduce, EmptyAxesReduceNothing) {
  auto a = random_array({2, 3}, bool_, 3);
  auto out = sum(a, std::vector<int>{});
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(out.dtype(), int32);
  expect_close(values(out), values(a), 0);
  auto m = max(random_array({2, 3}, float16, 4), std::vector<int>{}, true);
  EXPECT_EQ(m.shape(), (Shape{2, 3}));
}

TEST(Reduce, StridedInputs) {
  // Transposed: no dim is unit-strided in the order the reduction walks.
  View t = [](const array& a) { return transpose(a, {2, 0, 1}); };
  // Negative steps and an offset.
  View r = [](const array& a) { return slice(a, {3, 4, 1}, {-5, -6, 6}, {-1, -2, 2}); };
  // Broadcast: stride 0 dims.
  View b = [](const array& a) { return broadcast_to(a, {3, 5, 4}); };
  ASSERT_EQ(r(zeros({4, 5, 6})).shape(), (Shape{4, 3, 3}));
  for (auto dtype : {float32, int32, float16, uint8, bool_, int64}) {
    for (const std::vector<int>& axes : {std::vector<int>{0}, {1}, {2}, {0, 2}, {0, 1, 2}}) {
      check_all_ops(t, {4, 5, 6}, dtype, axes);
      check_all_ops(r, {4, 5, 6}, dtype, axes);
      check_all_ops(b, {1, 5, 1}, dtype, axes);
    }
  }
}

TEST(Reduce, LargeFloatSumIsAccurate) {
  const int n = 100003;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  double want = 0;
  for (auto& x : v) {
    x = dist(gen) + 0.1f;  // all positive: no cancellation to hide the error
    want += x;
  }
  array a(v.begin(), {n});
  EXPECT_NEAR(sum(a).item<float>(), want, 1e-6 * want);
  EXPECT_NEAR(mean(a).item<float>(), want / n, 1e-6 * want / n);
  // The same along the non-contiguous axis of a 2-D view.
  auto t = transpose(reshape(array(v.begin(), {n}), {1, n}));  // (n, 1), stride (1, n)
  EXPECT_NEAR(sum(t, 0).item<float>(), want, 1e-6 * want);
  // float16 accumulates in float: sum of 4096 ones is exact (a float16 running
  // sum would stick at 2048).
  EXPECT_EQ(static_cast<float>(sum(ones({4096}, float16)).item<float16_t>()), 4096.0f);
}

TEST(Reduce, EmptyArrays) {
  auto a = zeros({0, 3});
  EXPECT_EQ(sum(a, 0).shape(), Shape{3});
  expect_close(values(sum(a, 0)), {0, 0, 0}, 0);
  expect_close(values(prod(a, 0)), {1, 1, 1}, 0);
  expect_close(values(all(a, 0)), {1, 1, 1}, 0);
  expect_close(values(any(a, 0)), {0, 0, 0}, 0);
  EXPECT_EQ(max(a, 1).shape(), Shape{0});
  try {
    max(a, 0);
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("[max]", 0), 0u) << msg;
    EXPECT_NE(msg.find("size 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(0,3)"), std::string::npos) << msg;
  }
  EXPECT_THROW(min(a), std::invalid_argument);
}

TEST(Reduce, NaNPropagatesThroughMaxMin) {
  array a({1.0f, kNaN, 3.0f, -1.0f, 2.0f, 0.5f}, {2, 3});
  auto mx = values(max(a, 1));
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_EQ(mx[1], 2.0);
  EXPECT_TRUE(std::isnan(values(min(a))[0]));
  EXPECT_TRUE(std::isnan(values(max(astype(a, float16), 0))[1]));
}

TEST(Reduce, BadAxes) {
  auto a = zeros({2, 3});
  // The exception type is MLX's: std::out_of_range for an axis out of range
  // in sum, prod, max, min, all, any, argmax, argmin, softmax and logsumexp
  // (issue 14), std::invalid_argument for the rest.
  auto expect_error = [](auto f, const std::string& op, const std::string& what,
                         bool out_of_range) {
    try {
      f();
      FAIL() << "expected a throw";
    } catch (const std::logic_error& e) {
      std::string msg = e.what();
      EXPECT_EQ(dynamic_cast<const std::out_of_range*>(&e) != nullptr, out_of_range) << msg;
      if (!out_of_range) {
        EXPECT_NE(dynamic_cast<const std::invalid_argument*>(&e), nullptr) << msg;
      }
      EXPECT_EQ(msg.rfind("[" + op + "]", 0), 0u) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  auto expect_msg = [&](auto f, const std::string& op, const std::string& what) {
    expect_error(f, op, what, false);
  };
  auto expect_out_of_range = [&](auto f, const std::string& op, const std::string& what) {
    expect_error(f, op, what, true);
  };
  expect_out_of_range([&] { sum(a, 2); }, "sum", "Axis 2");
  expect_out_of_range([&] { prod(a, -3); }, "prod", "Axis -3");
  expect_msg([&] { max(a, {0, -2}); }, "max", "repeated");
  expect_msg([&] { all(a, {1, 1}); }, "all", "repeated");
  expect_msg([&] { mean(a, 5); }, "mean", "Axis 5");
  expect_msg([&] { var(a, {0, 0}); }, "var", "repeated");
  expect_out_of_range([&] { argmax(a, 2); }, "argmax", "Axis 2");
  expect_msg([&] { cumsum(a, -3); }, "cumsum", "Axis -3");
  expect_out_of_range([&] { softmax(a, 2); }, "softmax", "Axis 2");
  expect_msg([&] { logsumexp(a, {1, -1}); }, "logsumexp", "repeated");
  expect_msg([&] { argmin(zeros({2, 0}), 1); }, "argmin", "size 0");
  expect_msg([&] { logsumexp(zeros({0})); }, "logsumexp", "empty");
}

// Reference arg reduction along one axis; NaN wins, the first extreme wins ties.
std::vector<double> ref_arg(const std::vector<double>& x, const Shape& shape, int axis,
                            bool is_max) {
  size_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const size_t n = shape[axis];
  std::vector<double> out;
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      size_t best = 0;
      for (size_t k = 0; k < n; ++k) {
        double v = x[(o * n + k) * inner + i], b = x[(o * n + best) * inner + i];
        if (std::isnan(b)) break;
        if (std::isnan(v) || (is_max ? v > b : v < b)) best = k;
      }
      out.push_back(best);
    }
  }
  return out;
}

TEST(ArgReduce, EveryDtypeAxisAndLayout) {
  for (auto dtype : all_dtypes) {
    if (!test_util::runs_on(dtype, default_device())) continue;
    // Few distinct values, so ties are common and the first index must win.
    auto base = random_array({4, 5, 6}, dtype, 8);
    for (auto a :
         {base, transpose(base, {1, 2, 0}), slice(base, {3, 0, 5}, {-5, 5, -7}, {-1, 2, -1})}) {
      auto x = values(a);
      for (int axis = 0; axis < 3; ++axis) {
        for (bool keepdims : {false, true}) {
          SCOPED_TRACE(fmt::format("{} {} axis {}", dtype, shape_string(a.shape()), axis));
          auto mx = argmax(a, axis, keepdims);
          auto mn = argmin(a, axis - 3, keepdims);
          EXPECT_EQ(mx.dtype(), uint32);
          EXPECT_EQ(mx.shape(), expected_shape(a.shape(), {axis}, keepdims));
          EXPECT_EQ(values(mx), ref_arg(x, a.shape(), axis, true));
          EXPECT_EQ(values(mn), ref_arg(x, a.shape(), axis, false));
        }
      }
    }
  }
}

TEST(ArgReduce, TiesFlattenedAndNaN) {
  array a({1, 3, 3, 0, 3, 0}, {2, 3});
  EXPECT_EQ(argmax(a).item<uint32_t>(), 1u);
  EXPECT_EQ(argmin(a).item<uint32_t>(), 3u);
  EXPECT_EQ(argmax(a, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(values(argmax(a, 1)), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(argmin(a, 0)), (std::vector<double>{1, 0, 1}));  // column 1 ties
  array n({1.0f, kNaN, 5.0f, kNaN});
  EXPECT_EQ(argmax(n).item<uint32_t>(), 1u);
  EXPECT_EQ(argmin(n).item<uint32_t>(), 1u);
  EXPECT_EQ(argmax(array(7.0f)).item<uint32_t>(), 0u);
}

TEST(MeanVar, AgainstReference) {
  for (auto dtype : all_dtypes) {
    if (!test_util::runs_on(dtype, default_device())) continue;
    auto a = random_array({4, 5, 3}, dtype, 9);
    auto x = values(a);
    Dtype ft = is_floating_point(dtype) ? dtype : float32;
    for (const std::vector<int>& axes : {std::vector<int>{0}, {2}, {0, 2}, {0, 1, 2}}) {
      SCOPED_TRACE(fmt::format("{} axes ({})", dtype, fmt::join(axes, ",")));
      double n = 1;
      for (int ax : axes) n *= a.shape(ax);
      auto s = ref_reduce(x, a.shape(), axes, 0, std::plus<>());
      std::vector<double> mu(s.size());
      for (size_t i = 0; i < s.size(); ++i) mu[i] = s[i] / n;
      auto m = mean(a, axes);
      EXPECT_EQ(m.dtype(), ft);
      expect_close(values(m), mu, accumulation_tolerance(ft) * 2);
      // Variance from the squared deviations from the reference mean.
      auto slot = slots(a.shape(), axes);
      auto sq = x;
      for (size_t i = 0; i < x.size(); ++i) sq[i] = std::pow(x[i] - mu[slot[i]], 2);
      auto ss = ref_reduce(sq, a.shape(), axes, 0, std::plus<>());
      for (int ddof : {0, 1}) {
        std::vector<double> want(ss.size());
        for (size_t i = 0; i < ss.size(); ++i) want[i] = ss[i] / (n - ddof);
        auto v = var(a, axes, true, ddof);
        EXPECT_EQ(v.dtype(), ft);
        EXPECT_EQ(v.shape(), expected_shape(a.shape(), axes, true));
        expect_close(values(v), want, accumulation_tolerance(ft) * 4,
                     accumulation_tolerance(ft) * 4);
      }
    }
  }
  // ddof >= n: division by zero, as numpy.
  EXPECT_TRUE(std::isinf(var(array({1.0f, 2.0f}), false, 2).item<float>()));
  EXPECT_NEAR(var(array({1.0f, 2.0f, 3.0f, 4.0f})).item<float>(), 1.25f, 1e-6);
}

// Reference cumsum along one axis.
std::vector<double> ref_cumsum(const std::vector<double>& x, const Shape& shape, int axis,
                               bool reverse, bool inclusive) {
  size_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int n = shape[axis];
  std::vector<double> out(x.size());
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      double acc = 0;
      for (int k = 0; k < n; ++k) {
        int kk = reverse ? n - 1 - k : k;
        size_t at = (o * n + kk) * inner + i;
        if (inclusive) acc += x[at];
        out[at] = acc;
        if (!inclusive) acc += x[at];
      }
    }
  }
  return out;
}

TEST(Cumsum, AxesDirectionsDtypesLayouts) {
  for (auto dtype : all_dtypes) {
    if (!test_util::runs_on(dtype, default_device())) continue;
    auto base = random_array({3, 4, 5}, dtype, 10);
    for (auto a :
         {base, transpose(base, {2, 1, 0}), slice(base, {2, 0, 4}, {-4, 4, -6}, {-1, 1, -2}),
          broadcast_to(random_array({1, 4, 1}, dtype, 11), {3, 4, 5})}) {
      auto x = values(a);
      for (int axis = 0; axis < 3; ++axis) {
        for (bool reverse : {false, true}) {
          for (bool inclusive : {true, false}) {
            SCOPED_TRACE(fmt::format("{} {} axis {} reverse {} inclusive {}", dtype,
                                     shape_string(a.shape()), axis, reverse, inclusive));
            auto out = cumsum(a, axis, reverse, inclusive);
            EXPECT_EQ(out.dtype(), dtype == bool_ ? int32 : dtype);
            EXPECT_EQ(out.shape(), a.shape());
            expect_close(values(out), ref_cumsum(x, a.shape(), axis, reverse, inclusive),
                         accumulation_tolerance(out.dtype()) * 2,
                         accumulation_tolerance(out.dtype()) * 4);
          }
        }
      }
    }
  }
}

TEST(Cumsum, Flattened) {
  array a({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = cumsum(transpose(a));
  EXPECT_EQ(out.shape(), Shape{6});
  EXPECT_EQ(values(out), (std::vector<double>{1, 5, 7, 12, 15, 21}));
  EXPECT_EQ(values(cumsum(a, true, false)), (std::vector<double>{20, 18, 15, 11, 6, 0}));
}

// Reference softmax over the given axes (via the reduction reference).
std::vector<double> ref_softmax(const std::vector<double>& x, const Shape& shape,
                                const std::vector<int>& axes) {
  auto m = ref_reduce(x, shape, axes, -kInf, nan_max);
  auto slot = slots(shape, axes);
  std::vector<double> out(x.size());
  std::vector<double> den(m.size(), 0);
  for (size_t i = 0; i < x.size(); ++i) den[slot[i]] += std::exp(x[i] - m[slot[i]]);
  for (size_t i = 0; i < x.size(); ++i) out[i] = std::exp(x[i] - m[slot[i]]) / den[slot[i]];
  return out;
}

TEST(Softmax, MatchesReferenceAndRowsSumToOne) {
  for (auto dtype : {float32, float16, bfloat16, int32}) {
    auto base = random_array({3, 4, 5}, dtype, 12);
    for (auto a : {base, transpose(base, {0, 2, 1})}) {
      auto x = values(a);
      for (const std::vector<int>& axes : {std::vector<int>{-1}, {1}, {0}, {0, 2}}) {
        for (bool precise : {false, true}) {
          SCOPED_TRACE(
              fmt::format("{} axes ({}) precise {}", dtype, fmt::join(axes, ","), precise));
          auto out = softmax(a, axes, precise);
          Dtype ft = is_floating_point(dtype) ? dtype : float32;
          EXPECT_EQ(out.dtype(), ft);
          EXPECT_EQ(out.shape(), a.shape());
          expect_close(values(out), ref_softmax(x, a.shape(), axes), accumulation_tolerance(ft) * 2,
                       1e-6);
          auto total = values(sum(astype(out, float32), axes));
          for (double t : total) EXPECT_NEAR(t, 1.0, accumulation_tolerance(ft) * 10);
        }
      }
    }
  }
  // Large logits do not overflow.
  auto big = values(softmax(array({1000.0f, 1000.0f, 990.0f}), -1));
  EXPECT_NEAR(big[0], 0.5 / (1 + 0.5 * std::exp(-10.0)), 1e-6);
  EXPECT_NEAR(big[0], big[1], 1e-7);
  auto flat = softmax(array({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2}));
  EXPECT_NEAR(values(sum(flat))[0], 1.0, 1e-6);
}

TEST(LogSumExp, StableAndHandlesInfinities) {
  for (auto dtype : {float32, float16, bfloat16, int32}) {
    auto base = random_array({3, 4, 5}, dtype, 13);
    for (auto a : {base, transpose(base, {2, 0, 1})}) {
      auto x = values(a);
      for (const std::vector<int>& axes : {std::vector<int>{-1}, {0}, {0, 2}, {0, 1, 2}}) {
        for (bool keepdims : {false, true}) {
          SCOPED_TRACE(
              fmt::format("{} axes ({}) keepdims {}", dtype, fmt::join(axes, ","), keepdims));
          auto out = logsumexp(a, axes, keepdims);
          Dtype ft = is_floating_point(dtype) ? dtype : float32;
          EXPECT_EQ(out.dtype(), ft);
          EXPECT_EQ(out.shape(), expected_shape(a.shape(), axes, keepdims));
          auto s = ref_reduce(x, a.shape(), axes, 0,
                              [](double acc, double v) { return acc + std::exp(v); });
          for (auto& v : s) v = std::log(v);
          expect_close(values(out), s, accumulation_tolerance(ft) * 2, accumulation_tolerance(ft));
        }
      }
    }
  }
  // exp(1000) overflows float; the shifted form does not.
  array big({1000.0f, 1000.0f, -kInf, -kInf, -kInf, -kInf, kInf, 0.0f}, {4, 2});
  for (int axis : {1, 0}) {
    auto in = axis == 1 ? big : transpose(big);  // the fast path and the composed one
    auto out = values(logsumexp(in, axis == 1 ? 1 : 0));
    EXPECT_NEAR(out[0], 1000.0 + std::log(2.0), 1e-3);
    EXPECT_EQ(out[1], -kInf);
    EXPECT_EQ(out[2], -kInf);
    EXPECT_EQ(out[3], kInf);
  }
  EXPECT_NEAR(values(logsumexp(array({1000.0f, 1000.0f}, {1, 2}), 0))[1], 1000.0, 1e-3);
}
