// MLX's shape and contraction ops added for issue 14: roll, unflatten,
// unstack, atleast_1d/2d/3d, as_strided, view (of another dtype), tensordot,
// inner and outer. Each runs on the CPU and (when there is one) the GPU and
// is checked against a reference computed here with loops over indices; the
// differentiable ones also go through check_grads.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::devices;
using test_util::make;
using test_util::make_array;
using test_util::numel;
using test_util::ravel;
using test_util::unravel;
using test_util::values;

namespace {

std::string where_(const Device& d, Dtype t) {
  return fmt::format("{} {}", d.type == Device::gpu ? "gpu" : "cpu", t);
}

array normal(const Shape& shape, uint64_t seed) {
  return random::normal(shape, float32, 0.0f, 1.0f, random::key(seed));
}

// The same logical array of `shape` (values of make(shape, dt, 5)) row-
// contiguous and as a transposed copy's view: reads must go through strides.
// The copy is made on d (float64 arrays live on the CPU only).
std::vector<std::pair<std::string, array>> layouts(const Shape& shape, Dtype dt, const Device& d) {
  array c = make(shape, dt, 5);
  std::vector<int> perm(shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(perm.size() - 1 - i);
  array t = transpose(contiguous(transpose(c, perm, d), false, d), perm,
                      d);  // same values, reversed strides
  return {{"contiguous", c}, {"transposed", t}};
}

// ---- roll

// numpy.roll of `xv` (shape) by shift[i] along axes[i].
std::vector<double> ref_roll(const std::vector<double>& xv, const Shape& shape,
                             const std::vector<int64_t>& shift, const std::vector<int>& axes) {
  std::vector<double> out(xv.size());
  for (int64_t f = 0; f < static_cast<int64_t>(xv.size()); ++f) {
    auto idx = unravel(f, shape);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int ax = axes[i] < 0 ? axes[i] + static_cast<int>(shape.size()) : axes[i];
      const int64_t n = shape[ax];
      idx[ax] = ((idx[ax] + shift[i]) % n + n) % n;
    }
    out[ravel(idx, shape)] = xv[f];
  }
  return out;
}

TEST(MlxShape, Roll) {
  const Shape shape{3, 4, 2};
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      for (auto& [name, x] : layouts(shape, t, d)) {
        auto xv = values(x);
        std::string at = where_(d, t) + " " + name;
        for (int sh : {-9, -1, 0, 1, 3, 4, 25, INT_MAX, INT_MIN}) {
          EXPECT_EQ(values(roll(x, sh, 1, d)), ref_roll(xv, shape, {sh}, {1})) << at << sh;
          EXPECT_EQ(values(roll(x, sh, -3, d)), ref_roll(xv, shape, {sh}, {0})) << at << sh;
          EXPECT_EQ(values(roll(x, sh, std::vector<int>{0, 2}, d)),
                    ref_roll(xv, shape, {sh, sh}, {0, 2}))
              << at << sh;
          // Flattened: the row-major sequence rolls, then the shape returns.
          EXPECT_EQ(values(roll(x, sh, d)), ref_roll(xv, {24}, {sh}, {0})) << at << sh;
          EXPECT_EQ(roll(x, sh, d).shape(), shape);
        }
        EXPECT_EQ(values(roll(x, Shape{1, -2, 5}, std::vector<int>{0, 1, 2}, d)),
                  ref_roll(xv, shape, {1, -2, 5}, {0, 1, 2}))
            << at;
        // Several shifts with one axis (or none) roll by their sum, as MLX.
        EXPECT_EQ(values(roll(x, Shape{1, 2}, 1, d)), ref_roll(xv, shape, {3}, {1})) << at;
        EXPECT_EQ(values(roll(x, Shape{5, -3}, d)), ref_roll(xv, {24}, {2}, {0})) << at;
        // A repeated axis rolls twice; extra shifts are ignored; no axes is a no-op.
        EXPECT_EQ(values(roll(x, Shape{1, 1, 9}, std::vector<int>{1, 1}, d)),
                  ref_roll(xv, shape, {2}, {1}))
            << at;
        EXPECT_EQ(values(roll(x, Shape{}, std::vector<int>{}, d)), xv);
      }
    }
    EXPECT_EQ(roll(array(3.0f), 5, d).item<float>(), 3.0f);
    EXPECT_EQ(roll(zeros({0, 3}), 2, 0, d).shape(), (Shape{0, 3}));
    EXPECT_EQ(roll(zeros({2, 0}), 2, d).shape(), (Shape{2, 0}));
  }
  EXPECT_THROW(roll(zeros({2, 3}), 1, 2), std::invalid_argument);
  EXPECT_THROW(roll(zeros({2, 3}), Shape{1}, std::vector<int>{0, 1}), std::invalid_argument);
  array x = normal({3, 4}, 7);
  EXPECT_TRUE(test::check_grads([](const array& a) { return roll(a, -5, 1); }, x));
  EXPECT_TRUE(test::check_grads([](const array& a) { return roll(a, 7); }, x));
  EXPECT_TRUE(test::check_grads(
      [](const array& a) {
        return roll(a, Shape{1, 2}, std::vector<int>{0, 1});
      },
      x));
}

