// gather, scatter, scatter_add, take, take_along_axis and put_along_axis,
// each against a scalar loop over logical (row-major) values.
#include <gtest/gtest.h>

#include <random>

#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/primitives.h"
#include "mlx_lite/primitives/indexing.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::make_array;
using test_util::numel;
using test_util::ravel;
using test_util::unravel;
using test_util::values;

namespace {

const Dtype kIndexDtypes[] = {uint8, uint32, int32, int64};

array make_index(const std::vector<int64_t>& vals, const Shape& shape, Dtype dtype = int32) {
  return array(vals.begin(), shape, dtype);
}

// Small values that fit every dtype exactly (bool gets 0/1).
std::vector<double> sample(int64_t n, Dtype dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = dtype == bool_ ? rng() % 2 : rng() % 100;
  return v;
}

std::vector<int64_t> random_indices(int64_t n, int64_t lo, int64_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = lo + static_cast<int64_t>(rng() % (hi - lo));
  return v;
}

int64_t clamp_index(int64_t v, int64_t dim, int64_t slice) {
  if (v < 0) v += dim;
  return std::clamp<int64_t>(v, 0, std::max<int64_t>(dim - slice, 0));
}

// Scalar gather: src (logical values of `shape`), idx[k] the logical values
// of index array k (already of shape `ishape`) indexing axes[k].
std::vector<double> ref_gather(const std::vector<double>& src, const Shape& shape,
                               const std::vector<std::vector<double>>& idx, const Shape& ishape,
                               const std::vector<int>& axes, const Shape& slice) {
  std::vector<double> out;
  for (int64_t i = 0; i < numel(ishape); ++i) {
    for (int64_t j = 0; j < numel(slice); ++j) {
      auto c = unravel(j, slice);
      for (size_t k = 0; k < axes.size(); ++k) {
        int ax = axes[k];
        c[ax] += clamp_index(static_cast<int64_t>(idx[k][i]), shape[ax], slice[ax]);
      }
      out.push_back(src[ravel(c, shape)]);
    }
  }
  return out;
}

// Scalar scatter: slices of `upd` (shape ishape + uslice) written/added at idx.
std::vector<double> ref_scatter(std::vector<double> dst, const Shape& shape,
                                const std::vector<std::vector<double>>& idx, const Shape& ishape,
                                const std::vector<int>& axes, const std::vector<double>& upd,
                                const Shape& uslice, bool add) {
  for (int64_t i = 0; i < numel(ishape); ++i) {
    bool keep = true;
    std::vector<int64_t> start(shape.size(), 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t v = static_cast<int64_t>(idx[k][i]);
      if (v < 0) v += shape[axes[k]];
      keep = keep && v >= 0 && v + uslice[axes[k]] <= shape[axes[k]];
      start[axes[k]] = v;
    }
    if (!keep) continue;
    for (int64_t j = 0; j < numel(uslice); ++j) {
      auto c = unravel(j, uslice);
      for (size_t d = 0; d < c.size(); ++d) c[d] += start[d];
      double u = upd[i * numel(uslice) + j];
      auto& o = dst[ravel(c, shape)];
      o = add ? o + u : u;
    }
  }
  return dst;
}

void expect_values(const array& out, const std::vector<double>& want, double tol = 0) {
  auto got = values(out);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol) << "at element " << i;
  }
}

template <typename F>
void expect_invalid(F&& f, std::vector<std::string> parts) {
  try {
    f();
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << " lacks " << p;
  }
}

}  // namespace

TEST(Gather, EveryValueDtype) {
  const Shape shape{3, 4, 5};
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    auto src = sample(numel(shape), dt, 1);
    auto a = make_array(src, shape, dt);
    auto i0 = make_index({2, 0, 1, 2, -1, 0}, {2, 3});
    auto i1 = make_index({4, 0, 3, 1, 2, -5}, {2, 3});
    Shape slice{1, 2, 1};
    auto out = gather(a, {i0, i1}, {0, 2}, slice);
    EXPECT_EQ(out.shape(), (Shape{2, 3, 1, 2, 1}));
    EXPECT_EQ(out.dtype(), dt);
    expect_values(out, ref_gather(src, shape, {values(i0), values(i1)}, {2, 3}, {0, 2}, slice));
  }
}

