// MLX's remaining unary ops (issue 14): the inverse and hyperbolic
// trigonometric functions, tan, expm1, log2, log10, sign, reciprocal,
// degrees, radians, bitwise_invert, the isnan family and nan_to_num.
// Each is checked on both devices against a double-precision <cmath>
// reference over a range of inputs in every dtype and several layouts, on
// hand-computed edge values (NaN, +-inf, +-0, domain ends), on empty and 0-d
// inputs, GPU against CPU, and for the differentiable ones with check_grads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "mlx_lite/gpu.h"
#include "mlx_lite/testing.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using namespace test_util;
using mlx_lite::test::check_grads;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = std::numbers::pi;

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);

using UnaryFn = array (*)(const array&, StreamOrDevice);

struct FloatCase {
  std::string name;
  UnaryFn op;
  double (*ref)(double);
  double lo, hi;  // the input range tried
};

double degrees_ref(double x) {
  return x * (180.0 / kPi);
}
double radians_ref(double x) {
  return x * (kPi / 180.0);
}
double reciprocal_ref(double x) {
  return 1.0 / x;
}

// The float-valued ops (float32 for integer and bool inputs).
std::vector<FloatCase> float_cases() {
  return {
      {"tan", tan, [](double x) { return std::tan(x); }, -1.2, 1.2},
      {"arcsin", arcsin, [](double x) { return std::asin(x); }, -1, 1},
      {"arccos", arccos, [](double x) { return std::acos(x); }, -1, 1},
      {"arctan", arctan, [](double x) { return std::atan(x); }, -30, 30},
      {"sinh", sinh, [](double x) { return std::sinh(x); }, -12, 12},
      {"cosh", cosh, [](double x) { return std::cosh(x); }, -12, 12},
      {"arcsinh", arcsinh, [](double x) { return std::asinh(x); }, -50, 50},
      {"arccosh", arccosh, [](double x) { return std::acosh(x); }, 1, 60},
      {"arctanh", arctanh, [](double x) { return std::atanh(x); }, -0.99, 0.99},
      {"expm1", expm1, [](double x) { return std::expm1(x); }, -6, 6},
      {"log2", log2, [](double x) { return std::log2(x); }, 0.01, 100},
      {"log10", log10, [](double x) { return std::log10(x); }, 0.01, 100},
      {"reciprocal", reciprocal, reciprocal_ref, 0.1, 9},
      {"degrees", degrees, degrees_ref, -7, 7},
      {"radians", radians, radians_ref, -400, 400},
  };
}

void PrintTo(const FloatCase& c, std::ostream* os) {
  *os << c.name;
}

// Inputs spread over [lo, hi], both ends included, in a scrambled order.
double spread(double lo, double hi, int i) {
  return lo + (hi - lo) * ((i * 37) % 101) / 100.0;
}

class MlxFloatUnary : public ::testing::TestWithParam<FloatCase> {};

// Every dtype, four shapes, five layouts, both devices, against <cmath> in
// double on the value each dtype stores.
TEST_P(MlxFloatUnary, MatchesCmathEveryDtypeLayoutAndDevice) {
  const auto& c = GetParam();
  for (const Device& dev : devices()) {
    for (Dtype dt : all_dtypes) {
      if (!test_util::runs_on(dt, dev)) continue;
      const Dtype od = is_floating_point(dt) ? dt : float32;
      // degrees/radians round their constant to float16/bfloat16 first, as MLX.
      const double tol = tolerance(od) * (c.name == "tan" ? 4 : 2);
      for (auto [r, cols] : test_shapes()) {
        // Unsigned dtypes take |x| (a negative value has no unsigned value).
        auto gen = [&](int i) {
          const double v = spread(c.lo, c.hi, i);
          return is_unsigned(dt) ? std::fabs(v) : v;
        };
        for (auto& l : layouts(dt, r, cols, gen)) {
          const auto what = c.name + " " + device_name(dev) + " " + describe(dt, l.name, r, cols);
          array out = c.op(l.a, dev);
          ASSERT_EQ(out.dtype(), od) << what;
          ASSERT_EQ(out.shape(), l.a.shape()) << what;
          // The op computes on the input converted to float32 (uint32 and
          // int64 values may round there) or held in float16/bfloat16, and
          // rounds its result to od (float16 overflows past 65504); float64
          // computes in double.
          std::vector<double> want;
          for (double v : l.vals) {
            want.push_back(stored(c.ref(od == float64 ? v : static_cast<float>(v)), od));
          }
          expect_values(out, want, tol, what);
        }
      }
    }
  }
}

