// MLX's indexing ops added for issue 14: scatter_prod/max/min (and
// scatter_add_axis), slice_update_add/prod/max/min, the dynamic slice and
// slice_update (start given as an array), masked_scatter; and MLX's rules
// for indices: gather/scatter axes are not counted from the end, and
// nothing is differentiated with respect to an index array. Each op runs on
// the CPU and (when there is one) the GPU against a reference computed here
// with plain loops over hand-chosen values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::device_name;
using test_util::devices;
using test_util::error_of;
using test_util::expect_values;
using test_util::make_array;
using test_util::values;

namespace {

std::string where_(const Device& d, Dtype t) {
  return fmt::format("{} {}", device_name(d), t);
}

// ---- scatter_prod / scatter_max / scatter_min

enum class Op { Add, Prod, Max, Min };

// The scatter of rows: out = a (rows x cols), then for each update row i,
// out[idx[i] wrapped] (op)= upd[i]; rows out of range are dropped. In double
// (the values used are small integers, exact in every dtype).
std::vector<double> ref_scatter_rows(std::vector<double> a, int rows, int cols,
                                     const std::vector<int>& idx, const std::vector<double>& upd,
                                     Op op) {
  for (size_t i = 0; i < idx.size(); ++i) {
    const int r = idx[i] < 0 ? idx[i] + rows : idx[i];
    if (r < 0 || r >= rows) continue;
    for (int c = 0; c < cols; ++c) {
      double& o = a[r * cols + c];
      const double u = upd[i * cols + c];
      switch (op) {
        case Op::Add:
          o += u;
          break;
        case Op::Prod:
          o *= u;
          break;
        case Op::Max:
          o = std::max(o, u);
          break;
        case Op::Min:
          o = std::min(o, u);
          break;
      }
    }
  }
  return a;
}

array scatter_op(Op op, const array& a, const array& idx, const array& upd, int axis,
                 StreamOrDevice s) {
  switch (op) {
    case Op::Add:
      return scatter_add(a, idx, upd, axis, s);
    case Op::Prod:
      return scatter_prod(a, idx, upd, axis, s);
    case Op::Max:
      return scatter_max(a, idx, upd, axis, s);
    case Op::Min:
      return scatter_min(a, idx, upd, axis, s);
  }
  return a;
}

const char* op_name(Op op) {
  static const char* names[] = {"scatter_add", "scatter_prod", "scatter_max", "scatter_min"};
  return names[static_cast<int>(op)];
}

TEST(MlxScatterReduce, RepeatedRowsEveryDtypeBothDevices) {
  // Rows 2 and 0 are hit twice (row 5 once through -1); row 9 is dropped.
  const int rows = 6, cols = 3;
  const std::vector<int> idx{2, 0, 2, -1, 0, 9, 4};
  const int n = static_cast<int>(idx.size());
  for (Dtype dt : {float32, float16, bfloat16, int32, uint32, int64, uint8, bool_}) {
    const bool boolean = dt == bool_;
    const bool is_signed = dt == int32 || dt == int64 || is_floating_point(dt);
    std::vector<double> av(rows * cols), uv(n * cols);
    for (int i = 0; i < rows * cols; ++i) {
      av[i] = boolean ? (i % 3 == 0) : (is_signed ? (i * 5) % 7 - 3 : (i * 5) % 7 + 1);
    }
    for (int i = 0; i < n * cols; ++i) {
      uv[i] = boolean ? (i % 2 == 0) : (is_signed ? (i * 3) % 5 - 2 : (i * 3) % 5 + 1);
    }
    const array a = make_array(av, {rows, cols}, dt);
    const array upd = make_array(uv, {n, 1, cols}, dt);
    const array indices = array(idx.data(), {n}, int32);
    for (Op op : {Op::Add, Op::Prod, Op::Max, Op::Min}) {
      std::vector<double> want = ref_scatter_rows(av, rows, cols, idx, uv, op);
      if (boolean) {
        for (double& w : want) w = w != 0;
      }
      for (const Device& d : devices()) {
        SCOPED_TRACE(fmt::format("{} {}", op_name(op), where_(d, dt)));
        array out = scatter_op(op, a, indices, upd, 0, d);
        EXPECT_EQ(out.dtype(), dt);
        expect_values(out, want, 0.0, op_name(op));
      }
    }
  }
}

TEST(MlxScatterReduce, IntegerSumsAndProductsWrap) {
  // 100000 * 100000 * 3 and INT32_MAX + 2 wrap modulo 2^32, as numpy's do.
  const array a = array({100000, std::numeric_limits<int32_t>::max()}, int32);
  const array upd = array({100000, 3, 2}, {3, 1}, int32);
  const array idx = array({0, 0, 1}, int32);
  const auto wrap32 = [](int64_t v) { return static_cast<double>(static_cast<int32_t>(v)); };
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    expect_values(scatter_prod(a, idx, upd, 0, d),
                  {wrap32(int64_t{100000} * 100000 * 3), wrap32(int64_t{INT32_MAX} * 2)}, 0.0,
                  "prod");
    expect_values(scatter_add(a, idx, upd, 0, d),
                  {100000.0 + 100000 + 3, wrap32(int64_t{INT32_MAX} + 2)}, 0.0, "add");
  }
  const array a64 = array({std::numeric_limits<int64_t>::max()}, int64);
  const array u64 = array({int64_t{2}}, {1, 1}, int64);
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    // (2^63 - 1) * 2 = 2^64 - 2, which wraps to -2.
    EXPECT_EQ(scatter_prod(a64, array({0}, int32), u64, 0, d).item<int64_t>(), -2);
  }
}

