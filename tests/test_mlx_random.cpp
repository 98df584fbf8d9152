// MLX's samplers composed from bits and uniform: randint, bernoulli,
// truncated_normal, gumbel, categorical, laplace, permutation. Each is checked
// on both devices against an independent host computation from the same
// random bits where the composition is exact, and otherwise against its
// closed-form distribution (moments within 5 standard errors, the
// Kolmogorov-Smirnov gap against the CDF written out here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

#include "mlx_lite/mlx_lite.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::devices;
using test_util::error_of;
using test_util::values;
using test_util::values_as;

namespace {

const Device kCpu(Device::cpu);
const Device kGpu(Device::gpu);

std::string dev_name(const Device& d) {
  return d == kCpu ? "cpu" : "gpu";
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

double var_of(const std::vector<double>& v) {
  double m = mean_of(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / (v.size() - 1);
}

// The largest gap between the empirical CDF of `v` and `cdf`.
double ks_gap(std::vector<double> v, const std::function<double(double)>& cdf) {
  std::sort(v.begin(), v.end());
  const double n = v.size();
  double gap = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    double f = cdf(v[i]);
    gap = std::max({gap, std::abs(f - i / n), std::abs((i + 1) / n - f)});
  }
  return gap;
}

// A KS gap bound that a correct sampler exceeds with probability ~1e-5
// (Kolmogorov's limit: P(sqrt(n) D > 2.4) ~ 2 exp(-2 * 2.4^2)); float
// rounding of the samples adds far less at these sizes.
double ks_bound(size_t n) {
  return 2.4 / std::sqrt(double(n));
}

// Five standard errors of a frequency p estimated from n draws.
double freq_tol(double p, double n) {
  return 5 * std::sqrt(p * (1 - p) / n) + 1e-12;
}

double std_normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// The 32-bit words random::bits gives for `key` (checked in test_random).
std::vector<uint32_t> words(const array& key, const Shape& shape) {
  return values_as<uint32_t>(random::bits(shape, key, kCpu));
}

}  // namespace

// ---- randint.

TEST(MlxRandom, RandintIsLowPlusBitsModWidth) {
  auto key = random::key(7);
  const int n = 5000;
  auto w = words(key, {n});
  for (const auto& d : devices()) {
    auto x = random::randint(-3, 1000, {n}, int32, key, d);
    EXPECT_EQ(x.dtype(), int32);
    auto got = values_as<int32_t>(x);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], -3 + int64_t(w[i] % 1003u)) << dev_name(d);
  }
}

TEST(MlxRandom, RandintInt64MatchesUnsigned64BitReference) {
  // MLX draws 64 bits from two keys split from `key` (low word first) and
  // reduces them modulo the uint64 width; check moderate, 2^63-wide and
  // nearly 2^64-wide intervals against that in uint64 arithmetic here.
  auto key = random::key(99);
  const int n = 4000;
  auto keys = values_as<uint32_t>(random::split(key, 2, kCpu));
  auto lo_w = words(array({keys[0], keys[1]}), {n});
  auto hi_w = words(array({keys[2], keys[3]}), {n});
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::pair<int64_t, int64_t> cases[] = {{-(int64_t(1) << 40), int64_t(3) << 40},
                                               {-(int64_t(1) << 62), int64_t(1) << 62},
                                               {kMin + 5, kMax - 3},
                                               {kMin, kMax},
                                               {-5, 17}};
  for (auto [lo, hi] : cases) {
    uint64_t width = uint64_t(hi) - uint64_t(lo);
    for (const auto& d : devices()) {
      auto x = random::randint(array(lo), array(hi), {n}, int64, key, d);
      EXPECT_EQ(x.dtype(), int64);
      auto got = values_as<int64_t>(x);
      for (int i = 0; i < n; ++i) {
        uint64_t raw = (uint64_t(hi_w[i]) << 32) | lo_w[i];
        int64_t want = int64_t(uint64_t(lo) + raw % width);
        ASSERT_EQ(got[i], want) << dev_name(d) << " [" << lo << ", " << hi << ") at " << i;
        ASSERT_GE(got[i], lo);
        ASSERT_LT(got[i], hi);
      }
    }
  }
}