// GPU against CPU on 4096 values per dtype, over a range wider than the
// reference test's (edges and beyond included).
TEST_P(MlxFloatUnary, GpuMatchesCpu) {
  if (!gpu::is_available()) GTEST_SKIP() << "no Vulkan device";
  const auto& c = GetParam();
  const double width = c.hi - c.lo;
  array x = random::uniform(static_cast<float>(c.lo - 0.1 * width),
                            static_cast<float>(c.hi + 0.1 * width), {64, 64}, float32,
                            random::key(7), kCpu);
  for (Dtype dt : {float32, float16, bfloat16, int32}) {
    array in = astype(x, dt, kCpu);
    array want = c.op(in, kCpu), got = c.op(in, kGpu);
    EXPECT_TRUE(test::allclose(got, want, 2 * tolerance(want.dtype()), 1e-6, true))
        << c.name << " " << dtype_name(dt);
    // A transposed view reads the same values in another order.
    EXPECT_TRUE(test::allclose(c.op(transpose(in), kGpu), c.op(transpose(in), kCpu),
                               2 * tolerance(want.dtype()), 1e-6, true))
        << c.name << " transposed " << dtype_name(dt);
  }
}

TEST_P(MlxFloatUnary, EmptyAndScalarInputs) {
  const auto& c = GetParam();
  for (const Device& dev : devices()) {
    for (Shape shape : {Shape{0}, Shape{3, 0}}) {
      array out = c.op(zeros(shape, float16), dev);
      eval(out);
      EXPECT_EQ(out.shape(), shape) << c.name;
      EXPECT_EQ(out.dtype(), float16) << c.name;
      EXPECT_EQ(c.op(zeros(shape, int32), dev).dtype(), float32) << c.name;
    }
    const double x = spread(c.lo, c.hi, 60);
    array out = c.op(array(static_cast<float>(x)), dev);
    EXPECT_EQ(out.ndim(), 0) << c.name;
    EXPECT_NEAR(out.item<float>(), c.ref(static_cast<float>(x)),
                1e-5 * std::max(1.0, std::fabs(c.ref(x))))
        << c.name << " " << device_name(dev);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, MlxFloatUnary, ::testing::ValuesIn(float_cases()),
                         [](const auto& info) { return info.param.name; });

// The float32 results of op on `inputs`, on `dev`.
std::vector<float> float_results(UnaryFn op, const std::vector<float>& inputs, const Device& dev) {
  array out = op(array(inputs.begin(), {static_cast<int>(inputs.size())}, float32), dev);
  return values_as<float>(out);
}

// Expects op(inputs[i]) == want[i] within rel (relative; NaN matches NaN,
// infinities and zeros exactly, signs of zero included) on both devices.
void expect_edges(const std::string& name, UnaryFn op, const std::vector<float>& inputs,
                  const std::vector<double>& want, double rel = 4e-7) {
  for (const Device& dev : devices()) {
    auto got = float_results(op, inputs, dev);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string what = name + "(" + std::to_string(inputs[i]) + ") on " + device_name(dev);
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << what << " is " << got[i];
      } else if (want[i] == 0 || std::isinf(want[i])) {
        EXPECT_EQ(got[i], want[i]) << what;
        EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << what << ": sign of zero";
      } else {
        EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i])) << what;
      }
    }
  }
}