TEST(MlxScatterReduce, MaxAndMinLetNanWin) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const array a = array({1.0f, nan, 5.0f});
  const array upd = array({nan, 2.0f, 3.0f, 7.0f}, {4, 1});
  const array idx = array({0, 1, 2, 2}, int32);
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    expect_values(scatter_max(a, idx, upd, 0, d), {NAN, NAN, 7.0}, 0.0, "max");
    expect_values(scatter_min(a, idx, upd, 0, d), {NAN, NAN, 3.0}, 0.0, "min");
  }
}

TEST(MlxScatterReduce, SeveralAxesAndLargerSlices) {
  // Updates of slices (1, 2) at (row, col) pairs of a (4, 5) array.
  const array a = reshape(astype(arange(20), float32), {4, 5});
  const array rows = array({1, 3, 1}, int32);
  const array cols = array({0, 3, 0}, int32);
  const array upd = reshape(astype(arange(2, 8), float32), {3, 1, 2});
  std::vector<double> want(20);
  for (int i = 0; i < 20; ++i) want[i] = i;
  // (1, 0..1) gets max(.., 2, 3) and max(.., 6, 7); (3, 3..4) gets 4, 5.
  want[5] = std::max({5.0, 2.0, 6.0});
  want[6] = std::max({6.0, 3.0, 7.0});
  want[18] = std::max(18.0, 4.0);
  want[19] = std::max(19.0, 5.0);
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    expect_values(scatter_max(a, {rows, cols}, upd, {0, 1}, d), want, 0.0, "max");
  }
}

TEST(MlxScatterReduce, VjpOfMaxAndMinGoesToTheWinner) {
  // a = [1, 5, 3]; updates 4 -> 0 (wins), 2 -> 1 (loses), 3 -> 2 (ties).
  const array a = array({1.0f, 5.0f, 3.0f});
  const array upd = array({4.0f, 2.0f, 3.0f}, {3, 1});
  const array idx = array({0, 1, 2}, int32);
  const array cot = array({10.0f, 20.0f, 30.0f});
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    auto f = [&](const std::vector<array>& in) {
      return std::vector<array>{scatter_max(in[0], idx, in[1], 0, d)};
    };
    auto [outs, grads] = vjp(f, {a, upd}, {cot});
    // As MLX: a gets the cotangent where it equals the result, an update
    // where it equals the result (a tie gives both).
    expect_values(grads[0], {0.0, 20.0, 30.0}, 0.0, "d a");
    expect_values(grads[1], {10.0, 0.0, 30.0}, 0.0, "d updates");
  }
}

TEST(MlxScatterReduce, ProdHasNoVjpAndReducingScattersNoJvp) {
  const array a = array({1.0f, 2.0f});
  const array upd = array({3.0f}, {1, 1});
  const array idx = array({0}, int32);
  auto prod = [&](const std::vector<array>& in) {
    return std::vector<array>{scatter_prod(in[0], idx, in[1], 0)};
  };
  auto mx = [&](const std::vector<array>& in) {
    return std::vector<array>{scatter_max(in[0], idx, in[1], 0)};
  };
  EXPECT_NE(error_of<std::runtime_error>([&] {
              vjp(prod, {a, upd}, {ones({2})});
            }).find("[scatter_prod] VJP"),
            std::string::npos);
  EXPECT_NE(error_of<std::runtime_error>([&] {
              jvp(mx, {a, upd}, {ones({2}), ones({1, 1})});
            }).find("[scatter_max] JVP"),
            std::string::npos);
}