// ---- unflatten, unstack, atleast

TEST(MlxShape, Unflatten) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      for (auto& [name, x] : layouts({2, 12, 3}, t, d)) {
        auto xv = values(x);
        array u = unflatten(x, 1, {3, -1, 2}, d);
        EXPECT_EQ(u.shape(), (Shape{2, 3, 2, 2, 3}));
        EXPECT_EQ(values(u), xv) << where_(d, t) << name;
        EXPECT_EQ(unflatten(x, -1, {3, 1}, d).shape(), (Shape{2, 12, 3, 1}));
        EXPECT_EQ(unflatten(x, 0, {2}, d).shape(), x.shape());
      }
    }
    EXPECT_EQ(unflatten(zeros({2, 0}), 1, {0, 5}, d).shape(), (Shape{2, 0, 5}));
  }
  EXPECT_THROW(unflatten(zeros({6}), 0, {}), std::invalid_argument);
  EXPECT_THROW(unflatten(zeros({6}), 1, {2, 3}), std::invalid_argument);
  EXPECT_THROW(unflatten(zeros({6}), 0, {-1, -1}), std::invalid_argument);
  EXPECT_THROW(unflatten(zeros({6}), 0, {4, -1}), std::invalid_argument);
  EXPECT_THROW(unflatten(zeros({6}), 0, {2, 2}), std::invalid_argument);
  EXPECT_THROW(unflatten(zeros({0}), 0, {0, -1}), std::invalid_argument);
  EXPECT_TRUE(test::check_grads(
      [](const array& a) {
        return unflatten(a, 0, {2, 2});
      },
      normal({4, 3}, 1)));
}

TEST(MlxShape, Unstack) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      for (auto& [name, x] : layouts({3, 4, 2}, t, d)) {
        auto xv = values(x);
        for (int axis : {0, 1, 2, -1, -3}) {
          const int ax = axis < 0 ? axis + 3 : axis;
          auto parts = unstack(x, axis, d);
          ASSERT_EQ(parts.size(), static_cast<size_t>(x.shape(ax)));
          for (size_t p = 0; p < parts.size(); ++p) {
            Shape want_shape = x.shape();
            want_shape.erase(want_shape.begin() + ax);
            ASSERT_EQ(parts[p].shape(), want_shape);
            std::vector<double> want;
            for (int64_t f = 0; f < 24; ++f) {
              if (unravel(f, x.shape())[ax] == static_cast<int64_t>(p)) want.push_back(xv[f]);
            }
            EXPECT_EQ(values(parts[p]), want) << where_(d, t) << name << " axis " << axis;
          }
        }
      }
    }
    EXPECT_TRUE(unstack(zeros({0, 3}), 0, d).empty());
    EXPECT_EQ(unstack(zeros({2, 0}), 0, d)[1].shape(), (Shape{0}));
  }
  EXPECT_THROW(unstack(array(1.0f)), std::invalid_argument);
  EXPECT_THROW(unstack(zeros({2}), 1), std::invalid_argument);
}