TEST(MlxUnary, EdgeValuesOfTheTrigonometricFunctions) {
  const float inf = INFINITY, nan = NAN;
  expect_edges("arcsin", arcsin, {1, -1, 0, -0.0f, 0.5f, 1.0000001f, -2, nan, 1e-20f},
               {kPi / 2, -kPi / 2, 0, -0.0, kPi / 6, kNaN, kNaN, kNaN, 1e-20});
  expect_edges("arccos", arccos, {1, -1, 0, 0.5f, -0.5f, 2, nan, 0.99999994f},
               {0, kPi, kPi / 2, kPi / 3, 2 * kPi / 3, kNaN, kNaN, std::acos(double{0.99999994f})});
  expect_edges("arctan", arctan, {inf, -inf, 0, -0.0f, 1, -1, 1e30f, nan, 1e-30f},
               {kPi / 2, -kPi / 2, 0, -0.0, kPi / 4, -kPi / 4, kPi / 2, kNaN, 1e-30});
  expect_edges("tan", tan, {0, -0.0f, 0.785398163f, nan, inf},
               {0, -0.0, std::tan(0.785398163f), kNaN, kNaN}, 1e-6);
}

TEST(MlxUnary, EdgeValuesOfTheHyperbolicFunctions) {
  const float inf = INFINITY, nan = NAN;
  // Small arguments keep their digits (no cancellation), large ones do not
  // overflow early: sinh(89) and cosh(89) are finite in float32.
  expect_edges("sinh", sinh, {0, -0.0f, 1e-5f, -1e-20f, 89, -89, 90, inf, -inf, nan},
               {0, -0.0, std::sinh(1e-5), -1e-20, std::sinh(89.0), -std::sinh(89.0), kInf, kInf,
                -kInf, kNaN},
               1e-6);
  expect_edges("cosh", cosh, {0, -0.0f, 1e-5f, 89, -89, 90, inf, -inf, nan},
               {1, 1, std::cosh(1e-5), std::cosh(89.0), std::cosh(89.0), kInf, kInf, kInf, kNaN},
               1e-6);
  expect_edges(
      "arcsinh", arcsinh, {0, -0.0f, 1e-20f, -1e-4f, 1e30f, -1e30f, inf, -inf, nan},
      {0, -0.0, 1e-20, std::asinh(-1e-4), std::asinh(1e30), -std::asinh(1e30), kInf, -kInf, kNaN},
      4e-7);
  expect_edges("arccosh", arccosh, {1, 1.00000012f, 0.5f, -2, 1e30f, inf, nan},
               {0, std::acosh(1.00000012f), kNaN, kNaN, std::acosh(1e30), kInf, kNaN}, 4e-7);
  expect_edges("arctanh", arctanh, {0, -0.0f, 1, -1, 1.5f, 1e-8f, -0.5f, nan},
               {0, -0.0, kInf, -kInf, kNaN, 1e-8, std::atanh(-0.5), kNaN}, 4e-7);
}

TEST(MlxUnary, Expm1KeepsSmallArguments) {
  const float inf = INFINITY, nan = NAN;
  expect_edges("expm1", expm1,
               {0, -0.0f, 1e-10f, -1e-10f, 1e-3f, -0.4999f, 0.5f, 20, -20, inf, -inf, nan},
               {0, -0.0, 1e-10, -1e-10, std::expm1(1e-3), std::expm1(-0.4999f), std::expm1(0.5),
                std::expm1(20.0), std::expm1(-20.0), kInf, -1, kNaN},
               2e-6);  // Vulkan's exp may be a few ulp off for |x| >= 0.5
  // exp(x) - 1 in float32 gives 0 here: expm1 is not a composition.
  EXPECT_GT(expm1(array(1e-9f)).item<float>(), 0.99e-9f);
}

TEST(MlxUnary, Log2AndLog10) {
  const float inf = INFINITY, nan = NAN;
  expect_edges("log2", log2, {1, 2, 8, 0.25f, 1024, 0, -0.0f, -1, inf, nan, 1.0000001f},
               {0, 1, 3, -2, 10, -kInf, -kInf, kNaN, kInf, kNaN, std::log2(1.0000001f)}, 6e-7);
  expect_edges("log10", log10, {1, 10, 1000, 0.001f, 0, -1, inf, nan, 0.9999999f},
               {0, 1, 3, -3, -kInf, kNaN, kInf, kNaN, std::log10(0.9999999f)}, 6e-7);
}