TEST(Gather, EveryIndexDtype) {
  const Shape shape{6, 7};
  auto src = sample(numel(shape), float32, 2);
  auto a = make_array(src, shape, float32);
  for (Dtype it : kIndexDtypes) {
    auto idx = make_index({5, 0, 3, 255 % 7, 1}, {5}, it);
    auto out = gather(a, idx, 1, {6, 1});
    EXPECT_EQ(out.shape(), (Shape{5, 6, 1}));
    expect_values(out, ref_gather(src, shape, {values(idx)}, {5}, {1}, {6, 1}));
    // A large unsigned value is out of range: clamped.
    auto big = make_index({it == uint8 ? 255 : 4000000000LL}, {1}, it == int32 ? int64 : it);
    expect_values(gather(a, big, 0, {1, 7}), std::vector<double>(src.end() - 7, src.end()));
  }
}

TEST(Gather, NegativeAndOutOfRangeIndicesClamp) {
  const Shape shape{5, 3};
  auto src = sample(numel(shape), int32, 3);
  auto a = make_array(src, shape, int32);
  auto idx = make_index({-1, -5, -6, -100, 5, 1000, 2}, {7}, int64);
  auto out = gather(a, idx, 0, {1, 3});
  std::vector<int64_t> rows{4, 0, 0, 0, 4, 4, 2};
  std::vector<double> want;
  for (auto r : rows)
    for (int c = 0; c < 3; ++c) want.push_back(src[r * 3 + c]);
  expect_values(out, want);
  // With a slice of 2 rows the start is clamped so the slice stays inside.
  auto out2 = gather(a, idx, 0, {2, 3});
  expect_values(out2, ref_gather(src, shape, {values(idx)}, {7}, {0}, {2, 3}));
  EXPECT_EQ(values(out2)[4 * 6], src[3 * 3]);  // index 5 starts at row 3
}

TEST(Gather, StridedSourcesAndIndices) {
  const Shape base_shape{4, 6, 5};
  auto base_vals = sample(numel(base_shape), float16, 4);
  auto base = make_array(base_vals, base_shape, float16);
  std::vector<array> sources = {
      transpose(base, {2, 0, 1}),                                  // (5,4,6)
      slice(base, {3, 5, 4}, {-5, -7, -6}, {-1, -2, -1}),          // (4,3,5), negative steps
      broadcast_to(slice(base, {0, 0, 0}, {1, 6, 5}), {3, 6, 5}),  // stride 0
      slice(base, {1, 1, 0}, {4, 6, 5}, {2, 1, 2}),                // offset + steps
  };
  for (const auto& a : sources) {
    auto src = values(a);
    const Shape shape = a.shape();
    // Index arrays: a transposed one and two that broadcast together.
    auto ibase = make_index(random_indices(6, -shape[0], shape[0] + 2, 5), {2, 3});
    auto i0 = transpose(ibase);                                              // (3,2)
    auto i1 = make_index(random_indices(2, 0, shape[2], 6), {1, 2}, uint8);  // (1,2)
    Shape slice_sizes{1, shape[1] - 1, 1};
    auto out = gather(a, {i0, i1}, {0, 2}, slice_sizes);
    EXPECT_EQ(out.shape(), (Shape{3, 2, 1, shape[1] - 1, 1}));
    auto i1b = values(broadcast_to(i1, {3, 2}));
    expect_values(out, ref_gather(src, shape, {values(i0), i1b}, {3, 2}, {0, 2}, slice_sizes));
  }
}

TEST(Gather, NoIndicesIsASlice) {
  auto src = sample(12, int64, 7);
  auto a = make_array(src, {3, 4}, int64);
  auto out = gather(a, std::vector<array>{}, std::vector<int>{}, {2, 3});
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  expect_values(out, {src[0], src[1], src[2], src[4], src[5], src[6]});
}

