// MLX's creation and matrix ops added for issue 14: identity, tri, tril,
// triu, diag, diagonal, trace, full_like, linspace and meshgrid. Each runs on
// the CPU and (when there is one) the GPU and is checked against a reference
// computed here with loops over indices; the differentiable ones also go
// through check_grads.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
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

array grad1(const std::function<array(const array&)>& f, const array& x) {
  return grad(f)(x);
}

std::string where_(const Device& d, Dtype t) {
  return fmt::format("{} {}", d.type == Device::gpu ? "gpu" : "cpu", t);
}

// The same logical 3-D array (values of make(shape)) row-contiguous, as a
// transposed view and as a view with negative and non-unit steps, the views
// taken on d (float64 arrays live on the CPU only).
std::vector<std::pair<std::string, array>> layouts3(const Shape& shape, Dtype dt, const Device& d) {
  Shape rev(shape.rbegin(), shape.rend());
  // Element [i,j,k] of the transposed view is element [k,j,i] of its base.
  array base_t = make(rev, dt);
  // The reversed, stepped view: base of twice the first dim, walked backwards by 2.
  Shape big = shape;
  big[0] = 2 * shape[0];
  array base_s = make(big, dt, 3);
  Shape start(shape.size(), 0), stop = big, step(shape.size(), 1);
  start[0] = big[0] - 1;
  stop[0] = -big[0] - 1;
  step[0] = -2;
  return {{"contiguous", make(shape, dt, 5)},
          {"transposed", transpose(base_t, d)},
          {"stepped", slice(base_s, start, stop, step, d)}};
}

// ---- identity, tri

TEST(MlxCreation, IdentityAndTri) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      array id = identity(4, t, d);
      EXPECT_EQ(id.dtype(), t);
      ASSERT_EQ(id.shape(), (Shape{4, 4}));
      auto v = values(id);
      for (int i = 0; i < 16; ++i) EXPECT_EQ(v[i], i / 4 == i % 4 ? 1 : 0) << where_(d, t);
      for (int n : {0, 1, 3}) {
        for (int m : {0, 2, 5}) {
          for (int k : {-7, -2, -1, 0, 1, 3, 9, INT_MAX, INT_MIN}) {
            array tr = tri(n, m, k, t, d);
            EXPECT_EQ(tr.dtype(), t);
            ASSERT_EQ(tr.shape(), (Shape{n, m}));
            auto tv = values(tr);
            for (int i = 0; i < n; ++i) {
              for (int j = 0; j < m; ++j) {
                const bool keep = int64_t{j} <= int64_t{i} + k;
                EXPECT_EQ(tv[i * m + j], keep ? 1 : 0) << where_(d, t) << " " << n << "x" << m
                                                       << " k=" << k << " at " << i << "," << j;
              }
            }
          }
        }
      }
    }
    EXPECT_EQ(identity(3, d).dtype(), float32);
    EXPECT_EQ(tri(3, int32, d).shape(), (Shape{3, 3}));
    EXPECT_EQ(values(tri(3, int32, d)), (std::vector<double>{1, 0, 0, 1, 1, 0, 1, 1, 1}));
    // Negative sizes give empty dims, as numpy and MLX.
    EXPECT_EQ(tri(-2, 3, 0, float32, d).shape(), (Shape{0, 3}));
  }
}

// ---- tril, triu

