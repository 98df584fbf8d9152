// Test helpers for GoogleTest users of mlx_lite (header-only; link the CMake
// target mlx_lite::testing, which brings GoogleTest and gmock):
//
//   EXPECT_ALLCLOSE(actual, expected[, rtol[, atol[, equal_nan]]]);
//   ASSERT_ALLCLOSE(...);
//   EXPECT_THAT(actual, mlx_lite::test::AllClose(expected[, rtol[, atol[, equal_nan]]]));
//   EXPECT_TRUE(mlx_lite::test::check_grads(fun, {x, y}));
//
// allclose follows numpy.allclose (|actual - expected| <= atol + rtol *
// |expected|, elementwise, after broadcasting; the dtypes may differ); its
// failure message shows both shapes and dtypes, how many elements differ, and
// the worst index with its two values and their absolute and relative error.
// The AllClose matcher and the macros report the same message.
//
// check_grads follows JAX's check_grads and PyTorch's gradcheck: it compares
// the jvp of `fun` with central finite differences along a random direction,
// and the vjp through the identity <u, J v> = <vjp(u), v> against both the
// finite differences and the jvp. Order 2 also checks the derivative
// functions (x, t) -> jvp(fun, x, t) and (x, u) -> vjp(fun, x, u) the same
// way, so second derivatives are checked too. The jvp and vjp run on the
// default device; the finite differences on the CPU.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mlx_lite/mlx_lite.h"

/// GoogleTest helpers: allclose, the AllClose matcher, check_grads (the
/// ALLCLOSE macros are at the end of the file).
///
/// The namespace is `test`, not `testing`: test files commonly say `using
/// namespace mlx_lite;`, and a mlx_lite::testing would then make every
/// unqualified `testing::` (GoogleTest's and gmock's namespace, which their own
/// macros and users' code name that way) ambiguous. GoogleTest and gmock
/// declare all their names inside their namespace testing, and none of them is `test`, so
/// `test::` stays unambiguous even with `using namespace testing;` too
/// (tests/test_testing_namespace.cpp keeps it so).
namespace mlx_lite::test {

namespace detail {

// The precision the finite differences are evaluated in. The issue asks for
// float64, which the library does not have yet: until it does, `fun` is
// evaluated in float32 and the differences are accumulated in double on the
// host with Richardson extrapolation, which cancels the O(h^2) truncation
// error so that a step large enough to keep float32 rounding small (1e-2)
// still gives ~1e-5 relative accuracy. With float64, changing FdValue to
// double (and the step to ~1e-4 in default_step) is the only change.
using FdValue = float;
inline constexpr Dtype kFdDtype = TypeToDtype<FdValue>();

inline double default_step() {
  return kFdDtype == float32 ? 1e-2 : 1e-4;
}

// Tolerances by the least precise dtype involved.
inline double default_tolerance(Dtype t) {
  if (t == float16) return 5e-2;
  if (t == bfloat16) return 1e-1;
  return 1e-3;
}

class DefaultDeviceScope {
 public:
  explicit DefaultDeviceScope(Device d) : saved_(default_device()) { set_default_device(d); }
  ~DefaultDeviceScope() { set_default_device(saved_); }
  DefaultDeviceScope(const DefaultDeviceScope&) = delete;
  DefaultDeviceScope& operator=(const DefaultDeviceScope&) = delete;

