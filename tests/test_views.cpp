// Views share their input's buffer; copies happen only when a layout needs one.
#include <gtest/gtest.h>

#include <numeric>

#include "mlx_lite/mlx_lite.h"
#include "tests/test_util.h"

using namespace mlx_lite;
using test_util::values_as;

namespace {

bool shares_buffer(array a, array b) {
  eval({a, b});
  return a.data_shared_ptr() == b.data_shared_ptr();
}

array iota(const Shape& shape) {
  size_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return array(v.begin(), shape);
}

}  // namespace

TEST(Views, SliceWithStepsSharesBuffer) {
  array a = iota({4, 5});
  array s = slice(a, {1, 0}, {4, 5}, {2, 2});
  EXPECT_EQ(s.shape(), (Shape{2, 3}));
  EXPECT_EQ(values_as<int32_t>(s), (std::vector<int>{5, 7, 9, 15, 17, 19}));
  EXPECT_TRUE(shares_buffer(a, s));
  EXPECT_EQ(s.offset(), 5);
  EXPECT_EQ(s.strides(), (Strides{10, 2}));
}

TEST(Views, NegativeStepsWalkBackwards) {
  array a = iota({6});
  EXPECT_EQ(values_as<int32_t>(slice(a, {-1}, {-7}, {-1})), (std::vector<int>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(values_as<int32_t>(slice(a, {5}, {0}, {-2})), (std::vector<int>{5, 3, 1}));
  EXPECT_EQ(values_as<int32_t>(slice(a, {100}, {-100}, {-3})), (std::vector<int>{5, 2}));
  array m = iota({3, 4});
  array r = slice(m, {2, 3}, {-4, -5}, {-1, -1});  // m[::-1, ::-1]
  EXPECT_EQ(values_as<int32_t>(r), (std::vector<int>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_TRUE(shares_buffer(m, r));
  // A slice of a slice composes strides and offsets.
  EXPECT_EQ(values_as<int32_t>(slice(r, {0, 1}, {3, 4}, {2, 2})), (std::vector<int>{10, 8, 2, 0}));
}

TEST(Views, SliceClampsLikePythonAndAllowsEmpty) {
  array a = iota({5});
  EXPECT_EQ(values_as<int32_t>(slice(a, {-100}, {100})), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(slice(a, {3}, {1}).size(), 0u);
  EXPECT_EQ(slice(a, {1}, {3}, {-1}).size(), 0u);
}

TEST(Views, SliceBadBoundsThrow) {
  array a = iota({2, 3});
  EXPECT_THROW(slice(a, {0}, {1}), std::invalid_argument);
  EXPECT_THROW(slice(a, {0, 0}, {1, 1}, {1, 0}), std::invalid_argument);
  try {
    slice(a, {0, 0, 0}, {1, 1, 1});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(2,3)"), std::string::npos) << e.what();
  }
}

TEST(Views, LastAxisSelectionOfTheSeed) {
  // grid[..., 0] and grid[..., 1]: a strided view, no copy.
  array grid = iota({2, 3, 3, 2});
  array gx = reshape(slice(grid, {0, 0, 0, 0}, {2, 3, 3, 1}), {2, 3, 3});
  array gy = reshape(slice(grid, {0, 0, 0, 1}, {2, 3, 3, 2}), {2, 3, 3});
  EXPECT_TRUE(shares_buffer(grid, gx));
  EXPECT_TRUE(shares_buffer(grid, gy));
  std::vector<int> want_x, want_y;
  for (int i = 0; i < 18; ++i) {
    want_x.push_back(2 * i);
    want_y.push_back(2 * i + 1);
  }
  EXPECT_EQ(values_as<int32_t>(gx), want_x);
  EXPECT_EQ(values_as<int32_t>(gy), want_y);
}

TEST(Views, TransposeBroadcastExpandSqueezeShare) {
  array a = iota({2, 3});
  array t = transpose(a);
  EXPECT_EQ(values_as<int32_t>(t), (std::vector<int>{0, 3, 1, 4, 2, 5}));
  EXPECT_TRUE(shares_buffer(a, t));
  array b = broadcast_to(iota({3}), {2, 3});
  EXPECT_EQ(values_as<int32_t>(b), (std::vector<int>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(b.strides(), (Strides{0, 1}));
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  array e = expand_dims(a, 1);
  EXPECT_EQ(e.shape(), (Shape{2, 1, 3}));
  EXPECT_TRUE(shares_buffer(a, e));
  array q = squeeze(e);
  EXPECT_EQ(q.shape(), (Shape{2, 3}));
  EXPECT_TRUE(shares_buffer(a, q));
  EXPECT_THROW(broadcast_to(iota({3}), {2, 4}), std::invalid_argument);
  EXPECT_THROW(transpose(a, {0, 0}), std::invalid_argument);
  EXPECT_THROW(transpose(a, {0}), std::invalid_argument);
}

TEST(Views, ReshapeIsAViewWhenStridesAllowElseACopy) {
  array a = iota({4, 6});
  array r = reshape(a, {2, 2, 6});
  EXPECT_TRUE(shares_buffer(a, r));
  // Rows of a column-sliced array: merging (2,3) of a dense row block is fine.
  array s = slice(a, {0, 0}, {4, 6}, {2, 1});  // rows 0 and 2: strides (12, 1)
  array rs = reshape(s, {2, 2, 3});
  EXPECT_TRUE(shares_buffer(a, rs));
  EXPECT_EQ(values_as<int32_t>(rs), (std::vector<int>{0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17}));
  // Flattening a transpose cannot be a view: it copies.
  array t = transpose(a);
  array f = reshape(t, {24});
  EXPECT_FALSE(shares_buffer(a, f));
  EXPECT_EQ(values_as<int32_t>(f)[1], 6);
  EXPECT_EQ(values_as<int32_t>(f)[4], 1);
  // -1 infers a dimension.
  EXPECT_EQ(reshape(a, {-1, 8}).shape(), (Shape{3, 8}));
  EXPECT_THROW(reshape(a, {5, 5}), std::invalid_argument);
  EXPECT_THROW(reshape(a, {-1, -1}), std::invalid_argument);
  EXPECT_THROW(reshape(a, {-1, 7}), std::invalid_argument);
}

TEST(Views, ContiguousCopiesOnlyWhenNeeded) {
  array a = iota({3, 4});
  EXPECT_TRUE(contiguous(a).is_same(a));  // already row-contiguous: the same array
  array row_block = slice(a, {1, 0}, {3, 4});
  EXPECT_TRUE(shares_buffer(contiguous(row_block), a));
  array t = transpose(a);
  array c = contiguous(t);
  EXPECT_FALSE(shares_buffer(c, a));
  EXPECT_TRUE(c.flags().row_contiguous);
  EXPECT_EQ(values_as<int32_t>(c), values_as<int32_t>(t));
  EXPECT_TRUE(shares_buffer(contiguous(t, /*allow_col_major=*/true), a));
  array b = broadcast_to(iota({4}), {3, 4});
  array cb = contiguous(b);
  EXPECT_FALSE(shares_buffer(cb, b));
  EXPECT_EQ(values_as<int32_t>(cb), values_as<int32_t>(b));
  EXPECT_FALSE(shares_buffer(copy(a), a));
}

TEST(Views, OpsReadViewsWithoutCopying) {
  array a = iota({3, 4});
  size_t before = get_active_memory();
  array t = transpose(a);
  array s = slice(t, {3, 2}, {-5, -4}, {-1, -2});  // t[::-1, ::-2]
  eval(s);
  EXPECT_EQ(get_active_memory(), before);  // views allocate nothing
  array sum_view = s + s;
  EXPECT_EQ(values_as<int32_t>(sum_view), (std::vector<int>{22, 6, 20, 4, 18, 2, 16, 0}));
}
