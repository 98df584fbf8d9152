// where (the Select primitive) and clip, against references computed here,
// on every dtype, strided/transposed/negative-step/broadcast inputs, with
// broadcasting and type promotion.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mlx_lite/primitives/ternary.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using namespace test_util;

namespace {

const std::vector<Dtype> kAll = test_util::default_device_dtypes();

double cond_value(int i) {
  return (i * 5 % 7) < 3 ? 1 : 0;
}
double x_value(Dtype dt, int i) {
  if (dt == bool_) return i % 2;
  return is_unsigned(dt) ? (i * 13) % 50 : (i * 13) % 50 - 25 + (is_floating_point(dt) ? 0.25 : 0);
}
double y_value(Dtype dt, int i) {
  if (dt == bool_) return (i + 1) % 3 == 0;
  return is_unsigned(dt) ? 100 + i % 9 : -(i % 9) * 1.5;
}

// Every dtype, every shape, each of condition, x and y in every layout with
// the others contiguous, and all three in the same layout.
TEST(Where, EveryDtypeAndLayout) {
  for (Dtype dt : kAll) {
    for (const auto& shape : test_shapes()) {
      const int r = shape.first, c = shape.second;
      auto lc = layouts(bool_, r, c, cond_value);
      auto lx = layouts(dt, r, c, [&](int i) { return x_value(dt, i); });
      auto ly = layouts(dt, r, c, [&](int i) { return y_value(dt, i); });
      auto check = [&](const Layout& lcond, const Layout& a, const Layout& b) {
        auto what = describe(dt, lcond.name + "/" + a.name + "/" + b.name, r, c);
        array out = where(lcond.a, a.a, b.a);
        ASSERT_EQ(out.dtype(), dt) << what;
        ASSERT_EQ(out.shape(), (Shape{r, c})) << what;
        std::vector<double> want;
        for (size_t i = 0; i < a.vals.size(); ++i) {
          want.push_back(lcond.vals[i] != 0 ? a.vals[i] : b.vals[i]);
        }
        expect_values(out, want, 0, what);
      };
      for (size_t k = 0; k < lc.size(); ++k) {
        check(lc[k], lx[0], ly[0]);
        check(lc[0], lx[k], ly[0]);
        check(lc[0], lx[0], ly[k]);
        check(lc[k], lx[k], ly[k]);
      }
    }
  }
}

TEST(Where, NonBoolConditionIsNonZero) {
  for (Dtype dt : {uint8, int32, float16, float32}) {
    array cond = make_array({0, 2, 0, 1}, {4}, dt);
    auto got = values(where(cond, array({1, 2, 3, 4}, int32), array({-1, -2, -3, -4}, int32)));
    EXPECT_EQ(got, (std::vector<double>{-1, 2, -3, 4})) << dtype_name(dt);
  }
  array fc({0.0f, -0.0f, 0.5f, NAN});  // NaN is != 0, so true
  EXPECT_EQ(values(where(fc, array(1), array(0))), (std::vector<double>{0, 0, 1, 1}));
}

TEST(Where, TypePromotion) {
  auto t = [](Dtype a, Dtype b) {
    return where(array(true), make_array({1}, {1}, a), make_array({0}, {1}, b)).dtype();
  };
  EXPECT_EQ(t(int32, float16), float16);
  EXPECT_EQ(t(uint8, int32), int32);
  EXPECT_EQ(t(uint32, int32), int64);
  EXPECT_EQ(t(float16, bfloat16), float32);
  EXPECT_EQ(t(bool_, bool_), bool_);
  EXPECT_EQ(t(bool_, uint8), uint8);
  EXPECT_EQ(t(int64, bfloat16), bfloat16);
  // The condition's dtype never takes part.
  EXPECT_EQ(where(array(1.0f), array(1, int32), array(2, int32)).dtype(), int32);
  // Values convert to the promoted type before selection.
  array v = where(array({true, false}), array({1.5f}), array({7}, int32));
  EXPECT_EQ(values(v), (std::vector<double>{1.5, 7}));
  array big = where(array({false, true}), array(uint32_t{4000000000u}), array(-1));
  EXPECT_EQ(big.dtype(), int64);
  EXPECT_EQ(values(big), (std::vector<double>{-1, 4e9}));
}

TEST(Where, BroadcastsAllThree) {
  // condition (3,1), x (1,4), y scalar -> (3,4).
  array cond = make_array({1, 0, 1}, {3, 1}, bool_);
  array x = make_array({1, 2, 3, 4}, {1, 4}, float32);
  array out = where(cond, x, array(-1.0f));
  ASSERT_EQ(out.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(out), (std::vector<double>{1, 2, 3, 4, -1, -1, -1, -1, 1, 2, 3, 4}));
  // A scalar condition picks a whole operand; the lower-rank operand is right-aligned.
  array x2 = make_array({1, 2, 3, 4, 5, 6}, {2, 3}, int32);
  array y2 = make_array({10, 20, 30}, {3}, int32);
  EXPECT_EQ(values(where(array(false), x2, y2)), (std::vector<double>{10, 20, 30, 10, 20, 30}));
  EXPECT_EQ(where(array(true), array(1), array(2)).ndim(), 0);
  EXPECT_EQ(where(array(true), array(1), array(2)).item<int>(), 1);
  // Empty.
  EXPECT_EQ(where(make_array({}, {0, 2}, bool_), array(1), array(2)).shape(), (Shape{0, 2}));
}

TEST(Where, BroadcastErrorNamesTheShapes) {
  array cond = make_array({1, 0}, {2}, bool_);
  array x = make_array({1, 2, 3}, {3}, float32);
  auto msg = error_of([&] { where(cond, x, array(0.0f)); });
  EXPECT_EQ(msg.substr(0, 1), "[") << msg;
  EXPECT_NE(msg.find("(2,)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(3,)"), std::string::npos) << msg;
}

TEST(Where, IsLazyWithASelectNode) {
  array out = where(array({true, false}), array({1.0f, 2.0f}), array({3.0f, 4.0f}));
  EXPECT_FALSE(out.is_available());
  ASSERT_TRUE(out.has_primitive());
  EXPECT_STREQ(out.primitive().name(), "Select");
  EXPECT_TRUE(out.primitive().is_equivalent(Select(default_stream(Device::cpu))));
  EXPECT_EQ(values(out), (std::vector<double>{1, 4}));
}

TEST(Where, LargeStridedInput) {
  // 3-D transposed x and a broadcast condition, 60k elements.
  const int a = 30, b = 40, c = 50;
  std::vector<double> xb(a * b * c);
  for (size_t i = 0; i < xb.size(); ++i) xb[i] = static_cast<double>(i);
  array base = make_array(xb, {c, b, a}, float32);  // x[i][j][k] = base[k][j][i]
  array x = strided_view(base, {a, b, c}, {1, a, a * b}, 0);
  std::vector<double> cb(c);
  for (int k = 0; k < c; ++k) cb[k] = k % 3 == 0;
  array cond = strided_view(make_array(cb, {c}, bool_), {a, b, c}, {0, 0, 1}, 0);
  array out = where(cond, x, array(-1.0f));
  std::vector<double> want;
  for (int i = 0; i < a; ++i)
    for (int j = 0; j < b; ++j)
      for (int k = 0; k < c; ++k) want.push_back(k % 3 == 0 ? xb[(k * b + j) * a + i] : -1);
  expect_values(out, want, 0, "where 3-D strided");
}

// --- clip ----------------------------------------------------------------

TEST(Clip, BothBoundsEveryNumericDtypeAndLayout) {
  for (Dtype dt : {uint8, uint32, int32, int64, float16, bfloat16, float32}) {
    double lo = is_unsigned(dt) ? 10 : -5, hi = is_unsigned(dt) ? 30 : 5.5;
    for (const auto& shape : test_shapes()) {
      const int r = shape.first, c = shape.second;
      auto gen = [&](int i) { return is_unsigned(dt) ? (i * 17) % 41 : (i * 17) % 41 - 20.25; };
      for (auto& l : layouts(dt, r, c, gen)) {
        auto what = "clip " + describe(dt, l.name, r, c);
        array out = clip(l.a, make_array({lo}, {}, dt), make_array({hi}, {}, dt));
        ASSERT_EQ(out.dtype(), dt) << what;
        std::vector<double> want;
        for (double v : l.vals)
          want.push_back(std::min(std::max(v, stored(lo, dt)), stored(hi, dt)));
        expect_values(out, want, 0, what);
      }
    }
  }
}

TEST(Clip, OneBound) {
  array a({-3.0f, 0.0f, 2.0f, 9.0f});
  EXPECT_EQ(values(clip(a, array(0.0f))), (std::vector<double>{0, 0, 2, 9}));
  EXPECT_EQ(values(clip(a, std::nullopt, array(1.0f))), (std::vector<double>{-3, 0, 1, 1}));
}

TEST(Clip, ArrayBoundsBroadcastAndPromote) {
  array a = make_array({1, 5, 9, 1, 5, 9}, {2, 3}, int32);
  array lo = make_array({2, 2, 2}, {3}, int32);
  array hi = make_array({8, 4}, {2, 1}, int32);
  EXPECT_EQ(values(clip(a, lo, hi)), (std::vector<double>{2, 5, 8, 2, 4, 4}));
  // Float bounds on an integer array promote as maximum/minimum do.
  array f = clip(a, array(1.5f), array(8.5f));
  EXPECT_EQ(f.dtype(), float32);
  EXPECT_EQ(values(f), (std::vector<double>{1.5, 5, 8.5, 1.5, 5, 8.5}));
}

TEST(Clip, NoBoundThrows) {
  auto msg = error_of([] { clip(array({1.0f})); });
  EXPECT_NE(msg.find("[clip]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a_min"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a_max"), std::string::npos) << msg;
}

}  // namespace