 private:
  Device saved_;
};

// The elements of `a`, row-major, as doubles (read on the CPU).
inline std::vector<double> to_host(const array& a) {
  const Device cpu(Device::cpu);
  array c = contiguous(astype(a, kFdDtype, cpu), false, cpu);
  eval(c);
  const FdValue* p = c.data<FdValue>();
  return std::vector<double>(p, p + c.size());
}

inline std::string shape_text(const Shape& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << (shape.size() == 1 ? ",)" : ")");
  return os.str();
}

// The multi-index of row-major element `flat` of `shape`.
inline std::string index_text(size_t flat, const Shape& shape) {
  std::vector<size_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < idx.size(); ++i) os << (i ? ", " : "") << idx[i];
  os << ")";
  return os.str();
}

inline std::string number(double v) {
  std::ostringstream os;
  os.precision(8);
  os << v;
  return os.str();
}

inline std::string tolerance_text(double rtol, double atol, bool equal_nan = false) {
  return "rtol " + number(rtol) + ", atol " + number(atol) + (equal_nan ? ", NaNs equal" : "");
}

// Compares host values elementwise. On failure the message names how many
// elements differ and the worst one (the largest excess over its tolerance;
// any NaN mismatch first); on success, the largest absolute error (what a
// negated check, such as testing::Not(AllClose(...)), reports).
inline ::testing::AssertionResult compare(const std::vector<double>& actual,
                                          const std::vector<double>& expected, const Shape& shape,
                                          double rtol, double atol, bool equal_nan,
                                          const char* actual_name, const char* expected_name) {
  size_t bad = 0, worst = 0, largest = 0;
  double worst_excess = -1, largest_error = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i];
    const double e = expected[i];
    double excess;
    if (std::isnan(a) || std::isnan(e)) {
      if (equal_nan && std::isnan(a) && std::isnan(e)) continue;
      excess = std::numeric_limits<double>::infinity();
    } else if (a == e) {  // equal infinities too
      continue;
    } else if (std::isinf(a) || std::isinf(e)) {  // no tolerance covers an infinity
      excess = std::numeric_limits<double>::infinity();
    } else {
      excess = std::abs(a - e) - (atol + rtol * std::abs(e));
      if (!(excess > 0)) {
        if (std::abs(a - e) > largest_error) largest_error = std::abs(a - e), largest = i;
        continue;
      }
    }
    ++bad;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  if (bad == 0) {
    if (actual.empty()) return ::testing::AssertionSuccess() << "both are empty.";
    return ::testing::AssertionSuccess()
           << "all " << actual.size() << " elements are close (" << tolerance_text(rtol, atol)
           << "); the largest absolute error, " << number(largest_error) << ", is at index "
           << index_text(largest, shape) << ".";
  }
  const double a = actual[worst];
  const double e = expected[worst];
  const double abs_err = std::abs(a - e);
  return ::testing::AssertionFailure()
         << bad << " of " << actual.size() << " elements differ (" << tolerance_text(rtol, atol)
         << "); the worst, at index " << index_text(worst, shape) << ": " << actual_name << " "
         << number(a) << ", " << expected_name << " " << number(e) << ", absolute error "
         << number(abs_err) << ", relative error " << number(abs_err / std::abs(e)) << ".";
}

inline std::string describe(const array& a) {
  std::ostringstream os;
  os << "shape " << shape_text(a.shape()) << " and dtype " << a.dtype();
  return os.str();
}

}  // namespace detail

/// numpy.allclose with a message: actual and expected broadcast together and
/// agree elementwise within atol + rtol * |expected|. NaNs are equal only when
/// equal_nan; infinities must match exactly.
inline ::testing::AssertionResult allclose(const array& actual, const array& expected,
                                           double rtol = 1e-5, double atol = 1e-8,
                                           bool equal_nan = false) {
  const std::string shapes = "actual has " + detail::describe(actual) + ", expected has " +
                             detail::describe(expected) + ": ";
  std::vector<array> both;
  try {
    both = broadcast_arrays({actual, expected}, Device(Device::cpu));
  } catch (const std::invalid_argument&) {
    return ::testing::AssertionFailure() << shapes << "the shapes do not broadcast together.";
  }
  auto result = detail::compare(detail::to_host(both[0]), detail::to_host(both[1]), both[0].shape(),
                                rtol, atol, equal_nan, "actual", "expected");
  if (result) return result;
  return ::testing::AssertionFailure() << shapes << result.message();
}

namespace detail {

inline ::testing::AssertionResult allclose_format(const char* actual_text,
                                                  const char* expected_text, const array& actual,
                                                  const array& expected, double rtol = 1e-5,
                                                  double atol = 1e-8, bool equal_nan = false) {
  auto result = test::allclose(actual, expected, rtol, atol, equal_nan);
  if (result) return result;
  return ::testing::AssertionFailure()
         << actual_text << " is not close to " << expected_text << ".\n"
         << result.message();
}

// gmock's face of allclose: matches, explains and describes with allclose's
// own messages, so EXPECT_THAT reports what EXPECT_ALLCLOSE does.
class AllCloseMatcher : public ::testing::MatcherInterface<const array&> {
 public:
  AllCloseMatcher(array expected, double rtol, double atol, bool equal_nan)
      : expected_(std::move(expected)), rtol_(rtol), atol_(atol), equal_nan_(equal_nan) {}