TEST(MlxRandom, RandintUniformOverTheRange) {
  const int n = 100000;
  for (const auto& d : devices()) {
    auto got = values_as<int32_t>(random::randint(-3, 7, {n}, int32, random::key(3), d));
    std::vector<int> count(10);
    for (int v : got) {
      ASSERT_GE(v, -3);
      ASSERT_LT(v, 7);
      ++count[v + 3];
    }
    for (int c : count) EXPECT_NEAR(c / double(n), 0.1, freq_tol(0.1, n)) << dev_name(d);
  }
}

TEST(MlxRandom, RandintDtypes) {
  auto key = random::key(11);
  const int n = 2000;
  auto w = words(key, {n});
  for (const auto& d : devices()) {
    auto u8 = random::randint(10, 250, {n}, uint8, key, d);
    EXPECT_EQ(u8.dtype(), uint8);
    auto v8 = values_as<uint8_t>(u8);
    auto u32 = random::randint(array(int64_t(0)), array(int64_t(1) << 32), {n}, uint32, key, d);
    EXPECT_EQ(u32.dtype(), uint32);
    auto v32 = values_as<uint32_t>(u32);
    auto b = random::randint(0, 2, {n}, bool_, key, d);
    EXPECT_EQ(b.dtype(), bool_);
    auto vb = values_as<bool>(b);
    // A width past 2^63 keeps every 32-bit draw; the cast keeps the low bits.
    auto wide = random::randint(array(std::numeric_limits<int64_t>::min()),
                                array(std::numeric_limits<int64_t>::max()), {n}, int32, key, d);
    auto vw = values_as<int32_t>(wide);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(v8[i], 10 + w[i] % 240u);
      ASSERT_EQ(v32[i], w[i]);  // the full 2^32 width keeps every word
      ASSERT_EQ(vb[i], (w[i] % 2u) == 1);
      ASSERT_EQ(vw[i], static_cast<int32_t>(w[i]));
    }
  }
}

TEST(MlxRandom, RandintBroadcastsBounds) {
  auto low = array({0, 100, -50}, {3, 1});
  auto high = array({5, 1000, 200, 101}, {1, 4});
  auto key = random::key(5);
  auto w = words(key, {3, 4});
  const int lo[3] = {0, 100, -50}, hi[4] = {5, 1000, 200, 101};
  for (const auto& d : devices()) {
    auto got = values_as<int32_t>(random::randint(low, high, {3, 4}, int32, key, d));
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) {
        int64_t want = hi[j] <= lo[i] ? lo[i] : lo[i] + int64_t(w[i * 4 + j] % (hi[j] - lo[i]));
        EXPECT_EQ(got[i * 4 + j], want) << dev_name(d) << " " << i << "," << j;
      }
    }
  }
}

TEST(MlxRandom, RandintEmptyIntervalGivesLow) {
  for (const auto& d : devices()) {
    auto got = values_as<int32_t>(random::randint(5, 5, {100}, int32, random::key(1), d));
    for (int v : got) ASSERT_EQ(v, 5);
    got = values_as<int32_t>(random::randint(9, 2, {100}, int32, random::key(1), d));
    for (int v : got) ASSERT_EQ(v, 9);
  }
}

TEST(MlxRandom, RandintShapes) {
  auto x = random::randint(0, 4, {0, 3}, int32, random::key(0));
  EXPECT_EQ(x.shape(), (Shape{0, 3}));
  EXPECT_EQ(values_as<int32_t>(x).size(), 0u);
  auto sc = random::randint(0, 4, {}, int32, random::key(0));
  EXPECT_EQ(sc.ndim(), 0);
  EXPECT_LT(values_as<int32_t>(sc)[0], 4);
  // Non-contiguous bounds: a transposed high.
  auto high = transpose(array({10, 20, 30, 40, 50, 60}, {2, 3}));
  auto y = values_as<int32_t>(random::randint(array(0), high, {3, 2}, int32, random::key(2)));
  const int h[6] = {10, 40, 20, 50, 30, 60};
  for (int i = 0; i < 6; ++i) EXPECT_LT(y[i], h[i]);
}