TEST(MlxCreation, TrilTriu) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      for (auto& [name, x] : layouts3({2, 3, 4}, t, d)) {
        auto xv = values(x);
        for (int k : {-3, -1, 0, 1, 2, 5, INT_MIN, INT_MAX}) {
          array lo = tril(x, k, d), up = triu(x, k, d);
          ASSERT_EQ(lo.dtype(), t);
          ASSERT_EQ(up.shape(), x.shape());
          auto lv = values(lo), uv = values(up);
          for (int64_t f = 0; f < 24; ++f) {
            auto idx = unravel(f, x.shape());
            const int64_t i = idx[1], j = idx[2];
            EXPECT_EQ(lv[f], j <= i + k ? xv[f] : 0) << where_(d, t) << name << " k=" << k;
            EXPECT_EQ(uv[f], j >= i + k ? xv[f] : 0) << where_(d, t) << name << " k=" << k;
          }
        }
      }
    }
    EXPECT_EQ(tril(zeros({0, 3}), 0, d).shape(), (Shape{0, 3}));
    EXPECT_EQ(triu(zeros({2, 0, 3}), 1, d).shape(), (Shape{2, 0, 3}));
  }
  EXPECT_THROW(tril(zeros({3})), std::invalid_argument);
  EXPECT_THROW(triu(array(1.0f)), std::invalid_argument);
}

TEST(MlxCreation, TrilTriuGradients) {
  array x = random::normal({3, 4}, float32, 0.0f, 1.0f, random::key(1));
  for (int k : {-1, 0, 2}) {
    EXPECT_TRUE(test::check_grads([k](const array& a) { return tril(a, k); }, x));
    EXPECT_TRUE(test::check_grads([k](const array& a) { return triu(a, k); }, x));
  }
  // The gradient is the mask itself.
  array g = grad1([](const array& a) { return sum(tril(a, 1)); }, ones({3, 3}));
  EXPECT_EQ(values(g), (std::vector<double>{1, 1, 0, 1, 1, 1, 1, 1, 1}));
}

// ---- diagonal, diag, trace

// numpy.diagonal of the logical values `xv` of `shape`.
std::vector<double> ref_diagonal(const std::vector<double>& xv, const Shape& shape, int offset,
                                 int ax1, int ax2, Shape& out_shape) {
  const int nd = static_cast<int>(shape.size());
  out_shape.clear();
  for (int i = 0; i < nd; ++i)
    if (i != ax1 && i != ax2) out_shape.push_back(shape[i]);
  const int64_t r0 = std::max<int64_t>(0, -int64_t{offset}), c0 = std::max(0, offset);
  const int64_t len = std::max<int64_t>(0, std::min(shape[ax1] - r0, shape[ax2] - c0));
  out_shape.push_back(static_cast<ShapeElem>(len));
  std::vector<double> out(numel(out_shape));
  for (int64_t f = 0; f < static_cast<int64_t>(out.size()); ++f) {
    auto o = unravel(f, out_shape);
    std::vector<int64_t> idx(nd);
    for (int i = 0, k = 0; i < nd; ++i) {
      if (i == ax1) {
        idx[i] = r0 + o.back();
      } else if (i == ax2) {
        idx[i] = c0 + o.back();
      } else {
        idx[i] = o[k++];
      }
    }
    out[f] = xv[ravel(idx, shape)];
  }
  return out;
}

TEST(MlxCreation, DiagonalIsAViewWithNumpyValues) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      for (auto& [name, x] : layouts3({3, 4, 5}, t, d)) {
        auto xv = values(x);
        for (auto [a1, a2] :
             std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {0, 2}, {2, 1}, {-1, -3}, {-2, 0}}) {
          for (int off : {-6, -2, -1, 0, 1, 3, 4, 9, INT_MIN, INT_MAX}) {
            array dg = diagonal(x, off, a1, a2, d);
            Shape want_shape;
            auto want = ref_diagonal(xv, x.shape(), off, (a1 + 3) % 3, (a2 + 3) % 3, want_shape);
            ASSERT_EQ(dg.shape(), want_shape) << name << " " << a1 << a2 << " off " << off;
            ASSERT_EQ(dg.dtype(), t);
            EXPECT_EQ(values(dg), want) << where_(d, t) << name << " " << a1 << a2 << " " << off;
            // A view: the same buffer as the input.
            if (x.is_available() && dg.size() > 0) {
              EXPECT_EQ(dg.data_shared_ptr(), x.data_shared_ptr());
            }
          }
        }
      }
    }
  }
  EXPECT_THROW(diagonal(zeros({3})), std::invalid_argument);
  EXPECT_THROW(diagonal(zeros({3, 3}), 0, 0, 2), std::out_of_range);
  EXPECT_THROW(diagonal(zeros({3, 3}), 0, -3, 1), std::out_of_range);
  EXPECT_THROW(diagonal(zeros({3, 3}), 0, 1, -1), std::invalid_argument);
}