  bool MatchAndExplain(const array& actual,
                       ::testing::MatchResultListener* listener) const override {
    auto result = test::allclose(actual, expected_, rtol_, atol_, equal_nan_);
    *listener << result.message();
    return static_cast<bool>(result);
  }
  void DescribeTo(std::ostream* os) const override { *os << "is close to " << expected_text(); }
  void DescribeNegationTo(std::ostream* os) const override {
    *os << "is not close to " << expected_text();
  }

 private:
  // The expected values (summarized past a few per axis, as printing does),
  // its shape and the tolerances.
  std::string expected_text() const {
    std::ostringstream os;
    os << expected_ << " of " << describe(expected_) << " ("
       << tolerance_text(rtol_, atol_, equal_nan_) << ")";
    return os.str();
  }

  array expected_;
  double rtol_, atol_;
  bool equal_nan_;
};

}  // namespace detail

/// The gmock matcher of allclose (same arguments and defaults):
///   EXPECT_THAT(actual, AllClose(expected));
///   EXPECT_THAT(actual, testing::Not(AllClose(expected, 1e-3)));
/// A mismatch is explained as EXPECT_ALLCLOSE explains it (shapes and dtypes,
/// how many elements differ, the worst index, its values and errors, the
/// tolerances); a match, for a negated matcher, by its largest error.
inline ::testing::Matcher<const array&> AllClose(const array& expected, double rtol = 1e-5,
                                                 double atol = 1e-8, bool equal_nan = false) {
  return ::testing::MakeMatcher(new detail::AllCloseMatcher(expected, rtol, atol, equal_nan));
}

namespace detail {

using Fun = std::function<std::vector<array>(const std::vector<array>&)>;

// Random normal directions of the given shapes and dtypes (deterministic:
// seeded by `seed`), evaluated on the CPU.
inline std::vector<array> directions(const std::vector<array>& like, uint64_t seed) {
  std::vector<array> out;
  const Device cpu(Device::cpu);
  for (size_t i = 0; i < like.size(); ++i) {
    array d = astype(random::normal(like[i].shape(), float32, random::key(seed + i), cpu),
                     like[i].dtype(), cpu);
    eval(d);
    out.push_back(d);
  }
  return out;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// The sum of the squared elementwise tolerances of a dot product's terms.
// Its square root bounds the dot product's error: an inner product of n
// terms, each within its own tolerance, errs by about that much (not n times
// one term's), so one wrong element among many still shows.
inline double dot_tolerance(const std::vector<double>& a, const std::vector<double>& b, double rtol,
                            double atol) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double t = atol + rtol * std::abs(a[i] * b[i]);
    s += t * t;
  }
  return s;
}

// fun as a function of the inputs listed in `diff` alone (the others fixed
// at their values in `all`), giving only its floating-point outputs.
inline Fun restrict_to(const Fun& fun, const std::vector<array>& all,
                       const std::vector<int>& diff) {
  return [fun, all, diff](const std::vector<array>& xs) {
    std::vector<array> args = all;
    for (size_t k = 0; k < diff.size(); ++k) args[diff[k]] = xs[k];
    std::vector<array> outs;
    for (auto& o : fun(args)) {
      if (is_floating_point(o.dtype())) outs.push_back(o);
    }
    return outs;
  };
}

