// Creation ops: arange, linspace, full, zeros, ones, zeros_like, ones_like
// and eye, against hand-computed values and scalar loops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mlx_lite/mlx_lite.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::error_of;
using test_util::make;
using test_util::values;

TEST(Arange, IntOverloadsGiveInt32) {
  array a = arange(5);
  EXPECT_EQ(a.dtype(), int32);
  EXPECT_EQ(values(a), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values(arange(2, 6)), (std::vector<double>{2, 3, 4, 5}));
  EXPECT_EQ(values(arange(10, 0, -3)), (std::vector<double>{10, 7, 4, 1}));
  EXPECT_EQ(arange(3, 7, 2).dtype(), int32);
  EXPECT_EQ(values(arange(-3, 4, 3)), (std::vector<double>{-3, 0, 3}));
  // Empty when the step walks away from stop.
  EXPECT_EQ(arange(5, 2).shape(), (Shape{0}));
  EXPECT_EQ(arange(2, 5, -1).shape(), (Shape{0}));
  EXPECT_EQ(arange(0).shape(), (Shape{0}));
}

TEST(Arange, DoubleOverloadsGiveFloat32) {
  array a = arange(3.0);
  EXPECT_EQ(a.dtype(), float32);
  EXPECT_EQ(values(a), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(arange(0.0, 2.0).dtype(), float32);
  // numpy's length rule: ceil((stop - start) / step).
  array b = arange(0.0, 1.0, 0.3);
  ASSERT_EQ(b.shape(), (Shape{4}));
  auto bv = values(b);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(bv[i], 0.3 * i, 1e-6);
  EXPECT_EQ(arange(1.0, 2.0, 0.5).shape(), (Shape{2}));
  EXPECT_EQ(arange(1.0, 2.01, 0.5).shape(), (Shape{3}));
  EXPECT_EQ(arange(2.5, -1.0, -1.0).shape(), (Shape{4}));
  EXPECT_EQ(values(arange(2.5, -1.0, -1.0)), (std::vector<double>{2.5, 1.5, 0.5, -0.5}));
  // Each value is start + i * step, not a running sum: no drift.
  array c = arange(0.0, 1000.0, 0.1);
  ASSERT_EQ(c.shape(), (Shape{10000}));
  auto cv = values(c);
  for (int i = 0; i < 10000; i += 997) EXPECT_FLOAT_EQ(cv[i], static_cast<float>(0.1 * i));
}

TEST(Arange, EveryNumberDtype) {
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    if (dt == bool_) continue;
    array a = arange(1.0, 20.0, 3.0, dt);
    EXPECT_EQ(a.dtype(), dt);
    EXPECT_EQ(values(a), (std::vector<double>{1, 4, 7, 10, 13, 16, 19})) << dt;
    EXPECT_EQ(values(arange(4.0, dt)), (std::vector<double>{0, 1, 2, 3})) << dt;
    EXPECT_EQ(values(arange(2.0, 4.0, dt)), (std::vector<double>{2, 3})) << dt;
  }
  EXPECT_EQ(values(arange(0.0, 1.0, 0.25, float16)), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(values(arange(-2.0, 1.0, 1.0, int64)), (std::vector<double>{-2, -1, 0}));
  // Negative values wrap into unsigned types as a C cast through int64 does.
  EXPECT_EQ(values(arange(-1.0, 0.0, 1.0, uint8)), (std::vector<double>{255}));
}

TEST(Arange, BadInput) {
  auto msg = error_of([] { arange(0, 5, 0); });
  EXPECT_NE(msg.find("[arange] Step is 0"), std::string::npos) << msg;
  msg = error_of([] { arange(0.0, 1.0, 0.0); });
  EXPECT_NE(msg.find("[arange] Step is 0"), std::string::npos) << msg;
  msg = error_of([] { arange(0.0, 5.0, 1.0, bool_); });
  EXPECT_NE(msg.find("[arange] Cannot make a range of dtype bool"), std::string::npos) << msg;
  const double inf = std::numeric_limits<double>::infinity();
  msg = error_of([&] { arange(0.0, inf); });
  EXPECT_NE(msg.find("[arange] Cannot make a range from 0 to inf"), std::string::npos) << msg;
  msg = error_of([&] { arange(0.0, std::nan("")); });
  EXPECT_NE(msg.find("[arange]"), std::string::npos) << msg;
  msg = error_of([] { arange(0.0, 1e12); });
  EXPECT_NE(msg.find("[arange]"), std::string::npos) << msg;
}

TEST(Linspace, EvenlySpacedInclusive) {
  array a = linspace(0.0, 1.0, 5);
  EXPECT_EQ(a.dtype(), float32);
  EXPECT_EQ(values(a), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  array b = linspace(-3.0, 7.0, 11);
  auto bv = values(b);
  for (int i = 0; i <= 10; ++i) EXPECT_NEAR(bv[i], -3.0 + i, 1e-5);
  EXPECT_EQ(bv.front(), -3.0);
  EXPECT_EQ(bv.back(), 7.0);
  array c = linspace(1.0, 0.0, 3);
  EXPECT_EQ(values(c), (std::vector<double>{1, 0.5, 0}));
  auto d = values(linspace(0.0, 1.0, 7));  // default 50 also exercised below
  for (int i = 0; i < 7; ++i) EXPECT_NEAR(d[i], i / 6.0, 1e-6);
  EXPECT_EQ(linspace(0.0, 1.0).shape(), (Shape{50}));
  EXPECT_EQ(values(linspace(2.5, 9.0, 1)), (std::vector<double>{2.5}));
  EXPECT_EQ(linspace(2.5, 9.0, 0).shape(), (Shape{0}));
  array e = linspace(0.0, 10.0, 6, int32);
  EXPECT_EQ(e.dtype(), int32);
  EXPECT_EQ(values(e), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(values(linspace(0.0, 1.0, 3, float16)), (std::vector<double>{0, 0.5, 1}));
  auto msg = error_of([] { linspace(0.0, 1.0, -2); });
  EXPECT_NE(msg.find("[linspace] The number of samples must be non-negative, got -2"),
            std::string::npos)
      << msg;
}

// Issue 14: MLX's full/zeros/ones are dense arrays once evaluated (its Full
// copies the broadcast value); this test asserted stride-0 views before.
TEST(Full, DenseCopyOfTheValues) {
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    array f = full({3, 4}, 1, dt);
    EXPECT_EQ(f.shape(), (Shape{3, 4}));
    EXPECT_EQ(f.dtype(), dt);
    EXPECT_EQ(values(f), std::vector<double>(12, 1)) << dt;
    EXPECT_EQ(f.strides(), (Strides{4, 1})) << dt;
    EXPECT_TRUE(f.flags().row_contiguous) << dt;
    EXPECT_EQ(f.data_size(), 12u) << dt;
  }
  array v = array({1.5f, -2.0f, 3.0f});
  array f = full({2, 3}, v);
  EXPECT_EQ(values(f), (std::vector<double>{1.5, -2, 3, 1.5, -2, 3}));
  f.eval();
  v.eval();
  EXPECT_NE(f.data_shared_ptr(), v.data_shared_ptr());
  EXPECT_EQ(f.strides(), (Strides{3, 1}));
  EXPECT_EQ(f.dtype(), float32);
  array g = full({2, 3}, v, int32);
  EXPECT_EQ(g.dtype(), int32);
  EXPECT_EQ(values(g), (std::vector<double>{1, -2, 3, 1, -2, 3}));
  EXPECT_EQ(values(full({2}, 7.5f, float16)), (std::vector<double>{7.5, 7.5}));
  EXPECT_EQ(full({}, 4).shape(), (Shape{}));
  EXPECT_EQ(full({0, 3}, 4).size(), 0u);
  // Consumers that write a buffer still get the right values.
  EXPECT_EQ(values(concatenate({full({2}, 1), full({1}, 2)})), (std::vector<double>{1, 1, 2}));

  auto msg = error_of([] { full({2, -1}, 0.0f); });
  EXPECT_NE(msg.find("[full] Shape (2,-1) has a negative dimension"), std::string::npos) << msg;
  msg = error_of([&] { full({2, 2}, v); });
  EXPECT_NE(msg.find("(3,)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(2,2)"), std::string::npos) << msg;
}

TEST(ZerosOnes, EveryDtypeAndLike) {
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    array z = zeros({2, 5}, dt);
    array o = ones({5, 2}, dt);
    EXPECT_EQ(z.dtype(), dt);
    EXPECT_EQ(o.dtype(), dt);
    EXPECT_EQ(values(z), std::vector<double>(10, 0)) << dt;
    EXPECT_EQ(values(o), std::vector<double>(10, 1)) << dt;
    array base = transpose(make({3, 2}, dt));
    array zl = zeros_like(base);
    array ol = ones_like(base);
    EXPECT_EQ(zl.shape(), (Shape{2, 3}));
    EXPECT_EQ(zl.dtype(), dt);
    EXPECT_EQ(values(zl), std::vector<double>(6, 0));
    EXPECT_EQ(ol.dtype(), dt);
    EXPECT_EQ(values(ol), std::vector<double>(6, 1));
  }
  EXPECT_EQ(zeros({3}).dtype(), float32);
  EXPECT_EQ(ones({3}).dtype(), float32);
  EXPECT_NE(error_of([] { zeros({-1}); }).find("[full]"), std::string::npos);
}

TEST(Eye, DiagonalsAndDtypes) {
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    for (auto [n, m] : std::vector<std::pair<int, int>>{{4, 4}, {3, 5}, {5, 2}}) {
      for (int k = -5; k <= 5; ++k) {
        array e = eye(n, m, k, dt);
        ASSERT_EQ(e.shape(), (Shape{n, m}));
        EXPECT_EQ(e.dtype(), dt);
        auto ev = values(e);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < m; ++j)
            EXPECT_EQ(ev[i * m + j], j - i == k ? 1.0 : 0.0)
                << dt << " " << n << "x" << m << " k " << k;
      }
    }
  }
  EXPECT_EQ(values(eye(2)), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(eye(3, int32).dtype(), int32);
  EXPECT_EQ(eye(2, 3).shape(), (Shape{2, 3}));
  EXPECT_EQ(values(eye(2, 3, 1)), (std::vector<double>{0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(eye(0).shape(), (Shape{0, 0}));
  auto msg = error_of([] { eye(-1, 2); });
  EXPECT_NE(msg.find("[eye] Got n = -1 and m = 2"), std::string::npos) << msg;
}