// ---- bernoulli.

TEST(MlxRandom, BernoulliIsBitsBelowScaledP) {
  auto key = random::key(21);
  const int n = 20000;
  auto w = words(key, {n});
  const float upper = std::nextafter(4294967295.0f, std::numeric_limits<float>::max());
  for (const auto& d : devices()) {
    auto b = random::bernoulli(array(0.3f), {n}, key, d);
    EXPECT_EQ(b.dtype(), bool_);
    auto got = values_as<bool>(b);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], float(w[i]) < 0.3f * upper) << i;
  }
}

TEST(MlxRandom, BernoulliFrequencies) {
  const int n = 100000;
  for (const auto& d : devices()) {
    for (float p : {0.0f, 0.05f, 0.5f, 0.9f, 1.0f}) {
      auto got = values_as<bool>(random::bernoulli(p, {n}, random::key(8), d));
      double f = std::count(got.begin(), got.end(), true) / double(n);
      if (p == 0.0f || p == 1.0f) {
        EXPECT_EQ(f, p) << dev_name(d);
      } else {
        EXPECT_NEAR(f, p, freq_tol(p, n)) << dev_name(d) << " p=" << p;
      }
    }
  }
}

TEST(MlxRandom, BernoulliBroadcastsP) {
  const int n = 20000;
  auto p = array({0.1f, 0.6f}, {2, 1});
  for (const auto& d : devices()) {
    auto got = values_as<bool>(random::bernoulli(p, {2, n}, random::key(4), d));
    for (int r = 0; r < 2; ++r) {
      double f = std::count(got.begin() + r * n, got.begin() + (r + 1) * n, true) / double(n);
      double want = r == 0 ? 0.1 : 0.6;
      EXPECT_NEAR(f, want, freq_tol(want, n)) << dev_name(d);
    }
  }
  // p's own shape by default; float16 p; the scalar default of 0.5.
  auto q = random::bernoulli(astype(array({0.0f, 1.0f, 1.0f}), float16), random::key(1));
  EXPECT_EQ(q.shape(), Shape{3});
  EXPECT_EQ(values_as<bool>(q), (std::vector<bool>{false, true, true}));
  auto half = random::bernoulli(std::optional<array>(random::key(1)));
  EXPECT_EQ(half.shape(), Shape{});
  EXPECT_EQ(half.dtype(), bool_);
  EXPECT_EQ(random::bernoulli(0.5, {0}, random::key(1)).shape(), Shape{0});
}

// ---- truncated_normal.

TEST(MlxRandom, TruncatedNormalMatchesItsCdf) {
  const int n = 100000;
  const double a = -0.5, b = 2.0;
  auto cdf = [&](double x) {
    return (std_normal_cdf(x) - std_normal_cdf(a)) / (std_normal_cdf(b) - std_normal_cdf(a));
  };
  for (const auto& d : devices()) {
    auto x = random::truncated_normal(array(-0.5f), array(2.0f), {n}, float32, random::key(6), d);
    EXPECT_EQ(x.dtype(), float32);
    auto v = values(x);
    for (double e : v) {
      ASSERT_GE(e, a);
      ASSERT_LE(e, b);
    }
    EXPECT_LT(ks_gap(v, cdf), ks_bound(n)) << dev_name(d);
  }
}