TEST(MlxScatterReduce, NegativeAxesAreRejectedAsInMlx) {
  const array a = zeros({3, 4});
  const array idx = array({0}, int32);
  for (auto f : {+[](const array&a, const array&i) {
                   return scatter_max(a, i, zeros({1, 3, 1}), -1);
                 },
                 +[](const array&a, const array&i) {
                   return gather(a, i, -1, {3, 1});
                 }}) {
    const std::string msg = error_of([&] { f(a, idx); });
    EXPECT_NE(msg.find("Axis -1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("negative axes"), std::string::npos) << msg;
  }
}

TEST(MlxScatterReduce, ScatterAddAxisAddsRepeatedPositions) {
  const array a = zeros({2, 3});
  const array idx = array({0, 0, 2, 1, 1, 1}, {2, 3}, int32);
  const array vals = array({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {2, 3});
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    expect_values(scatter_add_axis(a, idx, vals, 1, d), {3, 0, 3, 0, 15, 0}, 0.0, "add axis");
  }
}

// ---- gradients with respect to indices

TEST(MlxIndexGradients, IndicesOnTheGradientPathThrowAsInMlx) {
  const array x = array({3.0f, 1.0f, 2.0f});
  // The indices come from x: MLX asks for stop_gradient.
  auto sorted = [](const array& v) { return sum(take_along_axis(v, argsort(v, 0), 0)); };
  const std::string msg = error_of([&] { grad(sorted)(x); });
  EXPECT_NE(msg.find("[gather] Cannot calculate VJP with respect to indices"), std::string::npos)
      << msg;
  auto stopped = [](const array& v) {
    return sum(
        multiply(take_along_axis(v, stop_gradient(argsort(v, 0)), 0), array({1.0f, 2.0f, 3.0f})));
  };
  // d/dx of sum(sorted(x) * [1,2,3]) puts each weight at its element's rank.
  expect_values(grad(stopped)(x), {3.0, 1.0, 2.0}, 0.0, "stopped");
  auto put = [](const array& v) {
    return sum(put_along_axis(v, argmax(v, 0, true), array(0.0f), 0));
  };
  const std::string msg2 = error_of([&] { grad(put)(x); });
  EXPECT_NE(msg2.find("Cannot calculate VJP with respect to indices"), std::string::npos) << msg2;
}

// ---- slice_update_add / prod / max / min

TEST(MlxSliceUpdateCombine, EachOpOnAStridedSliceBothDevices) {
  // src[1:5:2, ::-2] of a (5, 4) array combined with a broadcast row.
  const array src = reshape(astype(arange(20), float32), {5, 4});
  const array upd = array({3.0f, 9.0f});
  const std::vector<int> rows{1, 3}, cols{3, 1};
  for (Op op : {Op::Add, Op::Prod, Op::Max, Op::Min}) {
    std::vector<double> want(20);
    for (int i = 0; i < 20; ++i) want[i] = i;
    for (int r : rows) {
      for (int j = 0; j < 2; ++j) {
        double& o = want[r * 4 + cols[j]];
        const double u = j == 0 ? 3 : 9;
        o = op == Op::Add    ? o + u
            : op == Op::Prod ? o * u
            : op == Op::Max  ? std::max(o, u)
                             : std::min(o, u);
      }
    }
    for (const Device& d : devices()) {
      SCOPED_TRACE(fmt::format("{} {}", static_cast<int>(op), device_name(d)));
      const Shape start{1, -1}, stop{5, -5}, strides{2, -2};
      array out = op == Op::Add    ? slice_update_add(src, upd, start, stop, strides, d)
                  : op == Op::Prod ? slice_update_prod(src, upd, start, stop, strides, d)
                  : op == Op::Max  ? slice_update_max(src, upd, start, stop, strides, d)
                                   : slice_update_min(src, upd, start, stop, strides, d);
      expect_values(out, want, 0.0, "slice update");
    }
  }
}

TEST(MlxSliceUpdateCombine, UnitStrideFormConvertsAndChecksTheUpdate) {
  const array src = array({1, 2, 3, 4}, int32);
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    array out = slice_update_add(src, array({0.5f, 2.5f}), {1}, {3}, d);
    EXPECT_EQ(out.dtype(), int32);
    // The update is converted to int32 first (0 and 2), as MLX does.
    expect_values(out, {1, 2, 5, 4}, 0.0, "add");
  }
  const std::string msg = error_of([&] { slice_update_max(src, array({1, 2, 3}), {0}, {2}); });
  EXPECT_NE(msg.find("[slice_update_max]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(3,)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot be broadcast"), std::string::npos) << msg;
}

TEST(MlxSliceUpdateCombine, GradientsOfAddAndProd) {
  const array src = random::normal({3, 4}, float32, 0.0f, 1.0f, random::key(3));
  const array upd = random::normal({2, 2}, float32, 0.0f, 1.0f, random::key(4));
  EXPECT_TRUE(test::check_grads(
      [](const std::vector<array>& in) {
        return std::vector<array>{slice_update_add(in[0], in[1], {1, 0}, {3, 4}, {1, 2})};
      },
      {src, upd}));
  EXPECT_TRUE(test::check_grads(
      [](const std::vector<array>& in) {
        return std::vector<array>{slice_update_prod(in[0], in[1], {0, 1}, {3, 3}, {2, 1})};
      },
      {src, upd}));
}

// ---- dynamic slice and slice_update

TEST(MlxDynamicSlice, MatchesTheStaticSliceAndClampsLikeAGather) {
  const array a = reshape(astype(arange(30), float32), {5, 6});
  struct Case {
    std::vector<int> start;
    int r0, c0;  // the start the slice must use
  };
  // (1, 2) as given; (-2, -3) counts from the end; (4, 5) is clamped so that
  // the (2, 3) slice fits: rows 3..4, cols 3..5.
  for (const Case& c : {Case{{1, 2}, 1, 2}, Case{{-2, -3}, 3, 3}, Case{{4, 5}, 3, 3}}) {
    std::vector<double> want;
    for (int r = 0; r < 2; ++r)
      for (int k = 0; k < 3; ++k) want.push_back((c.r0 + r) * 6 + c.c0 + k);
    for (const Device& d : devices()) {
      SCOPED_TRACE(fmt::format("start ({}, {}) {}", c.start[0], c.start[1], device_name(d)));
      const array start = array(c.start.data(), {2}, int64);
      array out = slice(a, start, {0, 1}, {2, 3}, d);
      EXPECT_EQ(out.shape(), Shape({2, 3}));
      expect_values(out, want, 0.0, "dynamic slice");
    }
  }
}

TEST(MlxDynamicSlice, OneAxisScalarStartAndGradient) {
  const array a = reshape(astype(arange(12), float32), {3, 4});
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    // Axis -1 from 2: every row's columns 2..3.
    expect_values(slice(a, array(2), {-1}, {3, 2}, d), {2, 3, 6, 7, 10, 11}, 0.0, "scalar start");
  }
  const array x = random::normal({3, 4}, float32, 0.0f, 1.0f, random::key(7));
  EXPECT_TRUE(test::check_grads(
      [](const array& v) {
        return slice(v, array({1}, int32), {0}, {2, 3});
      },
      x));
}

