#include <gtest/gtest.h>

#include <sstream>

#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

TEST(Array, ScalarConstruction) {
  array a(3.5f);
  EXPECT_EQ(a.ndim(), 0);
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(a.dtype(), float32);
  EXPECT_EQ(a.item<float>(), 3.5f);
  EXPECT_EQ(array(7).dtype(), int32);
  EXPECT_EQ(array(true).dtype(), bool_);
  EXPECT_EQ(array(2.0, float16).item<float>(), 2.0f);
}