TEST(MlxRandom, TruncatedNormalBroadcastsAndDtypes) {
  auto lower = array({-1.0f, 0.0f, 3.0f}, {3, 1});
  auto upper = array({1.0f, 0.5f}, {1, 2});
  for (const auto& d : devices()) {
    auto x = random::truncated_normal(lower, upper, float32, random::key(2), d);
    EXPECT_EQ(x.shape(), (Shape{3, 2}));
    auto v = values(x);
    const float lo[3] = {-1, 0, 3}, hi[2] = {1, 0.5};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 2; ++j) {
        if (lo[i] > hi[j]) {
          // An inverted interval clips last to lower, as MLX's clip does.
          EXPECT_EQ(v[i * 2 + j], lo[i]);
        } else {
          EXPECT_GE(v[i * 2 + j], lo[i]);
          EXPECT_LE(v[i * 2 + j], hi[j]);
        }
      }
    }
    for (Dtype dt : {float16, bfloat16}) {
      auto h = random::truncated_normal(array(-2.0f), array(0.25f), {1000}, dt, random::key(3), d);
      EXPECT_EQ(h.dtype(), dt);
      for (double e : values(h)) {
        ASSERT_GE(e, -2.0);
        ASSERT_LE(e, 0.25);
      }
    }
  }
}

// ---- gumbel and laplace.

TEST(MlxRandom, GumbelIsMinusLogMinusLogUniform) {
  const int n = 100000;
  auto key = random::key(12);
  auto u = values(random::uniform({n}, float32, key, kCpu));
  for (const auto& d : devices()) {
    auto g = random::gumbel({n}, float32, key, d);
    EXPECT_EQ(g.dtype(), float32);
    auto v = values(g);
    for (int i = 0; i < 1000; ++i) {
      double want = -std::log(-std::log(u[i]));
      // log's absolute error near u = 1 grows by exp(x) (see below).
      ASSERT_NEAR(v[i], want, 1e-5 * std::max(1.0, std::abs(want)) + 2e-7 * std::exp(want)) << i;
    }
    EXPECT_LT(ks_gap(v, [](double x) { return std::exp(-std::exp(-x)); }), ks_bound(n));
    EXPECT_NEAR(mean_of(v), 0.5772156649, 5 * std::sqrt(M_PI * M_PI / 6 / n));
  }
  EXPECT_EQ(random::gumbel({4}, bfloat16, key).dtype(), bfloat16);
  EXPECT_EQ(random::gumbel({0, 2}).shape(), (Shape{0, 2}));
}

TEST(MlxRandom, LaplaceMatchesItsCdf) {
  const int n = 100000;
  const double loc = 1.5, b = 2.0;
  auto cdf = [&](double x) {
    double z = (x - loc) / b;
    return z < 0 ? 0.5 * std::exp(z) : 1 - 0.5 * std::exp(-z);
  };
  for (const auto& d : devices()) {
    auto x = random::laplace({n}, float32, 1.5f, 2.0f, random::key(13), d);
    EXPECT_EQ(x.dtype(), float32);
    auto v = values(x);
    EXPECT_LT(ks_gap(v, cdf), ks_bound(n)) << dev_name(d);
    // Variance 2 b^2; the sample variance's standard error is sqrt(20 / n) b^2.
    EXPECT_NEAR(mean_of(v), loc, 5 * std::sqrt(2 * b * b / n));
    EXPECT_NEAR(var_of(v), 2 * b * b, 5 * std::sqrt(20.0 / n) * b * b);
  }
}

TEST(MlxRandom, LaplaceOverloadsAndDtypes) {
  auto key = random::key(14);
  auto std1 = values(random::laplace({50}, key));
  auto scaled = values(random::laplace({50}, 1.5f, 2.0f, key));
  for (int i = 0; i < 50; ++i) EXPECT_NEAR(scaled[i], 1.5 + 2 * std1[i], 1e-5);
  EXPECT_EQ(values(random::laplace({50}, float32, key)), std1);
  auto h = random::laplace({50}, float16, key);
  EXPECT_EQ(h.dtype(), float16);
  auto hv = values(h);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(hv[i], double(float16_t(float(std1[i])))) << i;
}

// ---- categorical.

