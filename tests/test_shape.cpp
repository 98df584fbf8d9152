// Shape ops other than the plain views: flatten, moveaxis, swapaxes,
// expand_dims, squeeze, concatenate, stack, split, pad, tile, repeat and
// slice_update. Each is checked against a scalar loop over indices.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mlx_lite/mlx_lite.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::error_of;
using test_util::make;
using test_util::ravel;
using test_util::unravel;
using test_util::values;

namespace {

// Inputs of one shape in the layouts the kernels must read: row-contiguous,
// transposed, walked backwards with a negative step, and broadcast.
std::vector<std::pair<std::string, array>> layouts(const Shape& shape, Dtype dtype, int seed = 0) {
  Shape rev(shape.rbegin(), shape.rend());
  Shape big = shape;
  big[0] = 2 * shape[0];
  Shape start(shape.size(), 0), stop = big, step(shape.size(), 1);
  start[0] = big[0] - 1;
  stop[0] = -big[0] - 1;
  step[0] = -2;
  Shape one = shape;
  one[0] = 1;
  return {
      {"contiguous", make(shape, dtype, seed)},
      {"transposed", transpose(make(rev, dtype, seed))},
      {"negative step", slice(make(big, dtype, seed), start, stop, step)},
      {"broadcast", broadcast_to(make(one, dtype, seed), shape)},
  };
}

bool same_buffer(const array& a, array b) {
  b.eval();
  return a.data_shared_ptr() == b.data_shared_ptr();
}

}  // namespace