inline ::testing::AssertionResult check_order(const Fun& fun, const std::vector<array>& inputs,
                                              int order, double eps, std::optional<double> atol_in,
                                              std::optional<double> rtol_in,
                                              const std::string& what, uint64_t seed) {
  // Differentiate the floating inputs and outputs; the others (indices,
  // masks) are held fixed and ignored.
  std::vector<int> diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (is_floating_point(inputs[i].dtype())) diff.push_back(static_cast<int>(i));
  }
  if (diff.empty()) {
    return ::testing::AssertionFailure() << what << " has no floating-point inputs to check.";
  }
  const Fun restricted = restrict_to(fun, inputs, diff);
  std::vector<array> x;
  for (int i : diff) x.push_back(inputs[i]);

  const std::vector<array> v = directions(x, seed);
  auto [outs, jv] = jvp(restricted, x, v);
  if (outs.empty()) {
    return ::testing::AssertionFailure() << what << " has no floating-point outputs to check.";
  }
  const std::vector<array> u = directions(outs, seed + 1000);
  const std::vector<array> vu = vjp(restricted, x, u).second;

  // Tolerances by the least precise dtype among the inputs and outputs.
  double tol = 0;
  for (const auto& a : x) tol = std::max(tol, default_tolerance(a.dtype()));
  for (const auto& a : outs) tol = std::max(tol, default_tolerance(a.dtype()));
  const double atol = atol_in.value_or(tol);
  const double rtol = rtol_in.value_or(tol);

  // Central differences along v from evaluations on the CPU at x + h v.
  std::vector<std::vector<double>> xh, vh, uh;
  for (const auto& a : x) xh.push_back(to_host(a));
  for (const auto& a : v) vh.push_back(to_host(a));
  for (const auto& a : u) uh.push_back(to_host(a));
  auto at = [&](double h) {
    DefaultDeviceScope cpu(Device::cpu);
    std::vector<array> xs;
    for (size_t k = 0; k < x.size(); ++k) {
      std::vector<FdValue> vals(xh[k].size());
      for (size_t i = 0; i < vals.size(); ++i) {
        vals[i] = static_cast<FdValue>(xh[k][i] + h * vh[k][i]);
      }
      xs.emplace_back(vals.begin(), x[k].shape(), kFdDtype);
    }
    std::vector<std::vector<double>> ys;
    for (const auto& y : restricted(xs)) ys.push_back(to_host(y));
    return ys;
  };
  auto central = [&](double h) {
    auto plus = at(h);
    auto minus = at(-h);
    for (size_t j = 0; j < plus.size(); ++j) {
      for (size_t i = 0; i < plus[j].size(); ++i) plus[j][i] = (plus[j][i] - minus[j][i]) / (2 * h);
    }
    return plus;
  };
  auto fd = central(eps);
  const auto fd_half = central(eps / 2);
  for (size_t j = 0; j < fd.size(); ++j) {
    for (size_t i = 0; i < fd[j].size(); ++i) fd[j][i] = (4 * fd_half[j][i] - fd[j][i]) / 3;
  }

  for (size_t j = 0; j < outs.size(); ++j) {
    if (j >= fd.size() || fd[j].size() != outs[j].size()) {
      return ::testing::AssertionFailure()
             << what << ": evaluated in " << kFdDtype
             << " for the finite differences, the function gives different floating-point "
                "outputs than at the given inputs.";
    }
  }

  // jvp against the finite differences, elementwise.
  std::vector<std::vector<double>> jvh;
  for (size_t j = 0; j < outs.size(); ++j) {
    jvh.push_back(to_host(jv[j]));
    auto r =
        compare(jvh[j], fd[j], outs[j].shape(), rtol, atol, false, "jvp", "finite differences");
    if (!r) {
      return ::testing::AssertionFailure()
             << what << ": the jvp of output " << j << " (" << describe(outs[j])
             << ") along a random direction differs from central finite differences: "
             << r.message();
    }
  }

  // vjp through <u, J v> = <vjp(u), v>, against the finite differences and the jvp.
  double vjp_side = 0, fd_side = 0, jvp_side = 0, err2 = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    const auto g = to_host(vu[k]);
    vjp_side += dot(g, vh[k]);
    err2 += dot_tolerance(g, vh[k], rtol, atol);
  }
  for (size_t j = 0; j < outs.size(); ++j) {
    fd_side += dot(uh[j], fd[j]);
    jvp_side += dot(uh[j], jvh[j]);
    err2 += dot_tolerance(uh[j], fd[j], rtol, atol);
  }
  const double bound = std::sqrt(err2);
  for (auto [other, name] :
       {std::pair{fd_side, "finite differences"}, std::pair{jvp_side, "jvp"}}) {
    if (!(std::abs(vjp_side - other) <= bound)) {
      return ::testing::AssertionFailure()
             << what << ": the vjp disagrees with the " << name
             << ": <vjp(u), v> = " << number(vjp_side) << " but <u, J v> = " << number(other)
             << " by the " << name << " (absolute error " << number(std::abs(vjp_side - other))
             << ", allowed " << number(bound) << ").";
    }
  }
  if (order <= 1) return ::testing::AssertionSuccess();

  // Order 2 and up: the same check of the derivative functions.
  const size_t n = inputs.size();
  const std::vector<array> t = directions(x, seed + 2000);
  auto fwd = [fun, diff, n](const std::vector<array>& args) {
    const std::vector<array> all(args.begin(), args.begin() + n);
    std::vector<array> xs;
    for (int i : diff) xs.push_back(all[i]);
    const std::vector<array> dirs(args.begin() + n, args.end());
    return jvp(restrict_to(fun, all, diff), xs, dirs).second;
  };
  auto rev = [fun, diff, n](const std::vector<array>& args) {
    const std::vector<array> all(args.begin(), args.begin() + n);
    std::vector<array> xs;
    for (int i : diff) xs.push_back(all[i]);
    const std::vector<array> dirs(args.begin() + n, args.end());
    return vjp(restrict_to(fun, all, diff), xs, dirs).second;
  };
  std::vector<array> fwd_inputs = inputs;
  fwd_inputs.insert(fwd_inputs.end(), t.begin(), t.end());
  std::vector<array> rev_inputs = inputs;
  rev_inputs.insert(rev_inputs.end(), u.begin(), u.end());
  auto r =
      check_order(fwd, fwd_inputs, order - 1, eps, atol_in, rtol_in,
                  "order " + std::to_string(order) + " (the jvp of " + what + ")", seed + 3000);
  if (!r) return r;
  return check_order(rev, rev_inputs, order - 1, eps, atol_in, rtol_in,
                     "order " + std::to_string(order) + " (the vjp of " + what + ")", seed + 4000);
}

}  // namespace detail

