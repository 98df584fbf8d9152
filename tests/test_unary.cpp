// Unary elementwise ops and astype, against double-precision references
// computed here with <cmath>, on every dtype and on strided, transposed,
// negative-step and broadcast inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/test_util.h"

using namespace mlx_lite;
using namespace test_util;

namespace {

const std::vector<Dtype> kAll = test_util::default_device_dtypes();
const std::vector<Dtype> kNumeric = {uint8, uint32, int32, int64, float16, bfloat16, float32};

// The result dtype rule of an op.
enum class Out { same, at_least_float, boolean };

// The input domain an op is tried on.
enum class Domain { any, positive, above_minus_one, unit };

double input(Domain d, Dtype dt, int i) {
  int k = (i * 37) % 41;  // 0..40, well mixed
  if (dt == bool_) return (i % 3 == 0) ? 1 : 0;
  bool fl = is_floating_point(dt);
  bool un = is_unsigned(dt);
  switch (d) {
    case Domain::any:
      if (fl) return (k - 20) * 0.25 + 0.1 * (i % 3);
      return un ? k : k - 20;
    case Domain::positive:
      return fl ? 0.05 + k * 0.25 : 1 + k;
    case Domain::above_minus_one:
      return fl ? -0.95 + k * 0.2 : k;
    case Domain::unit:
      return fl ? (k - 20) / 20.5 * 0.99 : 0;
  }
  return 0;
}

// erfinv in double by bisection on std::erf (monotonic), an independent reference.
double erfinv_ref(double y) {
  if (y <= -1) return -INFINITY;
  if (y >= 1) return INFINITY;
  double lo = -7, hi = 7;
  for (int it = 0; it < 200; ++it) {
    double mid = 0.5 * (lo + hi);
    (std::erf(mid) < y ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

struct UnaryCase {
  std::string name;
  std::function<array(const array&)> op;
  std::function<double(double)> ref;
  std::vector<Dtype> dtypes;
  Out out;
  Domain domain;
  double tol_scale = 1;  // widens the dtype's tolerance for approximations
};

std::vector<UnaryCase> cases() {
  const std::vector<Dtype> kFloatOps = kAll;  // integers and bool compute in float32
  return {
      {"abs", [](const array& a) { return abs(a); }, [](double x) { return std::fabs(x); }, kAll,
       Out::same, Domain::any},
      {"negative", [](const array& a) { return negative(a); }, [](double x) { return -x; },
       kNumeric, Out::same, Domain::any},
      {"operator_minus", [](const array& a) { return -a; }, [](double x) { return -x; }, kNumeric,
       Out::same, Domain::any},
      {"floor", [](const array& a) { return floor(a); }, [](double x) { return std::floor(x); },
       kNumeric, Out::same, Domain::any},
      {"ceil", [](const array& a) { return ceil(a); }, [](double x) { return std::ceil(x); },
       kNumeric, Out::same, Domain::any},
      {"round", [](const array& a) { return round(a); }, [](double x) { return std::nearbyint(x); },
       kNumeric, Out::same, Domain::any},
      {"exp", [](const array& a) { return exp(a); }, [](double x) { return std::exp(x); },
       kFloatOps, Out::at_least_float, Domain::any},
      {"log", [](const array& a) { return log(a); }, [](double x) { return std::log(x); },
       kFloatOps, Out::at_least_float, Domain::positive},
      {"log1p", [](const array& a) { return log1p(a); }, [](double x) { return std::log1p(x); },
       kFloatOps, Out::at_least_float, Domain::above_minus_one},
      {"sqrt", [](const array& a) { return sqrt(a); }, [](double x) { return std::sqrt(x); },
       kFloatOps, Out::at_least_float, Domain::positive},
      {"rsqrt", [](const array& a) { return rsqrt(a); }, [](double x) { return 1 / std::sqrt(x); },
       kFloatOps, Out::at_least_float, Domain::positive},
      {"square", [](const array& a) { return square(a); }, [](double x) { return x * x; }, kNumeric,
       Out::same, Domain::any},
      {"sin", [](const array& a) { return sin(a); }, [](double x) { return std::sin(x); },
       kFloatOps, Out::at_least_float, Domain::any},
      {"cos", [](const array& a) { return cos(a); }, [](double x) { return std::cos(x); },
       kFloatOps, Out::at_least_float, Domain::any},
      {"tanh", [](const array& a) { return tanh(a); }, [](double x) { return std::tanh(x); },
       kFloatOps, Out::at_least_float, Domain::any},
      {"sigmoid", [](const array& a) { return sigmoid(a); },
       [](double x) { return 1 / (1 + std::exp(-x)); }, kFloatOps, Out::at_least_float,
       Domain::any},
      {"erf", [](const array& a) { return erf(a); }, [](double x) { return std::erf(x); },
       kFloatOps, Out::at_least_float, Domain::any},
      {"erfinv", [](const array& a) { return erfinv(a); }, erfinv_ref, kFloatOps,
       Out::at_least_float, Domain::unit, 4},
      {"logical_not", [](const array& a) { return logical_not(a); },
       [](double x) { return x == 0 ? 1.0 : 0.0; }, kAll, Out::boolean, Domain::any},
      {"operator_not", [](const array& a) { return !a; },
       [](double x) { return x == 0 ? 1.0 : 0.0; }, kAll, Out::boolean, Domain::any},
  };
}

// gtest prints a failing parameter by its name.
void PrintTo(const UnaryCase& c, std::ostream* os) {
  *os << c.name;
}

Dtype out_dtype(Out rule, Dtype in) {
  switch (rule) {
    case Out::same:
      return in;
    case Out::at_least_float:
      return is_floating_point(in) ? in : float32;
    case Out::boolean:
      return bool_;
  }
  return in;
}

class UnaryOpTest : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryOpTest, EveryDtypeAndLayout) {
  const auto& c = GetParam();
  for (Dtype dt : c.dtypes) {
    Dtype od = out_dtype(c.out, dt);
    for (auto [r, cols] : test_shapes()) {
      for (auto& l : layouts(dt, r, cols, [&](int i) { return input(c.domain, dt, i); })) {
        auto what = c.name + " " + describe(dt, l.name, r, cols);
        array out = c.op(l.a);
        ASSERT_EQ(out.dtype(), od) << what;
        ASSERT_EQ(out.shape(), (Shape{r, cols})) << what;
        std::vector<double> want;
        for (double x : l.vals) {
          double y = c.ref(x);
          want.push_back(is_floating_point(od) ? y : wrap(y, od));
        }
        expect_values(out, want, tolerance(od) * c.tol_scale, what);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryOpTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(Unary, ScalarAndEmptyInputs) {
  for (Dtype dt : {int32, float16, float32}) {
    array s = make_array({4}, {}, dt);
    array r = sqrt(s);
    EXPECT_EQ(r.ndim(), 0);
    EXPECT_EQ(values(r)[0], 2.0);
    array e = make_array({}, {0, 3}, dt);
    array out = exp(e);
    EXPECT_EQ(out.shape(), (Shape{0, 3}));
    EXPECT_EQ(values(out).size(), 0u);
  }
}

TEST(Unary, NegativeOfBoolThrows) {
  auto msg = error_of([] { negative(array({true, false})); });
  EXPECT_NE(msg.find("[negative]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bool"), std::string::npos) << msg;
}

TEST(Unary, AbsAndNegativeOfUnsigned) {
  array a({0, 3, 255}, uint8);
  EXPECT_EQ(values(abs(a)), (std::vector<double>{0, 3, 255}));
  EXPECT_EQ(values(negative(a)), (std::vector<double>{0, 253, 1}));  // modular, as MLX
  EXPECT_EQ(values(abs(array({-3, 4}, int32))), (std::vector<double>{3, 4}));
}

TEST(Unary, RoundHalfToEven) {
  std::vector<double> x = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 2.4, -2.6, 2.6};
  std::vector<double> want = {-2, -2, -0.0, 0, 2, 2, 4, 2, -3, 3};
  for (Dtype dt : {float16, bfloat16, float32}) {
    array r = round(make_array(x, {10}, dt));
    EXPECT_EQ(r.dtype(), dt);
    auto got = values(r);
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << dtype_name(dt) << " round(" << x[i] << ")";
    }
    EXPECT_TRUE(std::signbit(got[2])) << "round(-0.5) is -0";
  }
}

TEST(Unary, RoundWithDecimals) {
  // Inputs that are exact in float32 after scaling, so no double-rounding tie.
  array a({0.125f, 0.375f, 1.2345f, -1.2345f, 123.456f});
  expect_values(round(a, 2), {0.12, 0.38, 1.23, -1.23, 123.46}, 1e-6, "round(a, 2)");
  expect_values(round(a, 1), {0.1, 0.4, 1.2, -1.2, 123.5}, 1e-6, "round(a, 1)");
  EXPECT_EQ(round(a, 2).dtype(), float32);
  array big({1234.0f, 1250.0f, 1350.0f, -1260.0f});
  expect_values(round(big, -2), {1200, 1200, 1400, -1300}, 1e-6, "round(big, -2)");
  array h = astype(array({0.125f, 2.375f}), float16);
  array rh = round(h, 2);
  EXPECT_EQ(rh.dtype(), float16);
  expect_values(rh, {0.12, 2.38}, 1e-3, "round(float16, 2)");
  // MLX rounds integers in float and casts back: the dtype is kept.
  array i = array({15, 25, 1234}, int32);
  array ri = round(i, -1);
  EXPECT_EQ(ri.dtype(), int32);
  expect_values(ri, {20, 20, 1230}, 0, "round(int32, -1)");
}

TEST(Unary, SigmoidAtLargeMagnitudeHasNoNaN) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> x = {-inf, -1e4, -100, -89, -20, 0, 20, 89, 100, 1e4, inf};
  for (Dtype dt : {float16, bfloat16, float32}) {
    auto in = make_array(x, {static_cast<int>(x.size())}, dt);
    auto got = values(sigmoid(in));
    auto stored_in = values(in);
    for (size_t i = 0; i < x.size(); ++i) {
      double want = 1 / (1 + std::exp(-stored_in[i]));
      EXPECT_FALSE(std::isnan(got[i])) << dtype_name(dt) << " sigmoid(" << stored_in[i] << ")";
      EXPECT_NEAR(got[i], want, tolerance(dt)) << dtype_name(dt) << " sigmoid(" << x[i] << ")";
      EXPECT_GE(got[i], 0.0);
      EXPECT_LE(got[i], 1.0);
    }
  }
}

TEST(Unary, ErfErfinvRoundTrip) {
  std::vector<float> y;
  for (int i = -99; i <= 99; ++i) y.push_back(i / 100.0f);
  array ya(y.begin(), {static_cast<int>(y.size())});
  expect_values(erf(erfinv(ya)), std::vector<double>(y.begin(), y.end()), 2e-6, "erf(erfinv(y))");
  std::vector<float> x;
  for (int i = -150; i <= 150; ++i) x.push_back(i / 100.0f);
  array xa(x.begin(), {static_cast<int>(x.size())});
  expect_values(erfinv(erf(xa)), std::vector<double>(x.begin(), x.end()), 1e-4, "erfinv(erf(x))");
  EXPECT_EQ(erfinv(array(0.0f)).item<float>(), 0.0f);
  EXPECT_EQ(erfinv(array(1.0f)).item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(erfinv(array(-1.0f)).item<float>(), -std::numeric_limits<float>::infinity());
}

TEST(Unary, LogAndSqrtEdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(log(array(0.0f)).item<float>(), -inf);
  EXPECT_TRUE(std::isnan(log(array(-1.0f)).item<float>()));
  EXPECT_TRUE(std::isnan(sqrt(array(-1.0f)).item<float>()));
  EXPECT_EQ(rsqrt(array(0.0f)).item<float>(), inf);
  EXPECT_EQ(log1p(array(-1.0f)).item<float>(), -inf);
  EXPECT_EQ(exp(array(-inf)).item<float>(), 0.0f);
  // log1p keeps precision near zero where log(1 + x) would not.
  EXPECT_NEAR(log1p(array(1e-7f)).item<float>(), 1e-7, 1e-13);
}

// --- astype -------------------------------------------------------------

// Whether v (already as `src` stores it) may be converted to dst with a
// defined result: finite and in range when dst is an integer type.
bool convertible(double v, Dtype dst) {
  if (dst == bool_ || is_floating_point(dst)) return true;
  if (!std::isfinite(v)) return false;
  double t = std::trunc(v);
  double lo = 0, hi = 0;
  if (dst == uint8) lo = 0, hi = 255;
  if (dst == uint32) lo = 0, hi = 4294967295.0;
  if (dst == int32) lo = -2147483648.0, hi = 2147483647.0;
  if (dst == int64) lo = -9.2e18, hi = 9.2e18;
  return t >= lo && t <= hi;
}

// Whether `src` holds v exactly (integers) or at all (floats round).
bool holds(double v, Dtype src) {
  if (src == bool_) return v == 0 || v == 1;
  if (is_floating_point(src)) return true;
  return convertible(v, src) && std::trunc(v) == v;
}

double converted(double v, Dtype dst) {
  if (dst == bool_) return v != 0;
  if (is_integral(dst)) return std::trunc(v);
  return stored(v, dst);
}

TEST(Astype, AllDtypePairsAllLayouts) {
  const std::vector<double> pool = {0,    1,    -1,      2.75,  -3.5,  100, 127.5, 255,
                                    2049, -0.4, 1.0 / 3, 65504, 70000, 4e9, -2e9,  16777217};
  for (Dtype src : kAll) {
    for (Dtype dst : kAll) {
      std::vector<double> vals;
      for (double v : pool) {
        if (holds(v, src) && convertible(stored(v, src), dst)) vals.push_back(v);
      }
      ASSERT_FALSE(vals.empty());
      for (auto [r, c] : test_shapes()) {
        auto gen = [&](int i) { return vals[i % vals.size()]; };
        for (auto& l : layouts(src, r, c, gen)) {
          auto what = std::string("astype ") + std::string(dtype_name(src)) + " -> " +
                      std::string(dtype_name(dst)) + " " + l.name + " (" + std::to_string(r) + "," +
                      std::to_string(c) + ")";
          array out = astype(l.a, dst);
          ASSERT_EQ(out.dtype(), dst) << what;
          ASSERT_EQ(out.shape(), (Shape{r, c})) << what;
          std::vector<double> want;
          for (double v : l.vals) want.push_back(converted(v, dst));
          expect_values(out, want, 0, what);
        }
      }
    }
  }
}

TEST(Astype, RoundingAndTruncation) {
  // float16 keeps 11 significant bits, bfloat16 8, both rounding to nearest even.
  EXPECT_EQ(static_cast<float>(astype(array(1.0f / 3), float16).item<float16_t>()),
            0.333251953125f);
  EXPECT_EQ(static_cast<float>(astype(array(1.0f / 3), bfloat16).item<bfloat16_t>()), 0.333984375f);
  EXPECT_EQ(static_cast<float>(astype(array(2049), float16).item<float16_t>()), 2048.0f);
  EXPECT_EQ(static_cast<float>(astype(array(2051), float16).item<float16_t>()), 2052.0f);
  EXPECT_EQ(static_cast<float>(astype(array(257), bfloat16).item<bfloat16_t>()), 256.0f);
  EXPECT_EQ(static_cast<float>(astype(array(70000.0f), float16).item<float16_t>()),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(astype(array(16777217), float32).item<float>(), 16777216.0f);
  // float to integer truncates toward zero.
  EXPECT_EQ(values(astype(array({-2.7f, 2.7f, -0.5f, 0.99f}), int32)),
            (std::vector<double>{-2, 2, 0, 0}));
  EXPECT_EQ(values(astype(array({200.9f, 0.5f}), uint8)), (std::vector<double>{200, 0}));
  EXPECT_EQ(values(astype(array(4e9f), uint32)), (std::vector<double>{4e9}));
  // to bool is != 0 (so NaN and -0.5 are true, -0.0 is false).
  EXPECT_EQ(values(astype(array({0.0f, -0.0f, 0.5f, -2.0f, NAN}), bool_)),
            (std::vector<double>{0, 0, 1, 1, 1}));
  EXPECT_EQ(values(astype(array({0, 7, -1}, int32), bool_)), (std::vector<double>{0, 1, 1}));
  // Wide integers keep their value.
  array big(int64_t{5000000000});
  EXPECT_EQ(astype(astype(big, float32), int64).item<int64_t>(), 5000000000);
  EXPECT_EQ(astype(array(uint32_t{4000000000u}), int64).item<int64_t>(), 4000000000);
}

TEST(Astype, SameDtypeIsTheSameArray) {
  array a({1.0f, 2.0f});
  EXPECT_TRUE(astype(a, float32).is_same(a));
}

TEST(Astype, UnknownDtypeThrows) {
  Dtype bad{Dtype::Val::float32, 3};
  auto msg = error_of([&] { astype(array({1.0f}), bad); });
  EXPECT_NE(msg.find("[astype]"), std::string::npos) << msg;
}

TEST(Unary, IsLazy) {
  array a({1.0f, 2.0f});
  array e = exp(a);
  EXPECT_FALSE(e.is_available());
  EXPECT_TRUE(e.has_primitive());
  EXPECT_NEAR(e.data<float>()[1], std::exp(2.0), 1e-5);
}

}  // namespace