TEST(Gather, EmptyResults) {
  auto a = make_array(sample(12, float32, 8), {3, 4}, float32);
  auto out = gather(a, make_index({}, {0}), 0, {1, 4});
  EXPECT_EQ(out.shape(), (Shape{0, 1, 4}));
  EXPECT_EQ(values(out).size(), 0u);
  auto out2 = gather(a, make_index({1, 2}, {2}), 1, {3, 0});
  EXPECT_EQ(out2.shape(), (Shape{2, 3, 0}));
  EXPECT_EQ(values(out2).size(), 0u);
}

TEST(Gather, IsLazy) {
  auto a = make_array(sample(12, float32, 9), {3, 4}, float32);
  auto out = gather(a, make_index({1}, {1}), 0, {1, 4});
  EXPECT_TRUE(out.has_primitive());
  EXPECT_FALSE(out.is_available());
  EXPECT_STREQ(out.primitive().name(), "Gather");
  auto same = gather(a, make_index({2}, {1}), 0, {1, 4});
  auto other = gather(a, make_index({2}, {1}), 0, {1, 3});
  EXPECT_TRUE(out.primitive().is_equivalent(same.primitive()));
  EXPECT_FALSE(out.primitive().is_equivalent(other.primitive()));
}

// The seed's x[mx.arange(N)[:, None, None], iy, ix, :] for grid_sample.
TEST(Gather, SeedAdvancedIndexing) {
  const int N = 3, H = 5, W = 7, C = 3, gH = 4, gW = 6;
  auto xs = sample(int64_t{N} * H * W * C, float32, 10);
  auto x = make_array(xs, {N, H, W, C}, float32);
  auto iyv = random_indices(N * gH * gW, -H - 3, H + 3, 11);
  auto ixv = random_indices(N * gH * gW, -W - 3, W + 3, 12);
  auto iy = make_index(iyv, {N, gH, gW});
  auto ix = make_index(ixv, {N, gH, gW});
  auto out = gather(x, {reshape(arange(N), {N, 1, 1}), iy, ix}, {0, 1, 2}, {1, 1, 1, C});
  EXPECT_EQ(out.shape(), (Shape{N, gH, gW, 1, 1, 1, C}));
  out = reshape(out, {N, gH, gW, C});
  std::vector<double> want;
  for (int n = 0; n < N; ++n) {
    for (int h = 0; h < gH; ++h) {
      for (int w = 0; w < gW; ++w) {
        int64_t y = iyv[(n * gH + h) * gW + w], xx = ixv[(n * gH + h) * gW + w];
        if (y < 0) y += H;
        if (xx < 0) xx += W;
        y = std::clamp<int64_t>(y, 0, H - 1);
        xx = std::clamp<int64_t>(xx, 0, W - 1);
        for (int c = 0; c < C; ++c) want.push_back(xs[((n * H + y) * W + xx) * C + c]);
      }
    }
  }
  expect_values(out, want);
}

TEST(Gather, BadInput) {
  auto a = make_array(sample(24, float32, 13), {2, 3, 4}, float32);
  auto i = make_index({0, 1}, {2});
  expect_invalid(
      [&] {
        gather(a, make_array({0, 1}, {2}, float32), 0, {1, 3, 4});
      },
      {"[gather]", "float32", "integer"});
  expect_invalid(
      [&] {
        gather(a, make_array({0, 1}, {2}, bool_), 0, {1, 3, 4});
      },
      {"[gather]", "bool"});
  expect_invalid(
      [&] {
        gather(a, {i, i}, std::vector<int>{0}, {1, 1, 4});
      },
      {"[gather]", "2 index arrays", "1 axes"});
  expect_invalid([&] { gather(a, i, 3, {1, 3, 4}); }, {"[gather]", "Axis 3", "3 dimensions"});
  // Axis 1 twice ({1, -2} named it twice before negative axes were rejected, as MLX does).
  expect_invalid([&] { gather(a, {i, i}, {1, 1}, {1, 1, 4}); }, {"[gather]", "repeated"});
  expect_invalid(
      [&] {
        gather(a, {i}, {-2}, {1, 1, 4});
      },
      {"[gather]", "Axis -2", "negative axes"});
  expect_invalid([&] { gather(a, i, 0, {1, 3}); }, {"[gather]", "slice_sizes (1,3)", "(2,3,4)"});
  expect_invalid(
      [&] {
        gather(a, i, 0, {1, 4, 4});
      },
      {"[gather]", "Slice size 4 at dimension 1", "(2,3,4)"});
  expect_invalid([&] { gather(a, i, 0, {1, -1, 4}); }, {"[gather]", "Slice size -1"});
  expect_invalid(
      [&] {
        gather(a, {i, make_index({0, 1, 2}, {3})}, {0, 1}, {1, 1, 4});
      },
      {"[gather]", "(2,), (3,)", "broadcast"});
}