TEST(MlxRandom, CategoricalFrequenciesAreSoftmax) {
  const int n = 100000;
  const std::vector<float> l = {0.0f, 1.0f, 2.0f, -1.0f, -std::numeric_limits<float>::infinity()};
  std::vector<double> p(l.size());
  double z = 0;
  for (size_t i = 0; i < l.size(); ++i) z += std::exp(double(l[i]));
  for (size_t i = 0; i < l.size(); ++i) p[i] = std::exp(double(l[i])) / z;
  auto logits = array(l.begin(), Shape{1, int(l.size())});
  for (const auto& d : devices()) {
    auto c = random::categorical(logits, -1, n, random::key(15), d);
    EXPECT_EQ(c.dtype(), uint32);
    EXPECT_EQ(c.shape(), (Shape{1, n}));
    std::vector<int> count(l.size());
    for (uint32_t v : values_as<uint32_t>(c)) {
      ASSERT_LT(v, l.size());
      ++count[v];
    }
    EXPECT_EQ(count.back(), 0);  // probability zero
    for (size_t i = 0; i < l.size(); ++i) {
      EXPECT_NEAR(count[i] / double(n), p[i], freq_tol(p[i], n)) << dev_name(d) << " " << i;
    }
  }
}

TEST(MlxRandom, CategoricalIsArgmaxOfLogitsPlusGumbel) {
  auto key = random::key(16);
  auto logits = random::normal({3, 5}, random::key(1));
  auto lv = values(logits);
  // Default: axis -1, one draw per row, gumbel of shape (3, 5).
  auto g = values(random::gumbel({3, 5}, float32, key, kCpu));
  for (const auto& d : devices()) {
    auto got = values_as<uint32_t>(random::categorical(logits, -1, key, d));
    ASSERT_EQ(got.size(), 3u);
    for (int r = 0; r < 3; ++r) {
      int best = 0;
      for (int k = 1; k < 5; ++k) {
        if (lv[r * 5 + k] + g[r * 5 + k] > lv[r * 5 + best] + g[r * 5 + best]) best = k;
      }
      EXPECT_EQ(got[r], uint32_t(best)) << dev_name(d) << " row " << r;
    }
  }
  // Along axis 0, and with a batch shape the reduced shape broadcasts to.
  EXPECT_EQ(random::categorical(logits, 0, key).shape(), Shape{5});
  EXPECT_EQ(random::categorical(logits, 1, Shape{4, 3}, key).shape(), (Shape{4, 3}));
  EXPECT_EQ(random::categorical(logits, 0, 7, key).shape(), (Shape{5, 7}));
  EXPECT_EQ(random::categorical(logits, 1, 0, key).shape(), (Shape{3, 0}));
}

TEST(MlxRandom, CategoricalPerRowSamples) {
  const int n = 50000;
  auto logits = log(array({0.7f, 0.2f, 0.1f, 0.1f, 0.1f, 0.8f}, {2, 3}));
  const double p[2][3] = {{0.7, 0.2, 0.1}, {0.1, 0.1, 0.8}};
  for (const auto& d : devices()) {
    auto c = values_as<uint32_t>(random::categorical(logits, 1, n, random::key(17), d));
    for (int r = 0; r < 2; ++r) {
      int count[3] = {};
      for (int i = 0; i < n; ++i) ++count[c[r * n + i]];
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(count[k] / double(n), p[r][k], freq_tol(p[r][k], n)) << dev_name(d);
      }
    }
  }
}

// ---- permutation.

TEST(MlxRandom, PermutationIsArgsortOfBits) {
  const int n = 1000;
  auto key = random::key(18);
  auto w = words(key, {n});
  std::vector<uint32_t> want(n);
  std::iota(want.begin(), want.end(), 0u);
  std::stable_sort(want.begin(), want.end(), [&](uint32_t a, uint32_t b) { return w[a] < w[b]; });
  for (const auto& d : devices()) {
    auto p = random::permutation(n, key, d);
    EXPECT_EQ(p.dtype(), uint32);
    EXPECT_EQ(values_as<uint32_t>(p), want) << dev_name(d);
  }
}