TEST(MlxDynamicSlice, BadStartsAxesAndSizesThrow) {
  const array a = zeros({3, 4});
  auto expect_error = [&](const std::function<void()>& f, const std::string& part) {
    const std::string msg = error_of(f);
    EXPECT_NE(msg.find(part), std::string::npos) << msg;
  };
  expect_error([&] { slice(a, array({1.0f}), {0}, {1, 4}); }, "integer dtype");
  expect_error([&] { slice(a, array({true}), {0}, {1, 4}); }, "integer dtype");
  expect_error([&] { slice(a, array({1, 2}, int32), {0}, {1, 4}); }, "one start per axis");
  expect_error([&] { slice(a, array({1}, int32), {2}, {1, 4}); }, "Axis 2");
  expect_error([&] { slice(a, array({1}, int32), {0}, {4, 4}); }, "does not fit");
  expect_error([&] { slice(a, array({1}, int32), {0}, {1}); }, "one size per dimension");
  expect_error(
      [&] {
        slice_update(a, zeros({2, 5}), array({0}, int32), {0});
      },
      "cannot be broadcast");
}

TEST(MlxDynamicSliceUpdate, WritesAtTheStartAndBroadcastsAsMlx) {
  const array src = zeros({3, 4}, int32);
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    // A (2,) update at row 1, columns 1..2: the missing row dim takes size 1
    // because axis 0 is sliced.
    array out = slice_update(src, array({7, 8}, int32), array({1, 1}, int32), {0, 1}, d);
    expect_values(out, {0, 0, 0, 0, 0, 7, 8, 0, 0, 0, 0, 0}, 0.0, "two axes");
    // Axis 1 only: the update's missing row dim takes all 3 rows; start 3 is
    // clamped to 2 so the 2 columns fit.
    out = slice_update(src, array({5, 6}, int32), array(3), {1}, d);
    expect_values(out, {0, 0, 5, 6, 0, 0, 5, 6, 0, 0, 5, 6}, 0.0, "broadcast rows, clamped");
  }
  const array x = random::normal({3, 4}, float32, 0.0f, 1.0f, random::key(8));
  const array u = random::normal({2, 2}, float32, 0.0f, 1.0f, random::key(9));
  EXPECT_TRUE(test::check_grads(
      [](const std::vector<array>& in) {
        return std::vector<array>{slice_update(in[0], in[1], array({1, 2}, int32), {0, 1})};
      },
      {x, u}));
}