TEST(Scatter, EveryValueDtypeReplaceAndAdd) {
  const Shape shape{4, 3};
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    auto dst = sample(numel(shape), dt, 20);
    auto a = make_array(dst, shape, dt);
    auto idx = make_index({2, -1, 0}, {3});
    auto upd_vals = sample(3 * 1 * 3, dt, 21);
    auto upd = make_array(upd_vals, {3, 1, 3}, dt);
    expect_values(scatter(a, idx, upd, 0),
                  ref_scatter(dst, shape, {values(idx)}, {3}, {0}, upd_vals, {1, 3}, false));
    auto want = ref_scatter(dst, shape, {values(idx)}, {3}, {0}, upd_vals, {1, 3}, true);
    if (!is_floating_point(dt)) {
      // Integer sums wrap in the dtype (int8: 100 + 49 is -107); bool sums are or.
      for (auto& w : want) w = test_util::wrap(w, dt);
    }
    auto out = scatter_add(a, idx, upd, 0);
    EXPECT_EQ(out.dtype(), dt);
    expect_values(out, want);
  }
}

TEST(Scatter, EveryIndexDtypeAndDroppedIndices) {
  const Shape shape{5, 2};
  auto dst = sample(numel(shape), float32, 22);
  auto a = make_array(dst, shape, float32);
  for (Dtype it : kIndexDtypes) {
    std::vector<int64_t> iv{4, 200, 1};  // 200 is out of range: dropped
    if (is_unsigned(it) == false) iv.push_back(-2);
    auto idx = make_index(iv, {static_cast<int>(iv.size())}, it);
    auto upd_vals = sample(iv.size() * 2, float32, 23);
    auto upd = make_array(upd_vals, {static_cast<int>(iv.size()), 1, 2}, float32);
    expect_values(scatter(a, idx, upd, 0),
                  ref_scatter(dst, shape, {values(idx)}, {static_cast<int>(iv.size())}, {0},
                              upd_vals, {1, 2}, false));
  }
  // Negative indices past the start are dropped too; nothing else changes.
  auto out = scatter(a, make_index({-6, 5, -100}, {3}),
                     make_array({1, 2, 3, 4, 5, 6}, {3, 1, 2}, float32), 0);
  expect_values(out, dst);
}

TEST(Scatter, AddAccumulatesRepeatedIndices) {
  for (Dtype dt : {int32, float32, float16, bfloat16, uint8}) {
    auto a = zeros({4}, dt);
    auto idx = make_index({1, 3, 1, 1, 0, 3}, {6});
    auto upd = make_array({1, 2, 3, 4, 5, 6}, {6, 1}, dt);
    expect_values(scatter_add(a, idx, upd, 0), {5, 8, 0, 8});
  }
  // Many repeats into one float32 slot.
  auto idx = make_index(std::vector<int64_t>(1000, 2), {1000});
  auto out = scatter_add(zeros({3}, float32), idx, ones({1000, 1}, float32), 0);
  expect_values(out, {0, 0, 1000});
  // Replace with repeats: the last update wins on the CPU (on a GPU the
  // winner is unspecified, as in MLX).
  expect_values(scatter(zeros({3}, int32), make_index({0, 0, 0}, {3}),
                        make_array({7, 8, 9}, {3, 1}, int32), 0, Device::cpu),
                {9, 0, 0});
}

