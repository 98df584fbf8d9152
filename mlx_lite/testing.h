// Test helpers for GoogleTest users of mlx_lite (header-only; link the CMake
// target mlx_lite::testing, which brings GoogleTest and gmock):
//
//   EXPECT_ALLCLOSE(actual, expected[, rtol[, atol[, equal_nan]]]);
//   ASSERT_ALLCLOSE(...);
//   EXPECT_THAT(actual, mlx_lite::test::AllClose(expected[, rtol[, atol[, equal_nan]]]));
//   EXPECT_TRUE(mlx_lite::test::check_grads(fun, {x, y}));
//   EXPECT_TRUE(mlx_lite::test::check_grads(fun, {x, y}, 1, mlx_lite::test::Modes::rev));
//
// allclose follows numpy.allclose (|actual - expected| <= atol + rtol *
// |expected|, elementwise, after broadcasting; the dtypes may differ); its
// failure message shows both shapes and dtypes, how many elements differ, and
// the worst index with its two values and their absolute and relative error.
// The AllClose matcher and the macros report the same message.
//
// check_grads follows JAX's check_grads and PyTorch's gradcheck. In forward
// mode it compares the jvp of `fun` along a random direction v with central
// finite differences; in reverse mode it checks the vjp of a random
// cotangent u through the identity <u, J v> = <vjp(u), v> against the finite
// differences, input by input (v moving one input, the others fixed), and
// against the jvp when both modes are checked. One random projection per
// input sees an error in proportion to its own size: a gradient 1% off
// fails where 1% of <vjp(u), v> exceeds the tolerance of that inner product
// (about atol * sqrt(number of terms)), which a large direction-weighted
// gradient makes likely but a draw near zero can miss. `modes`
// picks them, as JAX's modes=("fwd", "rev"): test::Modes::fwd,
// test::Modes::rev, or Modes::fwd | Modes::rev (the default). Order 2 also
// checks the derivative functions (x, t) -> jvp(fun, x, t) (forward mode)
// and (x, u) -> vjp(fun, x, u) (reverse mode) the same way, so second
// derivatives are checked too. A custom kernel given a vjp by custom_vjp and
// no jvp is checked in reverse mode only: asking for forward mode fails with
// a message that says so.
//
// Where the finite differences run. The jvp and vjp run on the default
// device. The finite differences evaluate `fun` at x +- h v in the first of
// these settings where it runs: (1) the CPU in float64; (2) the default
// device (the function's own) in float32; (3) the CPU in float32; (4) the
// default device in the inputs' own dtypes. A setting is the default device
// while `fun` runs (ops that name a device run there) and the dtype the
// differentiated inputs are given in; `fun` runs there when it neither
// throws nor changes the shapes of its floating-point outputs. A function of
// ops runs in (1), the most precise, as before this choice existed. A custom
// kernel (fast::vulkan_kernel) cannot run on the CPU (and the GPU has no
// float64), so a function built on one is checked on the GPU: in float32
// where it takes float32 (float16 inputs are then evaluated in float32,
// more precisely than their own dtype), else in its own dtypes (4). The
// messages, failure and success, name the setting and the step used.
//
// Steps and tolerances. The step is h = cbrt(eps_p) * max(1, rms(x)), with
// eps_p the machine epsilon of the least precise dtype among the inputs and
// outputs of the evaluation, but at least float32's (h = 4.9e-3 in float32
// and float64, 0.099 in float16, 0.2 in bfloat16, for inputs of rms up to
// 1): some CPU ops compute float64 in float32 inside (the depthwise
// convolution does), where a float64 step (6e-6) would measure rounding
// noise. Central differences err by the truncation h^2 / 6 |f'''| plus the
// rounding eps_p |f| / h: about 4e-6 in float64, 2.4e-5 in float32 (each
// term about eps_p^(2/3) at that step), 1e-2 in float16 and 4e-2 in
// bfloat16, relative to the function's scale. The default rtol and atol, by
// the least precise dtype among the inputs, the outputs and the evaluation
// (1e-3 for float32 and float64, 5e-2 for float16, 1e-1 for bfloat16), leave
// a margin of 40 in float32 and 2.5 to 5 in half precision. An output of
// large values gets an atol of at least 2 eps_p max |f| / h per input, the
// rounding error of its differences. eps, atol and rtol, when given,
// replace the defaults.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
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