TEST(MlxCreation, DiagonalGradients) {
  array x = random::normal({3, 4, 2}, float32, 0.0f, 1.0f, random::key(2));
  for (int off : {-1, 0, 2}) {
    EXPECT_TRUE(test::check_grads([off](const array& a) { return diagonal(a, off, 0, 1); }, x));
    EXPECT_TRUE(test::check_grads([off](const array& a) { return diagonal(a, off, 2, 1); }, x));
    EXPECT_TRUE(test::check_grads([off](const array& a) { return trace(a, off, 1, 0); }, x));
  }
  // The vjp puts the cotangent back on the diagonal and zeros elsewhere.
  array g = grad1(
      [](const array& a) {
        return sum(multiply(diagonal(a, 1), array({10.0f, 20.0f})));
      },
      zeros({3, 3}));
  EXPECT_EQ(values(g), (std::vector<double>{0, 10, 0, 0, 0, 20, 0, 0, 0}));
  // float16 and bfloat16 differentiate too.
  for (Dtype t : {float16, bfloat16}) {
    array h = astype(x, t);
    EXPECT_TRUE(test::check_grads([](const array& a) { return diagonal(a, 1, 1, 0); }, h));
  }
}

TEST(MlxCreation, Diag) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      array v = make({3}, t, 4);
      auto vv = values(v);
      for (int k : {-4, -1, 0, 2}) {
        array m = diag(v, k, d);
        const int n = 3 + std::abs(k);
        ASSERT_EQ(m.shape(), (Shape{n, n}));
        ASSERT_EQ(m.dtype(), t);
        auto mv = values(m);
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < n; ++j) {
            const int p = k >= 0 ? i : j;  // position along the vector
            const bool on = j - i == k && p < 3;
            EXPECT_EQ(mv[i * n + j], on ? vv[p] : 0) << where_(d, t) << " k=" << k;
          }
        }
        // 2-D input gives the diagonal back.
        EXPECT_EQ(values(diag(m, k, d)), vv);
      }
    }
    // A strided vector.
    array v = slice(arange(10.0f, d), {8}, {-11}, {-3});  // 8, 5, 2
    EXPECT_EQ(values(diag(v, 0, d)), (std::vector<double>{8, 0, 0, 0, 5, 0, 0, 0, 2}));
    EXPECT_EQ(diag(zeros({0}), 2, d).shape(), (Shape{2, 2}));
  }
  EXPECT_THROW(diag(zeros({2, 2, 2})), std::invalid_argument);
  EXPECT_THROW(diag(array(1.0f)), std::invalid_argument);
  EXPECT_TRUE(test::check_grads([](const array& a) { return diag(a, -2); },
                                random::normal({4}, float32, 0.0f, 1.0f, random::key(3))));
}