TEST(Flatten, ShapesValuesAndViews) {
  array a = make({2, 3, 4}, int32);
  array f = flatten(a);
  EXPECT_EQ(f.shape(), (Shape{24}));
  EXPECT_EQ(values(f), values(a));
  EXPECT_TRUE(same_buffer(a, f));
  EXPECT_EQ(flatten(a, 1, 2).shape(), (Shape{2, 12}));
  EXPECT_EQ(flatten(a, 0, 1).shape(), (Shape{6, 4}));
  EXPECT_EQ(flatten(a, -2, -1).shape(), (Shape{2, 12}));
  EXPECT_EQ(flatten(a, 1, 1).shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(flatten(array(5.0f)).shape(), (Shape{1}));
  // A transposed input flattens in its logical (row-major) order.
  array t = transpose(make({3, 4}, float32));
  auto tv = values(t);
  EXPECT_EQ(values(flatten(t)), tv);
  auto msg = error_of([&] { flatten(a, 2, 1); });
  EXPECT_NE(msg.find("[flatten]"), std::string::npos);
  EXPECT_NE(msg.find("(2,3,4)"), std::string::npos);
}

TEST(MoveSwapAxes, PermuteAsNumpy) {
  array a = make({2, 3, 4}, float32);
  auto av = values(a);
  array m = moveaxis(a, 0, 2);
  EXPECT_EQ(m.shape(), (Shape{3, 4, 2}));
  EXPECT_TRUE(same_buffer(a, m));
  auto mv = values(m);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(mv[(j * 4 + k) * 2 + i], av[(i * 3 + j) * 4 + k]);
  EXPECT_EQ(moveaxis(a, -1, 0).shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(moveaxis(a, 1, 1).shape(), (Shape{2, 3, 4}));

  array w = swapaxes(a, 0, -1);
  EXPECT_EQ(w.shape(), (Shape{4, 3, 2}));
  EXPECT_TRUE(same_buffer(a, w));
  auto wv = values(w);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(wv[(k * 3 + j) * 2 + i], av[(i * 3 + j) * 4 + k]);

  EXPECT_NE(error_of<std::out_of_range>([&] { moveaxis(a, 3, 0); }).find("[moveaxis] Axis 3"),
            std::string::npos);
  EXPECT_NE(error_of<std::out_of_range>([&] { swapaxes(a, 0, -4); }).find("[swapaxes] Axis -4"),
            std::string::npos);
}

TEST(ExpandDims, AxesOfTheOutput) {
  array a = make({2, 3}, int32);
  EXPECT_EQ(expand_dims(a, 0).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(expand_dims(a, -1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(expand_dims(a, 1).shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(expand_dims(a, {0, 3}).shape(), (Shape{1, 2, 3, 1}));
  EXPECT_EQ(expand_dims(a, {-1, 0}).shape(), (Shape{1, 2, 3, 1}));
  EXPECT_EQ(expand_dims(a, {1, 2}).shape(), (Shape{2, 1, 1, 3}));
  EXPECT_EQ(expand_dims(array(1), 0).shape(), (Shape{1}));
  EXPECT_TRUE(same_buffer(a, expand_dims(a, {0, 2})));
  // Views of views stay views: transposed, negative-step and broadcast inputs.
  for (auto& [name, x] : layouts({3, 4}, float32)) {
    x.eval();
    array e = expand_dims(x, {0, -1});
    EXPECT_EQ(e.shape(), (Shape{1, 3, 4, 1})) << name;
    EXPECT_EQ(values(e), values(x)) << name;
    EXPECT_TRUE(same_buffer(x, e)) << name;
  }
  auto msg = error_of([&] { expand_dims(a, {1, 1}); });
  EXPECT_NE(msg.find("[expand_dims]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("repeated"), std::string::npos) << msg;
  msg = error_of([&] { expand_dims(a, {1, -3}); });  // -3 and 1 name one axis of 4
  EXPECT_NE(msg.find("repeated"), std::string::npos) << msg;
  msg = error_of([&] { expand_dims(a, 3); });
  EXPECT_NE(msg.find("[expand_dims] Axis 3"), std::string::npos) << msg;
}

TEST(Squeeze, SizeOneAxes) {
  array a = make({1, 3, 1, 2}, float32);
  EXPECT_EQ(squeeze(a).shape(), (Shape{3, 2}));
  EXPECT_EQ(squeeze(a, 0).shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(squeeze(a, -2).shape(), (Shape{1, 3, 2}));
  EXPECT_EQ(squeeze(a, {0, 2}).shape(), (Shape{3, 2}));
  EXPECT_EQ(squeeze(make({1, 1}, int32)).shape(), (Shape{}));
  array sq = squeeze(a);
  EXPECT_EQ(values(sq), values(a));
  EXPECT_TRUE(same_buffer(a, sq));
  array t = transpose(make({2, 1, 3}, int32));  // (3,1,2), strided
  t.eval();
  array ts = squeeze(t, 1);
  EXPECT_EQ(values(ts), values(t));
  EXPECT_TRUE(same_buffer(t, ts));
  auto msg = error_of([&] { squeeze(a, 1); });
  EXPECT_NE(msg.find("[squeeze] Cannot squeeze axis 1 of size 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(1,3,1,2)"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { squeeze(a, 4); }).find("[squeeze] Axis 4"), std::string::npos);
  EXPECT_NE(error_of([&] { squeeze(a, {0, -4}); }).find("repeated"), std::string::npos);
}

namespace {

// Reference concatenation of the row-major values of `parts` along `axis`.
std::vector<double> concat_ref(const std::vector<array>& parts, int axis, const Shape& out_shape) {
  std::vector<std::vector<double>> vals;
  for (const auto& p : parts) vals.push_back(values(p));
  int64_t n = 1;
  for (auto d : out_shape) n *= d;
  std::vector<double> out(n);
  for (int64_t i = 0; i < n; ++i) {
    auto idx = unravel(i, out_shape);
    size_t k = 0;
    while (idx[axis] >= parts[k].shape(axis)) idx[axis] -= parts[k++].shape(axis);
    out[i] = vals[k][ravel(idx, parts[k].shape())];
  }
  return out;
}

}  // namespace

TEST(Concatenate, EveryDtypeAndLayout) {
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    for (int axis : {0, 1, -1}) {
      // Three parts, each in a different layout, differing only on `axis`.
      int ax = axis < 0 ? axis + 2 : axis;
      std::vector<array> parts;
      int seed = 0;
      for (int len : {3, 1, 5}) {
        Shape shape = {4, 4};
        shape[ax] = len;
        auto ls = layouts(shape, dt, seed++);
        parts.push_back(ls[seed % ls.size()].second);
      }
      parts.push_back(layouts(ax == 0 ? Shape{2, 4} : Shape{4, 2}, dt, 9)[3].second);
      array c = concatenate(parts, axis);
      Shape want = ax == 0 ? Shape{11, 4} : Shape{4, 11};
      ASSERT_EQ(c.shape(), want);
      EXPECT_EQ(c.dtype(), dt);
      EXPECT_EQ(values(c), concat_ref(parts, ax, want)) << dt << " axis " << axis;
      EXPECT_TRUE(c.flags().row_contiguous);
    }
  }
}

TEST(Concatenate, ThreeDimsEmptyPartsAndPromotion) {
  array a = make({2, 3, 5}, int32);
  array b = transpose(make({4, 3, 2}, int32), {2, 1, 0});
  array e = make({2, 3, 0}, int32);
  array c = concatenate({a, e, b, e}, 2);
  EXPECT_EQ(c.shape(), (Shape{2, 3, 9}));
  EXPECT_EQ(values(c), concat_ref({a, e, b, e}, 2, {2, 3, 9}));

  // Inputs promote to a common dtype: int32 with float16 is float16, uint8
  // with int32 is int32, bool with uint32 is uint32.
  array f = concatenate({make({2}, int32), array({0.5f, 1.5f}, float16)});
  EXPECT_EQ(f.dtype(), float16);
  EXPECT_EQ(values(f), (std::vector<double>{0, 7, 0.5, 1.5}));
  EXPECT_EQ(concatenate({make({2}, uint8), make({1}, int32)}, 0).dtype(), int32);
  EXPECT_EQ(concatenate({array({true, false}), make({1}, uint32)}, 0).dtype(), uint32);

  // The axis-less form flattens every input first.
  array g = concatenate({make({2, 2}, float32), array({9.0f})});
  EXPECT_EQ(g.shape(), (Shape{5}));
  EXPECT_EQ(values(g), (std::vector<double>{0, 7, 14, 21, 9}));
}

TEST(Concatenate, BadInput) {
  auto msg = error_of([] { concatenate({make({2, 3}, float32), make({3, 3}, float32)}, 1); });
  EXPECT_NE(msg.find("[concatenate]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(2,3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(3,3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("except axis 1"), std::string::npos) << msg;
  msg = error_of([] { concatenate({make({2, 3}, float32), make({2, 3, 1}, float32)}, 0); });
  EXPECT_NE(msg.find("(2,3,1)"), std::string::npos) << msg;
  msg = error_of([] { concatenate({}, 0); });
  EXPECT_NE(msg.find("[concatenate] No arrays"), std::string::npos) << msg;
  msg = error_of<std::out_of_range>([] { concatenate({make({2}, float32)}, 1); });
  EXPECT_NE(msg.find("[concatenate] Axis 1"), std::string::npos) << msg;
  msg = error_of<std::out_of_range>([] { concatenate({array(1), array(2)}, 0); });
  EXPECT_NE(msg.find("[concatenate]"), std::string::npos) << msg;
}

TEST(Stack, NewAxis) {
  for (Dtype dt : {bool_, int64, bfloat16, float32}) {
    auto ls = layouts({2, 3}, dt);
    std::vector<array> xs;
    for (auto& [name, x] : ls) xs.push_back(x);
    for (int axis : {0, 1, 2, -1, -3}) {
      array st = stack(xs, axis);
      int ax = axis < 0 ? axis + 3 : axis;
      Shape want = {2, 3};
      want.insert(want.begin() + ax, 4);
      ASSERT_EQ(st.shape(), want);
      auto sv = values(st);
      for (size_t k = 0; k < xs.size(); ++k) {
        auto xv = values(xs[k]);
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 3; ++j) {
            std::vector<int64_t> idx = {i, j};
            idx.insert(idx.begin() + ax, static_cast<int>(k));
            EXPECT_EQ(sv[ravel(idx, want)], xv[i * 3 + j]) << dt << " axis " << axis;
          }
      }
    }
  }
  EXPECT_EQ(stack({array(1), array(2)}).shape(), (Shape{2}));
  auto msg = error_of([] { stack({make({2, 3}, float32), make({3, 2}, float32)}); });
  EXPECT_NE(msg.find("[stack]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(3,2)"), std::string::npos) << msg;
  EXPECT_NE(error_of([] { stack({}); }).find("[stack]"), std::string::npos);
  EXPECT_NE(
      error_of<std::out_of_range>([] { stack({make({2}, float32)}, 2); }).find("[stack] Axis 2"),
      std::string::npos);
}

TEST(Split, EqualPartsAndIndices) {
  array a = make({6, 4}, float32);
  auto av = values(a);
  auto parts = split(a, 3);
  ASSERT_EQ(parts.size(), 3u);
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(parts[p].shape(), (Shape{2, 4}));
    EXPECT_EQ(values(parts[p]), std::vector<double>(av.begin() + p * 8, av.begin() + p * 8 + 8));
    EXPECT_TRUE(same_buffer(a, parts[p]));
  }
  auto cols = split(a, 2, -1);
  ASSERT_EQ(cols.size(), 2u);
  auto c1 = values(cols[1]);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(c1[i * 2 + j], av[i * 4 + 2 + j]);

  // Cut before each index, Python-slicing rules: negatives count from the
  // end, out-of-range and unsorted indices give empty parts.
  auto q = split(a, Shape{1, -2, 9}, 0);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[0].shape(), (Shape{1, 4}));
  EXPECT_EQ(q[1].shape(), (Shape{3, 4}));
  EXPECT_EQ(q[2].shape(), (Shape{2, 4}));
  EXPECT_EQ(q[3].shape(), (Shape{0, 4}));
  EXPECT_EQ(values(q[1]), std::vector<double>(av.begin() + 4, av.begin() + 16));
  EXPECT_EQ(split(a, Shape{3, 1}, 1)[1].shape(), (Shape{6, 0}));
  EXPECT_EQ(split(a, Shape{}, 1).size(), 1u);

  // A negative-step view splits in its logical order.
  array r = slice(a, {5, 0}, {-7, 4}, {-1, 1});
  auto rv = values(r);
  auto rp = split(r, 2);
  EXPECT_EQ(values(rp[1]), std::vector<double>(rv.begin() + 12, rv.end()));

  auto msg = error_of([&] { split(a, 4); });
  EXPECT_NE(msg.find("[split] Cannot split axis 0 of size 6"), std::string::npos) << msg;
  EXPECT_NE(msg.find("into 4"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { split(a, 0, 1); }).find("[split]"), std::string::npos);
  EXPECT_NE(error_of([&] { split(a, 2, 2); }).find("[split] Axis 2"), std::string::npos);
}

namespace {

std::vector<double> pad_ref(const array& a, const Shape& low, const Shape& high, double v) {
  auto av = values(a);
  Shape out_shape = a.shape();
  for (int d = 0; d < a.ndim(); ++d) out_shape[d] += low[d] + high[d];
  int64_t n = 1;
  for (auto d : out_shape) n *= d;
  std::vector<double> out(n, v);
  for (int64_t i = 0; i < n; ++i) {
    auto idx = unravel(i, out_shape);
    bool inside = true;
    for (int d = 0; d < a.ndim(); ++d) {
      idx[d] -= low[d];
      inside = inside && idx[d] >= 0 && idx[d] < a.shape(d);
    }
    if (inside) out[i] = av[ravel(idx, a.shape())];
  }
  return out;
}

}  // namespace

TEST(Pad, ConstantEveryDtypeAndLayout) {
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    for (auto& [name, x] : layouts({3, 4}, dt)) {
      double v = dt == bool_ ? 1 : 5;
      array p = pad(x, {0, 1}, {1, 0}, {2, 3}, array(5));
      EXPECT_EQ(p.shape(), (Shape{6, 7}));
      EXPECT_EQ(p.dtype(), dt);
      EXPECT_EQ(values(p), pad_ref(x, {1, 0}, {2, 3}, v)) << dt << " " << name;
    }
  }
}

TEST(Pad, Overloads) {
  array a = make({2, 3}, float32);
  EXPECT_EQ(values(pad(a, 1)), pad_ref(a, {1, 1}, {1, 1}, 0));
  EXPECT_EQ(values(pad(a, {2, 0})), pad_ref(a, {2, 2}, {0, 0}, 0));
  EXPECT_EQ(values(pad(a, {{0, 1}, {3, 2}}, array(-1.5f))), pad_ref(a, {0, 3}, {1, 2}, -1.5));
  EXPECT_EQ(values(pad(a, {-1}, {2}, {0}, array(7))), pad_ref(a, {0, 2}, {0, 0}, 7));
  EXPECT_EQ(values(pad(a, std::vector<int>{}, {}, {})), values(a));
  EXPECT_EQ(pad(make({0, 2}, int32), 1).shape(), (Shape{2, 4}));
  EXPECT_EQ(values(pad(make({0, 2}, int32), 1)), std::vector<double>(8, 0));
}

TEST(Pad, EdgeMode) {
  array a = array({1, 2, 3, 4, 5, 6}, {2, 3});
  array e = pad(a, {{1, 2}, {2, 1}}, array(0), "edge");
  EXPECT_EQ(e.shape(), (Shape{5, 6}));
  std::vector<double> want = {1, 1, 1, 2, 3, 3,  //
                              1, 1, 1, 2, 3, 3,  //
                              4, 4, 4, 5, 6, 6,  //
                              4, 4, 4, 5, 6, 6,  //
                              4, 4, 4, 5, 6, 6};
  EXPECT_EQ(values(e), want);
  array t = transpose(a);  // (3,2): [[1,4],[2,5],[3,6]]
  EXPECT_EQ(values(pad(t, {1}, {0}, {1}, array(0), "edge")),
            (std::vector<double>{1, 4, 4, 2, 5, 5, 3, 6, 6}));
  auto msg = error_of([] { pad(make({0, 2}, float32), 1, array(0), "edge"); });
  EXPECT_NE(msg.find("[pad] Cannot edge-pad axis 0"), std::string::npos) << msg;
}

TEST(Pad, BadInput) {
  array a = make({2, 3}, float32);
  auto msg = error_of([&] { pad(a, {{1, -1}, {0, 0}}); });
  EXPECT_NE(msg.find("[pad] Pad sizes must be non-negative"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(1,0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(-1,0)"), std::string::npos) << msg;
  msg = error_of([&] { pad(a, 1, array(0), "reflect"); });
  EXPECT_NE(msg.find("[pad] Unknown mode \"reflect\""), std::string::npos) << msg;
  msg = error_of([&] { pad(a, std::vector<int>{0, 1}, Shape{1}, Shape{1, 1}); });
  EXPECT_NE(msg.find("[pad] Got 2 axes, 1 low"), std::string::npos) << msg;
  msg = error_of([&] { pad(a, {{1, 1}, {1, 1}, {1, 1}}); });
  EXPECT_NE(msg.find("(2,3)"), std::string::npos) << msg;
  msg = error_of([&] { pad(a, 1, array({1, 2})); });
  EXPECT_NE(msg.find("[pad] The pad value must be a scalar"), std::string::npos) << msg;
  msg = error_of([&] { pad(a, std::vector<int>{2}, Shape{1}, Shape{1}); });
  EXPECT_NE(msg.find("[pad] Axis 2"), std::string::npos) << msg;
  msg = error_of([&] { pad(a, std::vector<int>{1, -1}, Shape{1, 1}, Shape{1, 1}); });
  EXPECT_NE(msg.find("repeated"), std::string::npos) << msg;
}

TEST(Tile, AsNumpy) {
  array a = array({0, 1, 2});
  EXPECT_EQ(values(tile(a, {2})), (std::vector<double>{0, 1, 2, 0, 1, 2}));
  array t2 = tile(a, {2, 2});
  EXPECT_EQ(t2.shape(), (Shape{2, 6}));
  EXPECT_EQ(values(t2), (std::vector<double>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
  array b = array({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(values(tile(b, {2})), (std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_EQ(tile(b, {2, 1}).shape(), (Shape{4, 2}));
  EXPECT_EQ(values(tile(b, {2, 1})), (std::vector<double>{1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_EQ(tile(b, {0, 3}).shape(), (Shape{0, 6}));
  EXPECT_EQ(tile(array(7), {3}).shape(), (Shape{3}));
  // Scalar loop on every layout and dtype: out[i, j] = x[i % 3, j % 4].
  for (Dtype dt : {bool_, uint8, float16, int64}) {
    for (auto& [name, x] : layouts({3, 4}, dt)) {
      auto xv = values(x);
      array t = tile(x, {2, 3});
      ASSERT_EQ(t.shape(), (Shape{6, 12}));
      auto tv = values(t);
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 12; ++j)
          EXPECT_EQ(tv[i * 12 + j], xv[(i % 3) * 4 + j % 4]) << dt << " " << name;
    }
  }
  auto msg = error_of([&] { tile(b, {2, -1}); });
  EXPECT_NE(msg.find("[tile] Repetitions must be non-negative, got (2,-1)"), std::string::npos)
      << msg;
}

TEST(Repeat, AsNumpy) {
  array b = array({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(values(repeat(b, 2)), (std::vector<double>{1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_EQ(values(repeat(b, 2, 0)), (std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_EQ(values(repeat(b, 3, -1)), (std::vector<double>{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}));
  EXPECT_EQ(repeat(b, 0, 1).shape(), (Shape{2, 0}));
  EXPECT_EQ(repeat(b, 1, 1).shape(), (Shape{2, 2}));
  EXPECT_EQ(values(repeat(array(5), 3)), (std::vector<double>{5, 5, 5}));
  for (Dtype dt : {bool_, uint32, bfloat16, float32}) {
    for (auto& [name, x] : layouts({3, 4}, dt)) {
      auto xv = values(x);
      array r = repeat(x, 2, 0);
      ASSERT_EQ(r.shape(), (Shape{6, 4}));
      auto rv = values(r);
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 4; ++j) EXPECT_EQ(rv[i * 4 + j], xv[(i / 2) * 4 + j]) << name;
    }
  }
  auto msg = error_of([&] { repeat(b, -1, 0); });
  EXPECT_NE(msg.find("[repeat] The number of repeats must be non-negative, got -1"),
            std::string::npos)
      << msg;
  EXPECT_NE(error_of<std::out_of_range>([&] { repeat(b, 2, 2); }).find("[repeat] Axis 2"),
            std::string::npos);
}

namespace {

// src with src[start::step] (per axis, region of shape upd's) set from upd.
std::vector<double> slice_update_ref(const array& src, const array& upd, const Shape& start,
                                     const Shape& step) {
  auto out = values(src);
  auto uv = values(upd);
  for (int64_t i = 0; i < static_cast<int64_t>(uv.size()); ++i) {
    auto idx = unravel(i, upd.shape());
    for (int d = 0; d < src.ndim(); ++d) idx[d] = start[d] + idx[d] * step[d];
    out[ravel(idx, src.shape())] = uv[i];
  }
  return out;
}

}  // namespace

TEST(SliceUpdate, EveryDtypeAndLayout) {
  for (Dtype dt : all_dtypes) {
    if (!test_util::runs_on(dt, default_device())) continue;
    for (auto& [name, src] : layouts({5, 6}, dt)) {
      // Rows 1..3, columns 5, 3, 1 (a negative step).
      for (auto& [uname, upd] : layouts({3, 3}, dt, 50)) {
        array out = slice_update(src, upd, {1, -1}, {4, 0}, {1, -2});
        EXPECT_EQ(out.shape(), (Shape{5, 6}));
        EXPECT_EQ(out.dtype(), dt);
        EXPECT_EQ(values(out), slice_update_ref(src, upd, {1, 5}, {1, -2}))
            << dt << " " << name << " " << uname;
        EXPECT_FALSE(same_buffer(src, out));
      }
    }
  }
}

TEST(SliceUpdate, BroadcastConvertAndBounds) {
  array src = make({4, 5}, float32);
  // A scalar and a row broadcast over the region; int update into float src.
  array s = slice_update(src, array(-1), {0, 1}, {4, 5}, {2, 2});
  EXPECT_EQ(values(s), slice_update_ref(src, full({2, 2}, -1.0f), {0, 1}, {2, 2}));
  array row = array({10, 20, 30});
  array r = slice_update(src, row, {1, 2}, {3, 5});
  EXPECT_EQ(values(r), slice_update_ref(src, broadcast_to(row, {2, 3}), {1, 2}, {1, 1}));
  // Bounds past the end are clamped; the whole array may be replaced.
  array w = slice_update(src, make({4, 5}, float32, 3), {-10, 0}, {10, 5});
  EXPECT_EQ(values(w), values(make({4, 5}, float32, 3)));
  // An empty region leaves src as it was.
  EXPECT_EQ(values(slice_update(src, make({0, 5}, float32), {2, 0}, {2, 5})), values(src));
  // src itself is unchanged (arrays are immutable).
  EXPECT_EQ(values(src), values(make({4, 5}, float32)));
}

TEST(SliceUpdate, BadInput) {
  array src = make({4, 5}, float32);
  auto msg = error_of([&] { slice_update(src, make({2, 2}, float32), {0, 0}, {2, 3}); });
  EXPECT_NE(msg.find("[slice_update] Update of shape (2,2)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("slice's shape (2,3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(4,5)"), std::string::npos) << msg;
  msg = error_of([&] { slice_update(src, make({1, 2, 3}, float32), {0, 0}, {2, 3}); });
  EXPECT_NE(msg.find("(1,2,3)"), std::string::npos) << msg;
  msg = error_of([&] { slice_update(src, array(1), {0, 0}, {2, 3}, {1, 0}); });
  EXPECT_NE(msg.find("[slice_update] Stride of axis 1 is 0"), std::string::npos) << msg;
  msg = error_of([&] { slice_update(src, array(1), {0}, {2}); });
  EXPECT_NE(msg.find("[slice_update] Got 1 starts"), std::string::npos) << msg;
}