TEST(MlxRandom, PermutationIsAPermutationAndDependsOnTheKey) {
  const int n = 5000;
  std::vector<uint32_t> arange(n);
  std::iota(arange.begin(), arange.end(), 0u);
  auto a = values_as<uint32_t>(random::permutation(n, random::key(1)));
  auto b = values_as<uint32_t>(random::permutation(n, random::key(2)));
  EXPECT_NE(a, b);
  EXPECT_NE(a, arange);
  EXPECT_EQ(values_as<uint32_t>(random::permutation(n, random::key(1))), a);
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, arange);
  EXPECT_EQ(random::permutation(0, random::key(1)).shape(), Shape{0});
}

TEST(MlxRandom, PermutationOfAnArrayAlongAnAxis) {
  auto x = reshape(arange(12.0f), {3, 4});
  auto key = random::key(19);
  auto idx = values_as<uint32_t>(random::permutation(4, key, kCpu));
  for (const auto& d : devices()) {
    auto y = values(random::permutation(x, 1, key, d));
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 4; ++c) EXPECT_EQ(y[r * 4 + c], r * 4 + idx[c]) << dev_name(d);
    }
    auto rows = random::permutation(x, -2, key, d);  // axis 0 of 3 rows
    auto p3 = values_as<uint32_t>(random::permutation(3, key, kCpu));
    auto rv = values(rows);
    for (int r = 0; r < 3; ++r) EXPECT_EQ(rv[r * 4], 4.0 * p3[r]);
    // A transposed input.
    auto t = values(random::permutation(transpose(x), 0, key, d));
    for (int r = 0; r < 4; ++r) EXPECT_EQ(t[r * 3], double(idx[r]));
  }
}

// ---- determinism and devices.

TEST(MlxRandom, SameKeySameNumbersOnBothDevices) {
  if (!gpu::is_available()) GTEST_SKIP() << "no GPU";
  auto key = random::key(2024);
  const int n = 20000;
  // Integer and bool results are exact compositions: equal bit for bit.
  EXPECT_EQ(values_as<int32_t>(random::randint(-7, 1 << 20, {n}, int32, key, kCpu)),
            values_as<int32_t>(random::randint(-7, 1 << 20, {n}, int32, key, kGpu)));
  EXPECT_EQ(values_as<bool>(random::bernoulli(0.25f, {n}, key, kCpu)),
            values_as<bool>(random::bernoulli(0.25f, {n}, key, kGpu)));
  EXPECT_EQ(values_as<uint32_t>(random::permutation(n, key, kCpu)),
            values_as<uint32_t>(random::permutation(n, key, kGpu)));
  // Float samplers go through log, erf and erfinv, which may differ by ulps.
  auto close = [](const std::vector<double>& a, const std::vector<double>& b, bool gumbel) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      // Gumbel's -log(-log(u)) turns log's absolute error near u = 1
      // (about 1e-7) into an error of 1e-7 * exp(x) at large x.
      double tol = 1e-5 * std::max(1.0, std::abs(a[i])) + (gumbel ? 2e-7 * std::exp(a[i]) : 0);
      ASSERT_NEAR(a[i], b[i], tol) << i;
    }
  };
  close(values(random::gumbel({n}, float32, key, kCpu)),
        values(random::gumbel({n}, float32, key, kGpu)), true);
  close(values(random::laplace({n}, float32, key, kCpu)),
        values(random::laplace({n}, float32, key, kGpu)), false);
  close(values(random::truncated_normal(array(-1.0f), array(1.0f), {n}, float32, key, kCpu)),
        values(random::truncated_normal(array(-1.0f), array(1.0f), {n}, float32, key, kGpu)),
        false);
  auto logits = random::normal({100, 10}, random::key(3));
  auto c_cpu = values_as<uint32_t>(random::categorical(logits, -1, 20, key, kCpu));
  auto c_gpu = values_as<uint32_t>(random::categorical(logits, -1, 20, key, kGpu));
  size_t same = 0;
  for (size_t i = 0; i < c_cpu.size(); ++i) same += c_cpu[i] == c_gpu[i];
  EXPECT_GE(same, c_cpu.size() - 2);  // only near-ties may flip
}