TEST(MlxCreation, Trace) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      for (auto& [name, x] : layouts3({3, 4, 2}, t, d)) {
        auto xv = values(x);
        for (int off : {-2, 0, 1, 5}) {
          array tr = trace(x, off, 1, 0, d);
          // The sum's dtype: bool and the integers narrower than 32 bits
          // widen as sum widens them.
          Dtype want_t = (t == bool_ || t == int8 || t == int16) ? int32
                         : (t == uint8 || t == uint16)           ? uint32
                                                                 : t;
          ASSERT_EQ(tr.dtype(), want_t);
          Shape ds;
          auto dv = ref_diagonal(xv, x.shape(), off, 1, 0, ds);
          std::vector<double> want(2, 0.0);
          for (size_t i = 0; i < dv.size(); ++i) want[i / ds.back()] += dv[i];
          auto got = values(tr);
          for (int i = 0; i < 2; ++i) {
            EXPECT_NEAR(got[i], test_util::stored(want[i], want_t),
                        std::abs(want[i]) * test_util::accumulation_tolerance(t))
                << where_(d, t) << name << " off " << off;
          }
        }
      }
    }
    array m = make_array({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3}, int32);
    EXPECT_EQ(trace(m, d).item<int32_t>(), 15);
    EXPECT_EQ(trace(m, 1, 0, 1, d).item<int32_t>(), 8);
    EXPECT_EQ(trace(m, -1, 0, 1, float32, d).dtype(), float32);
    EXPECT_EQ(trace(m, -1, 0, 1, float32, d).item<float>(), 12.0f);
    EXPECT_EQ(trace(zeros({0, 0}), d).item<float>(), 0.0f);
  }
  EXPECT_THROW(trace(zeros({3})), std::invalid_argument);
  EXPECT_THROW(trace(zeros({3, 3}), 0, 0, 5), std::out_of_range);
  EXPECT_THROW(trace(zeros({3, 3}), 0, 1, 1), std::invalid_argument);
}

// ---- full_like

TEST(MlxCreation, FullLike) {
  for (const auto& d : devices()) {
    for (Dtype t : all_dtypes) {
      if (!test_util::runs_on(t, d)) continue;
      array a = make({2, 3}, t);
      array f = full_like(a, 3, d);
      EXPECT_EQ(f.dtype(), t);
      EXPECT_EQ(f.shape(), a.shape());
      EXPECT_EQ(values(f), std::vector<double>(6, test_util::stored(3, t)));
      array g = full_like(a, 2.5f, float32, d);
      EXPECT_EQ(g.dtype(), float32);
      EXPECT_EQ(values(g), std::vector<double>(6, 2.5));
    }
    // Values broadcast against a's shape, both ways (as MLX).
    array col = full_like(zeros({2, 3}, int32), array({7.0f, 8.0f, 9.0f}), d);
    EXPECT_EQ(col.dtype(), int32);
    EXPECT_EQ(values(col), (std::vector<double>{7, 8, 9, 7, 8, 9}));
    EXPECT_EQ(full_like(zeros({3}), make_array({1, 2}, {2, 1}, float32), d).shape(), (Shape{2, 3}));
    EXPECT_EQ(full_like(zeros({0, 3}), 1, d).shape(), (Shape{0, 3}));
  }
  EXPECT_THROW(full_like(zeros({2, 3}), zeros({4})), std::invalid_argument);
}

// ---- linspace