TEST(MlxShape, Atleast) {
  array s = array(2.0f), v = arange(3.0f), m = zeros({2, 3}), t = zeros({2, 3, 4}), e = zeros({0});
  EXPECT_EQ(atleast_1d(s).shape(), (Shape{1}));
  EXPECT_EQ(atleast_1d(v).shape(), (Shape{3}));
  EXPECT_EQ(atleast_2d(s).shape(), (Shape{1, 1}));
  EXPECT_EQ(atleast_2d(v).shape(), (Shape{1, 3}));
  EXPECT_EQ(atleast_2d(t).shape(), t.shape());
  EXPECT_EQ(atleast_3d(s).shape(), (Shape{1, 1, 1}));
  EXPECT_EQ(atleast_3d(v).shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(atleast_3d(m).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(atleast_3d(t).shape(), t.shape());
  EXPECT_EQ(atleast_3d(e).shape(), (Shape{1, 0, 1}));
  auto many = atleast_2d(std::vector<array>{s, v, t});
  ASSERT_EQ(many.size(), 3u);
  EXPECT_EQ(many[1].shape(), (Shape{1, 3}));
  EXPECT_EQ(atleast_1d(std::vector<array>{s, v})[0].shape(), (Shape{1}));
  EXPECT_EQ(atleast_3d(std::vector<array>{m})[0].shape(), (Shape{2, 3, 1}));
  for (const auto& d : devices()) {
    EXPECT_EQ(values(atleast_3d(v, d)), (std::vector<double>{0, 1, 2}));
  }
}

// ---- as_strided

TEST(MlxShape, AsStrided) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      for (auto& [name, x] : layouts({3, 4}, t, d)) {
        auto xv = values(x);  // strides count these, in row-major order
        struct Case {
          Shape shape;
          Strides strides;
          size_t offset;
        };
        for (const Case& c : std::vector<Case>{{{3, 3}, {1, 1}, 0},  // sliding windows
                                               {{2, 2, 2}, {4, 1, 2}, 1},
                                               {{4}, {0}, 11},  // one element
                                               {{3}, {-2}, 7},  // backwards
                                               {{12}, {1}, 0},
                                               {{0, 5}, {100, 100}, 50},  // empty: no reads
                                               {{}, {}, 5}}) {
          array out = as_strided(x, c.shape, c.strides, c.offset, d);
          ASSERT_EQ(out.shape(), c.shape);
          ASSERT_EQ(out.dtype(), t);
          std::vector<double> want;
          for (int64_t f = 0; f < numel(c.shape); ++f) {
            auto idx = unravel(f, c.shape);
            int64_t at = static_cast<int64_t>(c.offset);
            for (size_t k = 0; k < idx.size(); ++k) at += idx[k] * c.strides[k];
            want.push_back(xv[at]);
          }
          EXPECT_EQ(values(out), want) << where_(d, t) << name << " " << shape_string(c.shape);
        }
      }
    }
    // A view of a dense input: no copy.
    array base = arange(10.0f, d);
    base.eval();
    array w = as_strided(base, {4, 3}, {2, 1}, 1, d);
    w.eval();
    EXPECT_EQ(w.data_shared_ptr(), base.data_shared_ptr());
    EXPECT_EQ(values(w), (std::vector<double>{1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9}));
  }
  // Never reads outside the input (MLX does not check).
  EXPECT_THROW(as_strided(zeros({4}), {3}, {2}, 0), std::invalid_argument);
  EXPECT_THROW(as_strided(zeros({4}), {2}, {-1}, 0), std::invalid_argument);
  EXPECT_THROW(as_strided(zeros({4}), {1}, {1}, 4), std::invalid_argument);
  EXPECT_THROW(as_strided(zeros({4}), {2, 2}, {INT64_MAX, 1}, 0), std::invalid_argument);
  EXPECT_THROW(as_strided(zeros({4}), {2}, {1, 1}, 0), std::invalid_argument);
  EXPECT_THROW(as_strided(zeros({4}), {-1}, {1}, 0), std::invalid_argument);
  EXPECT_NO_THROW(as_strided(zeros({4}), {2, 2}, {2, 1}, 0));
}

