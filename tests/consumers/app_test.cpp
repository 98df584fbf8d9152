// The testing helpers from an installed package (mlx_lite::testing):
// GoogleTest with `using namespace mlx_lite;`, the AllClose matcher and
// EXPECT_ALLCLOSE against values worked out by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mlx_lite/mlx_lite.h"
#include "mlx_lite/testing.h"

using namespace mlx_lite;

TEST(Consumer, HelpersFromThePackage) {
  array x = array({0.0f, 1.0f});
  EXPECT_THAT(exp(x), test::AllClose(array({1.0f, 2.7182817f})));
  EXPECT_THAT(exp(x), testing::Not(test::AllClose(array({1.0f, 2.0f}))));
  EXPECT_ALLCLOSE(x * 2.0f, array({0.0f, 2.0f}));
}