TEST(MlxRandom, GlobalKeyWhenNoneIsGiven) {
  random::seed(42);
  auto a = values_as<int32_t>(random::randint(0, 1000, {64}));
  auto b = values_as<int32_t>(random::randint(0, 1000, {64}));
  EXPECT_NE(a, b);  // the global key advances
  random::seed(42);
  EXPECT_EQ(values_as<int32_t>(random::randint(0, 1000, {64})), a);
}

// ---- errors.

TEST(MlxRandom, BadArguments) {
  auto key = random::key(0);
  auto starts = [](const std::string& msg, const std::string& prefix) {
    return msg.rfind(prefix, 0) == 0;
  };
  EXPECT_THROW(random::randint(0, 5, {3}, float32, key), std::invalid_argument);
  EXPECT_TRUE(starts(error_of([&] { random::randint(0, 5, {3}, float16, key); }), "[randint]"));
  EXPECT_TRUE(starts(error_of([&] {
                       random::randint(array({0, 1}), array(5), {3}, int32, key);
                     }),
                     "[randint]"));
  EXPECT_THROW(random::randint(array({0, 1}), array(5), {1}, int32, key), std::invalid_argument);
  EXPECT_TRUE(starts(error_of([&] { random::bernoulli(array(1), {3}, key); }), "[bernoulli]"));
  EXPECT_TRUE(starts(error_of([&] {
                       random::bernoulli(array({0.1f, 0.2f}), {3}, key);
                     }),
                     "[bernoulli]"));
  EXPECT_THROW(random::bernoulli(array({0.1f, 0.2f}), {3}, key), std::invalid_argument);
  EXPECT_TRUE(
      starts(error_of([&] { random::truncated_normal(array(0.0f), array(1.0f), {3}, int32, key); }),
             "[truncated_normal]"));
  EXPECT_THROW(random::truncated_normal(array({0.0f, 1.0f}), array(1.0f), {3}, float32, key),
               std::invalid_argument);
  EXPECT_TRUE(starts(error_of([&] { random::gumbel({3}, int32, key); }), "[gumbel]"));
  EXPECT_TRUE(starts(error_of([&] { random::laplace({3}, uint8, key); }), "[laplace]"));
  auto logits = array({0.0f, 1.0f});
  EXPECT_TRUE(starts(error_of([&] { random::categorical(logits, 1, key); }), "[categorical]"));
  EXPECT_THROW(random::categorical(logits, -2, key), std::invalid_argument);
  EXPECT_THROW(random::categorical(array(1.0f), -1, key), std::invalid_argument);
  EXPECT_TRUE(starts(error_of([&] { random::categorical(logits, 0, -1, key); }), "[categorical]"));
  auto l2 = zeros({3, 4});
  EXPECT_TRUE(
      starts(error_of([&] { random::categorical(l2, 1, Shape{2}, key); }), "[categorical]"));
  EXPECT_THROW(random::categorical(l2, 1, Shape{2}, key), std::invalid_argument);
  EXPECT_TRUE(starts(error_of([&] { random::permutation(-1, key); }), "[permutation]"));
  EXPECT_TRUE(starts(error_of([&] { random::permutation(array(1.0f), 0, key); }), "[permutation]"));
  EXPECT_THROW(random::permutation(l2, 2, key), std::invalid_argument);
  // A bad key is refused by bits, whichever sampler draws it.
  EXPECT_THROW(random::randint(0, 5, {3}, int32, array({1.0f, 2.0f})), std::invalid_argument);
}

TEST(MlxRandom, NormalLocScaleWithoutDtype) {
  // MLX's normal(shape, loc, scale, key) overload: float32.
  auto key = random::key(30);
  auto a = random::normal({8}, 2.0f, 3.0f, key);
  EXPECT_EQ(a.dtype(), float32);
  EXPECT_EQ(values(a), values(random::normal({8}, float32, 2.0f, 3.0f, key)));
}