TEST(MlxUnary, ReciprocalDegreesRadians) {
  expect_edges("reciprocal", reciprocal, {4, -0.5f, 0, -0.0f, INFINITY},
               {0.25, -2, kInf, -kInf, 0});
  expect_edges("degrees", degrees, {static_cast<float>(kPi), -static_cast<float>(kPi / 2), 0},
               {180, -90, 0}, 2e-7);
  expect_edges("radians", radians, {180, -90, 360}, {kPi, -kPi / 2, 2 * kPi}, 2e-7);
  // Integer inputs give float32, as in MLX.
  EXPECT_EQ(reciprocal(array(2)).dtype(), float32);
  EXPECT_FLOAT_EQ(reciprocal(array(2)).item<float>(), 0.5f);
  EXPECT_EQ(degrees(array(1)).dtype(), float32);
  EXPECT_EQ(radians(array(180, int64)).dtype(), float32);
  EXPECT_EQ(radians(array(180.0f, float16)).dtype(), float16);
}

TEST(MlxUnary, SignOfEveryDtype) {
  for (const Device& dev : devices()) {
    // Floats: NaN gives 0, as in MLX; -0.0 gives 0.
    for (Dtype dt : {float32, float16, bfloat16}) {
      array x = astype(array({-3.5f, -0.0f, 0.0f, 2.0f, INFINITY, -INFINITY, NAN, 1e-3f}), dt);
      array out = sign(x, dev);
      EXPECT_EQ(out.dtype(), dt);
      EXPECT_EQ(values(out), (std::vector<double>{-1, 0, 0, 1, 1, -1, 0, 1})) << dtype_name(dt);
    }
    for (Dtype dt : {int32, int64}) {
      array out = sign(array({-7, 0, 3, std::numeric_limits<int>::min()}, dt), dev);
      EXPECT_EQ(out.dtype(), dt);
      EXPECT_EQ(values(out), (std::vector<double>{-1, 0, 1, -1})) << dtype_name(dt);
    }
    for (Dtype dt : {uint8, uint32}) {
      array out = sign(array({0, 7, 200}, dt), dev);
      EXPECT_EQ(out.dtype(), dt);
      EXPECT_EQ(values(out), (std::vector<double>{0, 1, 1})) << dtype_name(dt);
    }
    array b = sign(array({true, false}), dev);
    EXPECT_EQ(b.dtype(), bool_);
    EXPECT_EQ(values(b), (std::vector<double>{1, 0}));
  }
}

TEST(MlxUnary, BitwiseInvert) {
  for (const Device& dev : devices()) {
    EXPECT_EQ(values(bitwise_invert(array({0, 5, -1, std::numeric_limits<int>::min()}), dev)),
              (std::vector<double>{-1, -6, 0, std::numeric_limits<int>::max()}));
    EXPECT_EQ(values(bitwise_invert(array({0, 1, 255}, uint8), dev)),
              (std::vector<double>{255, 254, 0}));
    EXPECT_EQ(values(bitwise_invert(array({0, 1}, uint32), dev)),
              (std::vector<double>{4294967295.0, 4294967294.0}));
    EXPECT_EQ(values_as<int64_t>(bitwise_invert(array({int64_t{1} << 40}, int64), dev)),
              (std::vector<int64_t>{~(int64_t{1} << 40)}));
    array b = bitwise_invert(array({true, false}), dev);  // logical_not, as MLX
    EXPECT_EQ(b.dtype(), bool_);
    EXPECT_EQ(values(b), (std::vector<double>{0, 1}));
    // A transposed view.
    array m = array({1, 2, 3, 4, 5, 6}, {2, 3}, int32);
    EXPECT_EQ(values(bitwise_invert(transpose(m), dev)),
              (std::vector<double>{-2, -5, -3, -6, -4, -7}));
  }
  EXPECT_EQ(values(~array({3}, uint8)), (std::vector<double>{252}));
  for (Dtype dt : {float32, float16, bfloat16}) {
    auto msg = error_of([&] { bitwise_invert(zeros({2}, dt)); });
    EXPECT_NE(msg.find("[bitwise_invert]"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::string(dtype_name(dt))), std::string::npos) << msg;
  }
}