/// Checks fun's jvp and vjp at `inputs` (see the top of this file) up to
/// `order`. Only floating-point inputs are differentiated and only
/// floating-point outputs compared; the others are held fixed. eps is the
/// finite-difference step along a random normal direction; atol and rtol
/// default by the least precise floating dtype involved (1e-3 for float32,
/// 5e-2 for float16, 1e-1 for bfloat16). Use as
/// EXPECT_TRUE(check_grads(fun, {x, y})): the failure says which derivative
/// disagrees, where and by how much.
inline ::testing::AssertionResult check_grads(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<array>& inputs, int order = 1, std::optional<double> eps = std::nullopt,
    std::optional<double> atol = std::nullopt, std::optional<double> rtol = std::nullopt) {
  if (order < 1) {
    return ::testing::AssertionFailure()
           << "check_grads: order must be at least 1, got " << order << ".";
  }
  return detail::check_order(fun, inputs, order, eps.value_or(detail::default_step()), atol, rtol,
                             "the function", 0x5eed);
}

/// \overload
/// The same for a function of one array to one array.
inline ::testing::AssertionResult check_grads(const std::function<array(const array&)>& fun,
                                              const array& input, int order = 1,
                                              std::optional<double> eps = std::nullopt,
                                              std::optional<double> atol = std::nullopt,
                                              std::optional<double> rtol = std::nullopt) {
  return check_grads([fun](const std::vector<array>& in) { return std::vector<array>{fun(in[0])}; },
                     {input}, order, eps, atol, rtol);
}

}  // namespace mlx_lite::test

/// EXPECT_ALLCLOSE(actual, expected[, rtol[, atol[, equal_nan]]]) and the fatal
/// ASSERT_ALLCLOSE: mlx_lite::test::allclose with the expressions' text in
/// the message; more context can be streamed in with <<.
#define MLX_LITE_ALLCLOSE_IMPL_(on_failure, actual, expected, ...)                              \
  GTEST_ASSERT_(::mlx_lite::test::detail::allclose_format(#actual, #expected, actual,           \
                                                          expected __VA_OPT__(, ) __VA_ARGS__), \
                on_failure)
#define EXPECT_ALLCLOSE(actual, expected, ...) \
  MLX_LITE_ALLCLOSE_IMPL_(GTEST_NONFATAL_FAILURE_, actual, expected __VA_OPT__(, ) __VA_ARGS__)
#define ASSERT_ALLCLOSE(actual, expected, ...) \
  MLX_LITE_ALLCLOSE_IMPL_(GTEST_FATAL_FAILURE_, actual, expected __VA_OPT__(, ) __VA_ARGS__)