TEST(Scatter, StridedBroadcastSourcesAndUpdates) {
  const Shape bshape{5, 4, 3};
  auto bvals = sample(numel(bshape), float32, 24);
  auto base = make_array(bvals, bshape, float32);
  auto a = transpose(base, {1, 2, 0});  // (4,3,5)
  auto av = values(a);
  const Shape shape = a.shape();
  auto i0 = make_index({3, -1, 0}, {3, 1});
  auto i1 = transpose(make_index({4, 0, 9, 2}, {2, 2}));  // (2,2), 9 dropped
  auto i1row = slice(i1, {0, 0}, {1, 2});                 // (1,2)
  // Updates: shape (3,2) + slice (1,2,1) as a broadcast of a (1,2) row.
  auto urow = make_array({10, 20, 30, 40}, {1, 1, 1, 2, 1}, float32);
  auto upd = broadcast_to(urow, {3, 2, 1, 2, 1});
  for (bool add : {false, true}) {
    auto out =
        add ? scatter_add(a, {i0, i1row}, upd, {0, 2}) : scatter(a, {i0, i1row}, upd, {0, 2});
    EXPECT_EQ(out.shape(), shape);
    auto i0b = values(broadcast_to(i0, {3, 2}));
    auto i1b = values(broadcast_to(i1row, {3, 2}));
    expect_values(out,
                  ref_scatter(av, shape, {i0b, i1b}, {3, 2}, {0, 2}, values(upd), {1, 2, 1}, add));
  }
  // Negative-step updates.
  auto u = slice(make_array({1, 2, 3, 4, 5, 6}, {6}, float32), {5}, {-7}, {-1});  // 6..1
  auto out = scatter(a, make_index({0, 1, 2}, {3}), reshape(u, {3, 1, 2, 1}), 0);
  expect_values(
      out, ref_scatter(av, shape, {{0, 1, 2}}, {3}, {0}, {6, 5, 4, 3, 2, 1}, {1, 2, 1}, false));
}

TEST(Scatter, UpdatesOfAnotherDtypeAreCast) {
  auto out =
      scatter(zeros({3}, int32), make_index({1}, {1}), make_array({2.0}, {1, 1}, float32), 0);
  EXPECT_EQ(out.dtype(), int32);
  expect_values(out, {0, 2, 0});
}

TEST(Scatter, AScatterAddIntoKnownZerosAbsorbsAnAddend) {
  // A Sum scatter that records a zero source (as Gather's vjp builds it)
  // turns out + b into the same scatter into b; other scatters and other
  // primitives leave the sum to add.
  auto idx = make_index({2, 0, 2}, {3});
  auto upd = make_array({1, 2, 3}, {3, 1}, float32);
  auto b = make_array({10, 20, 30}, {3}, float32);
  auto marked = array({3}, float32,
                      std::make_shared<Scatter>(default_stream(default_device()), Scatter::Sum,
                                                std::vector<int>{0}, /*zero_source=*/true),
                      {zeros({3}), idx, upd});
  auto sum = marked.primitive().absorb_addend(marked, b);
  ASSERT_TRUE(sum.has_value());
  EXPECT_STREQ(sum->primitive().name(), "Scatter");
  EXPECT_EQ(sum->inputs()[0].id(), b.id());
  expect_values(*sum, {12, 20, 34});
  auto plain = scatter_add(zeros({3}), idx, upd, 0);
  EXPECT_FALSE(plain.primitive().is_equivalent(marked.primitive()));
  auto replaced = scatter(zeros({3}), idx, upd, 0);
  auto added = b + b;
  for (const array& out : {plain, replaced, added}) {
    EXPECT_FALSE(out.primitive().absorb_addend(out, b).has_value()) << out.primitive().name();
  }
}