TEST(MlxShape, AsStridedGradients) {
  array x = normal({3, 4}, 3);
  // Overlapping windows: each element's gradient counts the windows it is in.
  EXPECT_TRUE(test::check_grads(
      [](const array& a) {
        return as_strided(a, {3, 3}, {3, 1}, 1);
      },
      x));
  EXPECT_TRUE(test::check_grads(
      [](const array& a) {
        return as_strided(a, {2, 3}, {-1, 2}, 5);
      },
      transpose(x)));
  array g = grad(std::function<array(const array&)>([](const array& a) {
    return sum(as_strided(a, {3, 2}, {1, 1}, 0));
  }))(zeros({4}));
  EXPECT_EQ(values(g), (std::vector<double>{1, 2, 2, 1}));
  // jvp: the same view of the tangent.
  auto [outs, tans] = jvp(
      [](const std::vector<array>& in) {
        return std::vector<array>{as_strided(in[0], {2}, {3}, 1)};
      },
      {arange(6.0f)}, {arange(10.0f, 16.0f)});
  EXPECT_EQ(values(tans[0]), (std::vector<double>{11, 14}));
}

// ---- view

// The bytes of `vals` (dtype `from`) read as `to`, with numpy's rule.
template <typename From, typename To>
std::vector<double> reinterpret(const std::vector<From>& vals) {
  std::vector<To> out(vals.size() * sizeof(From) / sizeof(To));
  std::memcpy(out.data(), vals.data(), out.size() * sizeof(To));
  std::vector<double> d;
  for (To v : out) d.push_back(static_cast<double>(static_cast<float>(v)));
  return d;
}

TEST(MlxShape, ViewReinterpretsBytes) {
  const std::vector<float> fv{1.0f, -2.5f, 3.0e9f, 0.125f, -0.0f, 7.0f};
  std::vector<uint32_t> bits(fv.size());
  std::memcpy(bits.data(), fv.data(), fv.size() * 4);
  for (const auto& d : devices()) {
    array f(fv.begin(), {2, 3}, float32);
    array u = view(f, uint32, d);
    EXPECT_EQ(u.shape(), (Shape{2, 3}));
    auto uv = values(u);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(uv[i], bits[i]) << i;
    // To a smaller dtype the last axis grows; back again it shrinks.
    array b = view(f, uint8, d);
    EXPECT_EQ(b.shape(), (Shape{2, 12}));
    EXPECT_EQ(values(b), (reinterpret<float, uint8_t>(fv)));
    array h = view(f, float16, d);
    EXPECT_EQ(h.shape(), (Shape{2, 6}));
    EXPECT_EQ(values(view(b, float32, d)), values(f));
    EXPECT_EQ(values(view(h, int32, d)), values(view(f, int32, d)));
    // Non-contiguous inputs: a transposed (last axis strided) one is copied
    // first; a sliced one whose last axis is dense stays a view.
    array tr = transpose(f);
    array tb = view(tr, uint8, d);
    EXPECT_EQ(tb.shape(), (Shape{3, 8}));
    const std::vector<float> tv{fv[0], fv[3], fv[1], fv[4], fv[2], fv[5]};
    EXPECT_EQ(values(tb), (reinterpret<float, uint8_t>(tv)));
    array row = slice(f, {1, 0}, {2, 3});
    EXPECT_EQ(values(view(row, uint32, d)),
              (std::vector<double>{double(bits[3]), double(bits[4]), double(bits[5])}));
    array odd = slice(b, {0, 1}, {2, 9});  // byte offset 1: not a whole float
    EXPECT_EQ(view(odd, uint32, d).shape(), (Shape{2, 2}));
    auto bv = values(b);
    std::vector<uint8_t> odd_bytes;
    for (int r = 0; r < 2; ++r)
      for (int c = 1; c < 9; ++c) odd_bytes.push_back(static_cast<uint8_t>(bv[r * 12 + c]));
    EXPECT_EQ(values(view(odd, uint32, d)), (reinterpret<uint8_t, uint32_t>(odd_bytes)));
    // Same size, every pair of dtypes round-trips.
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      for (Dtype t2 : all_dtypes) {
        if (t.size != t2.size || t == bool_ || t2 == bool_ || !test_util::runs_on(t2, d)) continue;
        array a = make({2, 4}, t, 3);
        EXPECT_EQ(values(view(view(a, t2, d), t, d)), values(a)) << where_(d, t) << " " << t2;
      }
    }
    EXPECT_EQ(values(view(array(true), uint8, d)), (std::vector<double>{1}));
    EXPECT_EQ(view(zeros({0, 4}, float32), uint8, d).shape(), (Shape{0, 16}));
  }
  EXPECT_THROW(view(array(1.0f), uint8), std::invalid_argument);
  EXPECT_THROW(view(zeros({3}, uint8), float32), std::invalid_argument);
  EXPECT_THROW(view(zeros({2, 6}, float16), int64), std::invalid_argument);
  array same = zeros({3});
  same.eval();
  EXPECT_EQ(view(same, float32).data_shared_ptr(), same.data_shared_ptr());
}