// The elements of an evaluated row-contiguous array of T, as U, read from
// its buffer by one memcpy. Arrays live in host-visible memory of the GPU
// device; on a GPU whose large BAR maps device-local memory, every host read
// crosses the bus uncached, and one bulk copy reads 8 times faster than
// element by element (an H200: 29.5 against 3.7 MB/s, bench_gpu's
// BM_GpuResultReadOnHost).
template <class T, class U>
std::vector<U> bulk_read(const array& c) {
  std::vector<T> raw(c.size());
  if (!raw.empty()) std::memcpy(raw.data(), c.data<T>(), raw.size() * sizeof(T));
  if constexpr (std::is_same_v<T, U>) {
    return raw;
  } else {
    return std::vector<U>(raw.begin(), raw.end());
  }
}

// a's elements in row-major order as U (float or double), read on the CPU
// by bulk_read: float16, bfloat16 and float32 convert here (exactly), other
// dtypes through the CPU's astype to U's dtype.
template <class U>
std::vector<U> host_values(const array& a) {
  static_assert(std::is_same_v<U, float> || std::is_same_v<U, double>);
  const Device cpu(Device::cpu);
  array c = contiguous(a, false, cpu);
  if (c.dtype() != float16 && c.dtype() != bfloat16 && c.dtype() != float32) {
    c = astype(c, std::is_same_v<U, float> ? float32 : float64, cpu);
  }
  eval(c);
  switch (c.dtype()) {
    case float16:
      return bulk_read<float16_t, U>(c);
    case bfloat16:
      return bulk_read<bfloat16_t, U>(c);
    case float32:
      return bulk_read<float, U>(c);
    default:  // float64, for U = double
      return bulk_read<double, U>(c);
  }
}