TEST(MlxCreation, Linspace) {
  for (const auto& d : devices()) {
    array a = linspace(0.0, 1.0, 5, float32, d);
    EXPECT_EQ(values(a), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
    EXPECT_EQ(linspace(0.0, 1.0).size(), 50u);
    // Both ends exact, values computed in float32 as (1 - t) start + t stop.
    array b = linspace(-3.5, 7.25, 17, float32, d);
    auto bv = values(b);
    for (int i = 0; i < 17; ++i) {
      const float t = static_cast<float>(i) / 16.0f;
      EXPECT_NEAR(bv[i], (1.0f - t) * -3.5f + t * 7.25f, 1e-6) << i;
    }
    EXPECT_EQ(bv.front(), -3.5);
    EXPECT_EQ(bv.back(), 7.25);
    // Descending, one and zero samples.
    EXPECT_EQ(values(linspace(2.0, -2.0, 3, float32, d)), (std::vector<double>{2, 0, -2}));
    EXPECT_EQ(values(linspace(4.5, 9.0, 1, float32, d)), (std::vector<double>{4.5}));
    EXPECT_EQ(linspace(4.5, 9.0, 0, float32, d).shape(), (Shape{0}));
    // Integer dtypes truncate the float32 values, as astype does.
    array c = linspace(0.0, 10.0, 4, int32, d);
    EXPECT_EQ(c.dtype(), int32);
    EXPECT_EQ(values(c), (std::vector<double>{0, 3, 6, 10}));
    EXPECT_EQ(values(linspace(-1.0, 1.0, 5, int32, d)), (std::vector<double>{-1, 0, 0, 0, 1}));
    for (Dtype t : all_dtypes) {
      if (test_util::runs_on(t, d)) {
        EXPECT_EQ(linspace(0.0, 1.0, 3, t, d).dtype(), t);
      }
    }
    EXPECT_EQ(values(linspace(0.0, 2.0, 5, float16, d)), (std::vector<double>{0, 0.5, 1, 1.5, 2}));
  }
  EXPECT_THROW(linspace(0.0, 1.0, -1), std::invalid_argument);
}

// ---- meshgrid

TEST(MlxCreation, Meshgrid) {
  for (const auto& d : devices()) {
    for (Dtype t : {float32, int32, uint8, bool_, bfloat16}) {
      array x = make({3}, t, 1), y = make({2}, t, 2), z = make({4}, t, 3);
      auto xv = values(x), yv = values(y), zv = values(z);
      for (bool sparse : {false, true}) {
        auto xy = meshgrid({x, y, z}, sparse, "xy", d);
        auto ij = meshgrid({x, y, z}, sparse, "ij", d);
        ASSERT_EQ(xy.size(), 3u);
        const Shape full_xy{2, 3, 4}, full_ij{3, 2, 4};
        for (int o = 0; o < 3; ++o) {
          EXPECT_EQ(xy[o].dtype(), t);
          array fx = broadcast_to(xy[o], full_xy), fi = broadcast_to(ij[o], full_ij);
          if (!sparse) {
            EXPECT_EQ(xy[o].shape(), full_xy);
            EXPECT_EQ(ij[o].shape(), full_ij);
          } else {
            EXPECT_EQ(checked_size(xy[o].shape(), "t"), (std::vector<int64_t>{3, 2, 4})[o]);
          }
          auto vx = values(fx), vi = values(fi);
          for (int64_t f = 0; f < 24; ++f) {
            auto i = unravel(f, full_xy);  // (y, x, z)
            const double want_xy = o == 0 ? xv[i[1]] : (o == 1 ? yv[i[0]] : zv[i[2]]);
            EXPECT_EQ(vx[f], want_xy) << where_(d, t) << " xy out " << o;
            auto j = unravel(f, full_ij);  // (x, y, z)
            const double want_ij = o == 0 ? xv[j[0]] : (o == 1 ? yv[j[1]] : zv[j[2]]);
            EXPECT_EQ(vi[f], want_ij) << where_(d, t) << " ij out " << o;
          }
        }
      }
    }
    // One array: no swap; inputs of any shape are flattened; none gives none.
    auto one = meshgrid({arange(3, d)}, false, "xy", d);
    EXPECT_EQ(one[0].shape(), (Shape{3}));
    auto flat = meshgrid({zeros({2, 2}), zeros({3})}, false, "ij", d);
    EXPECT_EQ(flat[0].shape(), (Shape{4, 3}));
    EXPECT_TRUE(meshgrid({}, false, "xy", d).empty());
    EXPECT_EQ(meshgrid({zeros({0}), zeros({2})}, false, "xy", d)[0].shape(), (Shape{2, 0}));
  }
  EXPECT_THROW(meshgrid({zeros({2})}, false, "yx"), std::invalid_argument);
  // Gradients flow back through the broadcast.
  array gx = grad1([](const array& a) { return sum(meshgrid({a, zeros({4})})[0]); }, zeros({3}));
  EXPECT_EQ(values(gx), (std::vector<double>{4, 4, 4}));
}

}  // namespace