TEST(MlxUnary, IsNanIsInfIsFinite) {
  const std::vector<float> x = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.5f, -3e38f, 65504.0f};
  for (const Device& dev : devices()) {
    for (Dtype dt : {float32, float16, bfloat16}) {
      array a = astype(array(x.begin(), {8}, float32), dt);
      std::vector<double> big = {0, 0, 0, 0, 0, 0, 0, 0};
      // -3e38 overflows float16 to -inf; bfloat16 and float32 hold it.
      const double neg_big_inf = dt == float16 ? 1 : 0;
      auto expect = [&](UnaryFn op, std::vector<double> want, const char* name) {
        array out = op(a, dev);
        EXPECT_EQ(out.dtype(), bool_) << name;
        EXPECT_EQ(values(out), want) << name << " " << dtype_name(dt) << " " << device_name(dev);
      };
      expect(isnan, {1, 0, 0, 0, 0, 0, 0, 0}, "isnan");
      expect(isinf, {0, 1, 1, 0, 0, 0, neg_big_inf, 0}, "isinf");
      expect(isposinf, {0, 1, 0, 0, 0, 0, 0, 0}, "isposinf");
      expect(isneginf, {0, 0, 1, 0, 0, 0, neg_big_inf, 0}, "isneginf");
      expect(isfinite, {0, 0, 0, 1, 1, 1, 1 - neg_big_inf, 1}, "isfinite");
    }
    // Integers and bool hold no NaN or infinity.
    for (Dtype dt : {bool_, uint8, uint32, int32, int64}) {
      array a = astype(array({0, 1, 2}), dt);
      EXPECT_EQ(values(isnan(a, dev)), (std::vector<double>{0, 0, 0}));
      EXPECT_EQ(values(isinf(a, dev)), (std::vector<double>{0, 0, 0}));
      EXPECT_EQ(values(isposinf(a, dev)), (std::vector<double>{0, 0, 0}));
      EXPECT_EQ(values(isneginf(a, dev)), (std::vector<double>{0, 0, 0}));
      EXPECT_EQ(values(isfinite(a, dev)), (std::vector<double>{1, 1, 1}));
      EXPECT_EQ(isfinite(a, dev).dtype(), bool_);
      EXPECT_EQ(isnan(a, dev).shape(), a.shape());
    }
    // Empty, broadcast and transposed inputs.
    EXPECT_EQ(isnan(zeros({0, 2}), dev).shape(), (Shape{0, 2}));
    array m = array({NAN, 1.0f, INFINITY, 2.0f}, {2, 2});
    EXPECT_EQ(values(isfinite(transpose(m), dev)), (std::vector<double>{0, 0, 1, 1}));
    EXPECT_EQ(values(isnan(broadcast_to(array(NAN), {3}), dev)), (std::vector<double>{1, 1, 1}));
  }
  // float64 on the CPU, with values past float32's range (PiecewiseConstantOps
  // checks the gradients).
  array d = make_array({1e300, -1e300, INFINITY, -INFINITY, NAN}, {5}, float64);
  EXPECT_EQ(values(isinf(d, kCpu)), (std::vector<double>{0, 0, 1, 1, 0}));
  EXPECT_EQ(values(isfinite(d, kCpu)), (std::vector<double>{1, 1, 0, 0, 0}));
}

TEST(MlxUnary, IsInfAndIsFiniteAreOneNode) {
  array x = array({1.0f, INFINITY, NAN});
  for (auto op : {UnaryFn(isinf), UnaryFn(isfinite)}) {
    array out = op(x, {});
    // One pass over the input: the node reads x itself (no abs before it).
    ASSERT_TRUE(out.has_primitive());
    EXPECT_EQ(out.inputs().size(), 1u);
    EXPECT_EQ(out.inputs()[0].id(), x.id());
  }
  EXPECT_STREQ(isinf(x).primitive().name(), "IsInf");
  EXPECT_STREQ(isfinite(x).primitive().name(), "IsFinite");
}