// ---- tensordot, inner, outer

TEST(MlxShape, Tensordot) {
  for (const auto& d : devices()) {
    for (Dtype t : {float32, float16, bfloat16}) {
      array a = astype(make({2, 3, 4}, float32, 1), t);
      array b = astype(make({4, 3, 5}, float32, 2), t);
      auto av = values(a), bv = values(b);
      // Contract a's axes (1, 2) with b's (1, 0): out[i, l] = sum_jk a[i,j,k] b[k,j,l].
      array c = tensordot(a, b, {1, -1}, {1, 0}, d);
      ASSERT_EQ(c.shape(), (Shape{2, 5}));
      EXPECT_EQ(c.dtype(), t);
      auto cv = values(c);
      const double tol = t == float32 ? 1e-6 : (t == float16 ? 2e-3 : 1e-2);
      for (int i = 0; i < 2; ++i) {
        for (int l = 0; l < 5; ++l) {
          double want = 0;
          for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k) want += av[i * 12 + j * 4 + k] * bv[k * 15 + j * 5 + l];
          EXPECT_NEAR(cv[i * 5 + l], want, tol * std::abs(want) + 1e-3) << where_(d, t);
        }
      }
      // int axis: the last `axis` of a with the first `axis` of b.
      array a2 = astype(make({2, 3, 4}, float32, 3), t);
      array b2 = astype(make({3, 4, 2}, float32, 4), t);
      auto a2v = values(a2), b2v = values(b2);
      auto c2 = values(tensordot(a2, b2, 2, d));
      for (int i = 0; i < 2; ++i) {
        for (int l = 0; l < 2; ++l) {
          double want = 0;
          for (int jk = 0; jk < 12; ++jk) want += a2v[i * 12 + jk] * b2v[jk * 2 + l];
          EXPECT_NEAR(c2[i * 2 + l], want, tol * std::abs(want) + 1e-3) << where_(d, t);
        }
      }
      // axis 0: the outer product of everything.
      EXPECT_EQ(tensordot(a2, b2, 0, d).shape(), (Shape{2, 3, 4, 3, 4, 2}));
    }
    // Transposed inputs, empty contraction, full contraction to a scalar.
    array x = normal({4, 3}, 5), y = normal({4, 2}, 6);
    auto r = values(tensordot(transpose(x), y, {1}, {0}, d));
    auto ref = values(matmul(transpose(x), y, Device::cpu));
    for (size_t i = 0; i < r.size(); ++i) EXPECT_NEAR(r[i], ref[i], 1e-5);
    EXPECT_EQ(values(tensordot(zeros({2, 0}), zeros({0, 3}), 1, d)), std::vector<double>(6, 0));
    EXPECT_EQ(tensordot(ones({2, 3}), ones({2, 3}), 2, d).item<float>(), 6.0f);
  }
  EXPECT_THROW(tensordot(zeros({2, 3}), zeros({3, 2}), 3), std::invalid_argument);
  EXPECT_THROW(tensordot(zeros({2, 3}), zeros({3, 2}), -1), std::invalid_argument);
  EXPECT_THROW(tensordot(zeros({2, 3}), zeros({3, 2}), {0}, {1, 0}), std::invalid_argument);
  EXPECT_THROW(tensordot(zeros({2, 3}), zeros({3, 2}), {1}, {1}), std::invalid_argument);
  EXPECT_THROW(tensordot(zeros({2, 3}), zeros({3, 2}), {2}, {0}), std::out_of_range);
  EXPECT_THROW(tensordot(zeros({3, 3}), zeros({3, 3}), {0, 0}, {0, 1}), std::invalid_argument);
  // Integer inputs go through matmul, which takes floating dtypes only (as MLX).
  EXPECT_THROW(tensordot(zeros({2, 3}, int32), zeros({3, 2}, int32), 1), std::invalid_argument);
  EXPECT_TRUE(test::check_grads(
      [](const std::vector<array>& in) {
        return std::vector<array>{tensordot(in[0], in[1], {0, 2}, {1, 0})};
      },
      {normal({3, 2, 4}, 8), normal({4, 3, 5}, 9)}));
}