inline std::vector<double> to_host(const array& a) {
  return host_values<double>(a);
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

/// Which derivatives check_grads checks, as the `modes` of JAX's
/// check_grads: forward mode (Modes::fwd, the jvp), reverse mode (Modes::rev,
/// the vjp), or both (Modes::fwd | Modes::rev, the default).
enum class Modes : unsigned {
  fwd = 1,  ///< The jvp against finite differences.
  rev = 2,  ///< The vjp against finite differences (and against the jvp with fwd).
};

/// Both modes: `Modes::fwd | Modes::rev`.
constexpr Modes operator|(Modes a, Modes b) {
  return static_cast<Modes>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

namespace detail {

using Fun = std::function<std::vector<array>(const std::vector<array>&)>;

constexpr bool has_mode(Modes modes, Modes m) {
  return (static_cast<unsigned>(modes) & static_cast<unsigned>(m)) != 0;
}

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

// The spacing of 1 in a floating dtype.
inline double machine_eps(Dtype t) {
  if (t == float64) return std::numeric_limits<double>::epsilon();
  if (t == float16) return 0x1p-10;
  if (t == bfloat16) return 0x1p-7;
  return std::numeric_limits<float>::epsilon();
}

// The less precise of two floating dtypes.
inline Dtype less_precise(Dtype a, Dtype b) {
  return machine_eps(a) >= machine_eps(b) ? a : b;
}

// Where the finite differences evaluate the function: on `device`, with the
// differentiated inputs cast to `dtype` (their own dtypes when empty).
// `precision` is the least precise dtype of those inputs and of the outputs
// there; the step and the tolerances follow from it.
struct FdPlan {
  Device device;
  std::optional<Dtype> dtype;
  Dtype precision = float64;

  std::string text() const {
    std::ostringstream os;
    os << "default device " << (device == Device::cpu ? "cpu" : "gpu") << ", inputs in ";
    if (dtype) {
      os << *dtype;
    } else {
      os << "their own dtypes";
    }
    return os.str();
  }
};

// Arrays of x's shapes holding the host values `vals`, in the dtypes the
// plan evaluates in.
inline std::vector<array> plan_inputs(const std::vector<array>& x,
                                      const std::vector<std::vector<double>>& vals,
                                      const FdPlan& plan) {
  std::vector<array> xs;
  for (size_t k = 0; k < x.size(); ++k) {
    xs.emplace_back(vals[k].begin(), x[k].shape(), plan.dtype.value_or(x[k].dtype()));
  }
  return xs;
}

// x + h v, on the host.
inline std::vector<std::vector<double>> shifted(const std::vector<std::vector<double>>& xh,
                                                const std::vector<std::vector<double>>& vh,
                                                double h) {
  auto out = xh;
  for (size_t k = 0; k < out.size(); ++k) {
    for (size_t i = 0; i < out[k].size(); ++i) out[k][i] += h * vh[k][i];
  }
  return out;
}

// The first plan under which `f` runs and gives outputs of the shapes it
// gives at the given inputs (`outs`): the cpu in float64, the default device
// in float32, the cpu in float32, the default device in the inputs' own
// dtypes. A custom kernel cannot run on the cpu, and a function may refuse
// float64 or float32: each refusal (an exception) is noted in `why` and the
// next plan tried. Empty when none works.
inline std::optional<FdPlan> fd_plan(const Fun& f, const std::vector<array>& x,
                                     const std::vector<std::vector<double>>& xh,
                                     const std::vector<array>& outs, std::string& why) {
  const Device cpu(Device::cpu);
  const Device dev = default_device();
  std::vector<FdPlan> plans = {{cpu, float64}, {dev, float32}};
  if (!(dev == Device::cpu)) plans.push_back({cpu, float32});
  if (std::any_of(x.begin(), x.end(), [](const array& a) { return a.dtype() != float32; })) {
    plans.push_back({dev, std::nullopt});
  }
  for (FdPlan& plan : plans) {
    std::vector<array> ys;
    try {
      DefaultDeviceScope scope(plan.device);
      ys = f(plan_inputs(x, xh, plan));
      eval(ys);
    } catch (const std::exception& e) {
      why += "\n  " + plan.text() + ": " + e.what();
      continue;
    }
    bool same = ys.size() == outs.size();
    for (size_t j = 0; same && j < ys.size(); ++j) same = ys[j].shape() == outs[j].shape();
    if (!same) {
      why += "\n  " + plan.text() + ": the function gives other floating-point outputs there.";
      continue;
    }
    for (const auto& a : x) {
      plan.precision = less_precise(plan.precision, plan.dtype.value_or(a.dtype()));
    }
    for (const auto& y : ys) plan.precision = less_precise(plan.precision, y.dtype());
    return plan;
  }
  return std::nullopt;
}

// Central differences (f(x + h v) - f(x - h v)) / 2h of each output along
// v (d), and along each input's part of v alone, the other inputs fixed
// (by_input[k], which sum to d): the vjp is checked input by input, so that
// a wrong gradient of one input is not hidden by the tolerance of another's.
// max_abs: the largest |f| met, for the rounding error's share of the
// tolerance.
struct FdResult {
  std::vector<std::vector<double>> d;
  std::vector<std::vector<std::vector<double>>> by_input;
  std::vector<double> max_abs;
};

inline FdResult central_differences(const Fun& f, const std::vector<array>& x,
                                    const std::vector<std::vector<double>>& xh,
                                    const std::vector<std::vector<double>>& vh, double h,
                                    const FdPlan& plan) {
  DefaultDeviceScope scope(plan.device);
  FdResult r;
  auto at = [&](const std::vector<std::vector<double>>& dir, double step) {
    std::vector<std::vector<double>> ys;
    for (const auto& y : f(plan_inputs(x, shifted(xh, dir, step), plan))) {
      ys.push_back(to_host(y));
    }
    r.max_abs.resize(ys.size());
    for (size_t j = 0; j < ys.size(); ++j) {
      for (double y : ys[j]) r.max_abs[j] = std::max(r.max_abs[j], std::abs(y));
    }
    return ys;
  };
  for (size_t k = 0; k < x.size(); ++k) {
    auto dir = vh;
    for (size_t other = 0; other < dir.size(); ++other) {
      if (other != k) std::fill(dir[other].begin(), dir[other].end(), 0.0);
    }
    auto d = at(dir, h);
    const auto minus = at(dir, -h);
    for (size_t j = 0; j < d.size(); ++j) {
      for (size_t i = 0; i < d[j].size(); ++i) d[j][i] = (d[j][i] - minus[j][i]) / (2 * h);
    }
    if (r.d.empty()) {
      r.d = d;
    } else {
      for (size_t j = 0; j < d.size(); ++j) {
        for (size_t i = 0; i < d[j].size(); ++i) r.d[j][i] += d[j][i];
      }
    }
    r.by_input.push_back(std::move(d));
  }
  return r;
}

// The step: cbrt of the machine epsilon of `precision`, but not below
// float32's (some CPU ops compute float64 in float32 inside, as the
// depthwise convolution does, and a float64 step would then measure their
// rounding), times the root mean square of the inputs where that is over 1.
inline double default_step(Dtype precision, const std::vector<std::vector<double>>& xh) {
  double s = 0;
  size_t n = 0;
  for (const auto& v : xh) s += dot(v, v), n += v.size();
  const double scale = std::max(1.0, n ? std::sqrt(s / n) : 0.0);
  return std::cbrt(std::max(machine_eps(precision), machine_eps(float32))) * scale;
}

inline constexpr const char* kReverseOnlyHint =
    " A function whose derivative is a custom vjp with no jvp (custom_vjp, or custom_function "
    "without fun_jvp, around a custom kernel) can be checked in reverse mode only: "
    "check_grads(fun, inputs, order, test::Modes::rev).";

// The tolerances: by the least precise dtype among the inputs, the outputs
// and the finite differences' evaluation, unless given; each output's atol
// at least twice the rounding error of a difference of values of magnitude
// max |f| (finite differences of large values are less exact), once per
// input whose differences d sums.
struct Tolerances {
  double rtol;
  double atol;                   // for the vjp's terms
  std::vector<double> atol_out;  // for each output's finite differences
};

inline Tolerances tolerances(const std::vector<array>& x, const std::vector<array>& outs,
                             const FdPlan& plan, const FdResult& fd, double h,
                             std::optional<double> atol_in, std::optional<double> rtol_in) {
  double tol = default_tolerance(plan.precision);
  for (const auto& a : x) tol = std::max(tol, default_tolerance(a.dtype()));
  for (const auto& a : outs) tol = std::max(tol, default_tolerance(a.dtype()));
  Tolerances t{rtol_in.value_or(tol), atol_in.value_or(tol), {}};
  for (double m : fd.max_abs) {
    const double rounding = 2 * machine_eps(plan.precision) * m / h * fd.by_input.size();
    t.atol_out.push_back(atol_in.value_or(std::max(tol, rounding)));
  }
  return t;
}

// Each output's jvp against its finite differences, elementwise.
inline ::testing::AssertionResult compare_jvp(const std::string& what,
                                              const std::vector<array>& outs,
                                              const std::vector<std::vector<double>>& jvh,
                                              const FdResult& fd, const std::string& fd_text,
                                              const Tolerances& tol) {
  for (size_t j = 0; j < outs.size(); ++j) {
    auto r = compare(jvh[j], fd.d[j], outs[j].shape(), tol.rtol, tol.atol_out[j], false, "jvp",
                     "finite differences");
    if (!r) {
      return ::testing::AssertionFailure()
             << what << ": the jvp of output " << j << " (" << describe(outs[j])
             << ") along a random direction differs from " << fd_text << ": " << r.message();
    }
  }
  return ::testing::AssertionSuccess();
}

// The failure of <vjp(u), v> = lhs against <u, J v> = rhs within bound.
inline ::testing::AssertionResult vjp_mismatch(const std::string& what, const std::string& against,
                                               const std::string& where, double lhs, double rhs,
                                               double bound) {
  return ::testing::AssertionFailure()
         << what << ": the vjp disagrees with the " << against << where
         << ": <vjp(u), v> = " << number(lhs) << " but <u, J v> = " << number(rhs)
         << " (absolute error " << number(std::abs(lhs - rhs)) << ", allowed " << number(bound)
         << ").";
}

// The vjp through <u, J v> = <vjp(u), v>: against the finite differences
// input by input (v moving that input alone), then, when there is one (jvh
// not empty), against the jvp along all of v. `index` numbers the inputs as
// the caller does.
inline ::testing::AssertionResult compare_vjp(
    const std::string& what, const std::vector<array>& x, const std::vector<int>& index,
    const std::vector<array>& vu, const std::vector<std::vector<double>>& vh,
    const std::vector<std::vector<double>>& uh, const std::vector<std::vector<double>>& jvh,
    const FdResult& fd, const std::string& fd_text, const Tolerances& tol) {
  double vjp_total = 0, jvp_total = 0, err2_total = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    const auto g = to_host(vu[k]);
    const double lhs = dot(g, vh[k]);
    double rhs = 0, err2 = dot_tolerance(g, vh[k], tol.rtol, tol.atol);
    err2_total += err2;
    for (size_t j = 0; j < uh.size(); ++j) {
      rhs += dot(uh[j], fd.by_input[k][j]);
      err2 += dot_tolerance(uh[j], fd.by_input[k][j], tol.rtol, tol.atol_out[j]);
    }
    if (!(std::abs(lhs - rhs) <= std::sqrt(err2))) {
      const std::string where = x.size() == 1 ? std::string()
                                              : " on input " + std::to_string(index[k]) + " (" +
                                                    describe(x[k]) + ", the others fixed)";
      return vjp_mismatch(what, fd_text, where, lhs, rhs, std::sqrt(err2));
    }
    vjp_total += lhs;
  }
  if (jvh.empty()) return ::testing::AssertionSuccess();
  for (size_t j = 0; j < uh.size(); ++j) {
    jvp_total += dot(uh[j], jvh[j]);
    err2_total += dot_tolerance(uh[j], jvh[j], tol.rtol, tol.atol_out[j]);
  }
  if (!(std::abs(vjp_total - jvp_total) <= std::sqrt(err2_total))) {
    return vjp_mismatch(what, "jvp", "", vjp_total, jvp_total, std::sqrt(err2_total));
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult check_order(const Fun& fun, const std::vector<array>& inputs,
                                              int order, Modes modes, std::optional<double> eps,
                                              std::optional<double> atol_in,
                                              std::optional<double> rtol_in,
                                              const std::string& what, uint64_t seed);

// Order 2 and up, as JAX does: the same check of the derivative functions
// (x, t) -> jvp(fun, x, t) in forward mode and (x, u) -> vjp(fun, x, u) in
// reverse mode, one order lower. `u` is the cotangents of the first order.
inline ::testing::AssertionResult check_derivative_functions(
    const Fun& fun, const std::vector<array>& inputs, const std::vector<int>& diff,
    const std::vector<array>& u, int order, Modes modes, std::optional<double> eps,
    std::optional<double> atol_in, std::optional<double> rtol_in, const std::string& what,
    uint64_t seed) {
  const size_t n = inputs.size();
  auto derivative = [fun, diff, n](bool forward) -> Fun {
    return [fun, diff, n, forward](const std::vector<array>& args) {
      const std::vector<array> all(args.begin(), args.begin() + n);
      std::vector<array> xs;
      for (int i : diff) xs.push_back(all[i]);
      const std::vector<array> dirs(args.begin() + n, args.end());
      const Fun f = restrict_to(fun, all, diff);
      return forward ? jvp(f, xs, dirs).second : vjp(f, xs, dirs).second;
    };
  };
  const std::string order_text = "order " + std::to_string(order);
  if (has_mode(modes, Modes::fwd)) {
    std::vector<array> xs;
    for (int i : diff) xs.push_back(inputs[i]);
    const std::vector<array> t = directions(xs, seed + 2000);
    std::vector<array> args = inputs;
    args.insert(args.end(), t.begin(), t.end());
    auto r = check_order(derivative(true), args, order - 1, modes, eps, atol_in, rtol_in,
                         order_text + " (the jvp of " + what + ")", seed + 3000);
    if (!r) return r;
  }
  if (has_mode(modes, Modes::rev)) {
    std::vector<array> args = inputs;
    args.insert(args.end(), u.begin(), u.end());
    auto r = check_order(derivative(false), args, order - 1, modes, eps, atol_in, rtol_in,
                         order_text + " (the vjp of " + what + ")", seed + 4000);
    if (!r) return r;
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult check_order(const Fun& fun, const std::vector<array>& inputs,
                                              int order, Modes modes, std::optional<double> eps,
                                              std::optional<double> atol_in,
                                              std::optional<double> rtol_in,
                                              const std::string& what, uint64_t seed) {
  const bool fwd = has_mode(modes, Modes::fwd);
  const bool rev = has_mode(modes, Modes::rev);
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

  std::vector<array> outs;
  try {
    outs = restricted(x);
    eval(outs);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << what << " throws at the given inputs: " << e.what();
  }
  if (outs.empty()) {
    return ::testing::AssertionFailure() << what << " has no floating-point outputs to check.";
  }
  const std::vector<array> v = directions(x, seed);
  const std::vector<array> u = directions(outs, seed + 1000);
  std::vector<array> jv, vu;
  if (fwd) {
    try {
      jv = jvp(restricted, x, v).second;
      eval(jv);
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure()
             << what << ": forward mode: the jvp throws: " << e.what() << kReverseOnlyHint;
    }
  }
  if (rev) {
    try {
      vu = vjp(restricted, x, u).second;
      eval(vu);
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure()
             << what << ": reverse mode: the vjp throws: " << e.what();
    }
  }

  // Central differences along v, in the most precise setting where the
  // function runs (see fd_plan).
  std::vector<std::vector<double>> xh, vh, uh, jvh;
  for (const auto& a : x) xh.push_back(to_host(a));
  for (const auto& a : v) vh.push_back(to_host(a));
  for (const auto& a : u) uh.push_back(to_host(a));
  for (const auto& a : jv) jvh.push_back(to_host(a));
  std::string why;
  const std::optional<FdPlan> plan = fd_plan(restricted, x, xh, outs, why);
  if (!plan) {
    return ::testing::AssertionFailure()
           << what << " cannot be evaluated for the finite differences:" << why;
  }
  const double h = eps.value_or(default_step(plan->precision, xh));
  const FdResult fd = central_differences(restricted, x, xh, vh, h, *plan);
  const std::string fd_text =
      "central finite differences (" + plan->text() + ", step " + number(h) + ")";
  const Tolerances tol = tolerances(x, outs, *plan, fd, h, atol_in, rtol_in);

  if (fwd) {
    auto r = compare_jvp(what, outs, jvh, fd, fd_text, tol);
    if (!r) return r;
  }
  if (rev) {
    auto r = compare_vjp(what, x, diff, vu, vh, uh, jvh, fd, fd_text, tol);
    if (!r) return r;
  }
  const std::string checked =
      (fwd && rev ? "the jvp and the vjp of " + what + " agree"
                  : (fwd ? "the jvp of " : "the vjp of ") + what + " agrees") +
      " with " + fd_text + ".";
  if (order <= 1) return ::testing::AssertionSuccess() << checked;
  auto r = check_derivative_functions(fun, inputs, diff, u, order, modes, eps, atol_in, rtol_in,
                                      what, seed);
  if (!r) return r;
  return ::testing::AssertionSuccess()
         << checked << " So do the derivatives up to order " << order << ".";
}

}  // namespace detail

/// Checks fun's derivatives at `inputs` (see the top of this file) up to
/// `order`, in forward mode (the jvp), reverse mode (the vjp) or both, as
/// JAX's check_grads(f, args, order, modes). Only floating-point inputs are
/// differentiated and only floating-point outputs compared; the others are
/// held fixed. eps is the finite-difference step along a random normal
/// direction (by default cbrt(machine epsilon) of the dtype the differences
/// are evaluated in, float32's at least, times the inputs' root mean square
/// where that is over 1); atol and rtol default by the least precise floating dtype involved
/// (1e-3 for float32, 5e-2 for float16, 1e-1 for bfloat16), the evaluation's
/// included. Use as EXPECT_TRUE(check_grads(fun, {x, y})): the failure says
/// which derivative disagrees, where and by how much. A custom kernel with a
/// custom vjp and no jvp: check_grads(fun, {x, y}, 1, test::Modes::rev).
/// @{
inline ::testing::AssertionResult check_grads(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<array>& inputs, int order, Modes modes,
    std::optional<double> eps = std::nullopt, std::optional<double> atol = std::nullopt,
    std::optional<double> rtol = std::nullopt) {
  if (order < 1) {
    return ::testing::AssertionFailure()
           << "check_grads: order must be at least 1, got " << order << ".";
  }
  if (!detail::has_mode(modes, Modes::fwd) && !detail::has_mode(modes, Modes::rev)) {
    return ::testing::AssertionFailure()
           << "check_grads: modes must hold Modes::fwd, Modes::rev or both, got "
           << static_cast<unsigned>(modes) << ".";
  }
  return detail::check_order(fun, inputs, order, modes, eps, atol, rtol, "the function", 0x5eed);
}

inline ::testing::AssertionResult check_grads(
    const std::function<std::vector<array>(const std::vector<array>&)>& fun,
    const std::vector<array>& inputs, int order = 1, std::optional<double> eps = std::nullopt,
    std::optional<double> atol = std::nullopt, std::optional<double> rtol = std::nullopt) {
  return check_grads(fun, inputs, order, Modes::fwd | Modes::rev, eps, atol, rtol);
}

inline ::testing::AssertionResult check_grads(const std::function<array(const array&)>& fun,
                                              const array& input, int order, Modes modes,
                                              std::optional<double> eps = std::nullopt,
                                              std::optional<double> atol = std::nullopt,
                                              std::optional<double> rtol = std::nullopt) {
  return check_grads([fun](const std::vector<array>& in) { return std::vector<array>{fun(in[0])}; },
                     {input}, order, modes, eps, atol, rtol);
}

inline ::testing::AssertionResult check_grads(const std::function<array(const array&)>& fun,
                                              const array& input, int order = 1,
                                              std::optional<double> eps = std::nullopt,
                                              std::optional<double> atol = std::nullopt,
                                              std::optional<double> rtol = std::nullopt) {
  return check_grads(fun, input, order, Modes::fwd | Modes::rev, eps, atol, rtol);
}
/// @}

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