TEST(MlxUnary, NanToNum) {
  for (const Device& dev : devices()) {
    array x = array({NAN, INFINITY, -INFINITY, 1.5f, -0.0f});
    EXPECT_EQ(values(nan_to_num(x, 0.0f, std::nullopt, std::nullopt, dev)),
              (std::vector<double>{0, std::numeric_limits<float>::max(),
                                   std::numeric_limits<float>::lowest(), 1.5, 0}));
    EXPECT_EQ(values(nan_to_num(x, 7.0f, 100.0f, -200.0f, dev)),
              (std::vector<double>{7, 100, -200, 1.5, 0}));
    // The defaults are the dtype's own extremes; the values round to its dtype.
    array h = nan_to_num(astype(x, float16), 0.1f, std::nullopt, std::nullopt, dev);
    EXPECT_EQ(h.dtype(), float16);
    EXPECT_EQ(values(h), (std::vector<double>{stored(0.1, float16), 65504, -65504, 1.5, 0}));
    array b = nan_to_num(astype(x, bfloat16), 0.0f, std::nullopt, std::nullopt, dev);
    EXPECT_EQ(b.dtype(), bfloat16);
    const double bf_max = 3.3895313892515355e38;  // (2 - 2^-7) 2^127
    EXPECT_EQ(values(b), (std::vector<double>{0, bf_max, -bf_max, 1.5, 0}));
  }
  // Integer arrays come back as they are.
  array i = array({1, 2, 3});
  EXPECT_EQ(nan_to_num(i).id(), i.id());
  EXPECT_EQ(nan_to_num(zeros({0})).shape(), (Shape{0}));
}

// Derivatives against finite differences, on each device, at points inside
// each function's domain and away from its singularities.
TEST(MlxUnary, GradientsMatchFiniteDifferences) {
  struct GradCase {
    UnaryFn op;
    float lo, hi;
    const char* name;
  };
  const std::vector<GradCase> cases = {
      {tan, -1.2f, 1.2f, "tan"},
      {arcsin, -0.8f, 0.8f, "arcsin"},
      {arccos, -0.8f, 0.8f, "arccos"},
      {arctan, -3, 3, "arctan"},
      {sinh, -3, 3, "sinh"},
      {cosh, -3, 3, "cosh"},
      {arcsinh, -3, 3, "arcsinh"},
      {arccosh, 1.3f, 4, "arccosh"},
      {arctanh, -0.8f, 0.8f, "arctanh"},
      {expm1, -2, 2, "expm1"},
      {log2, 0.3f, 5, "log2"},
      {log10, 0.3f, 5, "log10"},
      {reciprocal, 0.5f, 3, "reciprocal"},
      {degrees, -2, 2, "degrees"},
      {radians, -2, 2, "radians"},
  };
  for (const Device& dev : devices()) {
    Device saved = default_device();
    set_default_device(dev);
    for (const auto& c : cases) {
      array x = random::uniform(c.lo, c.hi, {3, 4}, float32, random::key(11), kCpu);
      eval(x);
      EXPECT_TRUE(check_grads([&c](const array& v) { return c.op(v, {}); }, x, 2))
          << c.name << " on " << device_name(dev);
    }
    set_default_device(saved);
  }
}

TEST(MlxUnary, PiecewiseConstantOpsHaveZeroGradient) {
  array x = array({-2.0f, -0.5f, 0.5f, 3.0f});
  for (UnaryFn op : std::vector<UnaryFn>{sign, isnan, isinf, isfinite, isposinf, isneginf}) {
    auto g = grad([op](const array& v) { return sum(astype(op(v, {}), float32) * v); })(x);
    // d/dv (op(v) v) = op(v): the op itself contributes nothing.
    EXPECT_EQ(values(g), values(astype(op(x, {}), float32)));
  }
  // nan_to_num passes the gradient where it keeps the value, 0 where it replaces it.
  array y = array({NAN, 1.0f, INFINITY, -2.0f});
  auto g = grad([](const array& v) { return sum(nan_to_num(v)); })(y);
  EXPECT_EQ(values(g), (std::vector<double>{0, 1, 0, 1}));
}

TEST(MlxUnary, JvpOfSignIsZero) {
  auto [out, tangent] =
      jvp([](const array& v) { return sign(v); }, array({-1.0f, 2.0f}), array({1.0f, 1.0f}));
  EXPECT_EQ(values(tangent), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(out), (std::vector<double>{-1, 1}));
}

}  // namespace