TEST(MlxShape, InnerOuter) {
  for (const auto& d : devices()) {
    array a = make_array({1, 2, 3}, {3}, float32), b = make_array({4, 5, 6}, {3}, float32);
    EXPECT_EQ(inner(a, b, d).item<float>(), 32.0f);
    EXPECT_EQ(inner(a, b, d).ndim(), 0);
    array m = make_array({1, 2, 3, 4, 5, 6}, {2, 3}, float32);
    EXPECT_EQ(values(inner(m, b, d)), (std::vector<double>{32, 77}));
    EXPECT_EQ(values(inner(m, m, d)), (std::vector<double>{14, 32, 32, 77}));
    EXPECT_EQ(values(inner(array(2.0f), m, d)), (std::vector<double>{2, 4, 6, 8, 10, 12}));
    EXPECT_EQ(values(inner(array(2, int32), array(3, int32), d)), (std::vector<double>{6}));
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      array x = make({2, 2}, t, 1), y = make({3}, t, 2);
      auto xv = values(x), yv = values(y);
      array o = outer(x, y, d);
      ASSERT_EQ(o.shape(), (Shape{4, 3}));
      EXPECT_EQ(o.dtype(), multiply(array(0, t), array(0, t), d).dtype());
      auto ov = values(o);
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
          EXPECT_EQ(ov[i * 3 + j], values(multiply(array(xv[i], t), array(yv[j], t), d))[0])
              << where_(d, t);
    }
    EXPECT_EQ(outer(zeros({0}), zeros({3}), d).shape(), (Shape{0, 3}));
    EXPECT_EQ(values(outer(make_array({1, 2}, {2}, int32), make_array({3, 4, 5}, {3}, int32), d)),
              (std::vector<double>{3, 4, 5, 6, 8, 10}));
  }
  EXPECT_THROW(inner(zeros({2, 3}), zeros({2})), std::invalid_argument);
  EXPECT_THROW(inner(zeros({3}, int32), zeros({3}, int32)), std::invalid_argument);
  EXPECT_TRUE(test::check_grads(
      [](const std::vector<array>& in) { return std::vector<array>{inner(in[0], in[1])}; },
      {normal({2, 3}, 1), normal({4, 3}, 2)}));
  EXPECT_TRUE(test::check_grads(
      [](const std::vector<array>& in) { return std::vector<array>{outer(in[0], in[1])}; },
      {normal({3}, 3), normal({2, 2}, 4)}));
}

}  // namespace