// ---- masked_scatter

TEST(MlxMaskedScatter, FillsTruePositionsInOrder) {
  const array a = reshape(astype(arange(6), float32), {2, 3});
  const array mask = array({true, false, true, false, true, true}, {2, 3});
  const array src = array({10, 20, 30, 40, 50}, int32);  // converted to float32
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    array out = masked_scatter(a, mask, src, d);
    EXPECT_EQ(out.dtype(), float32);
    expect_values(out, {10, 1, 20, 3, 30, 40}, 0.0, "masked_scatter");
    // A (3,) mask broadcasts over the rows: columns 0 and 2 of both rows.
    out = masked_scatter(a, array({true, false, true}), src, d);
    expect_values(out, {10, 1, 20, 30, 4, 40}, 0.0, "broadcast mask");
    // No true entry leaves a as it is.
    out = masked_scatter(a, array(false), src, d);
    expect_values(out, {0, 1, 2, 3, 4, 5}, 0.0, "no true entry");
  }
}

TEST(MlxMaskedScatter, GradientsAndErrors) {
  const array mask = array({true, false, false, true, true, false}, {3, 2});
  const array a = random::normal({3, 2}, float32, 0.0f, 1.0f, random::key(1));
  const array src = random::normal({4}, float32, 0.0f, 1.0f, random::key(2));
  EXPECT_TRUE(test::check_grads(
      [&](const std::vector<array>& in) {
        return std::vector<array>{masked_scatter(in[0], mask, in[1])};
      },
      {a, src}));
  std::string msg = error_of([&] { masked_scatter(a, array({1, 0, 1, 0, 1, 0}, {3, 2}), src); });
  EXPECT_NE(msg.find("expected bool"), std::string::npos) << msg;
  msg = error_of([&] { masked_scatter(a, array({true, false, true}), src); });
  EXPECT_NE(msg.find("[masked_scatter]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot be broadcast"), std::string::npos) << msg;
}

// ---- the remaining exception types and integer wrapping

TEST(MlxIndexingSemantics, ShapeOpAxesThrowOutOfRangeAsMlx) {
  const array a = zeros({2, 3});
  EXPECT_THROW(moveaxis(a, 2, 0), std::out_of_range);
  EXPECT_THROW(swapaxes(a, 0, -3), std::out_of_range);
  EXPECT_THROW(concatenate({a, a}, 2), std::out_of_range);
  EXPECT_THROW(stack({a, a}, 3), std::out_of_range);
  EXPECT_THROW(repeat(a, 2, -3), std::out_of_range);
}

TEST(MlxIndexingSemantics, Int64CumsumWrapsOnBothDevices) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  const array x = array({big, int64_t{1}, int64_t{1}});
  for (const Device& d : devices()) {
    SCOPED_TRACE(device_name(d));
    auto got = test_util::values_as<int64_t>(cumsum(x, 0, false, true, d));
    EXPECT_EQ(got, (std::vector<int64_t>{big, std::numeric_limits<int64_t>::min(),
                                         std::numeric_limits<int64_t>::min() + 1}));
  }
}

}  // namespace