TEST(Scatter, BadInput) {
  auto a = zeros({3, 4}, float32);
  auto i = make_index({0, 1}, {2});
  expect_invalid(
      [&] {
        scatter(a, make_array({0, 1}, {2}, float16), zeros({2, 1, 4}), 0);
      },
      {"[scatter]", "float16", "integer"});
  expect_invalid(
      [&] {
        scatter_add(a, make_array({0, 1}, {2}, bool_), zeros({2, 1, 4}), 0);
      },
      {"[scatter_add]", "bool"});
  expect_invalid(
      [&] {
        scatter(a, i, zeros({2, 4}), 0);
      },
      {"[scatter]", "(2,4)", "2 dimensions", "expected 3"});
  expect_invalid([&] { scatter(a, i, zeros({3, 1, 4}), 0); }, {"[scatter]", "(3,1,4)", "(2,)"});
  expect_invalid(
      [&] {
        scatter_add(a, i, zeros({2, 1, 5}), 0);
      },
      {"[scatter_add]", "slice size 5", "dimension 1", "(3,4)"});
  expect_invalid(
      [&] {
        scatter(a, {i, i}, zeros({2, 1, 1}), std::vector<int>{0});
      },
      {"[scatter]", "2 index arrays", "1 axes"});
  expect_invalid([&] { scatter(a, {i, i}, zeros({2, 1, 1}), {0, 0}); }, {"[scatter]", "repeated"});
  expect_invalid([&] { scatter(a, i, zeros({2, 1, 4}), -3); }, {"[scatter]", "Axis -3"});
}

TEST(Take, WithAxis) {
  const Shape shape{3, 5, 4};
  auto src = sample(numel(shape), int32, 30);
  auto a = make_array(src, shape, int32);
  auto iv = std::vector<int64_t>{4, -1, 0, 7, 2, -9};
  for (Dtype it : kIndexDtypes) {
    auto vals = iv;
    if (is_unsigned(it)) {
      for (auto& v : vals) v = std::abs(v);
    }
    auto idx = make_index(vals, {2, 3}, it);
    auto out = take(a, idx, 1);
    EXPECT_EQ(out.shape(), (Shape{3, 2, 3, 4}));
    std::vector<double> want;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 6; ++j)
        for (int k = 0; k < 4; ++k)
          want.push_back(src[(i * 5 + clamp_index(vals[j], 5, 1)) * 4 + k]);
    expect_values(out, want);
  }
  // Last axis, negative axis, transposed source.
  auto at = transpose(a);  // (4,5,3)
  auto atv = values(at);
  auto out = take(at, make_index({2, 0}, {2}), -1);
  EXPECT_EQ(out.shape(), (Shape{4, 5, 2}));
  std::vector<double> want;
  for (int i = 0; i < 20; ++i) {
    want.push_back(atv[i * 3 + 2]);
    want.push_back(atv[i * 3 + 0]);
  }
  expect_values(out, want);
  // Scalar index array removes the axis.
  EXPECT_EQ(take(a, make_index({1}, {}), 0).shape(), (Shape{5, 4}));
  // Empty indices.
  EXPECT_EQ(take(a, make_index({}, {0}), 2).shape(), (Shape{3, 5, 0}));
}

TEST(Take, FlatAndIntIndex) {
  const Shape shape{3, 4};
  auto src = sample(12, float32, 31);
  auto a = transpose(make_array(src, shape, float32));  // (4,3): flat order is column-major of src
  auto av = values(a);
  auto out = take(a, make_index({0, 11, -1, 5, 30}, {5}));
  expect_values(out, {av[0], av[11], av[11], av[5], av[11]});
  auto row = take(a, 1, 0);
  EXPECT_EQ(row.shape(), (Shape{3}));
  expect_values(row, {av[3], av[4], av[5]});
  expect_values(take(a, -1, 1), {av[2], av[5], av[8], av[11]});
  expect_values(take(a, 10, 0), {av[9], av[10], av[11]});  // clamped
  auto scalar = take(a, 7);
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(scalar.item<float>(), av[7]);
  EXPECT_EQ(take(a, -2).item<float>(), av[10]);
}

TEST(Take, BadInput) {
  auto a = zeros({2, 3}, float32);
  expect_invalid([&] { take(a, make_array({0}, {1}, float32), 0); }, {"[take]", "float32"});
  expect_invalid([&] { take(a, make_index({0}, {1}), 2); }, {"[take]", "Axis 2"});
  expect_invalid([&] { take(a, 0, -3); }, {"[take]", "Axis -3"});
  expect_invalid([&] { take(zeros({2, 0}), make_index({0}, {1}), 1); }, {"[take]", "size 0"});
  expect_invalid([&] { take(zeros({0}), 0, 0); }, {"[take]", "size 0"});
}

