// array_equal, isclose and allclose (mlx_lite/ops/comparison.h): MLX's
// formula |a - b| <= atol + rtol |b|, its infinity and NaN rules, shape
// mismatches, dtype promotion, broadcasting, empty and strided inputs, on
// both devices, against a double-precision reference written here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mlx_lite/gpu.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using namespace test_util;

namespace {

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);

bool scalar_bool(array a) {
  EXPECT_EQ(a.dtype(), bool_);
  EXPECT_EQ(a.ndim(), 0);
  return a.item<bool>();
}

// numpy's isclose in double, on float32 values (the tolerance test runs in
// float32 for float32 inputs; the references below avoid its rounding edge).
bool isclose_ref(double a, double b, double rtol, double atol, bool equal_nan) {
  if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

TEST(ArrayEqual, ShapesValuesAndDtypes) {
  for (const Device& dev : devices()) {
    array a = array({1, 2, 3, 4}, {2, 2});
    EXPECT_TRUE(scalar_bool(array_equal(a, a, dev)));
    EXPECT_TRUE(scalar_bool(array_equal(a, astype(a, float16), dev)));  // compared after promotion
    EXPECT_TRUE(scalar_bool(array_equal(a, astype(a, uint8), false, dev)));
    EXPECT_FALSE(scalar_bool(array_equal(a, array({1, 2, 3, 5}, {2, 2}), dev)));
    // Shapes that differ are unequal, even where they would broadcast.
    EXPECT_FALSE(scalar_bool(array_equal(a, reshape(a, {4}), dev)));
    EXPECT_FALSE(scalar_bool(array_equal(array({1, 1}), array(1), dev)));
    // A transposed view compares by its logical values.
    EXPECT_TRUE(scalar_bool(array_equal(transpose(a), array({1, 3, 2, 4}, {2, 2}), dev)));
    // Empty arrays of one shape are equal; of different shapes are not.
    EXPECT_TRUE(scalar_bool(array_equal(zeros({0, 3}), zeros({0, 3}, int32), dev)));
    EXPECT_FALSE(scalar_bool(array_equal(zeros({0, 3}), zeros({3, 0}), dev)));
    // bool against integers: promoted.
    EXPECT_TRUE(scalar_bool(array_equal(array({true, false}), array({1, 0}), dev)));
  }
}

TEST(ArrayEqual, NaNOnlyWithEqualNan) {
  for (const Device& dev : devices()) {
    array a = array({1.0f, NAN, INFINITY});
    EXPECT_FALSE(scalar_bool(array_equal(a, a, dev)));
    EXPECT_TRUE(scalar_bool(array_equal(a, a, true, dev)));
    EXPECT_FALSE(scalar_bool(array_equal(a, array({1.0f, NAN, -INFINITY}), true, dev)));
    EXPECT_FALSE(scalar_bool(array_equal(a, array({NAN, NAN, INFINITY}), true, dev)));
    for (Dtype dt : {float16, bfloat16}) {
      EXPECT_TRUE(scalar_bool(array_equal(astype(a, dt), astype(a, dt), true, dev)));
    }
    // -0.0 equals 0.0.
    EXPECT_TRUE(scalar_bool(array_equal(array({-0.0f}), array({0.0f}), dev)));
    // equal_nan on integers changes nothing.
    EXPECT_TRUE(scalar_bool(array_equal(array({1, 2}), array({1, 2}), true, dev)));
  }
}

TEST(IsClose, MatchesNumpyFormulaOnARange) {
  const double rtol = 1e-3, atol = 1e-4;
  std::vector<float> av, bv;
  for (int i = 0; i < 400; ++i) {
    const float b = static_cast<float>((i % 37) - 18) * 0.37f;
    // Differences around the threshold, on both sides (not at it).
    const double thr = atol + rtol * std::fabs(b);
    const double k = ((i * 7) % 9 - 4) * 0.5;  // -2 .. 2 thresholds
    av.push_back(static_cast<float>(b + k * thr * 0.999));
    bv.push_back(b);
  }
  const int n = static_cast<int>(av.size());
  array a = array(av.begin(), {n}, float32), b = array(bv.begin(), {n}, float32);
  std::vector<double> want;
  for (int i = 0; i < n; ++i) want.push_back(isclose_ref(av[i], bv[i], rtol, atol, false));
  for (const Device& dev : devices()) {
    array out = isclose(a, b, rtol, atol, false, dev);
    EXPECT_EQ(out.dtype(), bool_);
    expect_values(out, want, 0, "isclose");
    // Not symmetric: the tolerance scales with |b|.
    EXPECT_TRUE(isclose(array(100.0f), array(110.0f), 0.1, 0, false, dev).item<bool>());
    EXPECT_FALSE(isclose(array(110.0f), array(100.0f), 0.09, 0, false, dev).item<bool>());
  }
}

TEST(IsClose, InfinitiesAndNaN) {
  const float inf = INFINITY, nan = NAN;
  array a = array({inf, inf, -inf, inf, 1.0f, nan, nan, 3e4f, -inf});
  array b = array({inf, -inf, -inf, 3e4f, inf, nan, 1.0f, inf, 0.0f});
  for (const Device& dev : devices()) {
    EXPECT_EQ(values(isclose(a, b, 1e-5, 1e-8, false, dev)),
              (std::vector<double>{1, 0, 1, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(values(isclose(a, b, 1e-5, 1e-8, true, dev)),
              (std::vector<double>{1, 0, 1, 0, 0, 1, 0, 0, 0}));
    // A huge tolerance still does not make an infinity close to a finite value.
    EXPECT_FALSE(isclose(array(inf), array(1.0f), 1e30, 1e30, false, dev).item<bool>());
    for (Dtype dt : {float16, bfloat16}) {
      EXPECT_EQ(values(isclose(astype(a, dt), astype(b, dt), 1e-2, 1e-8, true, dev)),
                values(isclose(a, b, 1e-2, 1e-8, true, kCpu)))
          << dtype_name(dt);
    }
  }
}

TEST(IsClose, DtypesBroadcastingAndEmpty) {
  for (const Device& dev : devices()) {
    // Integers: |a - b| <= atol + rtol |b| with float32 tolerances.
    EXPECT_EQ(values(isclose(array({100, 100, 100}), array({101, 110, 100}), 0.01, 0, false, dev)),
              (std::vector<double>{1, 0, 1}));
    // float16 inputs with a float32 tolerance: 1 + 2^-10 is close to 1 at 1e-3.
    EXPECT_TRUE(isclose(array(1.0009765625f, float16), array(1.0f, float16), 1e-3, 0, false, dev)
                    .item<bool>());
    array col = array({1.0f, 2.0f}, {2, 1}), row = array({1.0f, 2.0f, 1.00001f}, {1, 3});
    array out = isclose(col, row, 1e-4, 0, false, dev);
    EXPECT_EQ(out.shape(), (Shape{2, 3}));
    EXPECT_EQ(values(out), (std::vector<double>{1, 0, 1, 0, 1, 0}));
    EXPECT_EQ(isclose(zeros({0, 2}), zeros({2}), 1e-5, 1e-8, false, dev).shape(), (Shape{0, 2}));
    // A transposed operand.
    array m = array({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
    EXPECT_EQ(values(isclose(transpose(m), array({1.0f, 3.0f, 2.0f, 5.0f}, {2, 2}), 1e-5, 1e-8,
                             false, dev)),
              (std::vector<double>{1, 1, 1, 0}));
  }
  auto msg = error_of([] { isclose(zeros({2}), zeros({3})); });
  EXPECT_FALSE(msg.empty());
}

TEST(AllClose, AllOfIsClose) {
  for (const Device& dev : devices()) {
    array a = array({1.0f, 2.0f, 3.0f});
    EXPECT_TRUE(scalar_bool(allclose(a, a + 1e-6f, 1e-5, 1e-8, false, dev)));
    EXPECT_FALSE(scalar_bool(allclose(a, a + 1e-3f, 1e-5, 1e-8, false, dev)));
    EXPECT_TRUE(scalar_bool(allclose(a, a + 1e-3f, 1e-3, 1e-8, false, dev)));
    // Broadcast: a scalar against every element.
    EXPECT_TRUE(scalar_bool(allclose(array({2.0f, 2.0f}), array(2.0f), 1e-5, 1e-8, false, dev)));
    array n = array({1.0f, NAN});
    EXPECT_FALSE(scalar_bool(allclose(n, n, 1e-5, 1e-8, false, dev)));
    EXPECT_TRUE(scalar_bool(allclose(n, n, 1e-5, 1e-8, true, dev)));
    EXPECT_TRUE(
        scalar_bool(allclose(array({INFINITY}), array({INFINITY}), 1e-5, 1e-8, false, dev)));
    // Empty: vacuously true.
    EXPECT_TRUE(scalar_bool(allclose(zeros({0}), zeros({0}), 1e-5, 1e-8, false, dev)));
  }
  // MLX's defaults: rtol 1e-5, atol 1e-8.
  EXPECT_TRUE(allclose(array(1.0f), array(1.0f + 9e-6f)).item<bool>());
  EXPECT_FALSE(allclose(array(1.0f), array(1.0f + 2e-5f)).item<bool>());
}

}  // namespace
