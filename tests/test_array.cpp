// The array type: construction, metadata, item/data, flags and printing.
#include <gtest/gtest.h>

#include <sstream>

#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {
std::string str(const array& a) {
  std::ostringstream os;
  os << a;
  return os.str();
}
}  // namespace

TEST(Array, ScalarConstruction) {
  array a(3.5f);
  EXPECT_EQ(a.ndim(), 0);
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(a.dtype(), float32);
  EXPECT_EQ(a.item<float>(), 3.5f);
  EXPECT_EQ(array(7).dtype(), int32);
  EXPECT_EQ(array(int64_t{7}).dtype(), int64);
  EXPECT_EQ(array(true).dtype(), bool_);
  EXPECT_EQ(array(2.0, float16).dtype(), float16);
  EXPECT_EQ(static_cast<float>(array(2.0, float16).item<float16_t>()), 2.0f);
  EXPECT_EQ(array(300, uint8).item<uint8_t>(), 300 % 256);
}

TEST(Array, InitializerListAndShape) {
  array a({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  EXPECT_EQ(a.strides(), (Strides{3, 1}));
  EXPECT_EQ(a.dtype(), int32);
  EXPECT_EQ(a.size(), 6u);
  EXPECT_EQ(a.nbytes(), 24u);
  EXPECT_EQ(a.itemsize(), 4u);
  EXPECT_EQ(a.shape(-1), 3);
  EXPECT_EQ(a.strides(0), 3);
  EXPECT_EQ(a.data<int32_t>()[4], 5);

  array f{1.5f, 2.5f};
  EXPECT_EQ(f.shape(), (Shape{2}));
  EXPECT_EQ(f.dtype(), float32);
  array i({1, 2, 3}, float16);
  EXPECT_EQ(i.dtype(), float16);
  EXPECT_EQ(i.data<float16_t>()[2], float16_t(3.0f));

  EXPECT_THROW(array({1, 2, 3}, Shape{2, 2}), std::invalid_argument);
  // std::out_of_range, as MLX's shape().at() throws.
  EXPECT_THROW(a.shape(2), std::out_of_range);
}

TEST(Array, FromIteratorConvertsToDtype) {
  std::vector<double> v = {0.5, 1.5, -2.25, 4.0};
  array a(v.begin(), {2, 2});
  EXPECT_EQ(a.dtype(), float32);
  EXPECT_FLOAT_EQ(a.data<float>()[2], -2.25f);
  array b(v.begin(), {4}, int32);
  EXPECT_EQ(b.data<int32_t>()[1], 1);
  EXPECT_EQ(b.data<int32_t>()[2], -2);
  std::vector<bool> flags = {true, false, true};
  array c(flags.begin(), {3});
  EXPECT_EQ(c.dtype(), bool_);
  EXPECT_TRUE(c.data<bool>()[2]);
  EXPECT_FALSE(c.data<bool>()[1]);
}

TEST(Array, ItemOfNonScalarThrows) {
  array a({1.0f, 2.0f});
  try {
    a.item<float>();
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(2,)"), std::string::npos) << e.what();
  }
  // A one-element array of any rank is fine.
  EXPECT_EQ(array({5}, Shape{1, 1}).item<int>(), 5);
}

TEST(Array, DataOfWrongTypeThrows) {
  array a({1.0f, 2.0f});
  EXPECT_THROW(a.data<int64_t>(), std::invalid_argument);
  EXPECT_THROW(a.data<float16_t>(), std::invalid_argument);
}

TEST(Array, Float16AndBfloat16Conversions) {
  // Values exactly representable round-trip; others round to nearest even.
  EXPECT_EQ(float(float16_t(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(float(float16_t(65520.0f))));
  EXPECT_EQ(float(float16_t(1.0f / 3.0f)), 0.333251953125f);
  EXPECT_EQ(float(float16_t(5.960464477539063e-08f)),
            5.960464477539063e-08f);                           // smallest subnormal
  EXPECT_EQ(float(float16_t(2.9802322387695312e-08f)), 0.0f);  // a tie rounds to even (zero)
  EXPECT_TRUE(std::isnan(float(float16_t(NAN))));
  EXPECT_EQ(float(bfloat16_t(1.0f / 3.0f)), 0.333984375f);
  EXPECT_EQ(float(bfloat16_t(-2.5f)), -2.5f);
  EXPECT_TRUE(std::isnan(float(bfloat16_t(NAN))));
}

TEST(Array, PromoteTypesFollowsMlx) {
  EXPECT_EQ(promote_types(bool_, int32), int32);
  EXPECT_EQ(promote_types(uint8, int32), int32);
  EXPECT_EQ(promote_types(uint32, int32), int64);
  EXPECT_EQ(promote_types(uint8, uint32), uint32);
  EXPECT_EQ(promote_types(int64, float16), float16);
  EXPECT_EQ(promote_types(float16, bfloat16), float32);
  EXPECT_EQ(promote_types(bfloat16, float32), float32);
  for (auto t : all_dtypes) {
    EXPECT_EQ(promote_types(t, t), t);
    for (auto u : all_dtypes) EXPECT_EQ(promote_types(t, u), promote_types(u, t));
  }
  EXPECT_TRUE(issubdtype(float16, floating));
  EXPECT_TRUE(issubdtype(uint32, integer));
  EXPECT_FALSE(issubdtype(bool_, number));
}

TEST(Array, Flags) {
  array a = reshape(arange(12), {3, 4});
  a.eval();
  EXPECT_TRUE(a.flags().row_contiguous);
  EXPECT_FALSE(a.flags().col_contiguous);
  EXPECT_TRUE(a.flags().contiguous);
  array t = transpose(a);
  t.eval();
  EXPECT_FALSE(t.flags().row_contiguous);
  EXPECT_TRUE(t.flags().col_contiguous);
  EXPECT_TRUE(t.flags().contiguous);
  array s = slice(a, {0, 0}, {3, 4}, {1, 2});
  s.eval();
  EXPECT_FALSE(s.flags().contiguous);
  array p = transpose(reshape(arange(24), {2, 3, 4}), {1, 0, 2});
  p.eval();
  EXPECT_FALSE(p.flags().row_contiguous);
  EXPECT_FALSE(p.flags().col_contiguous);
  EXPECT_TRUE(p.flags().contiguous);
}

TEST(Array, PrintsLikeMlx) {
  EXPECT_EQ(str(array({1, 2, 3, 4}, {2, 2})), "array([[1, 2],\n       [3, 4]], dtype=int32)");
  EXPECT_EQ(str(array(1.5f)), "array(1.5, dtype=float32)");
  EXPECT_EQ(str(array({true, false})), "array([true, false], dtype=bool)");
  EXPECT_EQ(str(array({1, 2}, uint8)), "array([1, 2], dtype=uint8)");
  EXPECT_EQ(str(array({0.5f, 2.0f}, float16)), "array([0.5, 2], dtype=float16)");
  EXPECT_EQ(str(zeros({0})), "array([], dtype=float32)");
  // Long axes elide their middle, at every depth.
  EXPECT_EQ(str(arange(10)), "array([0, 1, 2, ..., 7, 8, 9], dtype=int32)");
  std::string big = str(reshape(arange(8 * 8), {8, 8}));
  EXPECT_NE(
      big.find("[16, 17, 18, ..., 21, 22, 23],\n       ...,\n       [40, 41, 42, ..., 45, 46, "
               "47],"),
      std::string::npos)
      << big;
  // Views print their logical order.
  EXPECT_EQ(str(transpose(array({1, 2, 3, 4}, {2, 2}))),
            "array([[1, 3],\n       [2, 4]], dtype=int32)");
  EXPECT_EQ(str(slice(arange(5), {4}, {-6}, {-2})), "array([4, 2, 0], dtype=int32)");
}

TEST(Array, ShapeStringInMessages) {
  std::ostringstream os;
  os << Shape{2, 3};
  EXPECT_EQ(os.str(), "(2,3)");
}