TEST(TakeAlongAxis, MatchesLoop) {
  const Shape shape{3, 4, 5};
  for (Dtype dt : {float32, bfloat16, int64, bool_}) {
    auto src = sample(numel(shape), dt, 40);
    auto a = make_array(src, shape, dt);
    for (Dtype it : kIndexDtypes) {
      auto iv = random_indices(3 * 2 * 5, 0, 6, 41);  // 4 and 5 clamp
      auto idx = make_index(iv, {3, 2, 5}, it);
      auto out = take_along_axis(a, idx, 1);
      EXPECT_EQ(out.shape(), (Shape{3, 2, 5}));
      std::vector<double> want;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 2; ++j)
          for (int k = 0; k < 5; ++k)
            want.push_back(src[(i * 4 + clamp_index(iv[(i * 2 + j) * 5 + k], 4, 1)) * 5 + k]);
      expect_values(out, want);
    }
  }
  // Indices broadcast over the other dims, and a transposed source, axis -1.
  auto src = sample(numel(shape), float32, 42);
  auto a = transpose(make_array(src, shape, float32), {2, 0, 1});  // (5,3,4)
  auto av = values(a);
  auto idx = make_index({3, -1}, {1, 1, 2});
  auto out = take_along_axis(a, idx, -1);
  EXPECT_EQ(out.shape(), (Shape{5, 3, 2}));
  std::vector<double> want;
  for (int i = 0; i < 15; ++i) {
    want.push_back(av[i * 4 + 3]);
    want.push_back(av[i * 4 + 3]);
  }
  expect_values(out, want);
}

TEST(PutAlongAxis, MatchesLoop) {
  const Shape shape{3, 5};
  for (Dtype dt : {float32, float16, int32, uint8}) {
    auto dst = sample(15, dt, 50);
    auto a = make_array(dst, shape, dt);
    auto idx = make_index({4, 0, -1, 9, 2, 1}, {3, 2});  // 9 is dropped
    auto vals = make_array({1, 2, 3, 4, 5, 6}, {3, 2}, dt);
    auto out = put_along_axis(a, idx, vals, 1);
    auto want = dst;
    want[0 * 5 + 4] = 1;
    want[0 * 5 + 0] = 2;
    want[1 * 5 + 4] = 3;
    want[2 * 5 + 2] = 5;
    want[2 * 5 + 1] = 6;
    expect_values(out, want);
  }
  // Broadcast indices (one column for every row) and a scalar value, axis 0.
  auto a = zeros({3, 4}, int32);
  auto out = put_along_axis(a, make_index({2}, {1, 1}, uint8), array(7), 0);
  expect_values(out, {0, 0, 0, 0, 0, 0, 0, 0, 7, 7, 7, 7});
}

TEST(AlongAxis, BadInput) {
  auto a = zeros({2, 3}, float32);
  expect_invalid([&] { take_along_axis(a, make_index({0}, {1}), 0); },
                 {"[take_along_axis]", "(1,)", "1 dimensions", "(2,3)"});
  expect_invalid(
      [&] {
        take_along_axis(a, make_array({0}, {1, 1}, float32), 0);
      },
      {"[take_along_axis]", "float32"});
  expect_invalid(
      [&] {
        take_along_axis(a, make_index({0}, {1, 1}), 2);
      },
      {"[take_along_axis]", "Axis 2"});
  expect_invalid(
      [&] {
        take_along_axis(a, make_index({0, 0, 0, 0}, {1, 4}), 0);
      },
      {"[take_along_axis]", "cannot be broadcast"});
  expect_invalid([&] { put_along_axis(a, make_index({0}, {1}), array(1.0f), 0); },
                 {"[put_along_axis]", "1 dimensions"});
  expect_invalid(
      [&] {
        put_along_axis(a, make_index({0, 1}, {1, 2}), zeros({1, 3}), 0);
      },
      {"[put_along_axis]", "(1,3)"});
}
